"""`--trusted-proxy` behind real nginx (issue 39): a replica that trusts nginx's address counts each
client by the address nginx forwards, so two clients behind nginx do not share one budget of requests
in flight, and a client that is not the trusted proxy cannot choose the address it is counted by with
a forged X-Forwarded-For (nginx replaces the header; sent straight to the replica it is ignored).

A replica of its own (on the team's PostgreSQL and object store) with `--trusted-proxy 127.0.0.1
--max-connections-per-address 2`, and an nginx of its own running docs/deploy.md's configuration (the
one scripts/team-up.sh generated) in front of it: nginx connects from 127.0.0.1, the clients from
other loopback addresses (127.0.0.2, .3, ...)."""
import http.client
import os
import re
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, free_port

PER_CLIENT = 2


def wait_for(url_host, port, seconds=60, log=None):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if request(url_host, port, "127.0.0.1", "/readyz")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url_host}:{port} did not answer within {seconds} s: {Path(log).read_text()[-2000:] if log else ''}")


def request(host, port, source, path, forwarded_for=None, timeout=10):
    """One GET from the loopback address `source`: (status, body); status None when the connection was
    closed without an answer."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout, source_address=(source, 0))
    try:
        headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    except (ConnectionError, http.client.RemoteDisconnected, socket.timeout):
        return None, b""
    finally:
        connection.close()


def stalled_upload(port, source, forwarded_for=None):
    """An upload whose body stops after 4 bytes (of 1 MB declared): in flight until the socket closes."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    forged = f"X-Forwarded-For: {forwarded_for}\r\n" if forwarded_for else ""
    sock.sendall((f"POST /api/traces?name=stalled.json HTTP/1.1\r\nHost: 127.0.0.1\r\n{forged}"
                  "Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n{\"a\"").encode())
    return sock


@pytest.fixture(scope="module")
def proxied(team):
    """(nginx port, replica port): a replica trusting 127.0.0.1, behind an nginx of its own."""
    run = team.run / f"trusted-proxy-{os.getpid()}"
    (run / "nginx").mkdir(parents=True, exist_ok=True)
    replica_port, nginx_port = free_port(), free_port()
    binary = os.environ.get("TRACESVC_BIN", str(REPO / ".build" / "debug" / "tracesvc"))
    log = run / "replica.log"
    replica = subprocess.Popen(
        [binary, "serve", "--port", str(replica_port), "--data-dir", str(run / "data"),
         "--catalog", team.catalog_url, "--blobs", team.blobs_url,
         "--trusted-proxy", "127.0.0.1", "--max-connections-per-address", str(PER_CLIENT)],
        stdout=log.open("ab"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env={**os.environ, **team.env})
    nginx = None
    try:
        wait_for("127.0.0.1", replica_port, log=log)
        # docs/deploy.md's configuration as team-up.sh generated it, every upstream pointing at this replica.
        conf = (team.run / "nginx" / "tracesvc.conf").read_text()
        lines, seen = [], set()
        for line in conf.splitlines():
            if re.match(r"\s*upstream ", line):
                seen = set()
            if re.match(r"\s*server 127\.0\.0\.1:\d+", line):
                line = re.sub(r"127\.0\.0\.1:\d+", f"127.0.0.1:{replica_port}", line)
                if line in seen:
                    continue
                seen.add(line)
            lines.append(re.sub(r"listen 127\.0\.0\.1:\d+;", f"listen 127.0.0.1:{nginx_port};", line))
        (run / "nginx" / "tracesvc.conf").write_text("\n".join(lines) + "\n")
        temp = "\n".join(f"    {kind}_temp_path {run}/nginx/{kind};" for kind in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
        (run / "nginx" / "nginx.conf").write_text(
            f"worker_processes 1;\nerror_log {run}/nginx/error.log warn;\nevents {{ worker_connections 512; }}\n"
            f"http {{\n    access_log {run}/nginx/access.log;\n{temp}\n    include {run}/nginx/tracesvc.conf;\n}}\n")
        nginx = subprocess.Popen(["nginx", "-p", str(run / "nginx"), "-c", str(run / "nginx" / "nginx.conf"),
                                  "-g", f"daemon off; pid {run}/nginx/pid;"],
                                 stdout=subprocess.DEVNULL, stderr=(run / "nginx" / "log").open("ab"))
        wait_for("127.0.0.1", nginx_port, log=run / "nginx" / "error.log")
        yield nginx_port, replica_port
    finally:
        for process in [nginx, replica]:
            if process is not None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()


def test_behind_nginx_each_client_has_its_own_budget_and_a_forged_address_counts_for_nothing(proxied):
    nginx_port, replica_port = proxied
    held = []
    try:
        # Client X (127.0.0.2) has its PER_CLIENT uploads in flight through nginx.
        for _ in range(PER_CLIENT):
            held.append(stalled_upload(nginx_port, "127.0.0.2"))
        time.sleep(1.0)
        status, body = request("127.0.0.1", nginx_port, "127.0.0.2", "/api/traces?limit=1")
        assert status == 429, f"X's next request through nginx: {status} {body[:300]!r}"
        assert b"127.0.0.2" in body, "the answer names the address nginx forwarded"
        # Client Y (127.0.0.3), through the same nginx and so the same peer: its own budget.
        assert request("127.0.0.1", nginx_port, "127.0.0.3", "/api/traces?limit=1")[0] == 200
        # Y claiming to be someone else: nginx replaces the header with the address it saw.
        assert request("127.0.0.1", nginx_port, "127.0.0.3", "/api/traces?limit=1", forwarded_for="198.51.100.7")[0] == 200

        # Straight to the replica, from an address that is no trusted proxy, the header is ignored:
        # claiming to be X (at its limit) does not make it X...
        assert request("127.0.0.1", replica_port, "127.0.0.4", "/api/traces?limit=1", forwarded_for="127.0.0.2")[0] == 200
        # ...and claiming other addresses does not lift its own per-address connection limit.
        for index in range(PER_CLIENT):
            held.append(stalled_upload(replica_port, "127.0.0.5", forwarded_for=f"198.51.100.{10 + index}"))
        time.sleep(1.0)
        status, _ = request("127.0.0.1", replica_port, "127.0.0.5", "/api/traces?limit=1", forwarded_for="198.51.100.99")
        assert status is None, f"closed unanswered at its own address's limit, got {status}"
    finally:
        for sock in held:
            sock.close()
    # X's uploads gone, X is served again through nginx.
    deadline = time.monotonic() + 10
    while request("127.0.0.1", nginx_port, "127.0.0.2", "/api/traces?limit=1")[0] != 200:
        assert time.monotonic() < deadline, "X was not served again after its uploads ended"
        time.sleep(0.2)
