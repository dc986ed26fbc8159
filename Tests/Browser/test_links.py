"""Share links: the URL holds the view (v=1, w, r, x, p, ...), Copy link gives it, a colleague
opening it sees the same thing (even after a server restart), and broken links say so."""
import pytest

SAMPLE = "landmarks-scroll-slow"


def canvas_pixels(page):
    return page.evaluate("() => document.getElementById('timeline-canvas').toDataURL()")


def copied_link(page, button):
    page.evaluate("() => navigator.clipboard.writeText('')")
    button.click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()).startsWith('http')")
    link = page.evaluate("() => navigator.clipboard.readText()")
    toast = page.locator("#toast")
    assert toast.is_visible() and link in toast.inner_text()
    return link


def long_update(server_control, trace):
    """The longest single long view body update of a trace (id, start, duration)."""
    status, data = server_control.api(f"/api/traces/{trace['id']}/timeline?start={trace['start']}&end={trace['end']}"
                                      f"&width=8000&lanes=long-view-body")
    assert status == 200, data
    events = [e for e in data["lanes"]["long-view-body"]["events"] if e["count"] == 1 and "update" in e]
    assert events, "no separate long view body update"
    return max(events, key=lambda e: e["duration"])


def select_by_click(page, timeline, trace, event):
    pad = event["duration"] * 3
    w0, w1 = max(trace["start"], event["start"] - pad), min(trace["end"], event["start"] + event["duration"] + pad)
    timeline.open(page, trace["id"], f"w={w0},{w1}")
    w0, w1 = timeline.window(page)
    x, y, width, height = timeline.lane_box(page, "long-view-body")
    page.mouse.click(x + (event["start"] + event["duration"] / 2 - w0) / (w1 - w0) * width, y + height / 2)
    page.wait_for_url(f"**/updates/{event['update']}?*")
    page.locator("#update-details h2").wait_for()
    timeline.wait_idle(page)


def what_is_shown(page, timeline):
    page.mouse.move(0, 0)
    timeline.wait_idle(page)
    return {
        "window": timeline.window(page),
        "window_label": page.locator("#window-label").inner_text(),
        "update": page.locator("#update-details h2").inner_text(),
        "details": page.locator("#update-details dl").inner_text() if page.locator("#update-details dl").count() else "",
        "query": timeline.query(page),
        "path": page.url.split("?")[0].split("://", 1)[1].split("/", 1)[1],
        "pixels": canvas_pixels(page),
    }


def test_copy_link_opens_the_same_view_elsewhere(page, new_context, server_control, sample_id, timeline, shot):
    status, trace = server_control.api(f"/api/traces/{sample_id(SAMPLE)}")
    event = long_update(server_control, trace)
    select_by_click(page, timeline, trace, event)
    page.get_by_role("button", name="Expand the SwiftUI track").click()
    timeline.wait_idle(page)
    # An inspection range around the update, dragged on the ruler.
    box = page.locator("#timeline-canvas").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.2, box["y"] + 10)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.8, box["y"] + 10, steps=6)
    page.mouse.up()
    page.wait_for_function("() => location.search.includes('r=')")
    link = copied_link(page, page.get_by_role("button", name="Copy link to this view"))
    assert link == page.url
    query = timeline.query(page)
    assert query["v"] == "1" and "w" in query and "r" in query and query["x"] == "swiftui"
    before = what_is_shown(page, timeline)
    shot(page, "links-01-copied-view")

    colleague = new_context().new_page()
    colleague.goto(link)
    colleague.locator("#update-details h2").wait_for()
    after = what_is_shown(colleague, timeline)
    shot(colleague, "links-02-opened-view")
    for key in ["window", "window_label", "update", "details", "query", "path"]:
        assert after[key] == before[key], key
    assert after["pixels"] == before["pixels"], "the timeline looks different"


def test_update_link_zooms_to_the_update_with_context(page, new_context, server_control, sample_id, timeline, shot):
    status, trace = server_control.api(f"/api/traces/{sample_id(SAMPLE)}")
    event = long_update(server_control, trace)
    select_by_click(page, timeline, trace, event)
    page.get_by_role("button", name="Zoom to fit").click()  # the link must not depend on the current zoom
    link = copied_link(page, page.get_by_role("button", name="Copy link to this update"))
    assert link.split("?")[0].endswith(f"/traces/{trace['id']}/updates/{event['update']}")
    assert "w=" not in link

    colleague = new_context().new_page()
    colleague.goto(link)
    colleague.locator("#update-details h2").wait_for()
    timeline.wait_idle(colleague)
    w0, w1 = timeline.window(colleague)
    end = event["start"] + event["duration"]
    assert w0 < event["start"] and end < w1, "the update is inside the window"
    assert (w1 - w0) >= 2 * event["duration"], "with context around it"
    assert (w1 - w0) < (trace["end"] - trace["start"]) / 4, "zoomed in"
    status, update = server_control.api(f"/api/traces/{trace['id']}/updates/{event['update']}")
    assert colleague.locator("#update-details h2").inner_text() == update["view"]
    assert timeline.lane(colleague, "long-view-body")["marks"] >= 1
    shot(colleague, "links-03-update-link")


