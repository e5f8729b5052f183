#!/usr/bin/env python3
"""Where one server spends more CPU per request than another: two JFR recordings of the same load, compared frame by frame.

    python3 benchmarks/http/jfr_diff.py A.jfr B.jfr A_US B_US [--top N]

A_US and B_US are the servers' CPU per request in microseconds, measured side by side (rounds.py's "server CPU per
request"). A frame's share of a recording's execution samples, times its server's CPU per request, is the
microseconds per request spent under that frame (inclusive) or in it (self); the listing is B minus A, largest
differences first. Recordings from benchmarks/http/profile.sh (stacks 256 frames deep; a 1 ms sampling period gives
ten times the samples of JFR's "profile" settings). Self times of small frames move with the JIT's inlining from one
run to the next; read the inclusive list, and a difference under ~0.3 us as noise.
"""
import argparse
import collections

from jfr_summary import frames, read


def load(path):
    events = read(path, "jdk.ExecutionSample")
    inclusive, self_ = collections.Counter(), collections.Counter()
    for event in events:
        stack = frames(event)
        if stack:
            self_[stack[0]] += 1
        for f in set(stack):
            inclusive[f] += 1
    return len(events), inclusive, self_


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("a_us", type=float)
    p.add_argument("b_us", type=float)
    p.add_argument("--top", type=int, default=40)
    args = p.parse_args()
    na, inc_a, self_a = load(args.a)
    nb, inc_b, self_b = load(args.b)
    scale_a, scale_b = args.a_us / na, args.b_us / nb
    print(f"samples: {na} ({args.a}), {nb} ({args.b}); us per request: {args.a_us}, {args.b_us}")
    for title, a, b in (("inclusive", inc_a, inc_b), ("self", self_a, self_b)):
        print(f"== {title}: us per request, B - A")
        diff = {f: b[f] * scale_b - a[f] * scale_a for f in set(a) | set(b)}
        for f, d in sorted(diff.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[:args.top]:
            print(f"{d:+7.2f}  A {a[f] * scale_a:6.2f}  B {b[f] * scale_b:6.2f}  {f}")


if __name__ == "__main__":
    main()
