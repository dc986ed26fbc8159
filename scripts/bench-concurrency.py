#!/usr/bin/env python3
"""Cheap requests under heavy load (issue 11, item 3): how long `GET /api/traces` takes while N
heavy cause-graph queries run on a large trace, against the same probe on the idle server in the
same run. Loopback only, bounded in count and time.

    swift build -c release --product tracesvc
    python3 scripts/bench-concurrency.py [--updates 1000000] [--heavy 60]
"""
import argparse
import concurrent.futures
import json
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def timed_get(url, timeout=120):
    began = time.perf_counter()
    with urllib.request.urlopen(url, timeout=timeout) as response:
        response.read()
        status = response.status
    return time.perf_counter() - began, status


def probe(base, count):
    return [timed_get(f"{base}/api/traces")[0] * 1000 for _ in range(count)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(REPO / ".build/release/tracesvc"))
    parser.add_argument("--updates", type=int, default=1_000_000)
    parser.add_argument("--heavy", type=int, default=60)
    parser.add_argument("--probes", type=int, default=20)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="tracesvc-bench-concurrency-"))
    server = None
    try:
        trace = work / "big.json"
        subprocess.run([args.binary, "generate", "--updates", str(args.updates), "--seed", "42", "--output", str(trace)],
                       check=True, capture_output=True, timeout=900)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen([args.binary, "serve", "--port", str(port), "--data-dir", str(work / "data")],
                                  cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        server.stdout.readline()  # "tracesvc is running: ..."
        request = urllib.request.Request(f"{base}/api/traces?name=big.json", data=trace.read_bytes(), method="POST",
                                         headers={"Content-Type": "application/octet-stream"})
        with urllib.request.urlopen(request, timeout=900) as response:
            trace_id = json.load(response)["trace"]["id"]

        heavy_url = f"{base}/api/traces/{trace_id}/graph?view=VStack&module=SwiftUI"
        single, _ = timed_get(heavy_url, timeout=600)
        idle = probe(base, args.probes)

        statuses = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.heavy) as pool:
            began = time.perf_counter()
            futures = [pool.submit(timed_get, heavy_url, 600) for _ in range(args.heavy)]
            time.sleep(0.2)
            loaded = probe(base, args.probes)
            for future in futures:
                statuses.append(future.result()[1])
            heavy_wall = time.perf_counter() - began

        def p(values, q):
            values = sorted(values)
            return values[min(len(values) - 1, int(q * len(values)))]

        print(f"trace: {args.updates:,} updates; one graph query alone: {single * 1000:.0f} ms")
        print(f"{args.heavy} concurrent graph queries: all answered in {heavy_wall:.1f} s "
              f"({statuses.count(200)} x 200, {statuses.count(503)} x 503)")
        print(f"GET /api/traces idle (baseline):     p50 {statistics.median(idle):7.1f} ms  max {max(idle):7.1f} ms")
        print(f"GET /api/traces under the load:      p50 {statistics.median(loaded):7.1f} ms  max {max(loaded):7.1f} ms")
        print(f"ratio loaded/idle p50: {statistics.median(loaded) / statistics.median(idle):.1f}x; "
              f"p90 under load {p(loaded, 0.9):.1f} ms")
    finally:
        if server:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
