"""The trace view's timeline: lanes like the SwiftUI instrument, marks that match the data,
zoom, pan, keyboard, inspection range, hover and selection."""
import pytest

from test_newcomer import SAMPLES, long_updates_of

SAMPLE = "landmarks-scroll-slow"
# The sample has no Swift task data: no Main Actor lanes (test_concurrency checks a trace with them).
LANE_TITLES = ["Update Groups", "Long View Body Updates", "Long Representable Updates", "Other Long Updates",
               "SwiftUI", "Hitches", "Hangs",
               # The sample's own signpost lanes (one per subsystem and category), above CPU; no
               # Main Actor lanes: it has no Swift task data.
               "Points of Interest", "Images",
               "CPU"]
SUB_TRACKS = ["View Body Updates", "Representable Updates", "Other Updates"]
COLOURED_LANES = ["long-view-body", "long-representable", "long-other", "view-body", "representable", "other"]


def canvas_box(page):
    return page.locator("#timeline-canvas").bounding_box()


def wait_for_window_change(page, timeline, before, timeout=5000):
    """The window once it has moved and settled (the URL follows a gesture within 250 ms)."""
    page.wait_for_function("(w) => !location.search.includes('w=' + w)", arg=f"{before[0]},{before[1]}", timeout=timeout)
    current = timeline.window(page)
    while True:
        page.wait_for_timeout(400)
        settled = timeline.window(page)
        if settled == current:
            break
        current = settled
    timeline.wait_idle(page)
    return current


def pixel_runs(events, start, end, width):
    """How many separate marks a set of events makes at this zoom (spans closer than 1.5 px touch)."""
    spans = sorted(((e["start"] - start) * width / (end - start), (e["start"] + e["duration"] - start) * width / (end - start))
                   for e in events)
    runs, last_end = 0, None
    for x0, x1 in spans:
        if x1 < 0 or x0 > width:
            continue
        x1 = max(x1, x0 + 1)
        if last_end is None or x0 - last_end > 1.5:
            runs += 1
        last_end = x1 if last_end is None else max(last_end, x1)
    return runs


@pytest.fixture
def trace_info(server_control, sample_id):
    trace_id = sample_id(SAMPLE)
    status, info = server_control.api(f"/api/traces/{trace_id}")
    assert status == 200, info
    return info


def test_lanes_in_the_instruments_order_with_a_legend(page, trace_info, timeline, shot):
    timeline.open(page, trace_info["id"])
    titles = page.locator("#timeline .tl-header[data-lane] .title").all_inner_texts()
    assert titles == LANE_TITLES
    legend = page.get_by_label("Legend").inner_text()
    for text in ["> 500 µs", "> 1 ms", "Hitch", "Hang", "CPU", "Signpost"]:
        assert text in legend
    shot(page, "timeline-01-lanes")
    page.get_by_role("button", name="Expand the SwiftUI track").click()
    timeline.wait_idle(page)
    titles = page.locator("#timeline .tl-header[data-lane] .title").all_inner_texts()
    assert titles == LANE_TITLES[:5] + SUB_TRACKS + LANE_TITLES[5:]
    assert timeline.query(page)["x"] == "swiftui"
    assert page.get_by_role("button", name="Collapse the SwiftUI track").get_attribute("aria-expanded") == "true"
    shot(page, "timeline-02-swiftui-expanded")
    assert not page.errors


