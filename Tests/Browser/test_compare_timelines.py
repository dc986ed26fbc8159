"""The comparison page's timelines: A's lanes above B's on one time axis, aligned at an anchor
(al=: both starts, the first group of a label, the compared ranges); a pan or zoom on either moves
both; anchor and window live in the URL (reload, a fresh browser)."""
import re
import urllib.parse

from conftest import colour_columns_in, drag_across
from playwright.sync_api import expect

FRAME = "Frame Update"  # the scroll samples' first frame update starts 64 us apart
LAUNCH = "App Launch"  # 180 ms into favorites-fixed, 150 ms into environment-color-scheme


def query_of(page):
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).items()}


def wait_drawn(page):
    for side in "ab":
        page.wait_for_selector(f'#timeline-canvas-{side}[data-loading="false"]', timeout=30_000)
        page.wait_for_selector(f'.compare-timeline.side-{side} .tl-header[data-marks]', timeout=30_000)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    for side in "ab":
        page.wait_for_selector(f'#timeline-canvas-{side}[data-loading="false"]', timeout=30_000)


def open_compare(page, server, a, b, query=""):
    page.goto(f"{server}/compare/{a}/{b}{('?' + query) if query else ''}")
    page.locator("#compare-views").wait_for(timeout=30_000)
    wait_drawn(page)


def group_columns(page, side):
    """x (CSS px from the canvas's left) of the Update Groups lane's pixel columns drawn in the accent colour."""
    return colour_columns_in(page, f"#timeline-canvas-{side}",
                             f'.compare-timeline.side-{side} .tl-header[data-lane="update-groups"]', "accent")


def canvas_width(page, side):
    return page.locator(f"#timeline-canvas-{side}").bounding_box()["width"]


def first_groups(server_control, a, b, label):
    status, body = server_control.api(f"/api/compare?a={a}&b={b}")
    assert status == 200, body
    found = next(i for i in body["interactions"] if i["label"] == label)
    return found["firstA"], found["firstB"]


def test_both_timelines_are_drawn_and_align_at_the_first_group_of_a_label(page, server, server_control, sample_id, shot):
    slow, fixed = sample_id("landmarks-scroll-slow"), sample_id("landmarks-scroll-fixed")
    open_compare(page, server, slow, fixed)
    # Both traces drawn, A above B, each with marks in its Update Groups lane.
    box_a, box_b = page.locator("#timeline-canvas-a").bounding_box(), page.locator("#timeline-canvas-b").bounding_box()
    assert box_a["y"] < box_b["y"] and box_a["width"] == box_b["width"]
    for side in "ab":
        assert int(page.locator(f'.compare-timeline.side-{side} .tl-header[data-lane="update-groups"]').get_attribute("data-marks")) > 0
        assert group_columns(page, side), f"nothing drawn in {side}'s Update Groups lane"
    expect(page.locator("#align-note")).to_have_text("Aligned at both starts.")

    page.get_by_label("Align the timelines at").select_option(label=f"First “{FRAME}”")
    page.wait_for_function("() => new URLSearchParams(location.search).get('al') === 'g:Frame Update'")
    # Two times and their distance, each in a unit that fits it (never "0 µs" beside "0 ms apart").
    expect(page.locator("#align-note")).to_have_text(re.compile(
        rf"^Aligned at the first “{FRAME}”: A at [\d.]+ m?s, B at [\d.]+ m?s on their own clocks \(6\d\.\d µs apart\)\.$"))
    wait_drawn(page)
    first_a, first_b = first_groups(server_control, slow, fixed, FRAME)
    assert first_a != first_b, "the first frames start at different times: aligning them must move one"
    # 2 ms before to 8 ms after the anchors: each first frame's group starts a fifth of the way in, in
    # both (unaligned, B's would be 64 us = 6 px later).
    page.goto(f"{server}/compare/{slow}/{fixed}?v=2&al=g:Frame%20Update&tw=-2000000,8000000")
    page.locator("#compare-views").wait_for(timeout=30_000)
    wait_drawn(page)
    expect(page.get_by_label("Align the timelines at")).to_have_value("g:Frame Update")
    for side in "ab":
        columns = [x for x in group_columns(page, side) if x > 0.1 * canvas_width(page, side)]
        assert columns and abs(columns[0] - 0.2 * canvas_width(page, side)) <= 2, (side, columns[:5])
    page.locator("#compare-timelines-section").scroll_into_view_if_needed()
    shot(page, "compare-timelines-01-first-frame")
    assert not page.errors


