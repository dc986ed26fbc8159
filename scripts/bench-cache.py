#!/usr/bin/env python3
"""A cached answer (If-None-Match -> 304) against the answer computed (200), in the same run.

Starts `tracesvc serve` on a free port with a temporary data dir, uploads a synthetic trace
(`tracesvc generate --updates N`, CPU samples included), asks each immutable answer once for its
ETag, then over one keep-alive connection asks it `--requests` times with If-None-Match (304) and
`--computed` times without (200, computed from the model in memory), and /healthz as the HTTP
floor of this client on loopback. Prints wall p50/p99 in ms per answer and the 304's p99 against
the 200's (target: a 304 under 1 ms p99). The client is Python's http.client: its own cost is in
every figure (the /healthz row shows it).

    swift build -c release --product tracesvc
    python3 scripts/bench-cache.py [--bin .build/release/tracesvc] [--updates 200000] [--requests 2000]
"""
import argparse
import http.client
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench_common import REPO, Server, percentile, upload_seconds

ANSWERS = [
    ("summary", "/summary", "application/json"),
    ("findings", "/findings", "application/json"),
    ("timeline JSON", "/timeline?width=1920", "application/json"),
    ("timeline binary", "/timeline?width=1920", "application/octet-stream, application/json;q=0.5"),
    ("call tree", "/calltree", "application/json"),
    ("flame graph", "/flamegraph?width=1200", "application/json"),
]


def timed(connection, path, headers, count):
    """Wall ms of `count` GETs on one connection, and the last status."""
    times, status = [], None
    for _ in range(count):
        started = time.perf_counter()
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        times.append((time.perf_counter() - started) * 1000)
        status = response.status
    return times, status


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=str(REPO / ".build/release/tracesvc"))
    parser.add_argument("--updates", type=int, default=200_000)
    parser.add_argument("--requests", type=int, default=2000, help="304s per answer")
    parser.add_argument("--computed", type=int, default=30, help="200s per answer (the baseline)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-cache-"))
    try:
        trace = folder / "synthetic.json"
        subprocess.run([args.bin, "generate", "--updates", str(args.updates), "--seed", "7", "--output", str(trace)], check=True, capture_output=True)
        (folder / "data").mkdir()
        server = Server(args.bin, folder / "data", dict(os.environ)).start()
        try:
            _, trace_id = upload_seconds(server.base, trace)
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
            floor, _ = timed(connection, "/healthz", {}, args.requests)
            print(f"{args.bin}: {args.updates} updates, {args.requests} 304s and {args.computed} 200s per answer, one keep-alive connection")
            print(f"{'answer':<17} {'304 p50':>8} {'p99':>7} | {'200 p50':>8} {'p99':>8} | 304 p99 / 200 p50")
            print(f"{'/healthz (floor)':<17} {percentile(floor, 0.5):8.3f} {percentile(floor, 0.99):7.3f} |")
            worst = 0.0
            for name, suffix, accept in ANSWERS:
                path = f"/api/traces/{trace_id}{suffix}"
                connection.request("GET", path, headers={"Accept": accept})
                first = connection.getresponse()
                first.read()
                etag = first.getheader("ETag")
                assert first.status == 200 and etag, (path, first.status)
                computed, status = timed(connection, path, {"Accept": accept}, args.computed)
                assert status == 200
                cached, status = timed(connection, path, {"Accept": accept, "If-None-Match": etag}, args.requests)
                assert status == 304
                worst = max(worst, percentile(cached, 0.99))
                print(f"{name:<17} {percentile(cached, 0.5):8.3f} {percentile(cached, 0.99):7.3f} | "
                      f"{percentile(computed, 0.5):8.3f} {percentile(computed, 0.99):8.3f} | {percentile(cached, 0.99) / percentile(computed, 0.5):.4f}x")
            print(json.dumps({"worst_304_p99_ms": round(worst, 3), "target_ms": 1.0, "met": worst < 1.0}))
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
