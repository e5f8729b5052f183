#!/usr/bin/env bash
# Redis' own time per call of the counts script (INFO commandstats usec_per_call), one sliding limit, on one
# redis-server: the script of a given commit as EVALSHA, this tree's script as EVALSHA, and this tree's function
# library as FCALL (Redis 7). Each is the minimum of RUNS runs of CALLS calls from redis-benchmark (one connection).
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
        cli DEL "$KEY" >/dev/null
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
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
