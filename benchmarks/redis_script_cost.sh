#!/usr/bin/env bash
# Redis' own time per call of the counts script (INFO commandstats usec_per_call), one sliding limit and two, on one
# redis-server: the script of a given commit as EVALSHA, this tree's script as EVALSHA, and this tree's function
# library as FCALL (Redis 7); and, beside them, what Bucket4j's compare-and-swap proxy (Lettuce's and Jedis' alike)
# costs Redis per request: a GET of the bucket's state, then EVAL of its compare-and-set script (GET, PSETEX), with
# a state of the size its bucket keeps (one bandwidth, and two for two limits; Bucket4j keeps every limit of a bucket
# in one value, so the second costs it only bytes). Each is the minimum of RUNS runs of CALLS calls from
# redis-benchmark (one connection).
#
#   benchmarks/redis_script_cost.sh [before-commit] [runs] [calls]
#   e.g. benchmarks/redis_script_cost.sh 54d126e 5 10000
#
# Needs redis-server (7 or later, for FCALL), redis-cli, redis-benchmark and taskset on the PATH. Redis runs on
# core 0 (as in rounds.py) on a port of its own in a temporary folder, and is stopped at the end.
set -euo pipefail
BEFORE=${1:-54d126e}
RUNS=${2:-5}
CALLS=${3:-10000}
SCRIPT=ratelimit-redis/src/main/resources/dev/ratelimit/redis/internal/counts.lua
cd "$(git rev-parse --show-toplevel)"
DIR=$(mktemp -d)
trap 'redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
# a port free now; if another process takes it first, redis-server fails to start and so does this script
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
taskset -c 0 redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$DIR" --daemonize yes \
    --logfile "$DIR/redis.log" >/dev/null
for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
cli() { redis-cli -p "$PORT" "$@"; }
# ARGV: acquire, the server's clock, no padding, no channel, no delay; one sliding limit far out of reach
ARGS=(a '' 0 '' 0 sa 100000000 7500000 1 0 '')
KEY='ratelimit:{9:bench-key}module'
# two limits of one request, both windows (a sliding one of a minute, a strict one of an hour), in one slot
ARGS2=(a '' 0 '' 0 sa 100000000 7500000 1 0 '' ta 100000000 450000000 1 0 '')
KEY2='ratelimit:{9:bench-key}second'
# Bucket4j: its compare-and-set script (io.github.bucket4j.redis.consts.LuaScripts), and a state of one bandwidth
# (about 70 bytes: RemoteBucketState's serial form) and of two
CAS="if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('psetex', KEYS[1], ARGV[3], ARGV[2]); return 1; else return 0; end"
B4J_KEY='bucket4j:bench-key'
STATE1=$(python3 -c "print('x' * 70)")
STATE2=$(python3 -c "print('x' * 110)")

git show "$BEFORE:$SCRIPT" > "$DIR/before.lua"
OLD=$(cli SCRIPT LOAD "$(cat "$DIR/before.lua")")
NEW=$(cli SCRIPT LOAD "$(cat "$SCRIPT")")
# the library: the script with its last line (return run(KEYS, ARGV)) replaced by the registration (RedisScript)
{ echo '#!lua name=ratelimit_bench'; sed '$d' "$SCRIPT"; echo "redis.register_function('ratelimit_bench', run)"; } \
    > "$DIR/library.lua"
cli FUNCTION LOAD REPLACE "$(cat "$DIR/library.lua")" >/dev/null

cost() { # prints the lowest usec_per_call of RUNS runs of the command
    local best=
    for _ in $(seq "$RUNS"); do
        cli CONFIG RESETSTAT >/dev/null
        cli DEL "$KEY" "$KEY2" >/dev/null
        redis-benchmark -p "$PORT" -n "$CALLS" -c 1 -q "$@" >/dev/null
        local us
        us=$(cli INFO commandstats | tr -d '\r' | grep "^cmdstat_$(echo "$1" | tr 'A-Z' 'a-z'):" \
            | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/')
        best=$(python3 -c "print(min(float('$us'), float('${best:-$us}')))")
    done
    echo "$best"
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "before ($BEFORE) EVALSHA: $(cost EVALSHA "$OLD" 1 "$KEY" "${ARGS[@]}") us per call"
echo "this tree EVALSHA:       $(cost EVALSHA "$NEW" 1 "$KEY" "${ARGS[@]}") us per call"
echo "this tree FCALL:         $(cost FCALL ratelimit_bench 1 "$KEY" "${ARGS[@]}") us per call"
echo "two limits:"
echo "before ($BEFORE) EVALSHA: $(cost EVALSHA "$OLD" 2 "$KEY" "$KEY2" "${ARGS2[@]}") us per call"
echo "this tree EVALSHA:       $(cost EVALSHA "$NEW" 2 "$KEY" "$KEY2" "${ARGS2[@]}") us per call"
echo "this tree FCALL:         $(cost FCALL ratelimit_bench 2 "$KEY" "$KEY2" "${ARGS2[@]}") us per call"
bucket4j() { # GET, then EVAL of the compare-and-set, for a state of $1
    cli SET "$B4J_KEY" "$1" >/dev/null
    local get eval
    get=$(cost GET "$B4J_KEY")
    eval=$(cost EVAL "$CAS" 1 "$B4J_KEY" "$1" "$1" 60000)
    python3 -c "print(f'{$get + $eval:.2f} us per request (GET {$get}, EVAL {$eval})')"
}
echo "Bucket4j, one limit:     $(bucket4j "$STATE1")"
echo "Bucket4j, two limits:    $(bucket4j "$STATE2")"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
