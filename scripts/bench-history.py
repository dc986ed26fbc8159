#!/usr/bin/env python3
"""The history's figures (issue 29) with 10,000 traces in the catalog, in both storage modes:

  1. the list: `GET /api/traces?limit=100` first pages (newest first, filtered by a tag, by free
     text, sorted by name), p50/p99 (target p99 <= 50 ms);
  2. the history: `GET /api/history?tag=scenario:…&tag=branch:main&view=…` over the latest 200 and
     the latest 500 traces of a scenario, and over the latest 2,000 of every scenario
     (`tag=branch:main&limit=2000`, target p99 <= 50 ms), p50/p99;
  3. the home page's first paint with 10,000 traces: from navigation to the first row drawn, in
     headless Chromium (target < 1 s), with the same page of an empty server in the same run.

`GET /healthz` p99 in the same run is the floor of 1 and 2. The 10,000 rows (20 scenarios of 500
builds, five views and a finding each, as an upload measures them) are written straight into the
catalog, stamped with the measurement version of a real upload, so the background measures none.

    swift build -c release --product tracesvc
    python3 scripts/bench-history.py [--binary .build/release/tracesvc] [--embedded-only]

`--against OLD_BINARY` instead measures the history reads only, embedded, on two servers with the
same catalog (this binary's and OLD_BINARY's), request by request in turn, and prints each side's
p50/p99, its CPU per request and the ratios of the medians and CPUs: a before/after figure from one
run, under one load. With `--team` the two are replicas of one PostgreSQL catalog.
"""
import argparse
import contextlib
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from bench_common import REPO, Server, get, percentile, process_cpu_seconds, team_engines, team_options

SCENARIOS = 20
VIEWS = ["RowView", "HeaderView", "ListView", "DetailView", "ToolbarView"]


def one_trace(build):
    """A small native trace of another app (not the Landmarks demo): the real upload the rows copy their versions from."""
    updates = [[1_000_000 + i * 2_000_000, 300_000, "view-body", "Bench", "RowView", "", "", 0, 0, 0, "none"] for i in range(8)]
    return json.dumps({
        "format": "tracesvc-trace", "version": 1,
        "metadata": {"app": "Bench", "device": "iPhone", "osVersion": "18.0", "refreshRate": 120, "recordedAt": None,
                     "start": 0, "end": 20_000_000 + build, "importNotes": []},
        "processes": [[1, "Bench"]], "threads": [[1, "Main Thread", 0, True]], "updateGroups": [[500_000, 19_000_000, "Transaction", 0]],
        "updates": updates, "nodes": [], "edges": [], "frames": [], "stacks": [], "samples": [],
    }).encode()


def catalog_rows(count, now_micros, parser_version, measured_version, lower_search_text):
    """(traces, tags, totals, views, findings) rows: scenario s{n % 20}, build n // 20 + 1; the
    RowView bodies of scenario s0 step from 300 µs to 1.5 ms at build 403 (every tenth build is
    on another branch)."""
    traces, tags, totals, views, findings = [], [], [], [], []
    for n in range(count):
        key = f"{n:064x}"
        trace_id = key[32:]
        scenario, build = n % SCENARIOS, n // SCENARIOS + 1
        name = f"s{scenario}-build-{build}.json"
        trace_tags = (f"scenario:s{scenario}", "branch:main" if build % 10 else "branch:feature/x", f"build:{build}", f"commit:c{build:06d}", "device:iphone-16")
        # What `q=` searches, as the catalog writes it (CatalogSchema.searchTextUpdate: PostgreSQL in lower case).
        search_text = "\n".join([name, "BenchApp", "iPhone", *sorted(trace_tags)])
        uploaded = now_micros - (count - n) * 1000
        traces.append((trace_id, name, "BenchApp", "iPhone", 60_000_000, 20_000, key, "tracesvc-trace",
                       60, None, uploaded, parser_version, measured_version,
                       search_text.lower() if lower_search_text else search_text))
        # A tag's row carries its trace's upload time and size, as the catalog writes it (migration 8).
        for tag in trace_tags:
            tags.append((trace_id, tag, uploaded, 20_000))
        totals.append((trace_id, 60, build % 3, 20_000_000, 0, 0, 5_000_000, 200_000, 100, 100_000_000))
        body = 1_500_000 if scenario == 0 and build >= 403 else 300_000
        for index, view in enumerate(VIEWS):
            ns = body if index == 0 else 50_000 * (index + 1)
            views.append((trace_id, "Bench", view, 12, 12 * ns + (n * 7919) % 40_000, ns, 12 if ns > 500_000 else 0, 12 if ns > 1_000_000 else 0, 12 if index == 0 else 1))
        findings.append((trace_id, "collection-fan-out:Bench.ListView", "collection-fan-out", "ListView", "medium", 2_000_000))
    return traces, tags, totals, views, findings


