"""os_signpost lanes: the Landmarks samples' Points of Interest drawn on their own lane with its
title, a hovered interval's subsystem, category and messages, and a clicked one made the
inspection range (in the URL, restricting the summary), kept by a shared link."""
import urllib.parse

SAMPLE = "landmarks-favorites-slow"
LANE = "signposts-0"


def signpost_events(server_control, trace_id, lane=LANE):
    status, data = server_control.api(f"/api/traces/{trace_id}/timeline?width=4000&lanes={lane}")
    assert status == 200, data
    return data["lanes"][lane]["events"]


def test_a_points_of_interest_interval_becomes_the_inspection_range(page, server_control, sample_id, timeline, shot):
    trace_id = sample_id(SAMPLE)
    tap = next(e for e in signpost_events(server_control, trace_id) if e["label"] == "Favorite Tap: Muir Woods")
    pad = tap["duration"] // 2
    w0, w1 = tap["start"] - pad, tap["start"] + tap["duration"] + pad
    timeline.open(page, trace_id, f"w={w0},{w1}")

    header = page.locator(f'#timeline .tl-header[data-lane="{LANE}"]')
    assert header.locator(".title").inner_text() == "Points of Interest · com.example.apple-samplecode.Landmarks"
    assert "Signposts: one lane per subsystem · category, at most 12" in page.get_by_label("Legend").inner_text()
    assert timeline.lane(page, LANE)["marks"] == 1
    # What the eye sees: the signpost colour across the tap's span, and nothing of it elsewhere.
    x, y, width, height = timeline.lane_box(page, LANE)
    x0, x1 = (tap["start"] - w0) / (w1 - w0) * width, (tap["start"] + tap["duration"] - w0) / (w1 - w0) * width
    teal = timeline.colour_columns(page, LANE, "signpost")
    assert teal and min(teal) <= x0 + 3 and max(teal) >= x1 - 3, (teal[:3], teal[-3:], x0, x1)

    page.mouse.move(x + (x0 + x1) / 2, y + height / 2)
    tooltip = page.locator("#timeline-tooltip")
    tooltip.wait_for(state="visible")
    tooltip.get_by_text("12 rows updated").wait_for()
    text = tooltip.inner_text()
    for expected in ["Favorite Tap: Muir Woods", "Subsystem", "com.example.apple-samplecode.Landmarks", "PointsOfInterest", "Muir Woods", "End message"]:
        assert expected in text, (expected, text)

    page.mouse.click(x + (x0 + x1) / 2, y + height / 2)
    details = page.locator("#update-details")
    details.locator("#signpost-details-title", has_text="Favorite Tap").wait_for()
    assert "sp=" in page.url
    shot(page, "signposts-01-detail")

    details.get_by_role("button", name="Set Inspection Range", exact=True).click()
    page.wait_for_function("() => location.search.includes('r=')")
    r0, r1 = (int(v) for v in timeline.query(page)["r"].split(","))
    assert (r0, r1) == (tap["start"], tap["start"] + tap["duration"])
    # The summary is restricted to the tap: the 12 row bodies it made re-run, not the launch's updates.
    status, ranged = server_control.api(f"/api/traces/{trace_id}/summary?start={r0}&end={r1}")
    status, whole = server_control.api(f"/api/traces/{trace_id}/summary")
    assert ranged["total"]["count"] < whole["total"]["count"]
    page.locator("#detail-pane .pane-scope", has_text="Inspection range").wait_for()
    page.get_by_test_id("summary-total").get_by_text(f"{ranged['total']['count']:,} updates").wait_for()
    timeline.wait_idle(page)
    shot(page, "signposts-02-range")

    # A shared link opens with the same signpost selected and the same range.
    link = page.url
    page.goto("about:blank")
    page.goto(link)
    details.locator("#signpost-details-title", has_text="Favorite Tap").wait_for()
    assert "Muir Woods" in details.inner_text()
    assert timeline.query(page)["r"] == f"{r0},{r1}"
    assert not page.errors


def test_a_trace_without_signposts_has_no_signpost_lane(page, sample_id, timeline):
    timeline.open(page, sample_id("environment-color-scheme"))
    assert page.locator('#timeline .tl-header[data-lane^="signposts-"]').count() == 0
    assert "Signposts" not in page.get_by_label("Legend").inner_text()