def anchor_x(page, side):
    """x of the first Update Groups mark right of the canvas's left tenth (the group at the anchor)."""
    columns = [x for x in group_columns(page, side) if x > 0.1 * canvas_width(page, side)]
    assert columns, f"no group drawn in {side}"
    return columns[0]


def shared_window(page):
    start, end = query_of(page)["tw"].split(",")
    return int(start), int(end)


def test_zoom_or_pan_on_one_timeline_moves_the_other(page, server, sample_id, shot):
    slow, fixed = sample_id("landmarks-scroll-slow"), sample_id("landmarks-scroll-fixed")
    open_compare(page, server, slow, fixed, "al=g:Frame%20Update&tw=-2000000,8000000")
    before = shared_window(page)
    # Zoom out on B (Ctrl + wheel down: the plain wheel scrolls the page) with the pointer at its
    # middle: both windows widen together. (The verdict comes first: the timelines are scrolled to.)
    page.locator("#timeline-canvas-b").scroll_into_view_if_needed()
    box = page.locator("#timeline-canvas-b").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 40)
    page.keyboard.down("Control")
    for _ in range(3):
        page.mouse.wheel(0, 200)
    page.keyboard.up("Control")
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('tw') !== '{before[0]},{before[1]}'")
    page.wait_for_timeout(400)
    wait_drawn(page)
    after = shared_window(page)
    assert after[1] - after[0] > (before[1] - before[0]) * 1.5, (before, after)
    # The anchored groups stay under each other: the same pixel column in A and in B.
    assert abs(anchor_x(page, "a") - anchor_x(page, "b")) <= 2, (anchor_x(page, "a"), anchor_x(page, "b"))
    moved_from = anchor_x(page, "a")

    # Drag A to the right by 150 px: B's content moves with it.
    page.locator("#timeline-canvas-a").scroll_into_view_if_needed()
    box = page.locator("#timeline-canvas-a").bounding_box()
    drag_across(page, box, box["y"] + 60, 200 / box["width"], 350 / box["width"])
    page.wait_for_timeout(400)
    wait_drawn(page)
    assert abs(anchor_x(page, "a") - (moved_from + 150)) <= 3 and abs(anchor_x(page, "b") - anchor_x(page, "a")) <= 2
    shot(page, "compare-timelines-02-moved")
    assert not page.errors


def test_anchor_and_window_survive_a_reload_and_a_fresh_browser(page, server, sample_id, new_context):
    # Two apps (Landmarks, EnvironmentDemo) launched 180 and 150 ms into their recordings.
    a, b = sample_id("landmarks-favorites-fixed"), sample_id("environment-color-scheme")
    open_compare(page, server, a, b)
    page.get_by_label("Align the timelines at").select_option(label=f"First “{LAUNCH}”")
    page.wait_for_function("() => new URLSearchParams(location.search).get('al') === 'g:App Launch'")
    wait_drawn(page)
    page.locator("#timeline-canvas-a").scroll_into_view_if_needed()
    box = page.locator("#timeline-canvas-a").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + 40)
    page.keyboard.down("Control")
    for _ in range(6):
        page.mouse.wheel(0, -300)
    page.keyboard.up("Control")
    page.wait_for_timeout(500)
    wait_drawn(page)
    window = shared_window(page)
    page.evaluate("() => navigator.clipboard.writeText('')")
    page.get_by_role("button", name="Copy link to this comparison").click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()).startsWith('http')")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert "al=g:App%20Launch" in link and f"tw={window[0]},{window[1]}" in link, link

    page.reload()
    page.locator("#compare-views").wait_for(timeout=30_000)
    wait_drawn(page)
    assert shared_window(page) == window
    expect(page.get_by_label("Align the timelines at")).to_have_value("g:App Launch")

    colleague = new_context().new_page()
    colleague.goto(link)
    colleague.locator("#compare-views").wait_for(timeout=30_000)
    wait_drawn(colleague)
    assert shared_window(colleague) == window
    expect(colleague.get_by_label("Align the timelines at")).to_have_value("g:App Launch")
    expect(colleague.locator("#align-note")).to_have_text(page.locator("#align-note").inner_text())
    # The same pixels: both launches drawn at the same column, in the colleague's browser too.
    for side in "ab":
        assert group_columns(colleague, side)[:3] == group_columns(page, side)[:3], side
    assert not page.errors


