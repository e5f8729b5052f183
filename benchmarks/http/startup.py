#!/usr/bin/env python3
"""Start-up time and memory of the example on each runtime, from the artifacts `mvn verify` leaves behind.

    python3 benchmarks/http/startup.py embedded quarkus liberty payara

Run from the repository root after `mvn verify` (or `mvn package`) built the examples. Each runtime in turn:
started on a free port of 127.0.0.1, timed from process start to the first 200 on GET /todos/1, then the
resident memory of its process tree (VmRSS summed) two seconds later, then stopped. One JSON line each.

    python3 benchmarks/http/startup.py quarkus-apps 5 none ratelimit [NAME=JAR ...]

The Quarkus apps of benchmarks/quarkus (or other builds' quarkus-run.jar, NAME=JAR), started in turn N times
each, alternating (none, ratelimit, none, ratelimit, ...), timed to the first 200 on GET /item/1; the CPU
(user + system) the process used until then, and its RSS two seconds later. One JSON line per app: the medians
and every start. Only the standard library; Linux (/proc).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

JAVA = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if "JAVA_HOME" in os.environ else shutil.which("java")
JAVA_HOME = os.path.dirname(os.path.dirname(os.path.realpath(JAVA)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid):
    found = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found += children(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def rss_mib(pid):
    total = 0
    for p in children(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                total += sum(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
        except OSError:
            pass
    return total // 1024


def runtimes(scratch):
    return {
        "embedded": ([JAVA, "-jar", "examples/todos/target/todos.jar"], {"PORT": "{port}"}),
        "quarkus": ([JAVA, "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port={port}", "-jar",
                     "examples/todos-quarkus/target/quarkus-app/quarkus-run.jar"], {}),
        "liberty": (["examples/todos-liberty/target/liberty/wlp/bin/server", "run", "todos", "--clean"],
                    {"HTTP_PORT": "{port}", "JAVA_HOME": JAVA_HOME}),
        "payara": ([JAVA, "-jar", "examples/todos-payara/target/payara-micro.jar", "--deploy",
                    "examples/todos-payara/target/todos.war", "--contextroot", "/", "--port", "{port}",
                    "--nocluster", "--rootdir", os.path.join(scratch, "payara-{port}")], {}),
    }


def measure(name, cmd, env, scratch):
    port = str(free_port())
    cmd = [c.replace("{port}", port) for c in cmd]
    environment = dict(os.environ, **{k: v.replace("{port}", port) for k, v in env.items()})
    started = time.time()
    with open(os.path.join(scratch, f"{name}.log"), "w") as log:
        server = subprocess.Popen(cmd, env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    first = None
    try:
        while time.time() - started < 180 and server.poll() is None:
            try:
                request = urllib.request.Request(f"http://127.0.0.1:{port}/todos/1", headers={"X-Api-Key": "probe"})
                with urllib.request.urlopen(request, timeout=2) as answer:
                    if answer.status == 200:
                        first = time.time() - started
                        break
            except OSError:
                pass
            time.sleep(0.1)
        time.sleep(2)
        rss = rss_mib(server.pid)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    print(json.dumps({"runtime": name, "first_200_s": round(first, 1) if first else None,
                      "rss_mib_after_first_answer": rss, "log": log.name}), flush=True)


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure_quarkus_app(jar, scratch, name):
    """One start of a Quarkus app: seconds to the first 200 on /item/1, RSS (MiB) 2 s later, CPU seconds until the 200."""
    port = str(free_port())
    started = time.time()
    with open(os.path.join(scratch, f"{name}-{port}.log"), "w") as log:
        server = subprocess.Popen([JAVA, "-Dquarkus.http.host=127.0.0.1", f"-Dquarkus.http.port={port}", "-jar", jar],
                                  stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    first = cpu = None
    try:
        while time.time() - started < 120 and server.poll() is None:
            try:
                request = urllib.request.Request(f"http://127.0.0.1:{port}/item/1", headers={"X-Api-Key": "probe"})
                with urllib.request.urlopen(request, timeout=2) as answer:
                    if answer.status == 200:
                        first = time.time() - started
                        cpu = cpu_s(server.pid)
                        break
            except OSError:
                pass
            time.sleep(0.02)
        time.sleep(2)
        rss = rss_mib(server.pid)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    if first is None:
        raise RuntimeError(f"{name} ({jar}) never answered 200; see {log.name}")
    return first, rss, cpu


def quarkus_apps(args):
    import statistics
    n = int(args[0])
    apps = {}
    for a in args[1:]:
        name, _, jar = a.partition("=")
        apps[name] = jar or f"benchmarks/quarkus/{name}/target/quarkus-app/quarkus-run.jar"
    scratch = tempfile.mkdtemp(prefix="ratelimit-startup-")
    runs = {name: [] for name in apps}
    loads = []
    for _ in range(n):
        for name, jar in apps.items():
            with open("/proc/loadavg") as f:
                loads.append(float(f.read().split()[0]))
            runs[name].append(measure_quarkus_app(jar, scratch, name))
    for name, rs in runs.items():
        print(json.dumps({"app": name, "starts": n,
                          "first_200_s_median": round(statistics.median(r[0] for r in rs), 3),
                          "rss_mib_median": statistics.median(r[1] for r in rs),
                          "cpu_s_to_first_200_median": round(statistics.median(r[2] for r in rs), 2),
                          "runs_s_mib_cpu": [[round(a, 3), b, round(c, 2)] for a, b, c in rs],
                          "load_1min_min_max": [min(loads), max(loads)]}), flush=True)


def main(names):
    if names and names[0] == "quarkus-apps":
        quarkus_apps(names[1:])
        return
    scratch = tempfile.mkdtemp(prefix="ratelimit-startup-")
    known = runtimes(scratch)
    for name in names or known:
        measure(name, *known[name], scratch)


if __name__ == "__main__":
    main(sys.argv[1:])
