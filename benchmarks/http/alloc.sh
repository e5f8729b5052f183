#!/bin/bash
# Bytes a server allocates per request under wrk, from its collection log: a collection forced (jcmd GC.run) before
# and after a measured run, and what the heap grew by between every two collections in between, divided by the
# requests wrk completed. Steadier than throughput on a shared machine (requests/s move by 10% from round to round).
#   bash benchmarks/http/alloc.sh NAME JAR PATH [PORT]
#   e.g. bash benchmarks/http/alloc.sh ratelimit benchmarks/quarkus/ratelimit/target/quarkus-app/quarkus-run.jar /item/1
# The server pinned to core 0 (so the Serial collector), wrk to core 1, 5 000 rotating X-Api-Key values (as
# rounds.py): 20 s of warm-up, then 15 s measured. The server listens on PORT (Quarkus: quarkus.http.port; the
# embedded example: the PORT variable).
set -euo pipefail
name=$1; jar=$2; path=$3; port=${4:-18091}
gclog=$(mktemp); out=$(mktemp)
PORT=$port taskset -c 0 java -Xlog:gc:file=$gclog -Dquarkus.http.port=$port \
  -Dratelimit.limits.module.permit-limit=100000000 -jar "$jar" > /dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f $gclog $out' EXIT
for i in $(seq 1 150); do curl -sf -o /dev/null -H 'X-Api-Key: probe' http://127.0.0.1:$port$path && break; sleep 0.2; done
run() { WRK_KEYS=5000 WRK_MODE=key WRK_PATH=$path taskset -c 1 wrk -t1 -c16 -d$1s \
  -s "$(dirname "$0")/rotate.lua" http://127.0.0.1:$port$path; }
run 20 > /dev/null
jcmd $pid GC.run > /dev/null
sleep 0.5
start=$(($(wc -l < $gclog) - 1))
run 15 > $out
jcmd $pid GC.run > /dev/null
sleep 0.5
requests=$(grep "requests in" $out | awk '{print $1}')
tail -n +$((start + 1)) $gclog | python3 -c "
import re, sys
prev, grown, collections = None, 0, 0
for line in sys.stdin:
    m = re.search(r'Pause (?:Young|Full).* (\d+)M->(\d+)M', line)
    if m:
        before, after = int(m.group(1)), int(m.group(2))
        if prev is not None:
            grown += before - prev
            collections += 1
        prev = after
print(f'$name: {round(grown * 1048576 / $requests)} bytes/request ({collections} collections, {grown} MiB, $requests requests)')
"
