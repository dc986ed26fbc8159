"""Team mode against real engines: PostgreSQL 15, SeaweedFS (S3), two tracesvc replicas and nginx,
started once per test run by the project's own scripts/team-up.sh (scripts/test.sh starts them before the
Swift tests and exports TEAM_*; run alone, this file starts them and stops them at the end). When an engine
cannot start, every test here fails with the script's output: never a skip."""
import gzip
import hashlib
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pyhelpers"))
from tracesvc_test import REPO, free_port, http_request, metric_value  # noqa: E402,F401 (REPO, free_port: the tests import them from here)


def native_trace(app: str, updates: int = 20, padding: int = 0, seed: str = "") -> bytes:
    """A small trace in tracesvc's native format (another app than the demo); `padding` bytes of
    whitespace make it as large as a test needs without making it slow to read."""
    rows = []
    for i in range(updates):
        duration = 1_200_000 if i % 10 == 9 else 40_000
        rows.append(f'[{1_000_000 + i * 100_000},{duration},"view-body","{app}","{app}RowView","","",0,0,0,"none"]')
    end = 1_000_000 + updates * 100_000 + 2_000_000
    text = (
        '{"format":"tracesvc-trace","version":1,'
        f'"metadata":{{"app":"{app}","device":"iPad Air","osVersion":"18.1","refreshRate":60,"recordedAt":null,'
        f'"start":0,"end":{end},"importNotes":["{seed}"]}},'
        f'"processes":[[77,"{app}"]],"threads":[[9,"Main Thread",0,true]],'
        f'"updateGroups":[[900000,{end - 1_000_000},"Transaction",0]],'
        f'"updates":[{",".join(rows)}],'
        f'"nodes":[["view-body","{app}RowView","",true,2,1000000,null]],"edges":[],'
        f'"frames":[["main","{app}",true]],"stacks":[[null,0]],"samples":[[1000000,0,1000000,0]]'
    )
    return text.encode() + b" " * padding + b"}"


