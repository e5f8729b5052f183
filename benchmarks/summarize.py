#!/usr/bin/env python3
"""Turns the result files of this module into the Markdown tables of RESULTS.md.

    python3 benchmarks/summarize.py benchmarks/results/*.json

JMH JSON files (a list of runs) and the HTTP files of benchmarks/http/rounds.py (an object with "rounds")
may be mixed; a JMH run in a later file replaces the same benchmark's run in an earlier one. Ratios are only
ever taken between figures of one file (one run, side by side).

Only the standard library; prints to standard output.
"""
import json
import statistics
import sys


experiments = []


def experiment():
    """experiment-*.json: the same benchmark on the library as it is and as modified, alternated fork by fork."""
    if not experiments:
        return
    table = {}
    for run in experiments:
        e = run["experiment"]
        table.setdefault((e["variant"], run["benchmark"].split(".")[-1]), []).append(primary(run)[0])
    print("### Experiment: " + experiments[0]["experiment"]["what"] + "\n")
    print("| variant | benchmark | ns/op per fork | median |")
    print("|---|---|---|---:|")
    for (variant, bench), values in sorted(table.items()):
        print(f"| {variant} | `{bench}` | {', '.join(fmt(v) for v in values)} | {fmt(statistics.median(values))} |")
    print()


def load(paths):
    jmh, http, rounds = {}, [], []
    global experiments
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        if isinstance(data, dict):
            data["file"] = path
            http.append(data)
            continue
        for run in data:
            if "experiment" in run:  # a modified library on the class path: never mixed with the real runs
                run["file"] = path
                experiments.append(run)
                continue
            if "round" in run:  # jmh_rounds.py: kept apart, compared within each round
                run["file"] = path
                rounds.append(run)
                continue
            cls, method = run["benchmark"].split(".")[-2:]
            params = run.get("params") or {}
            key = (cls, method + ("" if not params else "[" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + "]"),
                   run["mode"])
            run["file"] = path
            jmh[key] = run
    return jmh, http, rounds


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


def ratio(a, b):
    return None if a is None or b is None or not b else a / b


IN_PROCESS = ["Clocks", "HotKey1Thread", "HotKey2Threads", "UniformKeys", "TwoLimits", "Algorithms", "Permits", "Metrics"]


def in_process(t):
    print("### In process, allowed path (ns/op: lower is better)\n")
    print("| scenario | implementation | ns/op (wall) | ns/op (CPU) | B/op |")
    print("|---|---|---:|---:|---:|")
    for cls in IN_PROCESS:
        for (c, method, mode), run in sorted(t.items()):
            if c != cls or mode != "avgt":
                continue
            score, e, _ = primary(run)
            print(f"| {cls} | `{method}` | {fmt(score)}{err(e)} | {fmt(secondary(run, 'cpu.time.norm'))} "
                  f"| {fmt(secondary(run, 'gc.alloc.rate.norm'), 0)} |")
    print()
    print("Ratios to Bucket4j synchronized in the same scenario (targets: single limit <= 0.80, two limits <= 1.00):\n")
    print("| scenario | ours | wall ratio | CPU ratio |")
    print("|---|---|---:|---:|")
    for cls in ["HotKey1Thread", "HotKey2Threads", "UniformKeys", "TwoLimits", "Algorithms"]:
        base = t.get((cls, "bucket4j_synchronized", "avgt"))
        if base is None:
            continue
        for (c, method, mode), run in sorted(t.items()):
            if c != cls or mode != "avgt" or not method.startswith("ratelimit_") or "Ledger" in method:
                continue
            wall = ratio(primary(run)[0], primary(base)[0])
            cpu = ratio(secondary(run, "cpu.time.norm"), secondary(base, "cpu.time.norm"))
            print(f"| {cls} | `{method}` | {fmt(wall, 2)} | {fmt(cpu, 2)} |")
    print()
    algorithms(t)
    permits(t)
    metrics(t)


def algorithms(t):
    rows = []
    for path in ["storeDecide", "engineDecideNow"]:
        sliding = t.get(("Algorithms", f"ratelimit_{path}_sliding", "avgt"))
        for algorithm in ["strict", "tokenBucket"]:
            run = t.get(("Algorithms", f"ratelimit_{path}_{algorithm}", "avgt"))
            if sliding and run:
                rows.append((path, algorithm, ratio(primary(run)[0], primary(sliding)[0]),
                             ratio(secondary(run, "cpu.time.norm"), secondary(sliding, "cpu.time.norm"))))
    if rows:
        print("Per algorithm, to the sliding window on the same path (target: <= 1.00, no slower):\n")
        print("| path | algorithm | wall ratio to sliding | CPU ratio to sliding |")
        print("|---|---|---:|---:|")
        for path, algorithm, wall, cpu in rows:
            print(f"| `{path}` | {algorithm} | {fmt(wall, 2)} | {fmt(cpu, 2)} |")
        print()


