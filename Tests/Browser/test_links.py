"""Share links: the URL holds the view (v=3, w, r, x, p, g, e, ...), Copy link gives it, a colleague
opening it sees the same thing (even after a server restart), and broken links say so."""
import re
import urllib.parse

import pytest
from playwright.sync_api import expect

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
    assert query["v"] == "3" and "w" in query and "r" in query and query["x"] == "swiftui"
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
    assert "x" not in timeline.query(colleague), "a long update shows on its long lane: the SwiftUI track stays closed"
    # ... with its cause graph open on that update.
    expect(colleague.locator("#pane-tab-graph")).to_have_attribute("aria-selected", "true")
    expect(colleague.locator(".cg-heading")).to_contain_text(f"#{event['update']}")
    colleague.wait_for_selector(".cg-root:not([aria-busy]) .cg-node.cg-focus", state="attached")
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
    page.locator("#update-details .placeholder").wait_for(state="attached")
    expect(page.locator("#update-details")).to_be_hidden()
    page.go_forward()
    page.locator("#update-details h2", has_text="").wait_for()
    assert f"/updates/{event['update']}" in page.url


@pytest.mark.parametrize("case", ["unknown-trace", "deleted-trace", "unknown-update", "newer-version", "damaged-version"])
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
    elif case == "newer-version":
        url, heading = f"{server}/traces/{sample}?v=4&w=0,1000", "This link needs a newer tracesvc"
    else:
        url, heading = f"{server}/traces/{sample}?v=two&w=0,1000", "This link is damaged"
    page.goto(url)
    alert = page.get_by_role("alert")
    alert.get_by_role("heading", name=heading).wait_for()
    if case == "newer-version":
        assert "newer tracesvc (v=4)" in alert.inner_text()
    if case == "damaged-version":
        assert '"v=two" is not a link version' in alert.inner_text()
    if case.endswith("-version"):
        # The trace itself can still be opened, without the view.
        assert alert.get_by_role("link", name="Open the trace without the view").get_attribute("href").startswith(f"/traces/{sample}?v=3")
    shot(page, f"links-05-{case}")
    page.get_by_role("link", name="Back to all traces").click()
    page.get_by_role("table", name="Traces").wait_for()
    assert page.url.rstrip("/") == server


def test_view_state_round_trips_every_key_through_the_url(page, server, sample_id):
    """state.js: every key of the view state survives buildPath -> parseLocation, as docs/share-links.md spells it."""
    page.goto(server)
    result = page.evaluate("""async (traceId) => {
        const { buildPath, parseLocation, EMPTY_STATE } = await import('/js/state.js');
        const state = { ...EMPTY_STATE, update: 42, window: [1000, 2000000], range: [1500, 1800000], expanded: ['swiftui'],
          pane: 'updates', paneView: { module: 'Landmarks', view: 'Item View: <T> & "x"', category: 'View Body' }, filter: 'long-view-body',
          node: 'n17', graph: 'u40', groups: ['gn3-0', 'gn9-1'], search: 'NumberFormatter init', inverted: true };
        const path = buildPath(traceId, state);
        const url = new URL(path, location.origin);
        const parsed = parseLocation(url);
        const empty = parseLocation(new URL(buildPath(traceId, {}), location.origin));
        const at = (path) => parseLocation(new URL(path, location.origin));
        return { path, parsed, empty, newer: at(`/traces/${traceId}?v=7`),
          v1Update: at(`/traces/${traceId}/updates/5?v=1&w=10,20`), v1Pane: at(`/traces/${traceId}/updates/5?v=1&p=cpu`),
          v2Update: at(`/traces/${traceId}/updates/5?v=2`), bare: at(`/traces/${traceId}/updates/5`),
          v2BottomUp: at(`/traces/${traceId}?v=2&p=cpu&m=bu`),
          summaryPath: buildPath(traceId, { update: 5 }) };
    }""", sample_id(SAMPLE))
    path = result["path"]
    assert path.startswith(f"/traces/{sample_id(SAMPLE)}/updates/42?v=3&w=1000,2000000&r=1500,1800000&x=swiftui&p=updates&pv=")
    assert "&f=long-view-body&n=n17&g=u40&e=gn3-0,gn9-1&q=NumberFormatter%20init&i=1" in path
    state = result["parsed"]["state"]
    assert result["parsed"]["route"] == "trace"
    assert state["update"] == 42 and state["window"] == [1000, 2000000] and state["range"] == [1500, 1800000]
    assert state["expanded"] == ["swiftui"] and state["pane"] == "updates" and state["filter"] == "long-view-body"
    assert state["paneView"] == {"module": "Landmarks", "view": 'Item View: <T> & "x"', "category": "View Body"}
    assert "&pc=View%20Body&" in path
    assert state["node"] == "n17" and state["search"] == "NumberFormatter init" and state["inverted"] is True
    assert state["graph"] == "u40" and state["groups"] == ["gn3-0", "gn9-1"]
    # v=1 links are upgraded: there, an update path without p= opened the Summary; in v=2 it opens the graph.
    assert result["v1Update"]["state"]["pane"] == "summary" and result["v1Update"]["state"]["window"] == [10, 20]
    assert result["v1Pane"]["state"]["pane"] == "cpu"
    assert result["v2Update"]["state"]["pane"] == "graph" and result["bare"]["state"]["pane"] == "graph"
    # v=2 links kept the tree's direction in m=; in v=3 it is i=1 (m= is the CPU pane's view).
    assert result["v2BottomUp"]["state"]["inverted"] is True and result["v2BottomUp"]["state"]["cpuView"] is None
    # So a selected update with the Summary open must say so.
    assert "p=summary" in result["summaryPath"]
    assert result["empty"]["state"]["update"] is None and result["empty"]["state"]["window"] is None
    assert result["newer"] == {"route": "bad-version", "version": "7", "traceId": sample_id(SAMPLE)}