class Team:
    def __init__(self, env: dict, run_dir: Path):
        self.env = env
        self.run = run_dir
        self.a = env["TEAM_REPLICA_A"]
        self.b = env["TEAM_REPLICA_B"]
        self.nginx = env["TEAM_NGINX"]
        self.catalog_url = env["TEAM_CATALOG_URL"]
        self.blobs_url = env["TEAM_BLOBS_URL"]
        self.pg_port = int(env["TEAM_PG_PORT"])
        self.s3_port = int(env["TEAM_S3_PORT"])

    # --- HTTP
    def request(self, base: str, method: str, path: str, body: bytes = None, headers=None, timeout=60):
        return http_request(base + path, method, body, headers, timeout)

    def json(self, base: str, path: str, timeout=60):
        status, body, _ = self.request(base, "GET", path, timeout=timeout)
        assert status == 200, f"GET {base}{path}: {status} {body[:300]!r}"
        return json.loads(body)

    def upload(self, base: str, data: bytes, name: str, timeout=300):
        status, body, _ = self.request(base, "POST", f"/api/traces?name={name}", data,
                                       {"Content-Type": "application/octet-stream"}, timeout=timeout)
        return status, json.loads(body)

    def upload_in_part(self, base: str, data: bytes, name: str, sent: int, chunk: int = 4 << 20):
        """Starts an upload of all of `data` (its whole Content-Length declared) and sends its first
        `sent` bytes, in `chunk`s; returns the open connection (the caller kills or closes)."""
        host, port = base.split("//")[1].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        connection.putrequest("POST", f"/api/traces?name={name}")
        connection.putheader("Content-Type", "application/octet-stream")
        connection.putheader("Content-Length", str(len(data)))
        connection.endheaders()
        for offset in range(0, sent, chunk):
            connection.send(data[offset:offset + chunk])
        return connection

    # --- the catalog and the bucket, seen directly (not through tracesvc)
    def sql(self, query: str) -> str:
        result = subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", "postgres", "-d", "tracesvc", "-At", "-c", query],
            capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    def bucket(self):
        import boto3
        return boto3.client("s3", endpoint_url=f"http://127.0.0.1:{self.s3_port}", region_name="us-east-1",
                            aws_access_key_id=self.env["AWS_ACCESS_KEY_ID"], aws_secret_access_key=self.env["AWS_SECRET_ACCESS_KEY"])

    def blob_keys(self) -> set:
        keys, token = set(), None
        s3 = self.bucket()
        while True:
            page = s3.list_objects_v2(Bucket="traces", Prefix="blobs/", **({"ContinuationToken": token} if token else {}))
            keys |= {item["Key"][len("blobs/"):] for item in page.get("Contents", [])}
            if not page.get("IsTruncated"):
                return keys
            token = page["NextContinuationToken"]

    # --- processes
    def replica_pid(self, name: str) -> int:
        return int((self.run / f"replica-{name}" / "pid").read_text())

    def kill_replica(self, name: str):
        os.kill(self.replica_pid(name), signal.SIGKILL)
        time.sleep(0.2)

    def start_replica(self, name: str):
        subprocess.run(["bash", str(self.run / f"replica-{name}" / "start")], check=True, env={**os.environ, **self.env})
        base = self.env[f"TEAM_REPLICA_{name.upper()}"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                # Ready, not only alive: a replica answers /healthz while it still opens its storage.
                if self.request(base, "GET", "/readyz", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"replica {name} did not come back: {(self.run / f'replica-{name}' / 'log').read_text()[-2000:]}")

    def pg_ctl(self, action: str):
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        pg_dir = Path(self.env["TEAM_PG_DIR"])
        args = ["-D", str(pg_dir / "data"), "-w"]
        if action == "stop":
            args += ["-m", "fast", "stop"]
        else:
            args += ["-l", str(pg_dir / "log"), "-o",
                     f"-p {self.pg_port} -k {pg_dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", "start"]
        subprocess.run([*as_postgres, f"{self.env['TEAM_PG_BIN']}/pg_ctl", *args], check=True, capture_output=True, timeout=60)

    def object_store(self, signal_number: int):
        """SIGSTOP freezes SeaweedFS (connections hang: the harder outage), SIGCONT thaws it."""
        os.kill(int((self.run / "s3" / "pid").read_text()), signal_number)

    def postgres_signal(self, signal_number: int):
        """SIGSTOP freezes PostgreSQL, the postmaster and every backend (open connections hang too), SIGCONT thaws it."""
        postmaster = (Path(self.env["TEAM_PG_DIR"]) / "data" / "postmaster.pid").read_text().split()[0]
        backends = subprocess.run(["pgrep", "-P", postmaster], capture_output=True, text=True).stdout.split()
        for pid in [postmaster, *backends]:
            os.kill(int(pid), signal_number)

    def metric(self, base: str, name: str) -> float:
        status, body, _ = self.request(base, "GET", "/metrics")
        assert status == 200
        return metric_value(body.decode(), name)


def _load_env(path: Path) -> dict:
    env = {}
    for line in path.read_text().splitlines():
        if line.startswith("export "):
            key, _, value = line[len("export "):].partition("=")
            env[key] = value.strip("'")
    return env


@pytest.fixture(scope="session")
def team():
    if os.environ.get("TEAM_NGINX"):
        yield Team(dict(os.environ), Path(os.environ["TEAM_RUN_DIR"]))
        return
    run = Path(tempfile.mkdtemp(prefix="tracesvc-team-"))
    run.chmod(0o755)  # PostgreSQL runs as its own user and must reach its folder inside
    started = subprocess.run(["bash", str(REPO / "scripts" / "team-up.sh"), str(run)], capture_output=True, text=True)
    if started.returncode != 0:
        subprocess.run(["bash", str(REPO / "scripts" / "team-down.sh"), str(run)], capture_output=True)
        pytest.fail(f"scripts/team-up.sh could not start the team:\n{started.stdout}\n{started.stderr}", pytrace=False)
    try:
        yield Team({**os.environ, **_load_env(run / "team.env")}, run)
    finally:
        subprocess.run(["bash", str(REPO / "scripts" / "team-down.sh"), str(run)], capture_output=True)
