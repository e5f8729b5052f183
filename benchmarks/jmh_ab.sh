#!/bin/bash
# Two builds of the benchmarks side by side, for a change too small to show in one run on a shared machine.
#
#   bash benchmarks/jmh_ab.sh ROUNDS BEFORE.jar AFTER.jar Class.method [Class.method ...]
#
# Each round runs, in a rotated order, every benchmark once per jar (its own fork, the annotations' warm-up and
# measurement, -prof gc), and Bucket4j synchronized of each benchmark's class once, from BEFORE.jar (the reference
# of the ratios). One line per run: round, jar, benchmark, ns/op, B/op, load average.
set -euo pipefail
rounds=$1 before=$2 after=$3
shift 3
items=()
for bench in "$@"; do
  reference="${bench%%.*}.bucket4j_synchronized"
  [[ " ${items[*]-} " == *" $before $reference "* ]] || items+=("$before $reference")
  items+=("$before $bench" "$after $bench")
done
csv=$(mktemp --suffix=.csv)
trap 'rm -f "$csv"' EXIT
n=${#items[@]}
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    item=${items[$(((k + r) % n))]}
    jar=${item% *} bench=${item#* }
    java -jar "$jar" "^dev.ratelimit.benchmarks.inprocess.$bench\$" -prof gc -rf csv -rff "$csv" > /dev/null 2>&1
    score=$(grep -E "$bench\"|gc.alloc.rate.norm\"" "$csv" | awk -F, '{printf "%s ", $5}')
    echo "round $r $(basename "$jar") $bench $score load=$(cut -d' ' -f1 /proc/loadavg)"
  done
done