def open_in_new_context(new_context, link):
    colleague = new_context().new_page()
    colleague.goto(link)
    return colleague


@pytest.mark.parametrize("pane", ["updates", "cpu", "graph"])
def test_shared_link_opens_the_same_pane(page, new_context, server, server_control, sample_id, timeline, shot, pane):
    """For each pane: arrange a state in it, copy the current view's link, open it in a fresh
    browser context, and compare the pane's tab, its visible content and the URL's state."""
    trace_id = sample_id("landmarks-favorites-slow")
    timeline.open(page, trace_id)
    row = page.locator('#detail-pane tr[data-level=view][data-view="LandmarkListItemView"]').first
    row.click(button="right")
    if pane == "updates":
        page.get_by_role("menuitem", name="Show Updates").click()
        page.locator(".updates-row[data-id]").first.wait_for()
        page.locator(".updates-row[data-id]").nth(3).click()
        page.wait_for_url("**/updates/*")
        shown = lambda p: [p.locator("#pane-tab-updates").get_attribute("aria-selected"),
                           p.locator(".updates-row.selected").get_attribute("data-id"),
                           p.locator("#update-details h2").inner_text()]
    elif pane == "cpu":
        page.keyboard.press("Escape")
        page.locator("#pane-tab-cpu").click()
        search = page.locator("#detail-pane").get_by_role("searchbox")
        search.fill("body")
        page.wait_for_function("() => location.search.includes('q=body')")
        shown = lambda p: [p.locator("#pane-tab-cpu").get_attribute("aria-selected"),
                           p.locator("#detail-pane").get_by_role("searchbox").input_value(),
                           p.locator("#pane-body").inner_text()]
    else:
        page.get_by_role("menuitem", name="Show Cause & Effect Graph").click()
        page.wait_for_selector(".cg-root:not([aria-busy]) .cg-node", state="attached")
        node = page.locator(".cg-node[data-kind=observable]").first
        node.click()
        page.locator(".cg-info").wait_for()
        # The node's own Copy link gives the same link as the view's.
        node_link = copied_link(page, page.get_by_role("button", name="Copy a link to this node"))
        query = urllib.parse.parse_qs(urllib.parse.urlparse(node_link).query)
        assert query["g"] == ["view"] and query["n"] == [node.get_attribute("data-id")]
        shown = lambda p: [p.locator("#pane-tab-graph").get_attribute("aria-selected"),
                           p.locator(".cg-heading").inner_text(),
                           p.locator(".cg-node.cg-selected").get_attribute("data-id"),
                           p.locator(".cg-info h3").inner_text(),
                           p.locator(".cg-node").count()]
    timeline.wait_idle(page)
    page.wait_for_timeout(300)  # let the pane settle (virtual rows, call tree filter)
    before = shown(page)
    assert before[0] == "true"
    link = copied_link(page, page.get_by_role("button", name="Copy link to this view"))
    shot(page, f"links-06-{pane}-sender")

    colleague = open_in_new_context(new_context, link)
    colleague.locator(f"#pane-tab-{pane}[aria-selected=true]").wait_for()
    if pane == "graph":
        colleague.wait_for_selector(".cg-root:not([aria-busy]) .cg-node.cg-selected", state="attached")
    elif pane == "updates":
        colleague.locator(".updates-row.selected").wait_for()
    else:
        colleague.locator("#pane-body .cpu-row, #pane-body [role=treeitem]").first.wait_for()
    timeline.wait_idle(colleague)
    colleague.wait_for_timeout(300)
    assert shown(colleague) == before
    assert timeline.query(colleague) == timeline.query(page)
    shot(colleague, f"links-06-{pane}-colleague")


