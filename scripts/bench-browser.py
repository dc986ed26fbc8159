#!/usr/bin/env python3
"""Browser frame times while panning and zooming the timeline: a 1M-update trace against a
1k-update trace (the baseline, measured in the same run).

Generates both traces with `tracesvc generate`, starts `tracesvc serve` on a free port with a
temporary data dir, uploads them, and drives headless Chromium (Debian's /usr/bin/chromium):
for each trace it holds D (pan) and W/S (zoom), drags, and spins the wheel for a few seconds
each, recording requestAnimationFrame deltas (what the user sees) and the cost of each
timeline draw (performance.measure 'timeline-draw'). Prints p50/p95 per scenario. Target:
frame p95 <= 20 ms on the 1M trace.

    python3 scripts/bench-browser.py [--seconds 3] [--bin .build/release/tracesvc]
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]


def default_binary():
    if os.environ.get("TRACESVC_BIN"):
        return os.environ["TRACESVC_BIN"]
    for config in ("release", "debug"):
        path = REPO / ".build" / config / "tracesvc"
        if path.exists():
            return str(path)
    sys.exit("no tracesvc binary: run `swift build -c release` or set TRACESVC_BIN")


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_server(url, process):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"tracesvc serve exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/api/traces", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    sys.exit("tracesvc serve did not start")


def upload(url, path):
    request = urllib.request.Request(f"{url}/api/traces?name={path.name}", data=path.read_bytes(), method="POST",
                                     headers={"Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(request, timeout=1800) as response:
        return json.loads(response.read())["trace"]


RECORDER = """() => {
  window.__bench = { frames: [], recording: false, longTasks: [] };
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__bench.longTasks.push(e.duration); }).observe({ type: "longtask" });
  const loop = (t) => { if (window.__bench.recording) window.__bench.frames.push(t); requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
}"""


def measure(page, action):
    """Runs `action` while recording frame times; returns (frame deltas ms, draw costs ms, timeline fetches)."""
    page.evaluate("() => { performance.clearMeasures('timeline-draw'); performance.clearMeasures('timeline-fetch'); "
                  "window.__bench.frames = []; window.__bench.longTasks = []; window.__bench.recording = true; }")
    action()
    result = page.evaluate("""() => {
      window.__bench.recording = false;
      const f = window.__bench.frames;
      const deltas = f.slice(1).map((t, i) => t - f[i]);
      const draws = performance.getEntriesByName('timeline-draw').map(e => e.duration);
      const fetches = performance.getEntriesByName('timeline-fetch').map(e => ({ ms: e.duration, bytes: e.detail?.bytes ?? 0 }));
      return { deltas, draws, fetches, longTasks: window.__bench.longTasks };
    }""")
    if os.environ.get("BENCH_DEBUG"):
        print("long tasks (ms):", [round(x) for x in result["longTasks"]])
    return result["deltas"], result["draws"], result["fetches"]


def hold(page, key, seconds):
    page.keyboard.down(key)
    page.wait_for_timeout(seconds * 1000)
    page.keyboard.up(key)


def drag_pan(page, box, cy, seconds):
    """Drags back and forth across the middle of `box` for `seconds`, a move every frame."""
    cx = box["x"] + box["width"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    end = time.monotonic() + seconds
    direction, x = -1, cx
    while time.monotonic() < end:
        x += direction * 12
        if abs(x - cx) > box["width"] * 0.4:
            direction = -direction
        page.mouse.move(x, cy)
        page.wait_for_timeout(16)
    page.mouse.up()


def wheel_zoom(page, box, cy, seconds, modifier=None):
    """Spins the wheel in then out (40 ticks each way) over the middle of `box` for `seconds`."""
    page.mouse.move(box["x"] + box["width"] / 2, cy)
    if modifier:
        page.keyboard.down(modifier)
    end = time.monotonic() + seconds
    ticks = 0
    while time.monotonic() < end:
        page.mouse.wheel(0, -60 if (ticks // 40) % 2 == 0 else 60)
        ticks += 1
        page.wait_for_timeout(16)
    if modifier:
        page.keyboard.up(modifier)


def scenarios(page, seconds):
    canvas = page.locator("#timeline-canvas")
    box = canvas.bounding_box()
    cy = box["y"] + 80

    def keys_pan():
        canvas.focus()
        hold(page, "d", seconds / 2)
        hold(page, "a", seconds / 2)

    def keys_zoom():
        canvas.focus()
        hold(page, "w", seconds / 2)
        hold(page, "s", seconds / 2)

    return [("pan (D/A held)", keys_pan), ("zoom (W/S held)", keys_zoom),
            ("drag pan", lambda: drag_pan(page, box, cy, seconds)), ("wheel zoom", lambda: wheel_zoom(page, box, cy, seconds))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=None, help="tracesvc binary (default: $TRACESVC_BIN, .build/release, .build/debug)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per scenario")
    parser.add_argument("--big", type=int, default=1_000_000, help="updates in the big trace")
    parser.add_argument("--small", type=int, default=1_000, help="updates in the baseline trace")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--data-dir", default=None,
                        help="server data dir to keep between runs (uploads are reused); default: a temporary one")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "tracesvc-bench-browser"),
                        help="where generated traces are kept between runs")
    args = parser.parse_args()
    binary = args.bin or default_binary()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)

    files = {}
    for label, count in (("small", args.small), ("big", args.big)):
        path = cache / f"bench-{count}-seed1.json"
        if not path.exists():
            began = time.monotonic()
            subprocess.run([binary, "generate", "--updates", str(count), "--seed", "1", "--output", str(path)], check=True)
            print(f"generated {path.name} ({path.stat().st_size / 1e6:.1f} MB) in {time.monotonic() - began:.1f} s")
        files[label] = (count, path)

    data_dir = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="tracesvc-bench-browser-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", str(data_dir)], cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = []
    try:
        wait_for_server(url, server)
        traces = {}
        with urllib.request.urlopen(f"{url}/api/traces", timeout=60) as response:
            stored = {t["name"]: t for t in json.loads(response.read())["traces"]}
        for label, (count, path) in files.items():
            if path.stem in stored:
                traces[label] = stored[path.stem]
                continue
            began = time.monotonic()
            traces[label] = upload(url, path)
            print(f"uploaded {path.name}: {traces[label]['updateCount']} updates in {time.monotonic() - began:.1f} s")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=["--no-sandbox", "--disable-dev-shm-usage"])
            for label in ("small", "big"):
                count, _ = files[label]
                page = browser.new_page(viewport={"width": args.width, "height": args.height})
                # Start zoomed to the middle 2% of the trace, so there is room to pan both ways.
                info = traces[label]
                status = json.loads(urllib.request.urlopen(f"{url}/api/traces/{info['id']}", timeout=600).read())
                start, end = status["start"], status["end"]
                w0 = start + (end - start) * 49 // 100
                w1 = start + (end - start) * 51 // 100
                page.goto(f"{url}/traces/{info['id']}?x=swiftui&w={w0},{w1}")
                page.wait_for_selector('#timeline-canvas[data-loading="false"]', timeout=600_000)
                page.wait_for_selector('#timeline .tl-header[data-marks]', timeout=600_000)
                page.evaluate(RECORDER)
                page.wait_for_timeout(1500)  # let the detail panes finish loading before measuring
                for name, action in scenarios(page, args.seconds):
                    deltas, draws, fetches = measure(page, action)
                    results.append((count, name, deltas, draws, fetches))
                page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        if not args.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)

    print(f"\nmachine load average (1 min) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
          f"(other work on the machine shows up as dropped frames in both traces)")
    print(f"frame time = requestAnimationFrame delta; draw = one timeline redraw (ms); viewport {args.width}x{args.height}, "
          f"all lanes expanded, {args.seconds:g} s per scenario")
    print(f"{'updates':>9}  {'scenario':<16} {'frames':>6} {'frame p50':>9} {'frame p95':>9} {'draw p50':>8} {'draw p95':>8} "
          f"{'fetches':>7} {'fetch p50':>9} {'KB/fetch':>8}")
    summary = {}
    for count, name, deltas, draws, fetches in results:
        fetch_ms = [f["ms"] for f in fetches]
        kb = sum(f["bytes"] for f in fetches) / max(len(fetches), 1) / 1024
        print(f"{count:>9}  {name:<16} {len(deltas):>6} {percentile(deltas, 50):>9.1f} {percentile(deltas, 95):>9.1f} "
              f"{percentile(draws, 50):>8.2f} {percentile(draws, 95):>8.2f} {len(fetches):>7} {percentile(fetch_ms, 50):>9.1f} {kb:>8.1f}")
        summary.setdefault(count, []).extend(deltas)
    big, small = summary.get(args.big, []), summary.get(args.small, [])
    big95, small95 = percentile(big, 95), percentile(small, 95)
    print(f"\nall scenarios: {args.big} updates frame p50 {percentile(big, 50):.1f} ms, p95 {big95:.1f} ms; "
          f"{args.small} updates p50 {percentile(small, 50):.1f} ms, p95 {small95:.1f} ms; "
          f"p95 ratio {big95 / small95:.2f}x; target p95 <= 20 ms: {'met' if big95 <= 20 else 'NOT met'}")


if __name__ == "__main__":
    main()
