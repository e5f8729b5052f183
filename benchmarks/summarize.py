#!/usr/bin/env python3
"""Turns a JMH JSON result file of this module into the Markdown tables of RESULTS.md.

    python3 benchmarks/summarize.py benchmarks/results/results.json [more.json ...]

A run in a later file replaces the same benchmark's run in an earlier one.

Only the standard library; prints to standard output.
"""
import json
import sys


def load(paths):
    runs = []
    for path in paths:  # a later file's run replaces an earlier one's
        with open(path) as f:
            runs.extend(json.load(f))
    table = {}
    for run in runs:
        cls, method = run["benchmark"].split(".")[-2:]
        table[(cls, method, run["mode"])] = run
    return table


def primary(run):
    m = run["primaryMetric"]
    return m["score"], m.get("scoreError"), m["scoreUnit"]


def secondary(run, name):
    m = run.get("secondaryMetrics", {}).get(name)
    return None if m is None else m["score"]


def fmt(x, digits=1):
    if x is None or x != x:  # None or NaN
        return "n/a"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def err(e):
    return "" if e is None or e != e else f" ± {fmt(e)}"


def in_process(t):
    print("### In process, allowed path (ns/op: lower is better)\n")
    print("| scenario | implementation | ns/op (wall) | ns/op (CPU) | B/op |")
    print("|---|---|---:|---:|---:|")
    for cls in ["Clocks", "HotKey1Thread", "HotKey2Threads", "UniformKeys", "TwoLimits"]:
        for (c, method, mode), run in sorted(t.items()):
            if c != cls or mode != "avgt":
                continue
            score, e, _ = primary(run)
            print(f"| {cls} | `{method}` | {fmt(score)}{err(e)} | {fmt(secondary(run, 'cpu.time.norm'))} "
                  f"| {fmt(secondary(run, 'gc.alloc.rate.norm'), 0)} |")
    print()
    print("Ratios, ours / Bucket4j synchronized (target <= 0.80):\n")
    print("| scenario | ours | wall ratio | CPU ratio |")
    print("|---|---|---:|---:|")
    for cls in ["HotKey1Thread", "HotKey2Threads", "UniformKeys"]:
        base = t.get((cls, "bucket4j_synchronized", "avgt"))
        for ours in ["ratelimit_tryAcquire", "ratelimit_decide", "ratelimit_acquireSpi"]:
            run = t.get((cls, ours, "avgt"))
            if run is None or base is None:
                continue
            wall = primary(run)[0] / primary(base)[0]
            cpu_ours, cpu_base = secondary(run, "cpu.time.norm"), secondary(base, "cpu.time.norm")
            cpu = cpu_ours / cpu_base if cpu_ours and cpu_base else None
            print(f"| {cls} | `{ours}` | {fmt(wall, 2)} | {fmt(cpu, 2)} |")
    print()


def memory(t):
    print("### Memory (retained bytes, JOL)\n")
    print("| implementation | per limiter alone | per key, in a map with its key |")
    print("|---|---:|---:|")
    names = sorted({m.rsplit("_", 1)[0] for (c, m, _) in t if c == "Footprint"})
    for name in names:
        alone = t.get(("Footprint", name + "_limiter", "ss"))
        in_map = t.get(("Footprint", name + "_perKeyInMap", "ss"))
        print(f"| `{name}` | {fmt(secondary(alone, 'bytesPerLimiter') if alone else None)} "
              f"| {fmt(secondary(in_map, 'bytesPerLimiter') if in_map else None)} |")
    run = t.get(("MillionPartitions", "ratelimit_inProcessStore", "ss"))
    if run:
        print()
        print(f"One million distinct partitions, max-tracked-partitions 10 000: tracked counts "
              f"{fmt(secondary(run, 'trackedCounts'))}, store retained {fmt(secondary(run, 'storeRetainedBytes'))} B "
              f"(JOL), heap growth after GC {fmt(secondary(run, 'heapGrowthBytes'))} B, "
              f"{fmt(primary(run)[0])} ms for the million acquires.")
    print()


def percentile(run, p):
    return run["primaryMetric"].get("scorePercentiles", {}).get(p)


def pair(t, through, latency, a, b, label_a, label_b):
    rows = []
    for method, label in [(a, label_a), (b, label_b)]:
        thr = t.get((through, method, "thrpt"))
        lat = t.get((latency, method, "sample"))
        rows.append((label, method, thr, lat))
    print("| variant | ops/s | p50 (us) | p99 (us) | B/op |")
    print("|---|---:|---:|---:|---:|")
    for label, method, thr, lat in rows:
        score, e, _ = primary(thr) if thr else (None, None, None)
        print(f"| {label} (`{method}`) | {fmt(score)}{err(e)} | {fmt(percentile(lat, '50.0') if lat else None)} "
              f"| {fmt(percentile(lat, '99.0') if lat else None)} | {fmt(secondary(thr, 'gc.alloc.rate.norm') if thr else None, 0)} |")
    (_, _, thr_a, _), (_, _, thr_b, _) = rows
    if thr_a and thr_b:
        print(f"\nThroughput ratio {label_a} / {label_b}: {primary(thr_a)[0] / primary(thr_b)[0]:.2f}")
    print()


def main(paths):
    t = load(paths)
    in_process(t)
    memory(t)
    print("### HTTP: GET /todos/1 over loopback\n")
    pair(t, "TodoByIdThroughput", "TodoByIdLatency", "ratelimit_on", "ratelimit_off", "limits on", "ratelimit off")
    print("### Redis: one hot key, 8 client threads\n")
    pair(t, "RedisHotKeyThroughput", "RedisHotKeyLatency", "ratelimit_redisStore", "bucket4j_lettuceCas",
         "ours", "Bucket4j Lettuce CAS")
    for method in ["ratelimit_redisStore", "bucket4j_lettuceCas"]:
        run = t.get(("RedisCommands", method, "ss"))
        if run:
            print(f"- `{method}`: {fmt(secondary(run, 'commandsPerAcquire'), 2)} Redis commands per acquire")


if __name__ == "__main__":
    main(sys.argv[1:] or ["benchmarks/results/results.json"])