TABLES = {
    "traces": "id, name, app, device, duration_ns, size_bytes, sha256, source_format, update_count, run, uploaded_at_us, parser_version, measured_version, search_text",
    "trace_tags": "trace_id, tag, uploaded_at_us, size_bytes",
    "trace_totals": "trace_id, updates, hitches, hitch_ns, hangs, hang_ns, main_actor_busy_ns, main_actor_wait_ns, cpu_samples, cpu_weight",
    "view_measurements": "trace_id, module, view, bodies, total_ns, p95_ns, orange, red, widest_fan_out",
    "trace_findings": "trace_id, finding_id, kind, subject, severity, cost_ns",
}


# Each scope's traces and bytes, as the catalog's writes keep them (migration 10): the list's
# total and a multi-tag history's choice of its rarest tag read them.
RECOUNT = ["DELETE FROM trace_counts",
           "INSERT INTO trace_counts (scope, traces, bytes) SELECT '', COUNT(*), COALESCE(SUM(size_bytes), 0) FROM traces",
           "INSERT INTO trace_counts (scope, traces, bytes) SELECT tag, COUNT(*), SUM(size_bytes) FROM trace_tags GROUP BY tag"]


def fill_sqlite(path, tables):
    with sqlite3.connect(path) as db:
        for (name, columns), rows in zip(TABLES.items(), tables):
            db.executemany(f"INSERT INTO {name} ({columns}) VALUES ({','.join('?' * len(columns.split(',')))})", rows)
        for statement in RECOUNT:
            db.execute(statement)


def fill_postgres(env, tables):
    for (name, columns), rows in zip(TABLES.items(), tables):
        copy = "\n".join("\t".join("\\N" if v is None else str(v).replace("\\", "\\\\").replace("\n", "\\n") for v in row) for row in rows) + "\n\\.\n"
        subprocess.run(["psql", "-h", "127.0.0.1", "-p", env["TEAM_PG_PORT"], "-U", "postgres", "-d", "tracesvc", "-q", "-c",
                        f"COPY {name} ({columns}) FROM STDIN"], input=copy, text=True, check=True)
    for statement in RECOUNT:
        subprocess.run(["psql", "-h", "127.0.0.1", "-p", env["TEAM_PG_PORT"], "-U", "postgres", "-d", "tracesvc", "-q", "-c", statement], check=True)
    # As autovacuum would have by the time a catalog grew to this size: the planner's statistics.
    subprocess.run(["psql", "-h", "127.0.0.1", "-p", env["TEAM_PG_PORT"], "-U", "postgres", "-d", "tracesvc", "-q", "-c", "ANALYZE"], check=True)


def versions_of_upload(server, sqlite_path=None, env=None, trace_id=None):
    sql = f"SELECT parser_version, measured_version FROM traces WHERE id = '{trace_id}'"
    if sqlite_path:
        with sqlite3.connect(sqlite_path) as db:
            return db.execute(sql).fetchone()
    out = subprocess.run(["psql", "-h", "127.0.0.1", "-p", env["TEAM_PG_PORT"], "-U", "postgres", "-d", "tracesvc", "-At", "-c", sql],
                         capture_output=True, text=True, check=True).stdout.strip()
    return tuple(int(v) for v in out.split("|"))


