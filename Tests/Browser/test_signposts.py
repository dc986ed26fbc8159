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
    # The category names the lane; its subsystem is in the tooltip, not truncating the title.
    assert header.locator(".title").inner_text() == "Points of Interest"
    assert header.get_attribute("title") == "Points of Interest · com.example.apple-samplecode.Landmarks"
    legend = page.get_by_label("Legend").inner_text()
    assert "Signpost" in legend and "at most 12" not in legend and "subsystem" not in legend
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


PODCASTS_HEAD = """<?xml version="1.0"?>
<trace-query-result>
<node xpath='//trace-toc[1]/run[1]/data[1]/table[9]'><schema name="os-signpost-interval">\
<col><mnemonic>start</mnemonic><name>Start</name><engineering-type>start-time</engineering-type></col>\
<col><mnemonic>duration</mnemonic><name>Duration</name><engineering-type>duration</engineering-type></col>\
<col><mnemonic>name</mnemonic><name>Name</name><engineering-type>signpost-name</engineering-type></col>\
<col><mnemonic>category</mnemonic><name>Category</name><engineering-type>category</engineering-type></col>\
<col><mnemonic>subsystem</mnemonic><name>Subsystem</name><engineering-type>subsystem</engineering-type></col>\
</schema>
"""


def podcasts_export(path):
    """Another app's recording: three downloads that overlap (one group, three rows of a stack),
    then a playback on a category of its own."""
    rows = [("Download Episode 1", 1_000_000_000, 600_000_000, "Network"),
            ("Download Episode 2", 1_100_000_000, 600_000_000, "Network"),
            ("Download Episode 3", 1_200_000_000, 600_000_000, "Network"),
            ("Play Episode 1", 2_000_000_000, 500_000_000, "Audio")]
    body = "".join(
        f'<row><start-time fmt="s">{start}</start-time><duration fmt="d">{duration}</duration>'
        f'<signpost-name fmt="{name}">{name}</signpost-name><category fmt="{category}">{category}</category>'
        f'<subsystem fmt="fm.overcast.player">fm.overcast.player</subsystem></row>\n'
        for name, start, duration, category in rows)
    path.write_text(PODCASTS_HEAD + body + "</node></trace-query-result>\n")


def test_overlapping_signposts_stack_in_rows_under_one_title(page, server_control, timeline, tmp_path, shot):
    export = tmp_path / "podcasts-signposts.xml"
    podcasts_export(export)
    trace_id = server_control.upload(export)["id"]
    status, info = server_control.api(f"/api/traces/{trace_id}")
    lanes = [lane for lane in info["lanes"] if lane.get("signposts")]
    assert [(lane["title"], lane["level"], lane["count"]) for lane in lanes] == [
        ("Network · fm.overcast.player", 0, 1), ("Network · fm.overcast.player", 1, 1),
        ("Network · fm.overcast.player", 2, 1), ("Audio · fm.overcast.player", 0, 1)]

    timeline.open(page, trace_id)
    headers = page.locator('#timeline .tl-header[data-lane^="signposts-"]')
    assert headers.count() == 4
    first = headers.nth(0)
    assert first.locator(".title").inner_text() == "Network · fm.overcast.player"
    assert first.locator(".count").inner_text() == "3", "the group's count, once"
    for row in (1, 2):
        stacked = headers.nth(row)
        assert "stacked" in stacked.get_attribute("class")
        assert stacked.locator(".title").inner_text() == ""
        assert stacked.get_attribute("aria-label") == f"Network · fm.overcast.player, row {row + 1}"
    # Each download has a row of its own: one mark per row, none merged with another.
    for lane in ("signposts-0", "signposts-1", "signposts-2"):
        assert timeline.lane(page, lane) == {"marks": 1, "orange": 0, "red": 0, "merged": False}
    shot(page, "signposts-03-stacked")

    # The third row's download opens its own details.
    status, data = server_control.api(f"/api/traces/{trace_id}/timeline?width=4000&lanes=signposts-2")
    download = data["lanes"]["signposts-2"]["events"][0]
    w0, w1 = timeline.window(page)
    x, y, width, height = timeline.lane_box(page, "signposts-2")
    page.mouse.click(x + ((download["start"] + download["duration"] / 2) - w0) / (w1 - w0) * width, y + height / 2)
    page.locator("#signpost-details-title", has_text="Download Episode 3").wait_for()
    assert not page.errors