def permits(t):
    rows = []
    for method in ["ratelimit_storeDecide_sliding", "ratelimit_storeDecide_tokenBucket",
                   "ratelimit_spendNow_sliding", "ratelimit_spendNow_tokenBucket"]:
        one = t.get(("Permits", f"{method}[permits=1]", "avgt"))
        twenty = t.get(("Permits", f"{method}[permits=20]", "avgt"))
        if one and twenty:
            rows.append((method, primary(one)[0], primary(twenty)[0], secondary(one, "gc.alloc.rate.norm"),
                         secondary(twenty, "gc.alloc.rate.norm")))
    if rows:
        print("N permits on the same path (target: N = 20 costs what N = 1 does):\n")
        print("| path | N=1 ns/op | N=20 ns/op | ratio | N=1 B/op | N=20 B/op |")
        print("|---|---:|---:|---:|---:|---:|")
        for method, one, twenty, b1, b20 in rows:
            print(f"| `{method}` | {fmt(one)} | {fmt(twenty)} | {fmt(twenty / one, 2)} | {fmt(b1, 0)} | {fmt(b20, 0)} |")
        print()
        ledger = t.get(("Permits", "ratelimit_ledger[permits=1]", "avgt"))
        if ledger:
            lb = secondary(ledger, "gc.alloc.rate.norm")
            print(f"The request's ledger alone (`ratelimit_ledger`): {fmt(primary(ledger)[0])} ns/op, {fmt(lb, 0)} B/op; "
                  "what the programmatic call adds on top (`spendNow` minus the ledger):\n")
            for method, one, twenty, b1, b20 in rows:
                if "spendNow" in method:
                    print(f"- `{method}`: {fmt(one - primary(ledger)[0])} ns, {fmt(b1 - lb, 0)} B per call (N = 1)")
            print()


def metrics(t):
    base = t.get(("Metrics", "ratelimit_noMetrics", "avgt"))
    if not base:
        return
    print("Metrics, the request path with and without recording (same run):\n")
    print("| metrics | ns/op | added ns | B/op | added B |")
    print("|---|---:|---:|---:|---:|")
    for method in ["ratelimit_noMetrics", "ratelimit_micrometer", "ratelimit_openTelemetry"]:
        run = t.get(("Metrics", method, "avgt"))
        if run:
            ns, b = primary(run)[0], secondary(run, "gc.alloc.rate.norm")
            print(f"| `{method}` | {fmt(ns)} | {fmt(ns - primary(base)[0])} | {fmt(b, 0)} "
                  f"| {fmt(b - secondary(base, 'gc.alloc.rate.norm'), 0)} |")
    print()


def memory(t):
    rows = [(m, run) for (c, m, _), run in sorted(t.items()) if c == "Footprint"]
    if rows:
        print("### Memory (retained bytes, JOL)\n")
        print("| what | bytes |")
        print("|---|---:|")
        for method, run in rows:
            print(f"| `{method.split('[')[0]}` | {fmt(secondary(run, 'bytesPerLimiter'))} |")
        print()
        get = lambda name: next((secondary(r, "bytesPerLimiter") for m, r in rows if m.split("[")[0] == name), None)
        sliding, bucket = get("ratelimit_slidingCount_limiter"), get("ratelimit_tokenBucketCount_limiter")
        if sliding and bucket:
            print(f"Token-bucket count / sliding count: {fmt(bucket, 0)} / {fmt(sliding, 0)} B = "
                  f"**{fmt(bucket / sliding, 2)}** (target <= 0.50)\n")
    for (c, m, _), run in sorted(t.items()):
        if c == "MillionPartitions":
            print(f"One million distinct partitions, max-tracked-partitions 10 000: tracked counts "
                  f"{fmt(secondary(run, 'trackedCounts'), 0)}, store retained {fmt(secondary(run, 'storeRetainedBytes'), 0)} B "
                  f"(JOL), heap growth after GC {fmt(secondary(run, 'heapGrowthBytes'), 0)} B, "
                  f"{fmt(primary(run)[0], 0)} ms for the million decisions.\n")


def redis(t):
    thr = {m: r for (c, m, _), r in t.items() if c == "RedisHotKeyThroughput"}
    lat = {m: r for (c, m, _), r in t.items() if c == "RedisHotKeyLatency"}
    if thr:
        print("### Redis: one hot key, 8 client threads (JMH)\n")
        print("| variant | ops/s | p50 (us) | p99 (us) | B/op |")
        print("|---|---:|---:|---:|---:|")
        for m in sorted(thr):
            s, e, _ = primary(thr[m])
            pct = lat.get(m, {}).get("primaryMetric", {}).get("scorePercentiles", {})
            print(f"| `{m}` | {fmt(s)}{err(e)} | {fmt(pct.get('50.0'))} | {fmt(pct.get('99.0'))} "
                  f"| {fmt(secondary(thr[m], 'gc.alloc.rate.norm'), 0)} |")
        print()
    for (c, m, _), run in sorted(t.items()):
        if c == "RedisCommands":
            print(f"- `{m.split('[')[0]}`: {fmt(secondary(run, 'commandsPerAcquire'), 2)} Redis commands per call, "
                  f"{fmt(secondary(run, 'evalshaPerAcquire'), 2)} EVALSHA per call")
    print()


