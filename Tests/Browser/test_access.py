"""A server with a write token (as on a network): the page asks for the token once, keeps it, and
uploads and deletes go through; without it nothing is stored (docs/api.md, Access)."""
import shutil
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import TraceServer

TOKEN = "browser-test-token-0123456789"


@pytest.fixture(scope="module")
def guarded():
    data_dir = Path(tempfile.mkdtemp(prefix="tracesvc-guarded-"))
    server = TraceServer(data_dir, extra_args=["--write-token", TOKEN])
    server.start()
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def uploads(server):
    status, body = server.api("/api/traces")
    assert status == 200
    return [t for t in body["traces"] if not t["isSample"]]


def test_upload_asks_for_the_write_token_once_then_uploads_and_deletes(page, guarded, generated_trace, shot):
    recording = generated_trace("guarded-recording", updates=500, seed=11)
    page.goto(guarded.url)
    page.get_by_role("table", name="Traces").wait_for()

    page.get_by_label("Trace file to upload").set_input_files(str(recording))
    token = page.get_by_label("Write token")
    expect(token).to_be_visible()
    expect(token).to_be_focused()
    expect(page.locator("#upload-status")).to_contain_text("needs this server's write token")
    assert uploads(guarded) == [], "nothing is stored without the token"

    # A wrong token is refused and the page says so.
    token.fill("not-the-token")
    page.get_by_role("button", name="Save and retry").click()
    expect(page.locator("#upload-status")).to_contain_text("The saved one was refused")
    assert uploads(guarded) == []
    shot(page, "access-01-token-refused")

    page.get_by_label("Write token").fill(TOKEN)
    page.get_by_role("button", name="Save and retry").click()
    page.wait_for_url("**/traces/*", timeout=60_000)
    stored = uploads(guarded)
    assert [t["name"] for t in stored] == ["guarded-recording"]

    # The token is kept: deleting from the list needs no second prompt.
    page.goto(guarded.url)
    page.on("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete guarded-recording").click()
    expect(page.locator(f'tr[data-trace-id="{stored[0]["id"]}"]')).to_have_count(0)
    assert uploads(guarded) == []
    assert not page.errors


def test_a_right_to_left_override_in_trace_text_stays_inside_its_name(page, server_control, generated_trace, tmp_path):
    """U+202E in the app name must not reverse the rest of the header line (issue 11, item 9)."""
    import json
    source = generated_trace("bidi-source", updates=200, seed=5)
    trace = json.loads(source.read_text())
    trace["metadata"]["app"] = "Evil\u202eppA"
    trace["metadata"]["device"] = "iPhone 16"
    path = tmp_path / "bidi.json"
    path.write_text(json.dumps(trace))
    uploaded = server_control.upload(path, name="bidi\u202e.json")
    page.goto(f"{server_control.url}/traces/{uploaded['id']}")
    meta = page.locator("#header-trace .meta")
    meta.wait_for()
    facts = meta.locator("bdi")
    expect(facts.first).to_have_text("Evil\u202eppA")
    # The device is its own isolated run, laid out after the app name, left to right.
    app_box = facts.nth(0).bounding_box()
    device_box = facts.nth(1).bounding_box()
    assert facts.nth(1).inner_text() == "iPhone 16"
    assert device_box["x"] > app_box["x"] + app_box["width"] - 1, (app_box, device_box)
    for selector in ["#header-trace h1", "#header-trace .meta bdi"]:
        assert page.eval_on_selector(selector, "e => getComputedStyle(e).unicodeBidi") == "isolate"
