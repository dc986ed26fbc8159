#!/usr/bin/env python3
"""Upload over HTTP against the reader alone, in the same run (issue 30's figures; issue 32's team upload):

  for a 1M-update native trace (`tracesvc generate --updates 1000000`, about 410 MB) and the 512 MB
  xctrace export (`../shared/bench/gen_xctrace.py --updates 400000`), each to a fresh server:
  - upload + import wall time (first byte sent to the 201; median of --rounds uploads, 3, each to a
    fresh server) and the reader alone on the same file (`tracesvc-bench import`, median of 3), and
    their ratio (target <= 1.3x);
  - time from the upload's answer to the first timeline answer (GET /api/traces/{id}, then the
    timeline at 1920 px, as the page asks; target <= 100 ms);
  - the server's RSS after, and its CPU time during the upload per input byte beside the reader's
    alone;
  with --team, also the 512 MB export uploaded to the embedded default and to a team replica
  (PostgreSQL + SeaweedFS started by scripts/team-up.sh --engines-only): their ratio (target <= 1.5x),
  the replica's CPU per uploaded byte against the embedded server's (target <= 1.15x), and the team
  upload's wall time against the embedded upload plus the store alone storing the file (target <= 1.1x).

    swift build -c release --product tracesvc && swift build -c release --product tracesvc-bench
    python3 scripts/bench-upload.py [--team] [--native-updates 1000000] [--xctrace-updates 400000] [--export all.xml]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench_common import (REPO, SHARED, Server, get, process_cpu_seconds, store_pid, store_put_seconds, team_engines, team_options,
                          upload_seconds)


def rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reader_alone(bench, path):
    out = subprocess.run([bench, "import", "--file", str(path), "--runs", "3"], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def upload_round(path, binary, data, env):
    """One upload to a fresh server: (upload s, first picture ms, server CPU s during the upload,
    with the extras after it, RSS MB after)."""
    server = Server(binary, data, env).start()
    try:
        pid = server.process.pid
        cpu_before = process_cpu_seconds(pid)
        upload, trace_id = upload_seconds(server.base, path)
        answered = time.perf_counter()
        get(f"{server.base}/api/traces/{trace_id}")
        get(f"{server.base}/api/traces/{trace_id}/timeline?width=1920")
        first_picture_ms = (time.perf_counter() - answered) * 1000
        server_cpu = process_cpu_seconds(pid) - cpu_before
        # The extras built after the answer are part of what the upload costs: let them finish.
        time.sleep(2)
        return upload, first_picture_ms, server_cpu, process_cpu_seconds(pid) - cpu_before, rss_mb(pid)
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


def measure(label, path, binary, bench, work, env, rounds):
    size = path.stat().st_size
    alone = reader_alone(bench, path)
    # Medians of `rounds` uploads, each to a fresh server, as the reader alone is a median of 3.
    results = [upload_round(path, binary, work / f"data-{label}-{i}", env) for i in range(rounds)]
    upload, first_picture_ms, server_cpu, server_cpu_all, rss = (statistics.median(column) for column in zip(*results))
    mb = size / 1e6
    print(f"== {label}: {path.name} ({mb:.0f} MB, {alone['updates']} updates), load average {os.getloadavg()[0]:.2f}")
    print(f"upload + import {upload:.2f} s ({mb / upload:.0f} MB/s; median of {rounds}: "
          f"{', '.join(f'{r[0]:.2f}' for r in results)}); reader alone {alone['wallSeconds']:.2f} s "
          f"({mb / alone['wallSeconds']:.0f} MB/s): ratio {upload / alone['wallSeconds']:.2f}x (target <= 1.3x)")
    print(f"first timeline answer {first_picture_ms:.0f} ms after the upload's answer (target <= 100 ms); server RSS after {rss:.0f} MB")
    print(f"CPU per input byte: server during the upload {server_cpu / size * 1e9:.2f} ns/B "
          f"({server_cpu_all / size * 1e9:.2f} ns/B with the extras built after the answer); "
          f"reader alone {alone['cpuSeconds'] / size * 1e9:.2f} ns/B")


def team_ratio(binary, export, work):
    with team_engines(work / "engines") as env:
        embedded = Server(binary, work / "team-embedded", env).start()
        replica = Server(binary, work / "team-replica", env, team_options(env)).start()
        try:
            mb = export.stat().st_size / 1e6
            cpu_before = process_cpu_seconds(embedded.process.pid)
            embedded_upload, _ = upload_seconds(embedded.base, export)
            embedded_cpu = process_cpu_seconds(embedded.process.pid) - cpu_before
            # The object store alone on the same file: the floor of any team upload on this machine.
            alone, alone_store_cpu = store_put_seconds(env, export)
            cpu_before, store_before = process_cpu_seconds(replica.process.pid), process_cpu_seconds(store_pid(env))
            team_upload, _ = upload_seconds(replica.base, export)
            team_cpu = process_cpu_seconds(replica.process.pid) - cpu_before
            store_cpu = process_cpu_seconds(store_pid(env)) - store_before
            print(f"== team mode: {export.name} ({mb:.0f} MB), load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
            print(f"embedded {embedded_upload:.2f} s, team {team_upload:.2f} s: team / embedded = {team_upload / embedded_upload:.2f}x (target <= 1.5x)")
            print(f"CPU: embedded server {embedded_cpu:.2f} s; team server {team_cpu:.2f} s + object store {store_cpu:.2f} s")
            print(f"the object store alone (one PUT of the file, no tracesvc): {alone:.2f} s = {alone / embedded_upload:.2f}x embedded, "
                  f"object store CPU {alone_store_cpu:.2f} s")
            # Issue 44's judgement of the team upload by what the replica controls: its own CPU per byte,
            # and the wall time against the embedded upload plus the store's own work on the same file.
            size = export.stat().st_size
            print(f"replica CPU per uploaded byte: team {team_cpu / size * 1e9:.2f} ns/B, embedded {embedded_cpu / size * 1e9:.2f} ns/B: "
                  f"{team_cpu / embedded_cpu:.2f}x (target <= 1.15x)")
            print(f"team upload {team_upload:.2f} s against embedded + the store alone {embedded_upload + alone:.2f} s: "
                  f"{team_upload / (embedded_upload + alone):.2f}x (target <= 1.1x)")
        finally:
            embedded.stop()
            replica.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(REPO / ".build/release/tracesvc"))
    parser.add_argument("--bench", default=str(REPO / ".build/release/tracesvc-bench"))
    parser.add_argument("--native-updates", type=int, default=1_000_000)
    parser.add_argument("--xctrace-updates", type=int, default=400_000)
    parser.add_argument("--team", action="store_true", help="also the team-mode upload ratio (starts PostgreSQL and SeaweedFS)")
    parser.add_argument("--skip-native", action="store_true")
    parser.add_argument("--rounds", type=int, default=3, help="uploads of each file, each to a fresh server (the median is shown)")
    parser.add_argument("--export", help="an existing xctrace export to upload instead of generating one (e.g. from an earlier run)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="tracesvc-bench-upload-"))
    work.chmod(0o755)  # PostgreSQL runs as its own user and must reach its folder inside
    try:
        if args.export:
            export = Path(args.export)
        else:
            export_dir = work / "export"
            subprocess.run([sys.executable, str(SHARED / "bench/gen_xctrace.py"), str(export_dir), "--updates", str(args.xctrace_updates)],
                           check=True, capture_output=True)
            export = export_dir / "all.xml"
        if not args.skip_native:
            native = work / "native-1m.json"
            subprocess.run([args.binary, "generate", "--updates", str(args.native_updates), "--seed", "42", "--output", str(native)],
                           check=True, capture_output=True)
            measure("native", native, args.binary, args.bench, work, dict(os.environ), args.rounds)
            native.unlink()
        measure("xctrace", export, args.binary, args.bench, work, dict(os.environ), args.rounds)
        if args.team:
            team_ratio(args.binary, export, work)
    finally:
        subprocess.run(["rm", "-rf", str(work)])


if __name__ == "__main__":
    main()
