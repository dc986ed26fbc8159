"""What the server benchmarks share: a `tracesvc serve` on a free port, timed HTTP calls, the
team engines (PostgreSQL and SeaweedFS from scripts/team-up.sh --engines-only), percentiles."""
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url, timeout=600):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


class Server:
    """A `tracesvc serve` with generous limits (the benchmarks measure speed, not the bounds)."""

    def __init__(self, binary, data_dir, env, extra=()):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.args = [binary, "serve", "--port", str(self.port), "--data-dir", str(data_dir),
                     "--memory-budget-mb", "8192", "--max-upload-mb", "4096", "--max-stored-mb", "1000000", *extra]
        self.env = env
        self.log = open(Path(data_dir).parent / f"server-{self.port}.log", "ab")
        self.process = None

    def start(self):
        self.process = subprocess.Popen(self.args, cwd=REPO, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"server exited: {self.args}")
            try:
                if get(self.base + "/healthz", timeout=2)[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        sys.exit("server did not start")

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=60)
            self.process = None


def upload_seconds(base, path):
    """Streams the file to POST /api/traces; (wall seconds to the answer, trace id)."""
    size = path.stat().st_size
    started = time.perf_counter()
    request = urllib.request.Request(f"{base}/api/traces?name={path.name}", data=open(path, "rb"), method="POST",
                                     headers={"Content-Type": "application/octet-stream", "Content-Length": str(size)})
    with urllib.request.urlopen(request, timeout=3600) as response:
        body = json.loads(response.read())
        assert response.status in (200, 201), response.status
    return time.perf_counter() - started, body["trace"]["id"]


@contextlib.contextmanager
def team_engines(folder):
    """Starts PostgreSQL and SeaweedFS in `folder`, yields the environment with their URLs
    (TEAM_CATALOG_URL, TEAM_BLOBS_URL, TEAM_PG_PORT, credentials) and stops them at the end."""
    folder = Path(folder)
    up = subprocess.run(["bash", str(REPO / "scripts/team-up.sh"), "--engines-only", str(folder)], capture_output=True, text=True)
    if up.returncode != 0:
        sys.exit(f"scripts/team-up.sh failed:\n{up.stdout}\n{up.stderr}")
    env = dict(os.environ)
    for line in (folder / "team.env").read_text().splitlines():
        if line.startswith("export "):
            key, _, value = line[len("export "):].partition("=")
            env[key] = value.strip("'")
    try:
        yield env
    finally:
        subprocess.run(["bash", str(REPO / "scripts/team-down.sh"), str(folder)], capture_output=True)


def team_options(env):
    return ["--catalog", env["TEAM_CATALOG_URL"], "--blobs", env["TEAM_BLOBS_URL"]]
