#!/usr/bin/env python3
"""The home page's first paint through nginx against a replica alone, in the same run (issue 44: target
<= 1.15x), on a fresh browser (nothing cached) and on a reload (the app's files cached: those named under
/v/VERSION/ are immutable, so a reload asks the server for the page and its API calls only).

Starts a team with scripts/team-up.sh (PostgreSQL, SeaweedFS, two replicas, nginx; stopped at the end),
uploads a few traces, and loads `/` in headless Chromium (Debian's /usr/bin/chromium) alternately from
replica a and from nginx: first-contentful-paint, median of --rounds each. Also prints how many requests
a reload sent to nginx (its access log: requests the browser's cache answered are not there).

    python3 scripts/bench-first-paint.py [--rounds 15] [--bin .build/release/tracesvc]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "Team"))
from conftest import native_trace  # noqa: E402


def team_env(run: Path) -> dict:
    env = {}
    for line in (run / "team.env").read_text().splitlines():
        if line.startswith("export "):
            key, _, value = line[len("export "):].partition("=")
            env[key] = value.strip("'")
    return env


def paint(context, url):
    """First-contentful-paint of `url` in `context` (ms) and the requests the page sent."""
    page = context.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(url, wait_until="load")
    fcp = page.evaluate("""() => new Promise(resolve => {
        const found = performance.getEntriesByName('first-contentful-paint')[0];
        if (found) return resolve(found.startTime);
        new PerformanceObserver(list => resolve(list.getEntries()[0].startTime)).observe({type: 'paint', buffered: true});
    })""")
    page.close()
    return fcp, len(requests)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--bin", default=str(REPO / ".build/release/tracesvc"))
    args = parser.parse_args()
    run = Path(tempfile.mkdtemp(prefix="tracesvc-first-paint-")) / "run"
    run.parent.chmod(0o755)
    subprocess.run(["bash", str(REPO / "scripts/team-up.sh"), str(run)], check=True, env={**os.environ, "TRACESVC_BIN": args.bin},
                   stdout=subprocess.DEVNULL)
    try:
        env = team_env(run)
        for n in range(5):
            request = urllib.request.Request(f"{env['TEAM_NGINX']}/api/traces?name=paint-{n}.json", data=native_trace("Paint", updates=30 + n),
                                             method="POST", headers={"Content-Type": "application/octet-stream"})
            urllib.request.urlopen(request, timeout=60).read()
        bases = {"replica": env["TEAM_REPLICA_A"], "nginx": env["TEAM_NGINX"]}
        cold = {name: [] for name in bases}
        warm = {name: [] for name in bases}
        reload_requests = []
        access_log = run / "nginx" / "access.log"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
            for _ in range(args.rounds):
                for name, base in bases.items():
                    context = browser.new_context()
                    cold[name].append(paint(context, base + "/")[0])
                    logged = len(access_log.read_text().splitlines())
                    warm[name].append(paint(context, base + "/")[0])
                    if name == "nginx":
                        reload_requests.append(len(access_log.read_text().splitlines()) - logged)
                    context.close()
            browser.close()
        print(f"== first paint of / ({args.rounds} rounds each, alternating; load average {os.getloadavg()[0]:.1f}, {args.bin})")
        for label, figures in (("fresh browser", cold), ("reload", warm)):
            replica, nginx = statistics.median(figures["replica"]), statistics.median(figures["nginx"])
            print(f"{label:<14} replica {replica:7.1f} ms, nginx {nginx:7.1f} ms: nginx / replica = {nginx / replica:.2f}x (target <= 1.15x)")
        print(f"requests a reload sent to nginx: {statistics.median(reload_requests):.0f} (median; the page, its API calls, "
              f"and files not under /v/VERSION/)")
    finally:
        subprocess.run(["bash", str(REPO / "scripts/team-down.sh"), str(run)], stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