def test_link_still_works_after_a_server_restart(page, new_context, server_control, generated_trace, timeline, shot):
    uploaded = server_control.upload(generated_trace("restart-check", updates=4000, seed=11))
    status, trace = server_control.api(f"/api/traces/{uploaded['id']}")
    event = long_update(server_control, trace)
    select_by_click(page, timeline, trace, event)
    link = copied_link(page, page.get_by_role("button", name="Copy link to this view"))
    before = what_is_shown(page, timeline)

    server_control.restart()

    colleague = new_context().new_page()
    colleague.goto(link)
    colleague.locator("#update-details h2").wait_for()
    after = what_is_shown(colleague, timeline)
    shot(colleague, "links-04-after-restart")
    for key in ["window", "update", "details", "query", "path", "pixels"]:
        assert after[key] == before[key], key


def test_back_and_forward_step_through_selection_and_zoom(page, server_control, sample_id, timeline):
    status, trace = server_control.api(f"/api/traces/{sample_id(SAMPLE)}")
    event = long_update(server_control, trace)
    select_by_click(page, timeline, trace, event)
    selected_window = timeline.window(page)
    page.get_by_role("button", name="Zoom to fit").click()
    page.wait_for_function("(w) => location.search.includes('w=' + w)", arg=f"{trace['start']},{trace['end']}")
    page.go_back()
    page.wait_for_function("(w) => location.search.includes('w=' + w)", arg=f"{selected_window[0]},{selected_window[1]}")
    assert f"/updates/{event['update']}" in page.url
    page.go_back()  # before the click: no selection
    page.locator("#update-details .placeholder").wait_for()
    page.go_forward()
    page.locator("#update-details h2", has_text="").wait_for()
    assert f"/updates/{event['update']}" in page.url


@pytest.mark.parametrize("case", ["unknown-trace", "deleted-trace", "unknown-update", "newer-version"])
def test_broken_links_say_what_is_wrong_with_a_way_back(page, server, server_control, sample_id, generated_trace, shot, case):
    sample = sample_id(SAMPLE)
    if case == "unknown-trace":
        url, heading = f"{server}/traces/{'0' * 64}", "Trace not found"
    elif case == "deleted-trace":
        uploaded = server_control.upload(generated_trace("to-delete", updates=500, seed=23))
        status, _ = server_control.api(f"/api/traces/{uploaded['id']}", "DELETE")
        assert status == 204
        url, heading = f"{server}/traces/{uploaded['id']}/updates/3?v=1", "Trace not found"
    elif case == "unknown-update":
        url, heading = f"{server}/traces/{sample}/updates/987654321?v=1", "Update not found"
    else:
        url, heading = f"{server}/traces/{sample}?v=2&w=0,1000", "This link needs a newer tracesvc"
    page.goto(url)
    alert = page.get_by_role("alert")
    alert.get_by_role("heading", name=heading).wait_for()
    if case == "newer-version":
        assert "newer tracesvc (v=2)" in alert.inner_text()
    shot(page, f"links-05-{case}")
    page.get_by_role("link", name="Back to all traces").click()
    page.get_by_role("table", name="Traces").wait_for()
    assert page.url.rstrip("/") == server


def test_view_state_round_trips_every_key_through_the_url(page, server, sample_id):
    """state.js: every key of the view state survives buildPath -> parseLocation, in the contract's spelling."""
    page.goto(server)
    result = page.evaluate("""async (traceId) => {
        const { buildPath, parseLocation, EMPTY_STATE } = await import('/js/state.js');
        const state = { ...EMPTY_STATE, update: 42, window: [1000, 2000000], range: [1500, 1800000], expanded: ['swiftui'],
          pane: 'updates', paneView: { module: 'Landmarks', view: 'Item View: <T> & "x"' }, filter: 'long-view-body',
          node: 'n17', search: 'NumberFormatter init', mode: 'bottom-up' };
        const path = buildPath(traceId, state);
        const url = new URL(path, location.origin);
        const parsed = parseLocation(url);
        const empty = parseLocation(new URL(buildPath(traceId, {}), location.origin));
        return { path, parsed, empty, newer: parseLocation(new URL(`/traces/${traceId}?v=7`, location.origin)) };
    }""", sample_id(SAMPLE))
    path = result["path"]
    assert path.startswith(f"/traces/{sample_id(SAMPLE)}/updates/42?v=1&w=1000,2000000&r=1500,1800000&x=swiftui&p=updates&pv=")
    assert "&f=long-view-body&n=n17&q=NumberFormatter%20init&m=bu" in path
    state = result["parsed"]["state"]
    assert result["parsed"]["route"] == "trace"
    assert state["update"] == 42 and state["window"] == [1000, 2000000] and state["range"] == [1500, 1800000]
    assert state["expanded"] == ["swiftui"] and state["pane"] == "updates" and state["filter"] == "long-view-body"
    assert state["paneView"] == {"module": "Landmarks", "view": 'Item View: <T> & "x"'}
    assert state["node"] == "n17" and state["search"] == "NumberFormatter init" and state["mode"] == "bottom-up"
    assert result["empty"]["state"]["update"] is None and result["empty"]["state"]["window"] is None
    assert result["newer"] == {"route": "bad-version", "version": "7", "traceId": sample_id(SAMPLE)}
