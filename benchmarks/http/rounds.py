#!/usr/bin/env python3
"""Interleaved wrk rounds against servers that run side by side, each in its own JVM.

    python3 benchmarks/http/rounds.py example --out benchmarks/results/http-example.json
    python3 benchmarks/http/rounds.py redis   --connections 4 --out benchmarks/results/http-redis.json
    python3 benchmarks/http/rounds.py redis   --connections 16 --out benchmarks/results/http-redis-16.json
    python3 benchmarks/http/rounds.py quarkus-redis --connections 4 --out benchmarks/results/http-quarkus-redis.json
    python3 benchmarks/http/rounds.py address --out benchmarks/results/http-address.json
    python3 benchmarks/http/rounds.py quarkus --out benchmarks/results/http-quarkus.json
    python3 benchmarks/http/rounds.py payara-jcache --out benchmarks/results/http-payara-jcache.json
    python3 benchmarks/http/rounds.py payara-redis --out benchmarks/results/http-payara-redis.json
    python3 benchmarks/http/rounds.py slices --connections 4 --out benchmarks/results/http-slices.json
    python3 benchmarks/http/rounds.py jars --jar before=/tmp/old/todos.jar --jar after=examples/todos/target/todos.jar \
        --out benchmarks/results/http-jars.json
    python3 benchmarks/http/rounds.py redis-jars --jar before=/tmp/old/todos.jar --jar after=examples/todos/target/todos.jar \
        --connections 4 --out benchmarks/results/http-redis-jars.json

Every server of the experiment is started at once, pinned to core 0 (taskset -c 0); wrk runs pinned to
core 1, one measurement at a time, the others idle. Each request carries the next of --keys caller keys
(rotate.lua). First one run of --warmup-seconds for each measurement (not recorded: pinned to one core with its
load, a server's JIT needs a minute or more to compile the request path), then --warmup-rounds rounds of every measurement (recorded, to show that throughput has
gone flat), then --rounds measured rounds, the order of the measurements rotated each round, the load
average read before each run. Ratios are taken within a round (side by side), never across runs.
Run from the repository root, after building what the experiment serves (RESULTS.md has the commands).
Only the standard library; wrk, taskset and (for "redis", "slices") redis-server on the PATH.

"slices" measures two traffic shapes (a measurement's own key count): hot (--hot-keys keys, 20: each well above one
request a lease) and cold (--keys, 5 000 rotating keys), for the in-process store, exact Redis, sliced Redis
(ratelimit.store.slices=true), Bucket4j's Lettuce proxy plain and with its "delaying" optimisation; Redis' command
calls per request from INFO commandstats. Then an over-limit run: two instances of each shared variant with a low
limit (--over-limit permits a minute per key), one wrk on each at once for --over-seconds on --over-keys fresh keys,
and the requests admitted (2xx) against what the limit allows in that time: over-admission, measured.
"""
import argparse
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
LUA = os.path.join(HERE, "rotate.lua")
TODOS_JAR = "examples/todos/target/todos.jar"
# Every limit out of reach: the module limit (100 a minute per key as shipped) raised by configuration,
# so that the measurement is the allowed path, never a 429.
OUT_OF_REACH = ["-Dratelimit.limits.module.permit-limit=100000000"]


# name: (app of benchmarks/quarkus, JVM options). "headers" is the "none" app plus a response filter that writes
# the five rate-limit headers as constants; "headers1" the same app writing the first of them only. "ratelimit" has
# the extension (ratelimit-quarkus), "ratelimit-plain" the plain library (ratelimit-jaxrs) only.
QUARKUS_APPS = {"none": ("none", []), "headers": ("headers", []), "headers1": ("headers", ["-Dbenchmark.headers=1"]),
                "ratelimit": ("ratelimit", []), "ratelimit-plain": ("ratelimit-plain", []),
                "faulttolerance": ("faulttolerance", []), "bucket4j": ("bucket4j", [])}
# The app with ratelimit-redis and the Quarkus Redis client: in process without quarkus.redis.hosts, in Redis with it.
QUARKUS_REDIS_JAR = "benchmarks/quarkus/ratelimit-redis/target/quarkus-app/quarkus-run.jar"


PAYARA = "examples/todos-payara/target"
# The same example with ratelimit-redis instead of ratelimit-jcache (a war of its own: both stores' producers in one
# war would leave the store ambiguous); in process without ratelimit.redis.uri, in Redis with it.
PAYARA_REDIS_WAR = "redis/todos.war"


