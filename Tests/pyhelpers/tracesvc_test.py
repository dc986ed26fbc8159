"""What the Python test suites (Tests/Agent, Tests/Browser, Tests/Team) share: where the repository
and the `tracesvc` binary are, a free port, a small HTTP client, waiting for a server, reading a
metric. Each suite puts this folder on sys.path and imports it."""
import io
import os
import socket
import tarfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def tracesvc_bin() -> str:
    """The binary under test: $TRACESVC_BIN, else the debug build (a missing binary ends the run)."""
    import pytest
    binary = os.environ.get("TRACESVC_BIN", str(REPO / ".build" / "debug" / "tracesvc"))
    if not Path(binary).exists():
        pytest.exit(f"tracesvc binary not found at {binary}: run `swift build` or set TRACESVC_BIN", returncode=2)
    return binary


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http_request(url: str, method: str = "GET", body: bytes = None, headers=None, timeout: float = 60):
    """(status, body bytes, headers) of one request; an HTTP error status is an answer, not an exception."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read(), dict(error.headers)


def wait_until_serving(process, url: str, seconds: float = 90, log=None, path: str = "/api/traces"):
    """Waits until `url + path` answers 200; fails if `process` exits or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"tracesvc serve exited with {process.returncode}; see {log}")
        try:
            if http_request(url + path, timeout=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"tracesvc serve did not answer on {url} within {seconds:.0f} s; see {log}")


def metric_value(text: str, name: str) -> float:
    """The sum of a metric's samples (every label set) in a Prometheus text exposition."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def metric_names(text: str) -> set:
    """The sample names a Prometheus text exposition holds (a histogram's _bucket/_sum/_count each)."""
    names = set()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            names.add(line.split("{", 1)[0].split(" ", 1)[0])
    return names


def xctrace_tar(fixtures: Path, folder: str, tables) -> bytes:
    """The bundle scripts/export-instruments-trace.sh makes: `toc.xml` and one file per table of
    `fixtures`, under `folder/` (another folder name makes other bytes, so another stored trace)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name in ["toc", *tables]:
            tar.add(fixtures / f"{name}.xml", arcname=f"{folder}/{name}.xml")
    return buffer.getvalue()
