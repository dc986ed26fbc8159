#!/usr/bin/env python3
"""Team mode against the embedded default, measured in the same run (issue 32's three figures):

  1. upload and import of a large xctrace export (`../shared/bench/gen_xctrace.py --updates 400000`,
     about 512 MB): seconds from the first byte sent to the 201, embedded vs team (target <= 1.5x);
  2. cold open on a server that never loaded the trace: from `GET /api/traces/{id}` to the first
     timeline answer, embedded (restarted) vs a second team replica (target <= 1.5x, issue 44);
  3. `GET /api/traces?limit=100` paged through 10,000 traces in the catalog, p50/p99, both modes
     (target p99 <= 50 ms), with `GET /healthz` p99 in the same run as the floor.

Starts PostgreSQL and SeaweedFS with scripts/team-up.sh --engines-only (stopped at the end) and
the servers on free loopback ports; bounded in count and time.

    swift build -c release --product tracesvc
    python3 scripts/bench-team.py [--updates 400000] [--binary .build/release/tracesvc]
"""
import argparse
import contextlib
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import (REPO, SHARED, Server, get, percentile, process_cpu_seconds, store_pid, store_put_seconds, team_engines,
                          team_options, upload_seconds)


def cold_open_seconds(base, trace_id):
    started = time.perf_counter()
    get(f"{base}/api/traces/{trace_id}")
    get(f"{base}/api/traces/{trace_id}/timeline?width=1920")
    return time.perf_counter() - started


def list_latencies(base, rounds):
    pages, floor = [], []
    for _ in range(rounds):
        cursor = None
        while True:
            started = time.perf_counter()
            _, body = get(f"{base}/api/traces?limit=100" + (f"&cursor={cursor}" if cursor else ""))
            pages.append((time.perf_counter() - started) * 1000)
            cursor = json.loads(body)["nextCursor"]
            started = time.perf_counter()
            get(f"{base}/healthz")
            floor.append((time.perf_counter() - started) * 1000)
            if not cursor:
                break
    return pages, floor


def rows(count, start_micros):
    for n in range(count):
        key = f"{n:064x}"
        yield (key[32:], f"bench-{n}.trace", "BenchApp", "iPhone", 1_000_000, 1000, key, "xctrace-xml", 10, None,
               start_micros - n * 1000, 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(REPO / ".build/release/tracesvc"))
    parser.add_argument("--updates", type=int, default=400_000)
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--export", help="an existing export to upload instead of generating one")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="tracesvc-bench-team-"))
    work.chmod(0o755)  # PostgreSQL runs as its own user and must reach its folder inside
    servers = []
    try:
        # The servers stop before the engines they use.
        with team_engines(work / "engines") as env, contextlib.ExitStack() as running:
            running.callback(lambda: [server.stop() for server in servers])
            if args.export:
                export = Path(args.export)
            else:
                subprocess.run([sys.executable, str(SHARED / "bench/gen_xctrace.py"), str(work / "export"), "--updates", str(args.updates)], check=True)
                export = work / "export" / "all.xml"
            size_mb = export.stat().st_size / 1e6
            team = team_options(env)
            embedded = Server(args.binary, work / "embedded", env).start()
            replica_a = Server(args.binary, work / "replica-a", env, team).start()
            replica_b = Server(args.binary, work / "replica-b", env, team).start()
            servers = [embedded, replica_a, replica_b]

            print(f"== 1. upload and import of {export.name} ({size_mb:.0f} MB)")
            embedded_upload, trace_id = upload_seconds(embedded.base, export)
            alone, _ = store_put_seconds(env, export)
            store_before = process_cpu_seconds(store_pid(env))
            team_upload, team_id = upload_seconds(replica_a.base, export)
            store_cpu = process_cpu_seconds(store_pid(env)) - store_before
            assert trace_id == team_id
            print(f"embedded {embedded_upload:.2f} s ({size_mb / embedded_upload:.0f} MB/s), team {team_upload:.2f} s "
                  f"({size_mb / team_upload:.0f} MB/s): team / embedded = {team_upload / embedded_upload:.2f}x (target <= 1.5x)")
            print(f"the object store alone (one PUT of the file, no tracesvc) {alone:.2f} s = {alone / embedded_upload:.2f}x embedded; "
                  f"its CPU during the team upload {store_cpu:.2f} s")

            print("== 2. cold open (GET /api/traces/{id} to the first timeline answer) on a server that never loaded it")
            embedded.stop()
            embedded.start()
            embedded_cold = cold_open_seconds(embedded.base, trace_id)
            team_cold = cold_open_seconds(replica_b.base, trace_id)
            print(f"embedded (restarted) {embedded_cold:.2f} s, team replica B {team_cold:.2f} s: "
                  f"team / embedded = {team_cold / embedded_cold:.2f}x (target <= 1.5x)")

            print(f"== 3. GET /api/traces?limit=100 through {args.traces} traces, {args.rounds} rounds (p99 target <= 50 ms)")
            now = int(time.time() * 1_000_000)
            embedded.stop()
            with sqlite3.connect(work / "embedded" / "catalog.sqlite") as db:
                db.executemany("INSERT INTO traces (id, name, app, device, duration_ns, size_bytes, sha256, source_format, update_count, run, "
                               "uploaded_at_us, parser_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows(args.traces, now))
            embedded.start()
            copy = "\n".join("\t".join("\\N" if v is None else str(v) for v in row) for row in rows(args.traces, now)) + "\n\\.\n"
            subprocess.run(["psql", "-h", "127.0.0.1", "-p", env["TEAM_PG_PORT"], "-U", "postgres", "-d", "tracesvc", "-q", "-c",
                            "COPY traces (id, name, app, device, duration_ns, size_bytes, sha256, source_format, update_count, run, "
                            "uploaded_at_us, parser_version) FROM STDIN"], input=copy, text=True, check=True)
            for name, server in [("embedded", embedded), ("team", replica_a)]:
                get(server.base + "/api/traces?limit=100")
                pages, floor = list_latencies(server.base, args.rounds)
                print(f"{name}: {len(pages)} pages, p50 {statistics.median(pages):.2f} ms, p99 {percentile(pages, 0.99):.2f} ms; "
                      f"GET /healthz p99 {percentile(floor, 0.99):.2f} ms (same run)")
    finally:
        subprocess.run(["rm", "-rf", str(work)])


if __name__ == "__main__":
    main()
