#!/usr/bin/env python3
"""The target comparisons of the in-process benchmarks, in interleaved rounds, for a shared, loaded machine.

    python3 benchmarks/jmh_rounds.py --rounds 3 --out benchmarks/results/jmh-rounds.json

JMH runs one benchmark after the other, so on a machine that other builds share, a burst of load can fall on
one side of a comparison only. Here each round runs every benchmark of SETS once (its own fork, the
annotations' warm-up and measurement, -prof gc and the CPU-time profiler), the order rotated from round to
round; the ratios are taken within a round and their median reported. Every run is kept in --out (a JMH
JSON list, each run with its "round" and the load average before it); summarize.py reads it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

JAR = "benchmarks/target/benchmarks.jar"
PREFIX = "dev.ratelimit.benchmarks.inprocess."
# scenario -> benchmarks, the first being the reference of the ratios
SETS = {
    "HotKey1Thread": ["bucket4j_synchronized", "ratelimit_storeDecide", "ratelimit_engineDecideNow"],
    "HotKey2Threads": ["bucket4j_synchronized", "ratelimit_storeDecide", "ratelimit_engineDecideNow"],
    "TwoLimits": ["bucket4j_synchronized", "ratelimit_storeDecide", "ratelimit_engineDecideNow"],
    "Algorithms": ["ratelimit_storeDecide_sliding", "ratelimit_storeDecide_strict", "ratelimit_storeDecide_tokenBucket",
                   "ratelimit_engineDecideNow_sliding", "ratelimit_engineDecideNow_strict",
                   "ratelimit_engineDecideNow_tokenBucket", "bucket4j_synchronized"],
}


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", required=True)
    p.add_argument("--only", default="", help="comma-separated scenarios (default: all)")
    args = p.parse_args()
    benchmarks = [(cls, m) for cls, ms in SETS.items() if not args.only or cls in args.only.split(",") for m in ms]
    runs = []
    for rnd in range(args.rounds):
        shift = (rnd * 5) % len(benchmarks)
        for cls, method in benchmarks[shift:] + benchmarks[:shift]:
            load = loadavg()
            with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
                out = f.name
            cmd = ["java", "-jar", JAR, f"^{PREFIX}{cls}.{method}$", "-prof", "gc",
                   "-prof", "dev.ratelimit.benchmarks.support.CpuTimeProfiler", "-rf", "json", "-rff", out]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                result = json.load(f)
            os.unlink(out)
            for run in result:
                run["round"] = rnd
                run["load"] = load
                runs.append(run)
                print(f"round {rnd} {cls}.{method}: {run['primaryMetric']['score']:.1f} ns/op, "
                      f"load {load[0]}", flush=True)
            with open(args.out, "w") as f:
                json.dump(runs, f, indent=1)


if __name__ == "__main__":
    main()
