#!/bin/bash
# JFR profile of the example jar under wrk load: where the server's CPU and allocations go.
#   bash benchmarks/http/profile.sh on|off|redis OUT.jfr [seconds-of-warm-up] [seconds-recorded]
#   bash benchmarks/http/profile.sh quarkus:APP OUT.jfr ...   (an app of benchmarks/quarkus, GET /item/1)
# The server pinned to core 0, wrk to core 1, 5 000 rotating X-Api-Key values, every limit out of reach
# (as rounds.py); the recording starts after the warm-up. Then: python3 benchmarks/http/jfr_summary.py OUT.jfr
# "redis" expects a Redis on 127.0.0.1:$REDIS_PORT (default 6390). JFR_SETTINGS picks another JFR configuration
# than "profile" (10 ms between samples): a copy of profile.jfc with 1 ms gives ten times the samples.
set -euo pipefail
variant=$1; out=$2; warm=${3:-45}; rec=${4:-30}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
props=(-Dratelimit.limits.module.permit-limit=100000000)
jar=examples/todos/target/todos.jar
path=/todos/1
case $variant in
  off) props+=(-Dratelimit.enabled=false) ;;
  redis) props+=(-Dratelimit.redis.uri=redis://127.0.0.1:${REDIS_PORT:-6390}) ;;
  quarkus:*) jar=benchmarks/quarkus/${variant#quarkus:}/target/quarkus-app/quarkus-run.jar; path=/item/1
             props+=(-Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port=$port) ;;
esac
PORT=$port taskset -c 0 java -XX:FlightRecorderOptions:stackdepth=256 \
  -XX:StartFlightRecording:settings=${JFR_SETTINGS:-profile},delay=${warm}s,duration=${rec}s,filename=$out \
  "${props[@]}" -jar $jar > /tmp/profile-${variant/:/-}.log 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for i in $(seq 1 300); do curl -sf -o /dev/null -H 'X-Api-Key: probe' http://127.0.0.1:$port$path && break; sleep 0.2; done
WRK_KEYS=5000 WRK_MODE=key WRK_PATH=$path taskset -c 1 wrk -t1 -c16 -d$((warm + rec + 3))s \
  -s "$(dirname "$0")/rotate.lua" http://127.0.0.1:$port$path
sleep 2
kill $pid; wait $pid 2>/dev/null || true
ls -la "$out"
