"""Home page: the trace list, uploading (button, drag-and-drop), progress, parsing and errors."""
import pytest
from playwright.sync_api import expect


@pytest.fixture(scope="module")
def recording(generated_trace):
    """A trace file the server has not seen: generated with a seed no sample and no other test uses
    (the same content under another name is a duplicate, which opens no new trace)."""
    return generated_trace("my-recording", updates=3000, seed=8)


def test_home_lists_samples_with_their_facts(page, server, server_control, shot):
    page.goto(server)
    table = page.get_by_role("table", name="Traces")
    table.wait_for()
    status, body = server_control.api("/api/traces")
    samples = [t for t in body["traces"] if t["isSample"]]
    assert samples, "the server lists no sample traces"
    for trace in samples:
        row = page.locator(f'tr[data-trace-id="{trace["id"]}"]')
        text = row.inner_text()
        assert trace["name"] in text
        assert (trace["app"] or "–") in text
        assert "Sample" in text
    # Every control has an accessible name.
    assert page.get_by_role("button", name="Upload a trace").is_visible()
    assert page.get_by_label("Trace file to upload").count() == 1
    shot(page, "home-01-list")
    assert not page.errors


def test_upload_shows_progress_then_parsing_then_the_trace(page, server, recording, shot, timeline):
    page.goto(server)
    page.get_by_role("table", name="Traces").wait_for()
    # Slow the upload down so the progress bar can be seen (and photographed).
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    size = recording.stat().st_size
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1,
                                                   "uploadThroughput": max(size // 3, 50_000)})
    # Every state the status line goes through, with its text (the parsing one may be brief).
    page.evaluate("""() => {
        window.__uploadStates = [];
        new MutationObserver(() => {
            const box = document.getElementById('upload-status');
            const last = window.__uploadStates.at(-1);
            if (box && box.dataset.state && last?.[0] !== box.dataset.state) window.__uploadStates.push([box.dataset.state, box.innerText]);
        }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    }""")
    page.set_input_files("#upload-input", str(recording))
    status = page.locator("#upload-status")
    status.wait_for(state="visible")
    progress = status.locator("progress")
    assert progress.count() == 1
    assert "Uploading my-recording.json" in status.inner_text()
    shot(page, "home-02-upload-progress")
    page.wait_for_function("() => ['parsing', 'done'].includes(document.getElementById('upload-status')?.dataset.state)"
                           " || location.pathname.startsWith('/traces/')", timeout=60_000)
    # State and text read at once: the page may move on to the trace between two reads.
    parsing = page.evaluate("() => { const box = document.getElementById('upload-status');"
                            " return box?.dataset.state === 'parsing' ? box.innerText : null; }")
    if parsing is not None:
        assert "Parsing my-recording.json" in parsing
        shot(page, "home-03-parsing")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    page.wait_for_url("**/traces/**", timeout=120_000)
    states = page.evaluate("() => window.__uploadStates")
    assert [s for s, _ in states][:2] == ["uploading", "parsing"], states
    assert "Parsing my-recording.json" in states[1][1]
    timeline.wait_idle(page)
    assert page.locator("#header-trace h1").inner_text() == "my-recording"
    for title in ["Update Groups", "Long View Body Updates", "Long Representable Updates", "Other Long Updates", "SwiftUI", "Hitches", "Hangs", "CPU"]:
        assert page.locator("#timeline .tl-header", has_text=title).first.is_visible(), title
    shot(page, "home-04-uploaded-trace")
    # Back on the list, the upload is first, with its upload time.
    page.goto(server)
    first = page.locator("table.traces tbody tr").first
    first.wait_for()
    assert "my-recording" in first.inner_text()
    assert "Sample" not in first.inner_text()
    assert not page.errors


def test_bad_file_shows_the_servers_error_with_its_location(page, server, server_control, tmp_path, shot):
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "tracesvc-json/1", "updates": [ {"start": 12, "duration": oops} ]}\n')
    status, expected = server_control.api("/api/traces?name=broken.json", "POST", bad.read_bytes(),
                                          {"Content-Type": "application/octet-stream"})
    assert 400 <= status < 500, expected
    page.goto(server)
    page.get_by_role("table", name="Traces").wait_for()
    page.set_input_files("#upload-input", str(bad))
    alert = page.locator("#upload-status [role=alert]")
    alert.wait_for()
    text = alert.inner_text()
    assert "broken.json" in text
    # The detail without its leading location, which is shown once on its own line.
    detail = expected["detail"].removeprefix(f"{expected['location']}:").strip()
    assert detail[1:] in text, (expected, text)
    assert text.count(expected["location"]) == 1, text
    assert page.url.rstrip("/") == server  # stayed on the list
    shot(page, "home-05-bad-file")


def test_drag_and_drop_anywhere_uploads(page, server, recording, shot, timeline):
    page.goto(server)
    page.get_by_role("table", name="Traces").wait_for()
    content = recording.read_text()
    transfer = page.evaluate_handle("""(text) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([text], 'dropped-recording.json', { type: 'application/json' }));
        return transfer;
    }""", content)
    page.dispatch_event("h1", "dragenter", {"dataTransfer": transfer})
    overlay = page.locator("#drop-overlay")
    assert overlay.is_visible()
    shot(page, "home-06-drop-overlay")
    page.dispatch_event("h1", "drop", {"dataTransfer": transfer})
    assert overlay.is_hidden()
    # Same content as an earlier upload (when test_upload ran first): the page says so and offers it.
    page.wait_for_function("() => location.pathname.startsWith('/traces/') || document.getElementById('open-existing')",
                           timeout=120_000)
    if page.locator("#open-existing").count():
        expect(page.locator("#upload-status")).to_contain_text("dropped-recording.json is already here as “my-recording”")
        page.locator("#open-existing").click()
    page.wait_for_url("**/traces/**")
    timeline.wait_idle(page)
    assert page.locator("#header-trace h1").inner_text() in ("my-recording", "dropped-recording")
    assert not page.errors


def test_a_file_dropped_on_a_trace_page_is_uploaded_too(page, server, sample_id, generated_trace, timeline, shot):
    """Dropping on any page uploads (instead of the browser leaving the app to show the file)."""
    timeline.open(page, sample_id("landmarks-scroll-slow"))
    dropped = generated_trace("dropped-on-trace-page", updates=800, seed=5)
    transfer = page.evaluate_handle("""(text) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([text], 'dropped-on-trace-page.json', { type: 'application/json' }));
        return transfer;
    }""", dropped.read_text())
    page.dispatch_event("#timeline-canvas", "dragenter", {"dataTransfer": transfer})
    expect(page.locator("#drop-overlay")).to_be_visible()
    page.dispatch_event("#timeline-canvas", "drop", {"dataTransfer": transfer})
    page.wait_for_url("**/traces/**", timeout=120_000)
    page.wait_for_function("() => document.querySelector('#header-trace h1')?.textContent === 'dropped-on-trace-page'", timeout=120_000)
    timeline.wait_idle(page)
    expect(page.locator("#drop-overlay")).to_be_hidden()
    # Back leads to the list, where the new trace is first.
    page.go_back()
    expect(page.locator("#trace-list tbody tr").first.locator("td.name a")).to_have_text("dropped-on-trace-page")
    assert not page.errors
