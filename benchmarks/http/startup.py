#!/usr/bin/env python3
"""Start-up time and memory of the example on each runtime, from the artifacts `mvn verify` leaves behind.

    python3 benchmarks/http/startup.py embedded quarkus liberty payara

Run from the repository root after `mvn verify` (or `mvn package`) built the examples. Each runtime in turn:
started on a free port of 127.0.0.1, timed from process start to the first 200 on GET /todos/1, then the
resident memory of its process tree (VmRSS summed) two seconds later, then stopped. One JSON line each.
Only the standard library; Linux (/proc).
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


def main(names):
    scratch = tempfile.mkdtemp(prefix="ratelimit-startup-")
    known = runtimes(scratch)
    for name in names or known:
        measure(name, *known[name], scratch)


if __name__ == "__main__":
    main(sys.argv[1:])