def test_link_to_a_short_update_opens_the_track_that_draws_it(page, new_context, server_control, sample_id, timeline, shot):
    """Short updates appear only in the SwiftUI track's sub-lanes: an update link opens that track."""
    trace_id = sample_id("landmarks-favorites-slow")
    status, page_of_updates = server_control.api(f"/api/traces/{trace_id}/updates?view=LandmarkListItemView&sort=start&limit=200")
    short = next(u for u in page_of_updates["updates"] if u["severity"] == "normal" and u["cause"].startswith("@Observable"))
    colleague = new_context().new_page()
    colleague.goto(f"{timeline.base}/traces/{trace_id}/updates/{short['id']}")
    colleague.locator("#update-details h2").wait_for()
    timeline.wait_idle(colleague)
    assert timeline.query(colleague)["x"] == "swiftui"
    expect(colleague.get_by_role("button", name="Collapse the SwiftUI track")).to_be_visible()
    drawn, _ = timeline.drawn_data(colleague, server_control, "view-body")
    assert any(e.get("update") == short["id"] for e in drawn), "the update is drawn in View Body Updates"
    shot(colleague, "links-07-short-update")


def test_old_links_still_select_what_they_named(page, server, server_control, sample_id, timeline):
    """Links written before each selection kind had its descriptor (selections/) open on the same
    selection: a v1 link's signpost (sp=) and a v2 link's update path are shown in the side panel
    and outlined on their lanes."""
    trace_id = sample_id("landmarks-favorites-slow")
    status, data = server_control.api(f"/api/traces/{trace_id}/timeline?width=4000&lanes=signposts-0")
    assert status == 200, data
    tap = next(e for e in data["lanes"]["signposts-0"]["events"] if e["label"] == "Favorite Tap: Muir Woods")
    window = f"{tap['start'] - tap['duration']},{tap['start'] + 2 * tap['duration']}"
    canvas = page.locator("#timeline-canvas")

    timeline.open(page, trace_id, f"v=1&w={window}&sp={tap['signpost']}")
    page.locator("#signpost-details-title", has_text="Favorite Tap").wait_for()
    expect(canvas).to_have_attribute("data-outlined", f"signposts-0@{tap['start']},{tap['duration']}")

    status, trace = server_control.api(f"/api/traces/{sample_id(SAMPLE)}")
    update = long_update(server_control, trace)
    timeline.open(page, trace["id"], "v=2&p=summary", path_suffix=f"/updates/{update['update']}")
    page.locator("#update-details-title").wait_for()
    expect(canvas).to_have_attribute("data-outlined", re.compile(rf"long-view-body.*@{update['start']},{update['duration']}$"))
    # The v1 → v2 upgrade did not touch this link: it names its pane, so the Summary is open.
    page.locator("#detail-pane .pane-scope").wait_for()
    assert not page.errors