def upload(server, body, name):
    request = urllib.request.Request(f"{server.base}/api/traces?name={name}&tag=scenario:real", data=body, method="POST",
                                     headers={"Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())["trace"]["id"]


def latencies(base, paths, rounds):
    """Each path `rounds` times, in turn, with GET /healthz after each (the same run's floor)."""
    times = {path: [] for path in paths}
    floor = []
    for _ in range(rounds):
        for path in paths:
            started = time.perf_counter()
            status, _ = get(base + path)
            times[path].append((time.perf_counter() - started) * 1000)
            assert status == 200, path
            started = time.perf_counter()
            get(base + "/healthz")
            floor.append((time.perf_counter() - started) * 1000)
    return times, floor


def first_paint_ms(base, rounds):
    """Navigation start to the first trace row in the document, in headless Chromium (fresh context each round)."""
    from playwright.sync_api import sync_playwright
    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            for _ in range(rounds):
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                page = context.new_page()
                page.goto(base + "/", wait_until="commit")
                page.wait_for_selector("table.traces tbody tr[data-trace-id]", timeout=30_000)
                results.append(page.evaluate("() => performance.now()"))
                context.close()
        finally:
            browser.close()
    return results


def report(name, base, rounds, scenario_view):
    tag = urllib.parse.quote("scenario:s0", safe=":")
    # Free text: sparse (20 traces), every trace (in each name), a tag's word (9,000), two letters (too
    # short for a trigram; 5,500), LIKE's own characters (none), two words.
    list_paths = ["/api/traces?limit=100", f"/api/traces?limit=100&tag={tag}", "/api/traces?limit=100&q=build-250",
                  "/api/traces?limit=100&q=build", "/api/traces?limit=100&q=main", "/api/traces?limit=100&q=s1",
                  "/api/traces?limit=100&q=1%25_", "/api/traces?limit=100&q=build-25%20s1", "/api/traces?limit=100&sort=name"]
    history_paths = history_paths_of(tag, scenario_view)
    for path in list_paths + history_paths:
        get(base + path)  # warm
    times, floor = latencies(base, list_paths + history_paths, rounds)
    _, body = get(base + history_paths[0])
    first_bad = json.loads(body)["firstBad"]
    print(f"-- {name}: GET /healthz p99 {percentile(floor, 0.99):.2f} ms (same run); the history names build "
          f"{first_bad['label'] if first_bad else None} first bad (the rows step at build 403)")
    for path in list_paths + history_paths:
        values = times[path]
        total = json.loads(get(base + path)[1]).get("total") if path.startswith("/api/traces") else None
        matched = f", {total} match" if total is not None else ""
        print(f"   {path}: p50 {statistics.median(values):.2f} ms, p99 {percentile(values, 0.99):.2f} ms ({len(values)} requests{matched})")


def history_paths_of(tag, scenario_view):
    """The latest 200 and 500 of one scenario, and 2,000 traces of every scenario (issue 40's target: p99 <= 50 ms)."""
    return [f"/api/history?tag={tag}&tag=branch:main&view={scenario_view}",
            f"/api/history?tag={tag}&tag=branch:main&view={scenario_view}&limit=500",
            f"/api/history?tag=branch:main&view={scenario_view}&limit=2000"]


def filled_embedded(binary, folder, env, count, now_micros):
    """An embedded server on `folder` whose catalog holds `count` bench rows uploaded up to `now_micros` (and one real upload)."""
    server = Server(binary, folder, env).start()
    real = upload(server, one_trace(1), "real.json")
    sqlite_path = folder / "catalog.sqlite"
    parser_version, measured_version = versions_of_upload(server, sqlite_path, None, real)
    server.stop()
    fill_sqlite(sqlite_path, catalog_rows(count, now_micros, parser_version, measured_version, lower_search_text=False))
    return server.start()


def against(args, work):
    """The history reads of this binary and `args.against`, alternately on one catalog each, same run."""
    tag = urllib.parse.quote("scenario:s0", safe=":")
    paths = history_paths_of(tag, "RowView")
    servers = []
    engines = contextlib.ExitStack()
    try:
        sides = [("new", args.binary), ("old", args.against)]
        if args.team:
            # Two replicas, one of each binary, on one PostgreSQL catalog (and store) filled once.
            env = engines.enter_context(team_engines(work / "engines"))
            for name, binary in sides:
                servers.append(Server(binary, work / name, env, team_options(env)).start())
            real = upload(servers[0], one_trace(1), "real.json")
            parser_version, measured_version = versions_of_upload(servers[0], None, env, real)
            fill_postgres(env, catalog_rows(args.traces, int(time.time() * 1_000_000), parser_version, measured_version, lower_search_text=True))
        else:
            # The same rows on both sides, upload times too: the answers must be the same bytes.
            now_micros = int(time.time() * 1_000_000)
            for name, binary in sides:
                servers.append(filled_embedded(binary, work / name, dict(os.environ), args.traces, now_micros))
        bodies = {}
        for (name, _), server in zip(sides, servers):
            for path in paths:
                status, body = get(server.base + path)  # warm
                assert status == 200, (name, path)
                bodies[name, path] = body
        times = {(name, path): [] for name, _ in sides for path in paths}
        cpu = {(name, path): 0.0 for name, _ in sides for path in paths}
        for round in range(args.rounds):
            # Which side goes first alternates too, so neither always follows the other's request.
            order = list(zip(sides, servers)) if round % 2 == 0 else list(zip(sides, servers))[::-1]
            for path in paths:
                for (name, _), server in order:
                    cpu_before = process_cpu_seconds(server.process.pid)
                    started = time.perf_counter()
                    status, _ = get(server.base + path)
                    times[name, path].append((time.perf_counter() - started) * 1000)
                    cpu[name, path] += process_cpu_seconds(server.process.pid) - cpu_before
                    assert status == 200, (name, path)
        # The server's CPU per request (clock ticks summed over the rounds): what the load cannot stretch, as it does the wall times.
        print(f"== history, this binary against {args.against}: {args.traces} traces, {'PostgreSQL' if args.team else 'SQLite'}, "
              f"{args.rounds} rounds, requests alternating")
        for path in paths:
            new, old = times["new", path], times["old", path]
            new_cpu, old_cpu = (cpu[side, path] / args.rounds * 1000 for side in ("new", "old"))
            print(f"   {path}: new p50 {statistics.median(new):.2f} ms, p99 {percentile(new, 0.99):.2f} ms, CPU {new_cpu:.1f} ms ({len(bodies['new', path]) // 1024} KB); "
                  f"old p50 {statistics.median(old):.2f} ms, p99 {percentile(old, 0.99):.2f} ms, CPU {old_cpu:.1f} ms ({len(bodies['old', path]) // 1024} KB); "
                  f"new/old medians {statistics.median(new) / statistics.median(old):.2f}, CPU {new_cpu / old_cpu:.2f}"
                  f"{'' if bodies['new', path] == bodies['old', path] else '; the answers differ'}")
    finally:
        for server in servers:
            server.stop()
        engines.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(REPO / ".build/release/tracesvc"))
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--paint-rounds", type=int, default=5)
    parser.add_argument("--embedded-only", action="store_true", help="no PostgreSQL/SeaweedFS (scripts/team-up.sh)")
    parser.add_argument("--against", metavar="OLD_BINARY", help="only the history reads, alternately against this binary (embedded)")
    parser.add_argument("--team", action="store_true", help="with --against: both binaries as replicas of one PostgreSQL catalog")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="tracesvc-bench-history-"))
    work.chmod(0o755)  # PostgreSQL runs as its own user and must reach its folder inside
    try:
        if args.against:
            against(args, work)
            return
        with contextlib.ExitStack() as running:
            env = dict(os.environ)
            modes = [("embedded", [])]
            if not args.embedded_only:
                env = running.enter_context(team_engines(work / "engines"))
                modes.append(("team", team_options(env)))
            servers = []
            running.callback(lambda: [server.stop() for server in servers])  # before the engines they use

            empty = Server(args.binary, work / "empty", env).start()
            servers.append(empty)
            print(f"== history benchmark: {args.traces} traces in the catalog, {args.rounds} rounds; binary {args.binary}")
            for name, extra in modes:
                server = Server(args.binary, work / name, env, extra).start()
                servers.append(server)
                real = upload(server, one_trace(1), "real.json")
                sqlite_path = work / name / "catalog.sqlite" if name == "embedded" else None
                parser_version, measured_version = versions_of_upload(server, sqlite_path, env, real)
                tables = catalog_rows(args.traces, int(time.time() * 1_000_000), parser_version, measured_version, lower_search_text=name == "team")
                if sqlite_path:
                    server.stop()
                    fill_sqlite(sqlite_path, tables)
                    server.start()
                else:
                    fill_postgres(env, tables)
                report(name, server.base, args.rounds, "RowView")
                if name == "embedded":
                    paint = first_paint_ms(server.base, args.paint_rounds)
                    baseline = first_paint_ms(empty.base, args.paint_rounds)
                    print(f"-- home page first paint (navigation to the first row), {args.paint_rounds} fresh contexts: "
                          f"{args.traces + 1} traces median {statistics.median(paint):.0f} ms, max {max(paint):.0f} ms; "
                          f"the samples only (same run) median {statistics.median(baseline):.0f} ms (target < 1000 ms)")
                server.stop()
    finally:
        subprocess.run(["rm", "-rf", str(work)])


if __name__ == "__main__":
    main()
