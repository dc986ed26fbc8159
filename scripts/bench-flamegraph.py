#!/usr/bin/env python3
"""Browser flame graph: first draw and frame times while zooming and panning, on a 1M-sample
profile (stacks about 120 frames deep) against a 10k-sample profile (the baseline, measured in the
same run).

Generates both with `tracesvc generate --cpu-samples`, starts `tracesvc serve` on a free port with
a temporary data dir, uploads them, and drives headless Chromium (Debian's /usr/bin/chromium): for
each it opens the CPU pane's flame graph (p=cpu&m=flame) and records the server's answer time
(resource timing of GET flamegraph), the first draw (from the answer's arrival to the end of the
first canvas draw: parsing, layout and drawing), then holds W/S (zoom) and A/D (pan), drags, and
spins Ctrl+wheel for a few seconds each, recording requestAnimationFrame deltas and the cost of
each draw (performance.measure 'cpu-boxes-draw'). Targets: first draw <= 50 ms, frame p95 <= 20 ms.

    python3 scripts/bench-flamegraph.py [--seconds 3] [--bin .build/release/tracesvc]
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
# The timeline benchmark's helpers: binary lookup, server start, upload, frame recorder.
_spec = importlib.util.spec_from_file_location("bench_browser", REPO / "scripts" / "bench-browser.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def first_draw(page):
    """Server answer (ms), first draw after it (ms), frames drawn: from the page's performance entries."""
    return page.evaluate("""() => {
      const answer = performance.getEntriesByType('resource').filter(e => e.name.includes('/flamegraph')).pop();
      const arrived = performance.getEntriesByName('cpu-flame-answer', 'mark').pop();
      const draw = performance.getEntriesByName('cpu-boxes-draw').find(e => arrived && e.startTime >= arrived.startTime);
      return { server: answer ? answer.responseEnd - answer.requestStart : NaN,
               firstDraw: draw ? draw.startTime + draw.duration - arrived.startTime : NaN,
               frames: Number(document.querySelector('#cpu-flame-canvas')?.dataset.frames ?? 0) };
    }""")


def measure(page, action):
    page.evaluate("() => { performance.clearMeasures('cpu-boxes-draw'); window.__bench.frames = []; window.__bench.recording = true; }")
    action()
    result = page.evaluate("""() => {
      window.__bench.recording = false;
      const f = window.__bench.frames;
      return { deltas: f.slice(1).map((t, i) => t - f[i]),
               draws: performance.getEntriesByName('cpu-boxes-draw').map(e => e.duration),
               fetches: performance.getEntriesByType('resource').filter(e => e.name.includes('/flamegraph')).length };
    }""")
    return result["deltas"], result["draws"], result["fetches"]


