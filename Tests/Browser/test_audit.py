"""The activity page (/audit) and the uploader on a trace's page, on a server with a write token and
personal tokens made with `tracesvc token create` (docs/api.md, "Tokens" and "Audit")."""
import shutil
import subprocess
import tempfile
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import TraceServer, tracesvc_bin

SHARED = "browser-audit-shared-token-0123"


def make_token(data_dir: Path, name: str, *scopes: str) -> str:
    args = [tracesvc_bin(), "token", "create", "--data-dir", str(data_dir), "--name", name]
    for scope in scopes:
        args += ["--scope", scope]
    made = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    secret = made.stdout.strip()
    assert secret.startswith("tsv_") and "\n" not in secret
    return secret


@pytest.fixture(scope="module")
def audited(generated_trace):
    data_dir = Path(tempfile.mkdtemp(prefix="tracesvc-audit-"))
    ci = make_token(data_dir, "ci-main", "upload")
    alice = make_token(data_dir, "alice", "read", "annotate")
    listed = subprocess.run([tracesvc_bin(), "token", "list", "--data-dir", str(data_dir)], capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and "ci-main" in listed.stdout and "alice" in listed.stdout
    assert ci not in listed.stdout and alice not in listed.stdout, "token list never shows a secret"
    server = TraceServer(data_dir, extra_args=["--write-token", SHARED])
    server.start()
    recording = generated_trace("pantry-restock", updates=300, seed=5)
    status, body = server.api("/api/traces?name=pantry-restock&tag=branch:main", "POST", recording.read_bytes(),
                              {"Content-Type": "application/octet-stream", "Authorization": f"Bearer {ci}"})
    assert status == 201, body
    trace_id = body["trace"]["id"]
    status, body = server.api(f"/api/traces/{trace_id}", "PATCH", b'{"add": ["scenario:restock"]}',
                              {"Content-Type": "application/json", "Authorization": f"Bearer {SHARED}"})
    assert status == 200, body
    yield server, trace_id, {"ci": ci, "alice": alice}
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def test_the_activity_page_asks_for_a_token_that_may_read_then_lists_who_did_what(page, audited, shot):
    server, trace_id, tokens = audited
    page.goto(server.url)
    page.get_by_role("table", name="Traces").wait_for()
    page.locator("#audit-link").click()
    page.wait_for_url("**/audit")
    expect(page.get_by_role("heading", name="Activity")).to_be_visible()

    # No token: the form asks for one. An upload-only token may not read the trail: 403 names the scope.
    token = page.get_by_label("Write token")
    expect(token).to_be_focused()
    token.fill(tokens["ci"])
    page.get_by_role("button", name="Save and retry").click()
    expect(page.locator("#audit-status")).to_contain_text("'read'")
    page.get_by_label("Write token").fill(tokens["alice"])
    page.get_by_role("button", name="Save and retry").click()

    rows = page.locator("#audit-table tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("shared token")
    expect(rows.nth(0)).to_contain_text("edited the tags of")
    expect(rows.nth(0)).to_contain_text("tags: branch:main, scenario:restock")
    expect(rows.nth(1)).to_contain_text("ci-main")
    expect(rows.nth(1)).to_contain_text("uploaded")
    for secret in (*tokens.values(), SHARED):
        assert secret not in page.content()
    shot(page, "audit-01-activity")

    # The trace's link opens it; its page says who uploaded it.
    rows.nth(1).get_by_role("link", name="pantry-restock").click()
    page.wait_for_url(f"**/traces/{trace_id}*")
    expect(page.locator("#trace-uploader")).to_have_text("uploaded by ci-main")