def http(files):
    for data in files:
        s = data["summary"]
        print(f"### HTTP `{data['experiment']}`: {data['what']}\n")
        st = data["settings"]
        print(f"`{data['file']}`, {data['started']} to {data.get('finished', '?')}; wrk -t{st['threads']} "
              f"-c{st['connections']}, {st['duration']} s runs, {st['keys']} rotating keys, server on core "
              f"{st['server_cpu']}, wrk on core {st['client_cpu']}; {st['warmup_rounds']} warm-up rounds, "
              f"{st['rounds']} measured rounds. Load average (1 min) before the measured runs: "
              f"{fmt(min(r['load'][0] for r in data['rounds']), 2)} to {fmt(max(r['load'][0] for r in data['rounds']), 2)}.\n")
        print("| measurement | req/s (median of rounds) | min | max | p50 (us) | p99 (us) |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, m in s["measurements"].items():
            print(f"| {name} | {fmt(m['rps_median'])} | {fmt(m['rps_min'])} | {fmt(m['rps_max'])} "
                  f"| {fmt(m['p50_us_median'], 0)} | {fmt(m['p99_us_median'], 0)} |")
        print()
        print("| ratio (same round, side by side) | median | min | max | per round |")
        print("|---|---:|---:|---:|---|")
        for name, r in s["ratios"].items():
            print(f"| {name} | **{fmt(r['median'], 3)}** | {fmt(r['min'], 3)} | {fmt(r['max'], 3)} "
                  f"| {', '.join(fmt(x, 3) for x in r['per_round'])} |")
        print()
        print("Warm-up (req/s of successive rounds, to show the steady state):\n")
        by = {}
        for w in data["warmup"]:
            by.setdefault(w["measurement"], []).append(w["rps"])
        for r in data["rounds"]:
            by.setdefault(r["measurement"], [])
        for name, values in by.items():
            measured = [r["rps"] for r in data["rounds"] if r["measurement"] == name]
            print(f"- {name}: warm-up {', '.join(fmt(v) for v in values)}; measured {', '.join(fmt(v) for v in measured)}")
        print()


def interleaved(runs):
    """jmh_rounds.py: ratios within each round, their median and range."""
    if not runs:
        return
    table = {}
    for run in runs:
        cls, method = run["benchmark"].split(".")[-2:]
        table.setdefault(run["round"], {})[(cls, method)] = run
    n = len(table)
    loads = [run["load"][0] for run in runs]
    print(f"### Interleaved rounds (`jmh_rounds.py`, {n} rounds, each benchmark its own fork per round; "
          f"load average 1 min {min(loads):.2f} to {max(loads):.2f})\n")
    pairs = []
    for cls in ["HotKey1Thread", "HotKey2Threads", "TwoLimits", "Algorithms"]:
        for method in ["ratelimit_storeDecide", "ratelimit_engineDecideNow", "ratelimit_storeDecide_sliding",
                       "ratelimit_storeDecide_strict", "ratelimit_storeDecide_tokenBucket",
                       "ratelimit_engineDecideNow_sliding", "ratelimit_engineDecideNow_strict",
                       "ratelimit_engineDecideNow_tokenBucket"]:
            pairs.append((cls, method, "bucket4j_synchronized"))
        for path in ["storeDecide", "engineDecideNow"]:
            for algorithm in ["strict", "tokenBucket"]:
                pairs.append((cls, f"ratelimit_{path}_{algorithm}", f"ratelimit_{path}_sliding"))
    print("| scenario | ours | reference | median ns/op (ours / reference) | wall ratio, median | per round | CPU ratio, median | B/op ours |")
    print("|---|---|---|---:|---:|---|---:|---:|")
    for cls, method, ref in pairs:
        walls, cpus, ns, refns, bop = [], [], [], [], None
        for rnd, t in sorted(table.items()):
            a, b = t.get((cls, method)), t.get((cls, ref))
            if not a or not b:
                continue
            walls.append(primary(a)[0] / primary(b)[0])
            ns.append(primary(a)[0])
            refns.append(primary(b)[0])
            c = ratio(secondary(a, "cpu.time.norm"), secondary(b, "cpu.time.norm"))
            if c is not None:
                cpus.append(c)
            bop = secondary(a, "gc.alloc.rate.norm")
        if walls:
            print(f"| {cls} | `{method}` | `{ref}` | {fmt(statistics.median(ns))} / {fmt(statistics.median(refns))} "
                  f"| **{fmt(statistics.median(walls), 2)}** | {', '.join(fmt(w, 2) for w in walls)} "
                  f"| {fmt(statistics.median(cpus), 2) if cpus else 'n/a'} | {fmt(bop, 0)} |")
    print()


def main(paths):
    t, files, rounds = load(paths)
    interleaved(rounds)
    experiment()
    if any(c in IN_PROCESS for (c, _, _) in t):
        in_process(t)
    memory(t)
    if any(c.startswith("Redis") for (c, _, _) in t):
        redis(t)
    http(files)


if __name__ == "__main__":
    main(sys.argv[1:])
