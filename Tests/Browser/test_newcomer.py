"""What a new user trips on (issue 17): narrow windows, the two link buttons, `]`/`[` over merged
marks, a zipped .trace bundle, a duplicate upload, and the polish points."""
import io
import json
import math
import re
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from test_links import copied_link

SAMPLE = "landmarks-scroll-slow"
SAMPLES = Path(__file__).resolve().parents[2] / "SampleTraces"


def box(page, selector):
    return page.locator(selector).bounding_box()


def long_updates_of(path):
    """Ids of the long updates (> 500 us) of a native trace file, in time order: read from the file
    itself (update ids are the rows sorted by start), not from the server."""
    rows = json.loads(Path(path).read_text())["updates"]
    order = sorted(range(len(rows)), key=lambda i: (rows[i][0], i))
    return [uid for uid, row in enumerate(order) if rows[row][1] > 500_000], [rows[i] for i in order]


def first_long_update(server_control, trace_id):
    status, trace = server_control.api(f"/api/traces/{trace_id}")
    status, data = server_control.api(f"/api/traces/{trace_id}/timeline?start={trace['start']}&end={trace['end']}"
                                      f"&width=10000&lanes=long-view-body")
    return next(e for e in data["lanes"]["long-view-body"]["events"] if e["count"] == 1 and "update" in e)


# ----- 1. narrow windows -----

@pytest.mark.parametrize("width", [800, 1000])
def test_narrow_window_keeps_the_panes_usable_and_puts_the_update_under_them(new_context, server, server_control,
                                                                             sample_id, timeline, shot, width):
    page = new_context(width, 720).new_page()
    trace_id = sample_id(SAMPLE)
    timeline.open(page, trace_id, "p=summary")
    # Nothing selected: no side panel, the panes use the whole width.
    expect(page.locator("#update-details")).to_be_hidden()
    assert box(page, "#detail-pane")["width"] >= width - 20
    assert box(page, "#pane-body")["height"] >= 300
    shot(page, f"newcomer-01-narrow-{width}-nothing-selected")

    update = first_long_update(server_control, trace_id)["update"]
    for pane in ["summary", "cpu", "graph"]:
        timeline.open(page, trace_id, f"p={pane}", path_suffix=f"/updates/{update}")
        page.locator("#update-details h2").wait_for()
        pane_box, details = box(page, "#pane-body"), box(page, "#update-details")
        assert pane_box["height"] >= 300, f"{pane} pane is {pane_box['height']} px tall at {width} px"
        assert details["y"] >= pane_box["y"] + pane_box["height"] - 1, "the update's panel is under the panes"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width, "no sideways scrolling"
        shot(page, f"newcomer-02-narrow-{width}-{pane}-selected", full_page=True)
    # The page scrolls to the update's actions.
    link = page.get_by_role("button", name="Copy link to this update")
    link.scroll_into_view_if_needed()
    expect(link).to_be_in_viewport()
    assert page.evaluate("() => window.scrollY") > 0


def test_wide_window_side_panel_only_when_it_has_something_to_say(new_context, server_control, sample_id, timeline, shot):
    page = new_context(1440, 900).new_page()
    trace_id = sample_id(SAMPLE)
    timeline.open(page, trace_id, "p=summary")
    expect(page.locator("#update-details")).to_be_hidden()
    assert box(page, "#detail-pane")["width"] >= 1440 - 20
    update = first_long_update(server_control, trace_id)["update"]
    timeline.open(page, trace_id, "", path_suffix=f"/updates/{update}")
    page.locator("#update-details h2").wait_for()
    assert 280 <= box(page, "#update-details")["width"] <= 345
    # The graph's node card sits beside the drawing, never over its nodes.
    page.wait_for_selector(".cg-node.cg-focus")
    page.locator(".cg-node.cg-focus").click()
    card = page.locator(".cg-info")
    expect(card).to_be_visible()
    stage, info = box(page, ".cg-stage"), card.bounding_box()
    assert info["x"] >= stage["x"] + stage["width"] - 1, (stage, info)
    shot(page, "newcomer-03-graph-card-beside-the-graph")


# ----- 2. the two link buttons -----