def test_dragging_on_a_ruler_picks_that_traces_range_and_the_ranges_anchor_aligns_there(page, server, sample_id, shot):
    # A Landmarks trace against another app's (EnvironmentDemo).
    a, b = sample_id("landmarks-scroll-slow"), sample_id("environment-color-scheme")
    open_compare(page, server, a, b, "al=ranges")
    expect(page.locator("#align-note")).to_contain_text("has no compared range")
    page.locator("#timeline-canvas-b").scroll_into_view_if_needed()
    box = page.locator("#timeline-canvas-b").bounding_box()
    drag_across(page, box, box["y"] + 10, 0.4, 0.6)  # on B's ruler
    page.wait_for_function("() => new URLSearchParams(location.search).has('rb')")
    page.locator("#compare-views").wait_for()
    expect(page.locator("#compare")).to_have_attribute("aria-busy", "false")
    rb = [int(x) for x in query_of(page)["rb"].split(",")]
    assert rb[1] > rb[0]
    expect(page.locator('.compare-card[data-side="B"]')).to_contain_text(" in ")
    # B is now anchored at its range's start; A (no range) at its start.
    expect(page.locator("#align-note")).to_contain_text("Trace A has no compared range")
    assert not page.errors


def test_clicking_a_signpost_makes_it_that_traces_range_and_the_ranges_anchor_aligns_on_it(page, server, server_control, sample_id):
    """Each trace's "Favorite Tap" Point of Interest, clicked on its own signpost lane, becomes its
    compared range, so `al=ranges` lines the two taps up."""
    a, b = sample_id("landmarks-favorites-slow"), sample_id("landmarks-favorites-fixed")
    taps = {}
    for side, trace_id in (("a", a), ("b", b)):
        status, data = server_control.api(f"/api/traces/{trace_id}/timeline?width=4000&lanes=signposts-0")
        taps[side] = next(e for e in data["lanes"]["signposts-0"]["events"] if e["label"].startswith("Favorite Tap: Muir Woods"))
    open_compare(page, server, a, b, "al=ranges")
    status, info_a = server_control.api(f"/api/traces/{a}")
    status, info_b = server_control.api(f"/api/traces/{b}")

    def click_tap(side, view):
        lane = page.locator(f'.compare-timeline.side-{side} .tl-header[data-lane="signposts-0"]')
        lane.scroll_into_view_if_needed()
        header = lane.bounding_box()
        box = page.locator(f"#timeline-canvas-{side}").bounding_box()
        tap = taps[side]
        t = tap["start"] + tap["duration"] / 2
        page.mouse.click(box["x"] + (t - view[0]) / (view[1] - view[0]) * box["width"], header["y"] + header["height"] / 2)

    # No range yet: both anchored at their starts, the whole shared axis in view.
    click_tap("a", (min(info_a["start"], info_b["start"]), max(info_a["end"], info_b["end"])))
    page.wait_for_function("() => new URLSearchParams(location.search).has('ra')")
    assert [int(x) for x in query_of(page)["ra"].split(",")] == [taps["a"]["start"], taps["a"]["start"] + taps["a"]["duration"]]
    expect(page.locator("#compare")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#align-note")).to_contain_text("Trace B has no compared range")
    wait_drawn(page)
    # A is anchored at its tap now, B still at its start: B's clock shows the shared axis as is.
    shared = (min(info_a["start"] - taps["a"]["start"], info_b["start"]), max(info_a["end"] - taps["a"]["start"], info_b["end"]))
    window = query_of(page).get("tw")
    view = tuple(int(x) for x in window.split(",")) if window else shared
    click_tap("b", view)
    page.wait_for_function("() => new URLSearchParams(location.search).has('rb')")
    assert [int(x) for x in query_of(page)["rb"].split(",")] == [taps["b"]["start"], taps["b"]["start"] + taps["b"]["duration"]]
    expect(page.locator("#align-note")).not_to_contain_text("has no compared range")
    assert not page.errors