def scenarios(page, seconds):
    canvas = page.locator("#cpu-flame-canvas")
    box = canvas.bounding_box()
    cy = box["y"] + 40

    def keys_zoom():
        canvas.focus()
        bench.hold(page, "w", seconds / 2)
        bench.hold(page, "s", seconds / 2)

    def keys_pan():
        canvas.focus()
        bench.hold(page, "w", 0.6)  # zoomed in first, so there is room to pan
        bench.hold(page, "d", seconds / 2)
        bench.hold(page, "a", seconds / 2)

    return [("zoom (W/S held)", keys_zoom), ("pan (A/D held)", keys_pan),
            ("drag pan", lambda: bench.drag_pan(page, box, cy, seconds)),
            ("ctrl+wheel zoom", lambda: bench.wheel_zoom(page, box, cy, seconds, modifier="Control"))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=None, help="tracesvc binary (default: $TRACESVC_BIN, .build/release, .build/debug)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per scenario")
    parser.add_argument("--big", type=int, default=1_000_000, help="samples in the big profile")
    parser.add_argument("--small", type=int, default=10_000, help="samples in the baseline profile")
    parser.add_argument("--depth", type=int, default=120, help="typical stack depth")
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--loads", type=int, default=5, help="times the graph is opened, for the first-draw figures")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "tracesvc-bench-flamegraph"),
                        help="where generated profiles are kept between runs")
    args = parser.parse_args()
    binary = args.bin or bench.default_binary()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    files = {}
    for label, count in (("small", args.small), ("big", args.big)):
        path = cache / f"profile-{count}x{args.depth}.json"
        if not path.exists():
            began = time.monotonic()
            subprocess.run([binary, "generate", "--cpu-samples", str(count), "--stack-depth", str(args.depth), "--output", str(path)], check=True)
            print(f"generated {path.name} ({path.stat().st_size / 1e6:.1f} MB) in {time.monotonic() - began:.1f} s")
        files[label] = (count, path)

    data_dir = Path(tempfile.mkdtemp(prefix="tracesvc-bench-flamegraph-"))
    port = bench.free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", str(data_dir)], cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    loads, runs = [], []
    try:
        bench.wait_for_server(url, server)
        traces = {label: bench.upload(url, path) for label, (_, path) in files.items()}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-dev-shm-usage"])
            for label in ("small", "big"):
                count, _ = files[label]
                trace_id = traces[label]["id"]
                for n in range(args.loads + 1):
                    page = browser.new_page(viewport={"width": args.width, "height": args.height})
                    page.goto(f"{url}/traces/{trace_id}?p=cpu&m=flame")
                    page.wait_for_selector("#cpu-flame-canvas[data-frames]", timeout=600_000)
                    page.wait_for_timeout(300)
                    if n > 0:  # the first opening loads the trace into the server's memory
                        loads.append((count, first_draw(page)))
                    if n < args.loads:
                        page.close()
                page.evaluate(bench.RECORDER)
                page.wait_for_timeout(800)
                for name, action in scenarios(page, args.seconds):
                    deltas, draws, fetches = measure(page, action)
                    runs.append((count, name, deltas, draws, fetches))
                page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(data_dir, ignore_errors=True)

    print(f"\nmachine load average (1 min) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"viewport {args.width}x{args.height}; stacks ~{args.depth} frames deep; {args.loads} openings each")
    print(f"{'samples':>9}  {'server p50':>10} {'server max':>10} {'first draw p50':>14} {'first draw max':>14} {'frames':>7}")
    first = {}
    for count in (args.small, args.big):
        rows = [r for c, r in loads if c == count]
        servers, draws = [r["server"] for r in rows], [r["firstDraw"] for r in rows]
        first[count] = draws
        print(f"{count:>9}  {bench.percentile(servers, 50):>10.1f} {max(servers):>10.1f} {bench.percentile(draws, 50):>14.1f} "
              f"{max(draws):>14.1f} {rows[-1]['frames']:>7}")
    print(f"\n{'samples':>9}  {'scenario':<16} {'frames':>6} {'frame p50':>9} {'frame p95':>9} {'draw p50':>8} {'draw p95':>8} {'fetches':>7}")
    summary = {}
    for count, name, deltas, draws, fetches in runs:
        print(f"{count:>9}  {name:<16} {len(deltas):>6} {bench.percentile(deltas, 50):>9.1f} {bench.percentile(deltas, 95):>9.1f} "
              f"{bench.percentile(draws, 50):>8.2f} {bench.percentile(draws, 95):>8.2f} {fetches:>7}")
        summary.setdefault(count, []).extend(deltas)
    big, small = summary.get(args.big, []), summary.get(args.small, [])
    big95, small95 = bench.percentile(big, 95), bench.percentile(small, 95)
    first_big = max(first.get(args.big, [float("nan")]))
    print(f"\nall scenarios: {args.big} samples frame p50 {bench.percentile(big, 50):.1f} ms, p95 {big95:.1f} ms; "
          f"{args.small} samples p95 {small95:.1f} ms; p95 ratio {big95 / small95:.2f}x; "
          f"target frame p95 <= 20 ms: {'met' if big95 <= 20 else 'NOT met'}; "
          f"first draw max {first_big:.1f} ms, target <= 50 ms: {'met' if first_big <= 50 else 'NOT met'}")


if __name__ == "__main__":
    main()
