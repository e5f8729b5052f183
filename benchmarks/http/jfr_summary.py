#!/usr/bin/env python3
"""Where a server's CPU and allocations went, from a JFR recording (jdk.ExecutionSample, jdk.ObjectAllocationSample).

    python3 benchmarks/http/jfr_summary.py RECORDING.jfr [--json OUT.json]

Prints, for the execution samples of all threads: the share of samples whose stack holds a frame of each
bucket below (inclusive: a sample counts for every bucket it passes through), the top frames by self time, and
the top allocation sites (weight) inside dev.ratelimit. Needs `jfr` (the JDK's) on the PATH. Stacks are read 256
frames deep (`jfr print` keeps 5 unless told: with 5, "inclusive" would only mean "among the top 5 frames").
Record with a deep stack: -XX:FlightRecorderOptions:stackdepth=256 -XX:StartFlightRecording:settings=profile,...
"""
import argparse
import collections
import json
import subprocess
import sys

# (label, predicate on "package.Class.method") -- inclusive shares
BUCKETS = [
    ("dev.ratelimit (all library code)", lambda f: f.startswith("dev.ratelimit.") and ".examples." not in f),
    ("  DecidingFilter.filter", lambda f: f.startswith("dev.ratelimit.jaxrs.internal.DecidingFilter.filter")),
    ("    RateLimitEngine.ledger (partition, caller)", lambda f: f.startswith("dev.ratelimit.core.engine.RateLimitEngine.ledger")),
    ("    RateLimitEngine.decideNow", lambda f: f.startswith("dev.ratelimit.core.engine.RateLimitEngine.decideNow")),
    ("      InProcessRateLimitStore.decide", lambda f: f.startswith("dev.ratelimit.core.store.InProcessRateLimitStore.decide")),
    ("    RequestLedgers (the request's ledger for the interceptor)", lambda f: f.startswith("dev.ratelimit.cdi.RequestLedgers.")),
    ("    RequestLedger.plan (plan resolver)", lambda f: f.startswith("dev.ratelimit.core.engine.RequestLedger.plan")),
    ("  HeaderFilter.filter (response headers)", lambda f: f.startswith("dev.ratelimit.jaxrs.internal.HeaderFilter.filter")),
    ("    RateLimitHeaders.write", lambda f: f.startswith("dev.ratelimit.core.headers.RateLimitHeaders.write")),
    ("      into the runtime's header map", lambda f: f.startswith("dev.ratelimit.jaxrs.internal.HeaderFilter.lambda$")),
    ("  DeferredRefusalFilter.filter", lambda f: f.startswith("dev.ratelimit.jaxrs.internal.DeferredRefusalFilter.filter")),
    ("  RateLimitInterceptor / ListInterceptor", lambda f: f.startswith("dev.ratelimit.cdi.internal.RateLimit") and "Interceptor" in f),
    ("  metrics (dev.ratelimit.micrometer / Micrometer)", lambda f: f.startswith("dev.ratelimit.micrometer.") or f.startswith("io.micrometer.")),
    ("Weld request context activation / lookup", lambda f: f.startswith("org.jboss.weld.context.") or f.startswith("org.jboss.weld.contexts.")),
    ("Weld client proxies / bean lookup", lambda f: f.startswith("org.jboss.weld.bean.proxy.") or f.startswith("org.jboss.weld.manager.")),
    ("Jersey ContainerFilteringStage (all request filters)", lambda f: f.startswith("org.glassfish.jersey.server.ContainerFilteringStage.apply")),
    ("Jersey response filters (ContainerFilteringStage$ResponseFilterStage)", lambda f: "ContainerFilteringStage$ResponseFilterStage" in f),
    ("GC / VM (no Java frame)", None),
]


def frames(event):
    st = event["values"].get("stackTrace") or {}
    out = []
    for fr in st.get("frames") or []:
        m = fr.get("method") or {}
        t = (m.get("type") or {}).get("name", "?")
        out.append(f"{t.replace('/', '.')}.{m.get('name', '?')}")
    return out


def read(path, event):
    text = subprocess.run(["jfr", "print", "--json", "--stack-depth", "256", "--events", event, path], capture_output=True, text=True,
                          check=True).stdout
    return json.loads(text)["recording"]["events"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("recording")
    p.add_argument("--json")
    args = p.parse_args()
    samples = read(args.recording, "jdk.ExecutionSample")
    stacks = [frames(e) for e in samples]
    n = len(stacks)
    result = {"recording": args.recording, "execution_samples": n, "inclusive": {}, "top_self": [], "allocation": {}}
    print(f"{args.recording}: {n} execution samples\n")
    print("| where (inclusive) | samples | share |")
    print("|---|---:|---:|")
    for label, pred in BUCKETS:
        if pred is None:
            hits = sum(1 for s in stacks if not s)
        else:
            hits = sum(1 for s in stacks if any(pred(f) for f in s))
        result["inclusive"][label.strip()] = {"samples": hits, "share": hits / n if n else 0}
        print(f"| {label} | {hits} | {100.0 * hits / n if n else 0:.1f}% |")
    self_counts = collections.Counter(s[0] for s in stacks if s)
    print("\nTop frames by self samples:\n")
    for frame, count in self_counts.most_common(15):
        result["top_self"].append({"frame": frame, "samples": count, "share": count / n})
        print(f"- {frame}: {count} ({100.0 * count / n:.1f}%)")
    try:
        allocations = read(args.recording, "jdk.ObjectAllocationSample")
    except subprocess.CalledProcessError:
        allocations = []
    total = sum(e["values"].get("weight", 0) for e in allocations)
    by_site = collections.Counter()
    lib_total = 0
    for e in allocations:
        fs = frames(e)
        w = e["values"].get("weight", 0)
        site = next((f for f in fs if f.startswith("dev.ratelimit.") and ".examples." not in f), None)
        if site:
            lib_total += w
            cls = (e["values"].get("objectClass") or {}).get("name", "?")
            by_site[f"{site} -> {cls}"] += w
    result["allocation"] = {"total_weight": total, "library_weight": lib_total,
                            "library_sites": [{"site": s, "weight": w} for s, w in by_site.most_common(15)]}
    if total:
        print(f"\nAllocation samples: library frames on the stack for {100.0 * lib_total / total:.1f}% of the sampled weight; "
              "top sites (first library frame -> class):\n")
        for site, w in by_site.most_common(12):
            print(f"- {site}: {100.0 * w / total:.1f}%")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
