"""Upgrades: the catalog records its schema version; a tracesvc older than the schema refuses to start with
a message that says so; `tracesvc migrate --schema-only` runs the migrations alone; a replica that starts
while they run (the migration lock held) is alive (/healthz 200) but not ready (/readyz a JSON 503) until
they are done, then serves."""
import json
import os
import subprocess
import time
from pathlib import Path

from conftest import REPO

# PostgresCatalog.migrationLock: the advisory lock migrations take.
MIGRATION_LOCK = 0x7472_6163_6573_7663


def binary():
    return os.environ.get("TRACESVC_BIN", str(REPO / ".build/debug/tracesvc"))


def free_port():
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_replica(team, data_dir: Path, port: int):
    log = open(data_dir.parent / f"replica-{port}.log", "wb")
    return subprocess.Popen([binary(), "serve", "--port", str(port), "--data-dir", str(data_dir),
                             "--catalog", team.catalog_url, "--blobs", team.blobs_url],
                            env={**os.environ, **team.env}, stdout=log, stderr=subprocess.STDOUT)


def test_migrate_schema_only_runs_the_migrations_and_prints_the_version(team):
    result = subprocess.run([binary(), "migrate", "--schema-only", "--catalog", team.catalog_url, "--blobs", team.blobs_url],
                            env={**os.environ, **team.env}, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    newest = int(team.sql("SELECT max(version) FROM schema_migrations"))
    assert f"the catalog's schema is at version {newest}" in result.stdout, result.stdout
    refused = subprocess.run([binary(), "migrate", "--schema-only", "--from", "/tmp", "--catalog", team.catalog_url, "--blobs", team.blobs_url],
                             env={**os.environ, **team.env}, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "--schema-only copies nothing" in refused.stderr


def test_a_replica_older_than_the_schema_refuses_to_start_saying_so(team, tmp_path):
    newest = int(team.sql("SELECT max(version) FROM schema_migrations"))
    team.sql(f"INSERT INTO schema_migrations (version, name) VALUES ({newest + 1}, 'a newer release')")
    try:
        result = subprocess.run([binary(), "serve", "--port", str(free_port()), "--data-dir", str(tmp_path / "data"),
                                 "--catalog", team.catalog_url, "--blobs", team.blobs_url],
                                env={**os.environ, **team.env}, capture_output=True, text=True, timeout=60)
        assert result.returncode != 0
        assert f"schema is at version {newest + 1}, newer than this tracesvc knows ({newest})" in result.stderr, result.stderr
        assert "Run that release or a newer one" in result.stderr
    finally:
        team.sql(f"DELETE FROM schema_migrations WHERE version = {newest + 1}")


def test_a_replica_waits_for_migrations_alive_but_not_ready(team, tmp_path):
    # Another process runs migrations: it holds their lock (as `migrate --schema-only` would).
    holder = subprocess.Popen(["psql", "-h", "127.0.0.1", "-p", str(team.pg_port), "-U", "postgres", "-d", "tracesvc", "-q", "-At"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    holder.stdin.write(f"SELECT pg_advisory_lock({MIGRATION_LOCK}); SELECT 'locked';\n")
    holder.stdin.flush()
    assert any(holder.stdout.readline().strip() == "locked" for _ in range(5)), "psql did not take the migration lock"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    replica = start_replica(team, tmp_path / "data", port)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status = team.request(base, "GET", "/healthz", timeout=2)[0]
                if status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the waiting replica never answered /healthz"
            time.sleep(0.2)
        # Waiting, for as long as the lock is held: alive, not ready, and no request is served.
        for _ in range(3):
            assert team.request(base, "GET", "/healthz", timeout=2)[0] == 200
            status, body, headers = team.request(base, "GET", "/readyz", timeout=2)
            assert status == 503 and headers["Content-Type"].startswith("application/json"), body
            assert "schema migrations" in json.loads(body)["detail"]
            status, body, _ = team.request(base, "GET", "/api/traces", timeout=2)
            assert status == 503 and json.loads(body)["error"] == "starting"
            time.sleep(1)
        assert replica.poll() is None
    finally:
        holder.stdin.write(f"SELECT pg_advisory_unlock({MIGRATION_LOCK});\n\\q\n")
        holder.stdin.flush()
        holder.wait(timeout=30)
    try:
        deadline = time.monotonic() + 30
        while team.request(base, "GET", "/readyz", timeout=5)[0] != 200:
            assert time.monotonic() < deadline, "the replica is not ready 30 s after the migrations were done"
            time.sleep(0.2)
        assert team.request(base, "GET", "/api/traces", timeout=5)[0] == 200
    finally:
        replica.terminate()
        replica.wait(timeout=30)
