"""What the server benchmarks share: a `tracesvc serve` on a free port, timed HTTP calls, the
team engines (PostgreSQL and SeaweedFS from scripts/team-up.sh --engines-only), percentiles."""
import contextlib
import datetime
import hashlib
import hmac
import http.client
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
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
                # /readyz: a team replica answers /healthz while it still opens its storage.
                if get(self.base + "/readyz", timeout=2)[0] == 200:
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
    """Streams the file to POST /api/traces; (wall seconds to the answer, trace id).
    The body goes out in 64 KB writes, curl's upload buffer: urllib's 8 KB writes cost the client
    0.35-0.4 CPU-s per 512 MB against 0.2 s, CPU the server's two cores then lack on loopback."""
    size = path.stat().st_size
    url = urllib.parse.urlsplit(base)
    started = time.perf_counter()
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=3600, blocksize=64 << 10)
    try:
        with open(path, "rb") as body:
            connection.request("POST", f"/api/traces?name={urllib.parse.quote(path.name)}", body=body,
                               headers={"Content-Type": "application/octet-stream", "Content-Length": str(size)})
            response = connection.getresponse()
            answer = json.loads(response.read())
        assert response.status in (200, 201), (response.status, answer)
    finally:
        connection.close()
    return time.perf_counter() - started, answer["trace"]["id"]


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


TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def store_pid(env):
    """The object store's process (`weed mini`, started by team-up.sh): its CPU is part of the team's cost."""
    return int((Path(env["TEAM_RUN_DIR"]) / "s3" / "pid").read_text())


def _signed(method, host, path, query, env):
    """SigV4 headers for a path-style S3 request with an unsigned payload (the store alone, no tracesvc)."""
    amz_date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    headers = {"host": host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-date": amz_date}
    names = sorted(headers)
    canonical_query = "&".join(f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}" for k, v in sorted(query))
    canonical = "\n".join([method, urllib.parse.quote(path, safe="/-_.~"), canonical_query,
                           "".join(f"{n}:{headers[n]}\n" for n in names), ";".join(names), "UNSIGNED-PAYLOAD"])
    scope = f"{amz_date[:8]}/us-east-1/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + env["AWS_SECRET_ACCESS_KEY"]).encode()
    for part in (amz_date[:8], "us-east-1", "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={env['AWS_ACCESS_KEY_ID']}/{scope}, "
                                f"SignedHeaders={';'.join(names)}, Signature={signature}")
    del headers["host"]
    return headers


def store_put_seconds(env, path):
    """The object store alone: one PUT of the file to the team bucket (streamed from disk, no
    tracesvc), then DELETE; (wall seconds of the PUT, the store's CPU seconds meanwhile)."""
    host = f"127.0.0.1:{env['TEAM_S3_PORT']}"
    key = f"/traces/bench-store-alone/{uuid.uuid4().hex}"
    cpu_before = process_cpu_seconds(store_pid(env))
    started = time.perf_counter()
    connection = http.client.HTTPConnection(host, timeout=600, blocksize=1 << 20)
    with open(path, "rb") as body:
        connection.request("PUT", key, body=body, headers={**_signed("PUT", host, key, [], env), "Content-Length": str(path.stat().st_size)})
        response = connection.getresponse()
        response.read()
    seconds = time.perf_counter() - started
    cpu = process_cpu_seconds(store_pid(env)) - cpu_before
    assert response.status == 200, response.status
    connection.request("DELETE", key, headers=_signed("DELETE", host, key, [], env))
    connection.getresponse().read()
    connection.close()
    return seconds, cpu