def payara(*props, war="todos.war"):
    """The example war (war: its path under PAYARA) on Payara Micro on $PORT, its data grid on (a cluster of one, a
    name of its own)."""
    return ["sh", "-c", "exec java " + " ".join([*OUT_OF_REACH, *props]) + f" -jar {PAYARA}/payara-micro.jar --deploy "
            f"{PAYARA}/{war} --contextroot / --port \"$PORT\" --clustername rounds-$$ --interfaces 127.0.0.1 "
            "--rootdir \"$(mktemp -d)\""]


def quarkus_jar(app):
    return f"benchmarks/quarkus/{QUARKUS_APPS[app][0]}/target/quarkus-app/quarkus-run.jar"


def experiments(redis_port, jars=(), quarkus_apps=()):
    todos = lambda *props, jar=TODOS_JAR: ["java", *OUT_OF_REACH, *props, "-jar", jar]
    named = [j.split("=", 1) for j in jars]
    extra = [a.split("=", 1) for a in quarkus_apps]
    return {
        "jars": {
            "what": "builds of the example side by side (--jar NAME=PATH, each with its lib/ beside it), "
                    "and the last one with ratelimit.enabled=false",
            "servers": {**{name: {"cmd": todos(jar=jar), "path": "/todos/1"} for name, jar in named},
                        **({"off": {"cmd": todos("-Dratelimit.enabled=false", jar=named[-1][1]), "path": "/todos/1"}}
                           if named else {})},
            "measurements": [(name, name, "key") for name in [*(n for n, _ in named), "off"]] if named else [],
            "ratios": [(name, "off") for name, _ in named] + [(b, a) for (a, _), (b, _) in zip(named, named[1:])],
        },
        "redis-jars": {
            "what": "builds of the example side by side (--jar NAME=PATH, each with its lib/ beside it), each counting "
                    "in Redis, exact (ratelimit.redis.uri; Redis pinned with the servers)",
            "redis": True,
            "servers": {name: {"cmd": todos(f"-Dratelimit.redis.uri=redis://127.0.0.1:{redis_port}", jar=jar),
                               "path": "/todos/1"} for name, jar in named},
            "measurements": [(name, name, "key") for name, _ in named],
            "ratios": [(b, a) for (a, _), (b, _) in zip(named, named[1:])],
        },
        "payara-jcache": {
            "what": "examples/todos-payara war on Payara Micro (its Hazelcast on, a cluster of one): GET /todos/1, "
                    "counts in the JCache store (ratelimit.jcache.cache) vs in process",
            "servers": {
                "in-process": {"cmd": payara(), "path": "/todos/1"},
                "jcache": {"cmd": payara("-Dratelimit.jcache.cache=ratelimit"), "path": "/todos/1"},
            },
            "measurements": [("in-process", "in-process", "key"), ("jcache", "jcache", "key")],
            "ratios": [("jcache", "in-process")],
        },
        "payara-redis": {
            "what": "examples/todos-payara's Redis war (target/redis/todos.war: ratelimit-redis, no ratelimit-jcache) on "
                    "Payara Micro (its Hazelcast on, a cluster of one): GET /todos/1, counts in Redis, exact "
                    "(ratelimit.redis.uri; Jedis on the request thread) vs in process (the same war without it; "
                    "Redis pinned with the servers)",
            "redis": True,
            # this war took a minute to answer with two idle cores to itself: more than wait_ready's default 120 s
            # leaves room for the one shared core it starts on here
            "servers": {
                "in-process": {"cmd": payara(war=PAYARA_REDIS_WAR), "path": "/todos/1", "ready_seconds": 300},
                "redis": {"cmd": payara(f"-Dratelimit.redis.uri=redis://127.0.0.1:{redis_port}", war=PAYARA_REDIS_WAR),
                          "path": "/todos/1", "ready_seconds": 300},
            },
            "measurements": [("in-process", "in-process", "key"), ("redis", "redis", "key")],
            "ratios": [("redis", "in-process")],
        },
        "example": {
            "what": "examples/todos jar: GET /todos/1, ratelimit off vs as shipped (plans configured, metrics on)",
            "servers": {
                "off": {"cmd": todos("-Dratelimit.enabled=false"), "path": "/todos/1"},
                "on": {"cmd": todos(), "path": "/todos/1"},
            },
            # (name, server, caller mode)
            "measurements": [("off", "off", "key"), ("on", "on", "key"),
                             ("off-gold", "off", "gold"), ("on-gold", "on", "gold")],
            "ratios": [("on", "off"), ("on-gold", "off-gold")],
        },
        "address": {
            "what": "examples/todos jar: GET /todos/1 from 5 000 rotating anonymous clients, partitioned by X-Api-Key "
                    "(as shipped) vs by client address (partition-by=principal,header,address, trusted-proxies=127.0.0.1, "
                    "each request forwarded for its client in X-Forwarded-For)",
            "servers": {
                "header": {"cmd": todos(), "path": "/todos/1"},
                "address": {"cmd": todos("-Dratelimit.partition-by=principal,header,address",
                                         "-Dratelimit.trusted-proxies=127.0.0.1"), "path": "/todos/1"},
            },
            "measurements": [("header", "header", "key"), ("address", "address", "forwarded")],
            "ratios": [("address", "header")],
        },
        "redis": {
            "what": "examples/todos jar: GET /todos/1, in-process store vs Redis store (its default on Grizzly: "
                    "Jedis on the request thread; and Lettuce, ratelimit.redis.client=lettuce) vs Bucket4j's Lettuce "
                    "and Jedis proxies in a request filter of the same jar (ratelimit off, the same limit and keys), "
                    "and off (Redis pinned with the server)",
            "redis": True,
            "servers": {
                "inprocess": {"cmd": todos(), "path": "/todos/1"},
                "redis": {"cmd": todos(f"-Dratelimit.redis.uri=redis://127.0.0.1:{redis_port}"), "path": "/todos/1"},
                "redis-lettuce": {"cmd": todos(f"-Dratelimit.redis.uri=redis://127.0.0.1:{redis_port}",
                                               "-Dratelimit.redis.client=lettuce"), "path": "/todos/1"},
                "bucket4j": {"cmd": todos("-Dratelimit.enabled=false",
                                          f"-Dbenchmark.bucket4j.redis-uri=redis://127.0.0.1:{redis_port}",
                                          "-Dbenchmark.bucket4j.permit-limit=100000000"), "path": "/todos/1"},
                "bucket4j-jedis": {"cmd": todos("-Dratelimit.enabled=false",
                                                f"-Dbenchmark.bucket4j.redis-uri=redis://127.0.0.1:{redis_port}",
                                                "-Dbenchmark.bucket4j.client=jedis",
                                                "-Dbenchmark.bucket4j.permit-limit=100000000"), "path": "/todos/1"},
                "off": {"cmd": todos("-Dratelimit.enabled=false"), "path": "/todos/1"},
                # the in-process store plus one Redis PING per request, deciding nothing: the floor of one round trip
                "floor-jedis": {"cmd": todos(f"-Dbenchmark.floor.redis-uri=redis://127.0.0.1:{redis_port}"),
                                "path": "/todos/1"},
                "floor-socket": {"cmd": todos(f"-Dbenchmark.floor.redis-uri=redis://127.0.0.1:{redis_port}",
                                              "-Dbenchmark.floor.client=socket"), "path": "/todos/1"},
                "floor-socket-timed": {"cmd": todos(f"-Dbenchmark.floor.redis-uri=redis://127.0.0.1:{redis_port}",
                                                    "-Dbenchmark.floor.client=socket-timed"), "path": "/todos/1"},
            },
            "measurements": [("inprocess", "inprocess", "key"), ("redis", "redis", "key"),
                             ("redis-lettuce", "redis-lettuce", "key"), ("bucket4j", "bucket4j", "key"),
                             ("bucket4j-jedis", "bucket4j-jedis", "key"), ("off", "off", "key"),
                             ("floor-jedis", "floor-jedis", "key"), ("floor-socket", "floor-socket", "key"),
                             ("floor-socket-timed", "floor-socket-timed", "key")],
            "ratios": [("redis", "inprocess"), ("redis-lettuce", "inprocess"), ("bucket4j", "inprocess"),
                       ("bucket4j-jedis", "inprocess"), ("redis", "bucket4j"), ("redis", "bucket4j-jedis"),
                       ("redis", "redis-lettuce"), ("inprocess", "off"), ("redis", "off"),
                       ("floor-jedis", "inprocess"), ("floor-socket", "inprocess"), ("floor-socket-timed", "inprocess"),
                       ("floor-jedis", "floor-socket"), ("redis", "floor-jedis")],
        },
        "slices": {
            "what": "examples/todos jar: GET /todos/1, hot (a few keys, each well above one request a lease) and cold "
                    "(5 000 rotating keys): in-process store vs exact Redis vs sliced Redis (ratelimit.store.slices) vs "
                    "Bucket4j's Lettuce proxy plain and with its delaying optimisation (Redis pinned with the server); "
                    "then over-admission in an over-limit run through two instances of each shared variant",
            "redis": True,
            "servers": {
                "inprocess": {"cmd": todos(), "path": "/todos/1"},
                "redis": {"cmd": todos(f"-Dratelimit.redis.uri=redis://127.0.0.1:{redis_port}"), "path": "/todos/1"},
                "sliced": {"cmd": todos(f"-Dratelimit.redis.uri=redis://127.0.0.1:{redis_port}",
                                        "-Dratelimit.store.slices=true"), "path": "/todos/1"},
                "bucket4j": {"cmd": todos("-Dratelimit.enabled=false",
                                          f"-Dbenchmark.bucket4j.redis-uri=redis://127.0.0.1:{redis_port}",
                                          "-Dbenchmark.bucket4j.permit-limit=100000000"), "path": "/todos/1"},
                "bucket4j-delaying": {"cmd": todos("-Dratelimit.enabled=false",
                                                   f"-Dbenchmark.bucket4j.redis-uri=redis://127.0.0.1:{redis_port}",
                                                   "-Dbenchmark.bucket4j.permit-limit=100000000",
                                                   "-Dbenchmark.bucket4j.optimization=delaying"), "path": "/todos/1"},
            },
            # (name, server, caller mode, keys: "hot" or "cold")
            "measurements": [(f"{server}-{shape}", server, "key", shape)
                             for shape in ("hot", "cold")
                             for server in ("inprocess", "redis", "sliced", "bucket4j", "bucket4j-delaying")],
            "ratios": [("sliced-hot", "inprocess-hot"), ("sliced-hot", "redis-hot"), ("redis-hot", "inprocess-hot"),
                       ("bucket4j-delaying-hot", "inprocess-hot"), ("bucket4j-hot", "inprocess-hot"),
                       ("sliced-cold", "redis-cold"), ("sliced-cold", "inprocess-cold"),
                       ("bucket4j-delaying-cold", "redis-cold"), ("bucket4j-cold", "redis-cold")],
            # over-admission: (variant, JVM options of each of its two instances with a limit of {limit} a minute
            # per key, and how many it may admit in {seconds} s on {keys} fresh keys)
            "over": [
                ("redis", lambda limit: todos(f"-Dratelimit.redis.uri=redis://127.0.0.1:{redis_port}",
                                              f"-Dratelimit.limits.module.permit-limit={limit}"),
                 lambda limit, seconds, keys: keys * limit),
                ("sliced", lambda limit: todos(f"-Dratelimit.redis.uri=redis://127.0.0.1:{redis_port}",
                                               "-Dratelimit.store.slices=true",
                                               f"-Dratelimit.limits.module.permit-limit={limit}"),
                 lambda limit, seconds, keys: keys * limit),
                ("bucket4j", lambda limit: todos("-Dratelimit.enabled=false",
                                                 f"-Dbenchmark.bucket4j.redis-uri=redis://127.0.0.1:{redis_port}",
                                                 f"-Dbenchmark.bucket4j.permit-limit={limit}"),
                 lambda limit, seconds, keys: keys * (limit + limit * seconds // 60)),
                ("bucket4j-delaying", lambda limit: todos("-Dratelimit.enabled=false",
                                                          f"-Dbenchmark.bucket4j.redis-uri=redis://127.0.0.1:{redis_port}",
                                                          f"-Dbenchmark.bucket4j.permit-limit={limit}",
                                                          "-Dbenchmark.bucket4j.optimization=delaying"),
                 lambda limit, seconds, keys: keys * (limit + limit * seconds // 60)),
            ],
        },
        "quarkus-redis": {
            "what": "Quarkus 3.33.2 with the extension, ratelimit-redis and quarkus-redis-client, blocking GET /item/{id}: "
                    "the same jar in process and in Redis (quarkus.redis.hosts: the Vert.x client), and the app without "
                    "a limiter (Redis pinned with the servers)",
            "redis": True,
            "servers": {
                "inprocess": {"cmd": ["java", "-jar", QUARKUS_REDIS_JAR], "path": "/item/1", "quarkus": True},
                "redis": {"cmd": ["java", f"-Dquarkus.redis.hosts=redis://127.0.0.1:{redis_port}", "-jar", QUARKUS_REDIS_JAR],
                          "path": "/item/1", "quarkus": True},
                "none": {"cmd": ["java", "-jar", quarkus_jar("none")], "path": "/item/1", "quarkus": True},
            },
            "measurements": [("inprocess", "inprocess", "key"), ("redis", "redis", "key"), ("none", "none", "key")],
            "ratios": [("redis", "inprocess"), ("inprocess", "none"), ("redis", "none")],
        },
        "quarkus": {
            "what": "Quarkus 3.33.2 (quarkus-rest), blocking GET /item/{id}: no limiter, no limiter with the five "
                    "rate-limit headers as constants, ratelimit, SmallRye Fault Tolerance @RateLimit, quarkus-bucket4j",
            "servers": {**{app: {"cmd": ["java", *QUARKUS_APPS[app][1], "-jar", quarkus_jar(app)], "path": "/item/1",
                                 "quarkus": True}
                           for app in QUARKUS_APPS if os.path.exists(quarkus_jar(app))},
                        **{name: {"cmd": ["java", "-jar", jar], "path": "/item/1", "quarkus": True}
                           for name, jar in extra}},
            "measurements": [(app, app, "key") for app in QUARKUS_APPS if os.path.exists(quarkus_jar(app))]
                            + [(name, name, "key") for name, _ in extra],
            "ratios": [(app, "none") for app in list(QUARKUS_APPS)[1:] if os.path.exists(quarkus_jar(app))]
                      + [("ratelimit", "headers")] * all(os.path.exists(quarkus_jar(a)) for a in ("ratelimit", "headers"))
                      + [("ratelimit", "ratelimit-plain")] * all(os.path.exists(quarkus_jar(a))
                                                                  for a in ("ratelimit", "ratelimit-plain"))
                      + [(name, "none") for name, _ in extra] + [("ratelimit", name) for name, _ in extra],
        },
    }


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def get(port, path, headers=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, dict(response.headers)


def wait_ready(proc, port, path, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server on port {port} exited with {proc.returncode}")
        try:
            status, headers = get(port, path, {"X-Api-Key": "ready-probe"})
            if status == 200:
                return headers
        except Exception:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server on port {port} not ready in {timeout} s")


def cpu_ticks(pid):
    """User + system CPU of a process so far, in clock ticks (its threads included: JIT and GC too)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def context_switches(pid):
    """Voluntary + involuntary context switches of a process so far: the sum over its threads' /proc status (a
    process' own /proc/<pid>/status counts its main thread only). Threads that ended meanwhile are not counted."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for l in f:
                    if l.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        total += int(l.split()[1])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


SCRIPT_COMMANDS = ("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro")


def redis_calls(port):
    """Script calls Redis has run so far (INFO commandstats: EVAL, EVALSHA, FCALL and their _ro forms), and every
    command (INFO itself left out; the commands a script runs count too): (scripts, commands)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"INFO commandstats\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            header, _, rest = data.partition(b"\r\n")
            if header.startswith(b"$") and len(rest) >= int(header[1:]):
                break
    scripts = commands = 0
    for row in data.decode().splitlines():
        if row.startswith("cmdstat_") and not row.startswith("cmdstat_info:"):
            calls = int(row.split("calls=", 1)[1].split(",", 1)[0])
            commands += calls
            if row[len("cmdstat_"):].split(":", 1)[0] in SCRIPT_COMMANDS:
                scripts += calls
    return scripts, commands


def wrk(port, path, mode, args, pid, redis_pid=None, keys=None, redis_port=None, duration=None):
    env = dict(os.environ, WRK_KEYS=str(keys or args.keys), WRK_MODE=mode, WRK_PATH=path)
    cmd = ["taskset", "-c", args.client_cpu, "wrk", f"-t{args.threads}", f"-c{args.connections}",
           f"-d{duration or args.duration}s", "-s", LUA, f"http://127.0.0.1:{port}{path}"]
    before = cpu_ticks(pid)
    redis_before = cpu_ticks(redis_pid) if redis_pid else 0
    switches_before = context_switches(pid)
    redis_switches_before = context_switches(redis_pid) if redis_pid else 0
    calls_before = redis_calls(redis_port) if redis_port else (0, 0)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    switches_after = context_switches(pid)
    redis_switches_after = context_switches(redis_pid) if redis_pid else 0
    after = cpu_ticks(pid)
    redis_after = cpu_ticks(redis_pid) if redis_pid else 0
    calls_after = redis_calls(redis_port) if redis_port else (0, 0)
    line = [l for l in out.splitlines() if l.startswith("{")][-1]
    result = json.loads(line)
    result["rps"] = result["requests"] / (result["duration_us"] / 1e6)
    # the server's CPU per answered request: throughput's other face, less moved by what else runs on its core
    result["server_cpu_us_per_request"] = (after - before) / os.sysconf("SC_CLK_TCK") * 1e6 / result["requests"]
    # thread hand-offs show here: every wake-up of a thread that waited is a voluntary switch
    result["server_context_switches_per_request"] = (switches_after - switches_before) / result["requests"]
    if redis_pid:
        result["redis_context_switches_per_request"] = (redis_switches_after - redis_switches_before) / result["requests"]
        # Redis' CPU per request, on the server's core too (every server of the run shares the one Redis: only the
        # measured one is loaded meanwhile)
        result["redis_cpu_us_per_request"] = (redis_after - redis_before) / os.sysconf("SC_CLK_TCK") * 1e6 / result["requests"]
    if redis_port:
        # store calls per answered request (INFO commandstats): script calls (ours: every decision, give-back and
        # slice is one; Bucket4j's compare-and-swap: one, beside a GET), and every command, those of scripts included
        result["redis_calls_per_request"] = (calls_after[0] - calls_before[0]) / result["requests"]
        result["redis_commands_per_request"] = (calls_after[1] - calls_before[1]) / result["requests"]
    if result["non2xx"] or result["socket_errors"]:
        raise RuntimeError(f"wrk saw {result['non2xx']} non-2xx answers and {result['socket_errors']} socket errors: "
                           f"every limit must be out of reach and every request answered\n{out}")
    return result


def line(r):
    """One measurement, as printed while the experiment runs."""
    redis = f"  redis {r['redis_cpu_us_per_request']:5.1f} us/req" if "redis_cpu_us_per_request" in r else ""
    if "redis_calls_per_request" in r:
        redis += (f" {r['redis_calls_per_request']:6.3f} script calls/req"
                  f" {r['redis_commands_per_request']:6.2f} commands/req")
    return (f"{r['rps']:9.0f} req/s  cpu {r['server_cpu_us_per_request']:5.1f} us/req{redis}  "
            f"cs {r['server_context_switches_per_request']:4.1f}/req  p50 {r['p50_us']} us  "
            f"p99 {r['p99_us']} us  load {r['load'][0]}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("experiment", choices=["example", "address", "redis", "quarkus", "quarkus-redis", "jars",
                                          "redis-jars", "payara-jcache", "payara-redis", "slices"])
    p.add_argument("--jar", action="append", default=[],
                   help="for 'jars' and 'redis-jars': NAME=PATH of an example jar (its lib/ beside it); repeat, oldest first")
    p.add_argument("--app", action="append", default=[],
                   help="for 'quarkus': NAME=PATH of another build's quarkus-run.jar, measured beside the apps "
                        "(ratios to none, and ratelimit / NAME); repeat")
    p.add_argument("--out", required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--warmup-seconds", type=int, default=60,
                   help="one continuous run of each measurement first, not recorded: the JIT of a server pinned to "
                        "one core with its load takes a minute or more to compile the request path (throughput "
                        "still rises round after round before that)")
    p.add_argument("--warmup-rounds", type=int, default=4)
    p.add_argument("--duration", type=int, default=10)
    p.add_argument("--connections", type=int, default=16)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--keys", type=int, default=5000)
    p.add_argument("--hot-keys", type=int, default=20, help="for 'slices': the keys of the hot shape")
    p.add_argument("--over-limit", type=int, default=300,
                   help="for 'slices': the over-limit run's permits a minute per key")
    p.add_argument("--over-keys", type=int, default=1,
                   help="for 'slices': the over-limit run's keys (few: each must be driven past its limit by fresh "
                        "servers in --over-seconds)")
    p.add_argument("--over-seconds", type=int, default=10, help="for 'slices': how long the over-limit run lasts")
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--client-cpu", default="1")
    p.add_argument("--jvm", default="", help="extra JVM options for every server, space-separated")
    p.add_argument("--only", default="", help="comma-separated measurement names to run (default: all)")
    args = p.parse_args()

    redis_port = free_port()
    spec = experiments(redis_port, args.jar, args.app)[args.experiment]
    if not spec["servers"]:
        sys.exit("nothing to serve: build the servers first (RESULTS.md)")
    logs = tempfile.mkdtemp(prefix=f"rounds-{args.experiment}-")
    started = []
    redis = None
    result = {
        "experiment": args.experiment, "what": spec["what"], "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"cpus": os.cpu_count(), "kernel": platform.release(),
                    "java": subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]},
        "settings": {k: v for k, v in vars(args).items() if k not in ("out",)},
        "command": " ".join(sys.argv), "servers": {}, "warmup": [], "rounds": [],
    }
    try:
        if spec.get("redis"):
            redis_dir = tempfile.mkdtemp(prefix="rounds-redis-")
            redis = subprocess.Popen(["taskset", "-c", args.server_cpu, "redis-server", "--port", str(redis_port),
                                      "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", redis_dir],
                                     stdout=open(os.path.join(logs, "redis.log"), "w"), stderr=subprocess.STDOUT)
            started.append(redis)
            time.sleep(0.5)
            result["redis"] = {"port": redis_port, "version": subprocess.run(["redis-server", "--version"],
                                                                            capture_output=True, text=True).stdout.strip()}
        ports = {}
        pids = {}
        measurements = spec["measurements"]
        if args.only:
            keep = set(args.only.split(","))
            measurements = [m for m in measurements if m[0] in keep]
        wanted = {m[1] for m in measurements} or set(spec["servers"])  # servers no measurement uses are not started
        for name, server in spec["servers"].items():
            if name not in wanted:
                continue
            port = free_port()
            cmd = list(server["cmd"])
            extra = args.jvm.split()
            if server.get("quarkus"):
                extra += [f"-Dquarkus.http.port={port}", "-Dquarkus.http.host=127.0.0.1"]
            cmd = cmd[:1] + extra + cmd[1:]
            full = ["taskset", "-c", args.server_cpu] + cmd
            log = open(os.path.join(logs, f"{name}.log"), "w")
            proc = subprocess.Popen(full, env=dict(os.environ, PORT=str(port)), stdout=log, stderr=subprocess.STDOUT)
            started.append(proc)
            headers = wait_ready(proc, port, server["path"], server.get("ready_seconds", 120))
            ports[name] = port
            pids[name] = proc.pid
            rate_headers = {k: v for k, v in headers.items() if k.lower().startswith("ratelimit")}
            result["servers"][name] = {"command": " ".join(full), "pid": proc.pid, "port": port,
                                       "log": os.path.join(logs, f"{name}.log"),
                                       "rate_limit_headers_of_a_response": rate_headers}
            print(f"{name}: pid {proc.pid} port {port} {rate_headers}", flush=True)

        shapes = {"hot": args.hot_keys, "cold": args.keys}
        redis_port_arg = redis_port if spec.get("redis") else None

        def run(measurement, duration=None):
            name, server, mode = measurement[:3]
            keys = shapes[measurement[3]] if len(measurement) > 3 else None
            return wrk(ports[server], spec["servers"][server]["path"], mode, args, pids[server], redis and redis.pid,
                       keys=keys, redis_port=redis_port_arg, duration=duration)

        for measurement in measurements:
            if args.warmup_seconds > 0:
                r = run(measurement, duration=args.warmup_seconds)
                print(f"warm-up {measurement[0]:10s} {args.warmup_seconds} s {r['rps']:9.0f} req/s", flush=True)
        for w in range(args.warmup_rounds):
            for measurement in measurements:
                name = measurement[0]
                r = run(measurement)
                r.update(round=w, measurement=name, load=loadavg())
                result["warmup"].append(r)
                print(f"warm-up {w} {name:10s} {line(r)}", flush=True)
        for rnd in range(args.rounds):
            order = measurements[rnd % len(measurements):] + measurements[:rnd % len(measurements)]
            for measurement in order:
                name = measurement[0]
                load = loadavg()
                r = run(measurement)
                r.update(round=rnd, measurement=name, load=load)
                result["rounds"].append(r)
                print(f"round {rnd} {name:10s} {line(r)}", flush=True)
        for name in ports:
            try:
                result["servers"][name]["metrics_sample"] = metrics_sample(ports[name])
            except Exception:
                pass
        if spec.get("over"):
            for proc in started[1:]:  # the measured servers leave the core to the over-limit run's
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=20)
            started[1:] = []
            result["over_admission"] = over_admission(spec["over"], args, logs, started)
    finally:
        for proc in reversed(started):
            proc.send_signal(signal.SIGTERM)
        for proc in started:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    result["summary"] = summarize(result, spec)
    if "over_admission" in result:
        result["summary"]["over_admission"] = result["over_admission"]
    result["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result["summary"], indent=1))


def over_admission(variants, args, logs, started):
    """Two instances of each variant, a low limit, one wrk on each at once on fresh keys: admitted vs allowed."""
    results = {}
    for variant, cmd_of, allowed_of in variants:
        procs, ports = [], []
        for i in range(2):
            port = free_port()
            cmd = list(cmd_of(args.over_limit))
            cmd = cmd[:1] + args.jvm.split() + cmd[1:]
            log = open(os.path.join(logs, f"over-{variant}-{i}.log"), "w")
            proc = subprocess.Popen(["taskset", "-c", args.server_cpu] + cmd, env=dict(os.environ, PORT=str(port)),
                                    stdout=log, stderr=subprocess.STDOUT)
            started.append(proc)
            wait_ready(proc, port, "/todos/1")
            procs.append(proc)
            ports.append(port)
        prefix = f"over-{variant}-{int(time.time())}-"
        runs = []
        for port in ports:
            env = dict(os.environ, WRK_KEYS=str(args.over_keys), WRK_MODE="key", WRK_PATH="/todos/1",
                       WRK_KEY_PREFIX=prefix)
            runs.append(subprocess.Popen(["taskset", "-c", args.client_cpu, "wrk", f"-t{args.threads}",
                                          f"-c{args.connections}", f"-d{args.over_seconds}s", "-s", LUA,
                                          f"http://127.0.0.1:{port}/todos/1"], env=env, stdout=subprocess.PIPE,
                                         text=True))
        admitted = requests = 0
        for run in runs:
            out = run.communicate()[0]
            r = json.loads([l for l in out.splitlines() if l.startswith("{")][-1])
            requests += r["requests"]
            admitted += r["requests"] - r["non2xx"]
        # wait_ready's probe of each instance spent one permit of an anonymous caller: not of these keys
        allowed = allowed_of(args.over_limit, args.over_seconds, args.over_keys)
        results[variant] = {"requests": requests, "admitted": admitted, "allowed": allowed,
                            "over_admitted": max(0, admitted - allowed),
                            "over_admitted_share": max(0, admitted - allowed) / allowed}
        print(f"over-limit {variant:18s} {requests} requests, {admitted} admitted, {allowed} allowed "
              f"({args.over_keys} keys x {args.over_limit}/min, {args.over_seconds} s, two instances)", flush=True)
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=20)
            started.remove(proc)
    return results


def metrics_sample(port):
    """The example's ratelimit_requests_total lines, when it serves /metrics (proof that metrics recorded)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    return [l for l in text.splitlines() if l.startswith("ratelimit_requests_total") and not l.endswith(" 0.0")
            and not l.endswith(" 0")]


def summarize(result, spec):
    by = {}
    for r in result["rounds"]:
        by.setdefault(r["measurement"], []).append(r)
    summary = {"measurements": {}, "ratios": {}}
    for name, runs in by.items():
        rps = [r["rps"] for r in runs]
        summary["measurements"][name] = {
            "rps_median": statistics.median(rps), "rps_min": min(rps), "rps_max": max(rps),
            "p50_us_median": statistics.median(r["p50_us"] for r in runs),
            "p99_us_median": statistics.median(r["p99_us"] for r in runs),
            "server_cpu_us_per_request_median": statistics.median(r["server_cpu_us_per_request"] for r in runs),
            "server_context_switches_per_request_median": statistics.median(
                r["server_context_switches_per_request"] for r in runs),
        }
        if all("redis_context_switches_per_request" in r for r in runs):
            summary["measurements"][name]["redis_context_switches_per_request_median"] = statistics.median(
                r["redis_context_switches_per_request"] for r in runs)
        if all("redis_cpu_us_per_request" in r for r in runs):
            summary["measurements"][name]["redis_cpu_us_per_request_median"] = statistics.median(
                r["redis_cpu_us_per_request"] for r in runs)
        if all("redis_calls_per_request" in r for r in runs):
            summary["measurements"][name]["redis_calls_per_request_median"] = statistics.median(
                r["redis_calls_per_request"] for r in runs)
            summary["measurements"][name]["redis_commands_per_request_median"] = statistics.median(
                r["redis_commands_per_request"] for r in runs)
    for a, b in spec["ratios"]:
        if a not in by or b not in by:
            continue
        per_round = []
        for rnd in sorted({r["round"] for r in result["rounds"]}):
            x = [r["rps"] for r in by[a] if r["round"] == rnd]
            y = [r["rps"] for r in by[b] if r["round"] == rnd]
            if x and y:
                per_round.append(x[0] / y[0])
        cpu = []
        for rnd in sorted({r["round"] for r in result["rounds"]}):
            x = [r["server_cpu_us_per_request"] for r in by[a] if r["round"] == rnd]
            y = [r["server_cpu_us_per_request"] for r in by[b] if r["round"] == rnd]
            if x and y:
                cpu.append(x[0] / y[0])
        summary["ratios"][f"{a}/{b}"] = {"per_round": per_round, "median": statistics.median(per_round),
                                        "min": min(per_round), "max": max(per_round),
                                        "server_cpu_per_request_median": statistics.median(cpu)}
    return summary


if __name__ == "__main__":
    main()