def test_the_two_links_say_what_they_give_and_give_it(page, new_context, server_control, sample_id, timeline):
    trace_id = sample_id(SAMPLE)
    update = first_long_update(server_control, trace_id)
    w0, w1 = update["start"] - 5_000_000, update["start"] + 5_000_000
    timeline.open(page, trace_id, f"p=summary&r={w0},{w1}&w={w0},{w1}", path_suffix=f"/updates/{update['update']}")
    page.locator("#update-details h2").wait_for()
    def receive(name, text):
        """Clicks the link button `name` (showing `text`) and opens what it copied in a new browser."""
        button = page.get_by_role("button", name=name)
        expect(button).to_have_text(text)
        link = copied_link(page, button)
        assert f"{text} copied" in page.locator("#toast").inner_text()
        other = new_context().new_page()
        other.goto(link)
        timeline.wait_idle(other)
        return other

    # "Link to this view": the receiver sees this view (pane, range, window, selection).
    other = receive("Copy link to this view", "Link to this view")
    expect(other.locator("#pane-tab-summary")).to_have_attribute("aria-selected", "true")
    assert timeline.query(other)["r"] == f"{w0},{w1}" and timeline.window(other) == (w0, w1)
    expect(other.locator("#update-details h2")).to_have_text(page.locator("#update-details h2").inner_text())

    # "Link to this update": the update, zoomed around it, with its graph (not the sender's pane or range).
    other = receive("Copy link to this update", "Link to this update")
    expect(other.locator("#pane-tab-graph")).to_have_attribute("aria-selected", "true")
    expect(other.locator(".cg-heading")).to_contain_text(f"#{update['update']}")
    ow0, ow1 = timeline.window(other)
    assert ow0 < update["start"] and update["start"] + update["duration"] < ow1
    assert "r" not in timeline.query(other)


# ----- 3. ] and [ over merged marks -----

def test_brackets_visit_every_long_update_in_time_order_even_inside_merged_marks(page, server_control, generated_trace,
                                                                                 timeline, shot):
    path = generated_trace("brackets", updates=6000, seed=17)
    trace = server_control.upload(path)
    expected, rows = long_updates_of(path)
    assert len(expected) >= 12
    timeline.open(page, trace["id"])
    drawn, merged = timeline.drawn_data(page, server_control, "long-view-body")
    assert merged, "at full zoom the long marks are merged (the case that skipped updates)"
    singles = {e["update"] for e in drawn if e["count"] == 1 and "update" in e}
    hidden = next(i for i, uid in enumerate(expected) if uid not in singles)
    assert hidden < 40, "an early long update hides in a merged mark"
    steps = max(8, hidden + 3)

    page.locator("#timeline-canvas").focus()
    for uid in expected[:steps]:
        page.keyboard.press("]")
        page.wait_for_url(f"**/updates/{uid}?*")
    timeline.wait_idle(page)
    w0, w1 = timeline.window(page)
    start, duration = rows[expected[steps - 1]][0], rows[expected[steps - 1]][1]
    assert w0 <= start and start + duration <= w1, "the selected update is in view"
    shot(page, "newcomer-04-bracket-selection")
    for uid in reversed(expected[steps - 3:steps - 1]):
        page.keyboard.press("[")
        page.wait_for_url(f"**/updates/{uid}?*")
    # From the end backwards, without a selection: the last long update.
    page.keyboard.press("Escape")
    page.wait_for_function("() => !location.pathname.includes('/updates/')")
    page.get_by_role("button", name="Zoom to fit").click()
    page.locator("#timeline-canvas").focus()
    page.keyboard.press("[")
    page.wait_for_url(f"**/updates/{expected[-1]}?*")
    assert not page.errors


# ----- 6. a zipped Instruments recording -----

def test_a_zipped_trace_bundle_says_how_to_export_it_and_where_once(page, server, shot):
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("Landmarks Scroll.trace/form.template", b"bplist00...")
        archive.writestr("Landmarks Scroll.trace/instrument_data/x", b"...")
    page.goto(server + "/")
    page.locator("#upload-input").set_input_files(files=[{"name": "Landmarks Scroll.trace.zip", "mimeType": "application/zip",
                                                          "buffer": data.getvalue()}])
    error = page.locator("#upload-status .error-box")
    error.wait_for()
    text = error.inner_text()
    assert "Instruments recording" in text
    assert "scripts/export-instruments-trace.sh 'Landmarks Scroll.trace'" in text
    assert "Landmarks Scroll.xctrace.tar.gz" in text
    assert text.count("Landmarks Scroll.trace.zip:1:1") == 1, text
    shot(page, "newcomer-05-zipped-bundle")


# ----- 7. uploading what is already here -----

