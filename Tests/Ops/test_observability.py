"""Observing a running `tracesvc serve` (docs/deploy.md, "Observe"): JSON logs with an access line
per request and its request id, no secret in any log line, /metrics on a private port only, and the
Grafana dashboard and alert rules in deploy/ naming only metrics the server exports."""
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pyhelpers"))
from tracesvc_test import REPO, free_port, http_request, metric_names, tracesvc_bin, wait_until_serving  # noqa: E402

TOKEN = "observability-secret-token-6c1f"
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


@pytest.fixture(scope="module")
def server():
    data_dir = Path(tempfile.mkdtemp(prefix="tracesvc-ops-"))
    port, metrics_port = free_port(), free_port()
    log_path = data_dir / "stderr.log"
    process = subprocess.Popen(
        [tracesvc_bin(), "serve", "--port", str(port), "--data-dir", str(data_dir / "data"), "--write-token", TOKEN,
         "--log-format", "json", "--metrics-listen", f"127.0.0.1:{metrics_port}"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=open(log_path, "wb"))
    url = f"http://127.0.0.1:{port}"
    wait_until_serving(process, url, log=log_path)
    answers = {
        "kept": http_request(f"{url}/api/traces", headers={"X-Request-Id": "client-id.42", "traceparent": TRACEPARENT}),
        "replaced": http_request(f"{url}/api/traces", headers={"X-Request-Id": 'evil" id\tinjected'}),
        "too long": http_request(f"{url}/healthz", headers={"X-Request-Id": "x" * 200}),
        # The token as a header and, wrongly, in the query: neither may reach the log.
        "upload": http_request(f"{url}/api/traces?name=ops-color-scheme.json&token={TOKEN}", "POST",
                               (REPO / "SampleTraces" / "environment-color-scheme.json").read_bytes() + b"  ",  # not a sample's bytes
                               {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/octet-stream", "X-Request-Id": "upload-1"}),
        "refused": http_request(f"{url}/api/traces?name=x.json", "POST", b"{}", {"Authorization": "Bearer wrong-token-value"}),
    }
    yield {"url": url, "metrics": f"http://127.0.0.1:{metrics_port}", "answers": answers, "log": log_path}
    process.terminate()
    process.wait(timeout=15)
    shutil.rmtree(data_dir, ignore_errors=True)


def log_lines(server):
    return server["log"].read_text().splitlines()


def access_lines(server):
    return [entry for entry in map(json.loads, log_lines(server)) if entry.get("logger") == "tracesvc.access"]


def test_every_log_line_is_one_json_object_with_time_level_and_message(server):
    lines = log_lines(server)
    assert len(lines) >= 6
    for line in lines:
        entry = json.loads(line)
        assert {"ts", "level", "logger", "message"} <= entry.keys(), line


def test_each_request_has_an_access_line_with_its_request_id_which_is_sent_back(server):
    answers = server["answers"]
    status, _, headers = answers["kept"]
    assert status == 200 and headers["X-Request-Id"] == "client-id.42"
    assert headers["traceparent"] == TRACEPARENT
    by_id = {entry["request_id"]: entry for entry in access_lines(server)}
    kept = by_id["client-id.42"]
    assert (kept["method"], kept["path"], kept["status"], kept["client"]) == ("GET", "/api/traces", 200, "127.0.0.1")
    assert kept["bytes"] > 100 and float(kept["duration_ms"]) >= 0
    assert kept["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736"
    # An id with quotes, spaces or tabs, or longer than 128 characters, is replaced by one of the server's.
    for name in ("replaced", "too long"):
        made = answers[name][2]["X-Request-Id"]
        assert re.fullmatch(r"[0-9a-f]{32}", made), made
        assert by_id[made]["status"] == 200
    assert by_id["upload-1"]["status"] == 201 and by_id["upload-1"]["method"] == "POST"


def test_secrets_never_reach_the_log(server):
    assert server["answers"]["upload"][0] == 201
    assert server["answers"]["refused"][0] == 401
    text = server["log"].read_text()
    assert TOKEN not in text
    assert "wrong-token-value" not in text
    upload = next(entry for entry in access_lines(server) if entry["request_id"] == "upload-1")
    assert upload["path"] == "/api/traces?name=ops-color-scheme.json&token=***"


def test_metrics_are_on_the_private_port_only(server):
    assert http_request(f"{server['url']}/metrics")[0] == 404
    status, body, headers = http_request(f"{server['metrics']}/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    text = body.decode()
    values = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line and not line.startswith("#")}
    assert values["tracesvc_ready"] == 1
    assert values["tracesvc_catalog_traces"] == 1
    assert values["tracesvc_model_memory_budget_bytes"] == 2048 << 20
    assert values["process_resident_memory_bytes"] > 1 << 20
    assert values["process_open_fds"] > 3


def test_the_dashboard_and_the_alerts_name_only_metrics_the_server_exports(server):
    exported = metric_names(http_request(f"{server['metrics']}/metrics")[1].decode())
    dashboard = json.loads((REPO / "deploy" / "grafana-dashboard.json").read_text())
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    alerts = (REPO / "deploy" / "prometheus-alerts.yml").read_text()
    expressions += [line.split("expr:", 1)[1] for line in alerts.splitlines() if line.strip().startswith("expr:")]
    assert len(expressions) >= 20
    named = set()
    for expression in expressions:
        named |= set(re.findall(r"\b(?:tracesvc|process|hb|http_server)_[a-z0-9_]+\b", expression))
    missing = sorted(named - exported)
    assert not missing, f"named in deploy/ but not in /metrics: {missing}"
    assert {"tracesvc_ready", "tracesvc_model_memory_bytes", "process_cpu_seconds_total", "tracesvc_sweep_removed_total",
            "tracesvc_connections_refused_total", "tracesvc_build_info"} <= named