def test_orange_and_red_marks_match_the_trace(page, server_control, trace_info, timeline, shot):
    trace_id = trace_info["id"]
    timeline.open(page, trace_id, "x=swiftui")
    lanes = {lane["id"]: lane for lane in trace_info["lanes"]}
    assert sum(lanes[l]["orange"] + lanes[l]["red"] for l in ["long-view-body", "long-representable", "long-other"]) > 0, \
        "the sample has no long updates to show"
    start, end = timeline.window(page)
    assert (start, end) == (trace_info["start"], trace_info["end"])  # opened zoomed to fit
    width = round(canvas_box(page)["width"])
    for lane_id in COLOURED_LANES:
        drawn = timeline.lane(page, lane_id)
        # What the page drew is what the level-of-detail query returns for the same window and width.
        status, data = server_control.api(f"/api/traces/{trace_id}/timeline?start={start}&end={end}&width={width}&lanes={lane_id}")
        assert status == 200, data
        events = data["lanes"][lane_id]["events"]
        assert drawn["marks"] == len(events), lane_id
        assert drawn["orange"] == sum(e["severity"] == "orange" for e in events), lane_id
        assert drawn["red"] == sum(e["severity"] == "red" for e in events), lane_id
        if not drawn["merged"]:
            # Nothing merged at this zoom: every long update of the trace is one mark.
            assert (drawn["orange"], drawn["red"]) == (lanes[lane_id]["orange"], lanes[lane_id]["red"]), lane_id
        if lane_id.startswith("long-"):
            # Long lanes hold long updates only: nothing gray.
            assert drawn["marks"] == drawn["orange"] + drawn["red"], lane_id
    shot(page, "timeline-03-fit-all-lanes")

    # Zoomed in on the long view body updates, count the coloured marks on screen.
    status, data = server_control.api(f"/api/traces/{trace_id}/timeline?start={start}&end={end}&width=4000&lanes=long-view-body")
    long_events = [e for e in data["lanes"]["long-view-body"]["events"]]
    assert long_events, "no long view body updates in the sample"
    first, last = long_events[0], long_events[min(len(long_events) - 1, 5)]
    pad = max((last["start"] + last["duration"] - first["start"]) // 10, 1_000_000)
    w0, w1 = max(start, first["start"] - pad), min(end, last["start"] + last["duration"] + pad)
    timeline.open(page, trace_id, f"w={w0},{w1}&x=swiftui")
    w0, w1 = timeline.window(page)
    events, merged = timeline.drawn_data(page, server_control, "long-view-body")
    drawn = timeline.lane(page, "long-view-body")
    assert drawn["marks"] == len(events)
    for severity, css in (("orange", "orange"), ("red", "red")):
        expected = [e for e in events if e["severity"] == severity]
        assert drawn[severity] == len(expected)
        seen = timeline.runs(timeline.colour_columns(page, "long-view-body", css))
        assert seen == pixel_runs(expected, w0, w1, width), f"{severity} marks on screen"
    shot(page, "timeline-04-long-updates-zoomed")
    assert not page.errors


def test_wheel_zooms_around_the_pointer_and_the_ruler_follows(page, trace_info, timeline, shot):
    timeline.open(page, trace_info["id"])
    before = timeline.window(page)
    box = canvas_box(page)
    x = box["x"] + box["width"] * 0.25
    anchor = before[0] + (before[1] - before[0]) * 0.25
    page.mouse.move(x, box["y"] + 60)
    for _ in range(5):
        page.mouse.wheel(0, -200)
    after = wait_for_window_change(page, timeline, before)
    span = after[1] - after[0]
    assert span < (before[1] - before[0]) / 2
    assert abs(after[0] + span * 0.25 - anchor) < span * 0.02, "the time under the pointer stays under the pointer"
    label_before = page.locator("#window-label").inner_text()
    for _ in range(30):
        page.mouse.wheel(0, -400)
    deeper = wait_for_window_change(page, timeline, after)
    assert deeper[1] - deeper[0] < 1_000_000
    label = page.locator("#window-label").inner_text()
    assert label != label_before and ("µs" in label), label
    shot(page, "timeline-05-zoomed-in-us")
    assert not page.errors


def test_drag_pans_and_keys_zoom_and_pan(page, trace_info, timeline, shot):
    start, end = trace_info["start"], trace_info["end"]
    span = (end - start) // 10
    w0 = start + span * 3
    timeline.open(page, trace_info["id"], f"w={w0},{w0 + span}")
    before = timeline.window(page)
    box = canvas_box(page)
    y = box["y"] + 70
    page.mouse.move(box["x"] + 600, y)
    page.mouse.down()
    page.mouse.move(box["x"] + 500, y, steps=5)
    page.mouse.move(box["x"] + 400, y, steps=5)
    page.mouse.up()
    after = wait_for_window_change(page, timeline, before)
    moved = after[0] - before[0]
    expected = 200 / box["width"] * (before[1] - before[0])
    assert abs(moved - expected) < expected * 0.05, (moved, expected)
    assert after[1] - after[0] == pytest.approx(before[1] - before[0], rel=1e-6)
    shot(page, "timeline-06-panned")

    page.locator("#timeline-canvas").focus()
    page.mouse.move(0, 0)
    for key, check in [("w", lambda a, b: b[1] - b[0] < (a[1] - a[0]) * 0.9),
                       ("s", lambda a, b: b[1] - b[0] > (a[1] - a[0]) * 1.1),
                       ("d", lambda a, b: b[0] > a[0]),
                       ("a", lambda a, b: b[0] < a[0]),
                       ("ArrowRight", lambda a, b: b[0] > a[0]),
                       ("ArrowUp", lambda a, b: b[1] - b[0] < (a[1] - a[0]) * 0.9)]:
        current = timeline.window(page)
        page.keyboard.down(key)
        page.wait_for_timeout(300)
        page.keyboard.up(key)
        moved = wait_for_window_change(page, timeline, current)
        assert check(current, moved), (key, current, moved)
    shot(page, "timeline-07-after-keys")

    page.get_by_role("button", name="Zoom to fit").click()
    timeline.wait_idle(page)
    page.wait_for_function("(w) => location.search.includes('w=' + w)", arg=f"{start},{end}")
    assert not page.errors


def test_ruler_drag_sets_the_inspection_range_and_zoom_to_range(page, trace_info, timeline, shot):
    timeline.open(page, trace_info["id"])
    start, end = timeline.window(page)
    box = canvas_box(page)
    assert page.get_by_role("button", name="Zoom to inspection range").is_disabled()
    y = box["y"] + 12  # the ruler
    page.mouse.move(box["x"] + box["width"] * 0.3, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.45, y, steps=4)
    page.mouse.move(box["x"] + box["width"] * 0.6, y, steps=4)
    page.mouse.up()
    page.wait_for_function("() => location.search.includes('r=')")
    r0, r1 = (int(v) for v in timeline.query(page)["r"].split(","))
    span = end - start
    assert abs(r0 - (start + span * 0.3)) < span * 0.01 and abs(r1 - (start + span * 0.6)) < span * 0.01
    timeline.wait_idle(page)
    # The range is shaded across the lanes: inside it, a lane's usual colour differs from outside.
    inside, outside = page.evaluate("""() => {
        const canvas = document.getElementById('timeline-canvas');
        const header = document.querySelector('#timeline .tl-header[data-lane="hangs"]').getBoundingClientRect();
        const box = canvas.getBoundingClientRect();
        const dpr = canvas.width / box.width;
        const y = Math.round((header.top - box.top + header.height / 2) * dpr);
        const row = canvas.getContext('2d').getImageData(0, y, canvas.width, 1).data;
        // The most common colour of a span of columns (marks in the lane do not change it).
        const usual = (from, to) => {
            const counts = new Map();
            for (let x = Math.round(from * canvas.width); x < to * canvas.width; x++) {
                const key = [row[x * 4], row[x * 4 + 1], row[x * 4 + 2]].join(',');
                counts.set(key, (counts.get(key) ?? 0) + 1);
            }
            return [...counts].sort((a, b) => b[1] - a[1])[0][0];
        };
        return [usual(0.33, 0.57), usual(0.03, 0.27)];
    }""")
    assert inside != outside, (inside, outside)
    shot(page, "timeline-08-inspection-range")
    page.get_by_role("button", name="Zoom to inspection range").click()
    page.wait_for_function("(w) => location.search.includes('w=' + w)", arg=f"{r0},{r1}")
    timeline.wait_idle(page)
    shot(page, "timeline-09-zoomed-to-range")
    # Back undoes the zoom, keeping the range.
    page.go_back()
    page.wait_for_function("(w) => location.search.includes('w=' + w)", arg=f"{start},{end}")
    assert timeline.query(page)["r"] == f"{r0},{r1}"
    assert not page.errors


def test_hover_shows_a_tooltip_and_click_selects_an_update(page, server_control, trace_info, timeline, shot):
    trace_id = trace_info["id"]
    status, data = server_control.api(f"/api/traces/{trace_id}/timeline?start={trace_info['start']}&end={trace_info['end']}"
                                      f"&width=8000&lanes=long-view-body")
    candidates = [e for e in data["lanes"]["long-view-body"]["events"] if e["count"] == 1 and "update" in e]
    assert candidates
    target = max(candidates, key=lambda e: e["duration"])
    status, update = server_control.api(f"/api/traces/{trace_id}/updates/{target['update']}")
    pad = target["duration"] * 2
    w0, w1 = max(trace_info["start"], target["start"] - pad), min(trace_info["end"], target["start"] + target["duration"] + pad)
    timeline.open(page, trace_id, f"w={w0},{w1}")
    w0, w1 = timeline.window(page)
    x, y, width, height = timeline.lane_box(page, "long-view-body")
    mid = target["start"] + target["duration"] / 2
    px = x + (mid - w0) / (w1 - w0) * width
    page.mouse.move(px, y + height / 2)
    tooltip = page.locator("#timeline-tooltip")
    tooltip.wait_for(state="visible")
    text = tooltip.inner_text()
    assert update["view"] in text and "Duration" in text and "Start" in text
    assert ("Very long" if update["severity"] == "red" else "Long") in text
    shot(page, "timeline-10-tooltip")
    page.mouse.click(px, y + height / 2)
    page.wait_for_url(f"**/traces/{trace_id}/updates/{target['update']}?*")
    details = page.locator("#update-details")
    details.locator("h2", has_text=update["view"]).wait_for()
    assert update["module"] in details.inner_text()
    shot(page, "timeline-11-selected-update")
    # Back clears the selection, forward restores it.
    page.go_back()
    details.locator(".placeholder").wait_for(state="attached")
    page.go_forward()
    details.locator("h2", has_text=update["view"]).wait_for()
    # Escape clears it from the keyboard.
    page.locator("#timeline-canvas").focus()
    page.keyboard.press("Escape")
    details.locator(".placeholder").wait_for(state="attached")
    assert "/updates/" not in page.url
    assert not page.errors


@pytest.mark.parametrize("width,height,scheme", [(1280, 800, "dark"), (1920, 1080, "light"), (1920, 1080, "dark")])
def test_readable_at_common_sizes_in_light_and_dark(new_context, trace_info, timeline, shot, width, height, scheme):
    page = new_context(width, height, scheme).new_page()
    timeline.open(page, trace_info["id"], "x=swiftui")
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert (background == "rgb(255, 255, 255)") == (scheme == "light")
    canvas = canvas_box(page)
    assert canvas["width"] >= width - 240 - 40  # lanes use the width
    assert canvas["y"] + canvas["height"] < height  # every lane visible without scrolling
    # Every button on the page has an accessible name.
    unnamed = page.evaluate("""() => [...document.querySelectorAll('button')].filter(b =>
        !(b.getAttribute('aria-label') || b.textContent.trim())).length""")
    assert unnamed == 0
    shot(page, f"timeline-12-{width}x{height}-{scheme}")


def test_keyboard_selects_long_updates_in_time_order(page, trace_info, timeline, shot):
    expected, _ = long_updates_of(SAMPLES / f"{SAMPLE}.json")  # every long update, in time order, from the file
    timeline.open(page, trace_info["id"])
    page.locator("#timeline-canvas").focus()
    page.keyboard.press("]")
    page.wait_for_url(f"**/updates/{expected[0]}?*")
    page.keyboard.press("]")
    page.wait_for_url(f"**/updates/{expected[1]}?*")
    page.locator("#update-details h2").wait_for()
    shot(page, "timeline-13-keyboard-selection")
    page.keyboard.press("[")
    page.wait_for_url(f"**/updates/{expected[0]}?*")
    assert not page.errors


def test_the_browser_reads_the_binary_timeline_and_it_says_what_the_json_says(page, trace_info, timeline):
    trace_id = trace_info["id"]
    answers = []
    page.on("response", lambda r: answers.append((r.request.headers.get("accept", ""), r.headers.get("content-type", "")))
            if "/timeline?" in r.url else None)
    timeline.open(page, trace_id, "x=swiftui")
    assert answers, "no timeline request seen"
    assert all("application/octet-stream" in accept and kind == "application/octet-stream" for accept, kind in answers), answers
    fetch = page.evaluate("() => performance.getEntriesByName('timeline-fetch').at(-1).detail")
    assert fetch["format"] == "binary" and fetch["bytes"] > 0

    # The server's bytes, decoded by the page's own module, equal its JSON event for event (every lane,
    # merged and single events at this width).
    mismatches = page.evaluate("""async ({ url }) => {
        const { decodeTimeline } = await import('/js/timeline/binary.js');
        const { KINDS, SEVERITIES } = await import('/js/timeline/lanes.js');
        const json = await (await fetch(url)).json();
        const response = await fetch(url, { headers: { Accept: 'application/octet-stream' } });
        const bytes = await response.arrayBuffer();
        const binary = decodeTimeline(bytes);
        const problems = [];
        if (bytes.byteLength * 3 > JSON.stringify(json).length) problems.push(`binary ${bytes.byteLength} B is not small`);
        if (Object.keys(binary.lanes).sort().join() !== Object.keys(json.lanes).sort().join()) problems.push('lanes differ');
        for (const [id, lane] of Object.entries(json.lanes)) {
            const got = binary.lanes[id];
            if (got.length !== lane.events.length || got.merged !== lane.merged) { problems.push(`${id}: length/merged`); continue; }
            lane.events.forEach((e, i) => {
                const same = got.start[i] === e.start && got.duration[i] === e.duration && got.count[i] === e.count
                    && SEVERITIES[got.severity[i]] === e.severity && got.update[i] === (e.update ?? -1)
                    && (got.taskState ? got.taskState[i] : -1) === (e.taskState ?? -1)
                    && (got.labels[got.label[i]] ?? null) === (e.label ?? null) && (KINDS[got.kind[i]] || null) === (e.kind ?? null)
                    && (e.load === undefined || Math.abs(got.load[i] - e.load) < 1e-4 && Math.abs(got.mainLoad[i] - e.mainLoad) < 1e-4);
                if (!same) problems.push(`${id}[${i}]: ${JSON.stringify(e)}`);
            });
        }
        return { problems, lanes: Object.keys(json.lanes).length, events: Object.values(json.lanes).reduce((n, l) => n + l.events.length, 0),
                 merged: Object.values(json.lanes).some((l) => l.merged) };
    }""", {"url": f"/api/traces/{trace_id}/timeline?width=300"})
    assert mismatches["problems"] == []
    assert mismatches["lanes"] >= 10 and mismatches["events"] > 50 and mismatches["merged"]
    assert not page.errors