def test_uploading_content_already_here_names_both_and_does_not_open_it_silently(page, server, sample_id, shot):
    page.goto(server + "/")
    page.locator("#trace-list table").wait_for()
    content = (SAMPLES / f"{SAMPLE}.json").read_bytes()
    page.locator("#upload-input").set_input_files(files=[{"name": "my scroll copy.json", "mimeType": "application/json",
                                                          "buffer": content}])
    message = page.locator("#upload-status")
    expect(message).to_contain_text(f"my scroll copy.json is already here as the sample “{SAMPLE}”")
    assert page.url.rstrip("/") == server, "the old trace is not opened behind the user's back"
    shot(page, "newcomer-06-duplicate-upload")
    page.get_by_role("link", name=f"Open “{SAMPLE}”").click()
    page.wait_for_url(f"**/traces/{sample_id(SAMPLE)}?*")


# ----- 9. polish -----

def test_merged_marks_count_updates_and_hitches_are_not_called_long_updates(page, server_control, sample_id, timeline):
    trace_id = sample_id(SAMPLE)
    timeline.open(page, trace_id)
    drawn, merged = timeline.drawn_data(page, server_control, "long-view-body")
    mark = max((e for e in drawn if e["count"] > 1), key=lambda e: e["duration"])
    w0, w1 = timeline.window(page)
    x, y, width, height = timeline.lane_box(page, "long-view-body")
    page.mouse.move(x + (mark["start"] + mark["duration"] / 2 - w0) / (w1 - w0) * width, y + height / 2)
    tooltip = page.locator("#timeline-tooltip")
    expect(tooltip).to_contain_text(re.compile(r"^\d+ updates \(", re.M))
    assert "events" not in tooltip.inner_text()

    status, data = server_control.api(f"/api/traces/{trace_id}/timeline?lanes=hitches&width=4000")
    hitch = next(e for e in data["lanes"]["hitches"]["events"] if e["count"] == 1)
    pad = hitch["duration"] * 2
    timeline.open(page, trace_id, f"w={hitch['start'] - pad},{hitch['start'] + hitch['duration'] + pad}")
    w0, w1 = timeline.window(page)
    x, y, width, height = timeline.lane_box(page, "hitches")
    page.mouse.move(x + (hitch["start"] + hitch["duration"] / 2 - w0) / (w1 - w0) * width, y + height / 2)
    expect(tooltip).to_be_visible()
    assert "500 us" not in tooltip.inner_text() and "Long" not in tooltip.inner_text(), tooltip.inner_text()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_hangs_do_not_share_the_very_long_update_red(new_context, server_control, tmp_path, timeline, shot, scheme):
    trace = json.loads((SAMPLES / f"{SAMPLE}.json").read_text())
    trace["hangs"] = [[2_000_000_000, 400_000_000, "Hang", "Main thread blocked", 0]]
    path = tmp_path / "with-a-hang.json"
    path.write_text(json.dumps(trace))
    page = new_context(1280, 800, scheme).new_page()
    timeline.open(page, server_control.upload(path)["id"])
    colours = page.evaluate("""() => ['--red', '--hang'].map((name) => {
        const g = document.createElement('canvas').getContext('2d');
        g.fillStyle = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
        g.fillRect(0, 0, 1, 1);
        return [...g.getImageData(0, 0, 1, 1).data].slice(0, 3);
    })""")
    assert math.dist(*colours) >= 80, colours
    # Striped: across the hang's span, its colour alternates with stripes.
    w0, w1 = timeline.window(page)
    width = box(page, "#timeline-canvas")["width"]
    x0, x1 = [(t - w0) / (w1 - w0) * width for t in (2_000_000_000, 2_400_000_000)]
    hang = [x for x in timeline.colour_columns(page, "hangs", "hang") if x0 <= x <= x1]
    shot(page, f"newcomer-07-hang-{scheme}", clip=box(page, "#timeline"))
    assert 0.1 * (x1 - x0) < len(hang) < 0.9 * (x1 - x0), (len(hang), x1 - x0)
    assert timeline.runs(hang) > 5


def test_orange_marks_stay_visible_next_to_red_at_full_zoom(page, server_control, generated_trace, timeline):
    trace = server_control.upload(generated_trace("brackets", updates=6000, seed=17))
    timeline.open(page, trace["id"])
    drawn, _ = timeline.drawn_data(page, server_control, "long-view-body")
    orange = [e for e in drawn if e["severity"] == "orange"]
    assert orange and any(e["severity"] == "red" for e in drawn), "orange and red marks at full zoom"
    seen = page.evaluate("""() => {
        const canvas = document.getElementById('timeline-canvas');
        const header = document.querySelector('#timeline .tl-header[data-lane="long-view-body"]');
        const dpr = canvas.width / canvas.getBoundingClientRect().width;
        const top = Math.round((header.getBoundingClientRect().top - canvas.getBoundingClientRect().top) * dpr);
        const rows = Math.round(header.getBoundingClientRect().height * dpr);
        const g = document.createElement('canvas').getContext('2d');
        g.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--orange').trim();
        g.fillRect(0, 0, 1, 1);
        const want = g.getImageData(0, 0, 1, 1).data;
        const data = canvas.getContext('2d').getImageData(0, top, canvas.width, rows).data;
        const columns = new Set();
        for (let i = 0; i < data.length; i += 4) {
            if (Math.abs(data[i] - want[0]) < 8 && Math.abs(data[i + 1] - want[1]) < 8 && Math.abs(data[i + 2] - want[2]) < 8)
                columns.add(Math.floor((i / 4) % canvas.width / dpr));
        }
        return [...columns];
    }""")
    w0, w1 = timeline.window(page)
    width = box(page, "#timeline-canvas")["width"]
    for event in orange:
        x0 = math.floor((event["start"] - w0) / (w1 - w0) * width)
        x1 = max(x0 + 1, math.ceil((event["start"] + event["duration"] - w0) / (w1 - w0) * width))
        assert any(x0 - 1 <= x <= x1 for x in seen), f"orange mark at {x0}-{x1} px is hidden"


def test_set_range_and_zoom_leaves_context_around_the_update(page, server_control, sample_id, timeline):
    trace_id = sample_id(SAMPLE)
    update = first_long_update(server_control, trace_id)
    timeline.open(page, trace_id, "", path_suffix=f"/updates/{update['update']}")
    page.get_by_role("button", name="Set Inspection Range and Zoom").click()
    page.wait_for_function("() => location.search.includes('r=')")
    timeline.wait_idle(page)
    r0, r1 = map(int, timeline.query(page)["r"].split(","))
    w0, w1 = timeline.window(page)
    assert (r0, r1) == (update["start"], update["start"] + update["duration"])
    assert w0 < r0 - (r1 - r0) * 0.5 and w1 > r1 + (r1 - r0) * 0.5, "context on both sides"


def test_an_unknown_path_is_the_apps_not_found_page_and_json_under_api(page, server, server_control):
    response = page.goto(server + "/nope")
    assert response.status == 404
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    expect(page.get_by_role("link", name="Back to all traces")).to_be_visible()
    status, body = server_control.api("/api/nope")
    assert status == 404 and "error" in body


def test_focus_follows_a_menu_that_switches_the_pane(page, sample_id, timeline):
    timeline.open(page, sample_id(SAMPLE), "p=summary")
    menu_button = page.locator(".pane-row-menu").first
    menu_button.wait_for(state="attached")
    menu_button.click(force=True)  # shown on row hover
    page.get_by_role("menuitem", name="Show Updates").wait_for()
    page.keyboard.press("Enter")  # the first item
    expect(page.locator("#pane-tab-updates")).to_have_attribute("aria-selected", "true")
    focused = page.evaluate("() => document.activeElement.id || document.activeElement.tagName")
    assert focused == "pane-tab-updates", focused


def test_hidden_file_input_is_not_a_tab_stop(page, server):
    page.goto(server + "/")
    page.locator("#upload-button").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") != "upload-input"
    assert page.locator("#upload-input").get_attribute("tabindex") == "-1"


def test_every_focusable_graph_element_has_a_name(page, server_control, sample_id, timeline):
    trace_id = sample_id("landmarks-favorites-slow")
    update = first_long_update(server_control, trace_id)
    timeline.open(page, trace_id, "", path_suffix=f"/updates/{update['update']}")
    page.wait_for_selector(".cg-node")
    # What a screen reader is given: Chromium's accessibility tree, focusable nodes without a name.
    cdp = page.context.new_cdp_session(page)
    unnamed = []
    for node in cdp.send("Accessibility.getFullAXTree")["nodes"]:
        focusable = any(p["name"] == "focusable" and p["value"].get("value") for p in node.get("properties", []))
        if not focusable or node.get("name", {}).get("value", "").strip() or "backendDOMNodeId" not in node:
            continue
        element = cdp.send("DOM.resolveNode", {"backendNodeId": node["backendDOMNodeId"]})["object"]
        inside = cdp.send("Runtime.callFunctionOn", {"objectId": element["objectId"], "returnByValue": True,
                                                     "functionDeclaration": "function () { return !!this.closest?.('.cg-root') && this.outerHTML.slice(0, 80); }"})
        if inside["result"]["value"]:
            unnamed.append(inside["result"]["value"])
    assert unnamed == [], unnamed
