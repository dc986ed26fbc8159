"""The long tail that tripped a new user (issue 31), each as the user meets it in Chromium against
a real `tracesvc serve`: findings grouped and filtered, subjects that open what they name, the two
severities said apart, one way to write durations, orange beside red, Main Actor marks, the
graph's card and hint, the find box, zoom crumbs, the selection announced, the size check before
an upload, the compare causes, the home page's stories."""
import re
import urllib.parse

import pytest
from playwright.sync_api import expect

from conftest import TraceServer

SCROLL = "landmarks-scroll-slow"
FAVORITES = "landmarks-favorites-slow"
ENVIRONMENT = "environment-color-scheme"
CONCURRENCY = "landmarks-concurrency-slow"


def query_of(page):
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).items()}


# ----- Findings (items 1-5) -----

def test_repeated_hitches_are_one_finding_and_the_pane_filters_by_kind_and_severity(page, server, sample_id, server_control, timeline, shot):
    trace_id = sample_id(SCROLL)
    status, body = server_control.api(f"/api/traces/{trace_id}/findings")
    hitches = [f for f in body["findings"] if f["kind"] == "hitch-explained"]
    # The lane has 12 hitches, each read "busy in LandmarkListItemView updates": one finding, all 12.
    assert len(hitches) == 1, [f["title"] for f in hitches]
    assert hitches[0]["occurrences"] == 12 and len(hitches[0]["evidence"]["intervals"]) == 12
    assert hitches[0]["worstNs"] > 0 and hitches[0]["costNs"] >= 12 * 8_000_000

    timeline.open(page, trace_id, "p=findings")
    rows = page.locator(".finding")
    expect(rows).to_have_count(len(body["findings"]))
    hitch = page.locator('.finding[data-kind="hitch-explained"]')
    expect(hitch.locator(".finding-count")).to_have_text("12×")
    expect(hitch.locator(".finding-kind")).to_have_text("Hitch")
    hitch.locator(".finding-head").click()
    expect(hitch.locator(".finding-numbers")).to_contain_text("12 occurrences cost")
    expect(hitch.locator(".finding-numbers")).to_contain_text("the worst 8.33 ms")
    expect(hitch.locator(".evidence-occurrence")).to_have_count(12)
    shot(page, "polish-findings-grouped")

    page.select_option("#finding-kind", "long-body")
    expect(rows).to_have_count(1)
    assert query_of(page)["fk"] == "long-body"
    expect(page.locator(".findings-intro")).to_contain_text("1 of ")
    page.select_option("#finding-kind", "")
    page.select_option("#finding-severity", "high")
    expect(rows).to_have_count(len([f for f in body["findings"] if f["severity"] == "high"]))
    assert query_of(page)["fs"] == "high"


def test_a_lower_bound_says_at_least_and_one_frame_is_named_once(page, server, sample_id, server_control, timeline):
    trace_id = sample_id(SCROLL)
    status, body = server_control.api(f"/api/traces/{trace_id}/findings")
    long_body = next(f for f in body["findings"] if f["kind"] == "long-body")
    assert long_body["savingIsLowerBound"] is True
    named = long_body["title"].split("mostly in ")[1].split(", ")
    assert len(named) == len(set(named)), long_body["title"]
    timeline.open(page, trace_id, f"p=findings&fd={urllib.parse.quote(long_body['id'])}")
    expect(page.locator(".finding.open .finding-numbers")).to_contain_text("the fix would save at least")


def test_subject_chips_open_what_they_name_and_the_others_read_as_text(page, server, sample_id, server_control, timeline):
    trace_id = sample_id(SCROLL)
    status, body = server_control.api(f"/api/traces/{trace_id}/findings")
    long_body = next(f for f in body["findings"] if f["kind"] == "long-body")
    timeline.open(page, trace_id, f"p=findings&fd={urllib.parse.quote(long_body['id'])}")
    chips = page.locator(".finding.open .finding-subjects")
    # No chip looks like a button without doing anything: each is a link, or plain text.
    assert chips.locator(".subject:not(a)").evaluate_all("els => els.every(e => getComputedStyle(e).borderStyle === 'none')")
    chips.locator("a.subject-view", has_text="LandmarkListItemView").click()
    expect(page.locator("#pane-tab-updates")).to_have_attribute("aria-selected", "true")
    assert query_of(page)["pv"] == "Landmarks:LandmarkListItemView"
    page.go_back()
    page.locator(".finding.open a.subject-frame", has_text="NumberFormatter.init()").click()
    expect(page.locator("#pane-tab-cpu")).to_have_attribute("aria-selected", "true")
    # The merged CPU of the view's long bodies, searched for the frame (issue 41), not one update's range.
    query = query_of(page)
    assert (query["q"], query["c"], query["pv"], query["f"]) == ("NumberFormatter.init()", "view", "Landmarks:LandmarkListItemView", "long-view-body")
    assert "r" not in query


def test_the_two_severities_of_an_update_say_where_each_comes_from(page, server, sample_id, timeline):
    timeline.open(page, sample_id(ENVIRONMENT), path_suffix="/updates/5")
    details = page.locator("#update-details")
    expect(details).to_contain_text("by Apple's thresholds")
    expect(details.locator("dt", has_text="Recorded severity")).to_be_visible()
    expect(details).to_contain_text("the recording’s own rating (not Apple’s thresholds)")
    assert "Reported severity" not in details.inner_text()


def test_the_rarely_changing_appearance_is_low_and_its_title_does_not_contradict_itself(server_control, sample_id):
    status, body = server_control.api(f"/api/traces/{sample_id(ENVIRONMENT)}/findings")
    churn = next(f for f in body["findings"] if f["kind"] == "environment-churn")
    assert churn["severity"] == "low"
    assert churn["title"].startswith("2 changes of colorScheme") and "notified 4 view bodies" in churn["title"], churn["title"]
    assert "timers" not in churn["fix"] and "changed twice" in churn["fix"]


# ----- Units (item 6) -----

def test_durations_read_in_one_style_microseconds_included(page, server, sample_id, timeline):
    timeline.open(page, sample_id(SCROLL), "p=summary")
    page.get_by_test_id("summary-total").wait_for()
    text = page.locator("body").inner_text()
    assert not re.search(r"\d us\b", text), re.findall(r".{20}\d us\b", text)[:3]
    assert re.search(r"\d µs\b", text)
    assert "500 µs" in page.get_by_label("Legend").inner_text()


# ----- Timeline (items 7, 10, 11, 15, 16, 17) -----

def test_a_merged_red_mark_shows_the_orange_it_holds(page, sample_id, timeline, shot):
    timeline.open(page, sample_id(SCROLL))
    header = page.locator('#timeline .tl-header[data-lane="long-view-body"]')
    assert int(header.get_attribute("data-also-orange")) > 0, header.get_attribute("aria-description")
    # What the eye sees: orange along the foot of the lane (the red marks' strip), not only red.
    orange = page.evaluate("""() => {
        const canvas = document.querySelector('#timeline-canvas');
        const header = document.querySelector('#timeline .tl-header[data-lane="long-view-body"]');
        const dpr = canvas.width / canvas.getBoundingClientRect().width;
        const top = header.getBoundingClientRect().top - canvas.getBoundingClientRect().top;
        const y = Math.round((top + header.getBoundingClientRect().height - 6) * dpr);
        const probe = document.createElement('canvas').getContext('2d');
        probe.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--orange').trim();
        probe.fillRect(0, 0, 1, 1);
        const want = probe.getImageData(0, 0, 1, 1).data;
        const row = canvas.getContext('2d').getImageData(0, y, canvas.width, 1).data;
        let n = 0;
        for (let x = 0; x < canvas.width; x++) if (Math.abs(row[4 * x] - want[0]) < 10 && Math.abs(row[4 * x + 1] - want[1]) < 10 && Math.abs(row[4 * x + 2] - want[2]) < 10) n++;
        return n;
    }""")
    assert orange > 0
    shot(page, "polish-orange-beside-red")


def test_main_actor_marks_keep_a_long_run_apart_outline_the_choice_and_break_names_between_words(new_context, sample_id, timeline, server_control, shot):
    page = new_context(width=1000, height=900).new_page()
    trace_id = sample_id(CONCURRENCY)
    timeline.open(page, trace_id, "w=900000000,1150000000")
    status, data = server_control.api(f"/api/traces/{trace_id}/timeline?start=900000000&end=1150000000&width=800&lanes=main-actor")
    long = [e for e in data["lanes"]["main-actor"]["events"] if e["duration"] >= 120_000_000]
    assert len(long) == 1 and long[0]["count"] == 1 and long[0]["label"] == "LandmarkImageLoader.loadImages(for:)", data
    x, y, width, height = timeline.lane_box(page, "main-actor")
    page.mouse.click(x + (long[0]["start"] + 60_000_000 - 900_000_000) / 250_000_000 * width, y + height / 2)
    page.locator("#task-details-title").wait_for()
    expect(page.locator("#timeline-canvas")).to_have_attribute("data-outlined", re.compile(r"^main-actor@"))
    # A function name wraps between its parts, never inside a word.
    broken = page.evaluate("""() => {
        const dd = [...document.querySelectorAll('#task-details-fields dt')].find(d => d.textContent === 'Resume function').nextElementSibling;
        return [...dd.childNodes].filter(n => n.nodeType === 3).some(n => { const r = document.createRange(); r.selectNodeContents(n); return r.getClientRects().length > 1; });
    }""")
    assert not broken
    shot(page, "polish-main-actor-1000")


def test_set_range_and_zoom_on_a_signpost_leaves_context_around_it(page, sample_id, timeline, server_control):
    trace_id = sample_id(FAVORITES)
    status, data = server_control.api(f"/api/traces/{trace_id}/timeline?width=4000&lanes=signposts-0")
    tap = next(e for e in data["lanes"]["signposts-0"]["events"] if e.get("label", "").startswith("Favorite Tap"))
    timeline.open(page, trace_id, f"sp={tap['signpost']}")
    page.locator("#signpost-details-title").wait_for()
    page.get_by_role("button", name="Set Inspection Range and Zoom").click()
    page.wait_for_function("() => location.search.includes('r=')")
    w0, w1 = (int(v) for v in query_of(page)["w"].split(","))
    r0, r1 = (int(v) for v in query_of(page)["r"].split(","))
    assert w0 < r0 and w1 > r1, (w0, w1, r0, r1)


def test_the_selected_update_is_announced_when_stepped_to_with_the_keyboard(page, sample_id, timeline):
    timeline.open(page, sample_id(SCROLL))
    page.locator("#timeline-canvas").focus()
    page.keyboard.press("]")
    announcement = page.locator("#selection-announcement")
    expect(announcement).to_have_text(re.compile(r"^Update \d+ selected: LandmarkList"))
    assert announcement.get_attribute("aria-live") == "polite"


def test_find_lights_matches_counts_them_steps_with_brackets_and_keeps_the_query_in_the_url(page, sample_id, timeline, server_control, shot):
    trace_id = sample_id(FAVORITES)
    timeline.open(page, trace_id, "x=swiftui")
    page.locator("#timeline-find").fill("LandmarkListItemView")
    count = page.locator("#timeline-find-count")
    expect(count).to_have_text(re.compile(r"^\d+ matches"))
    total = int(count.inner_text().split()[0])
    status, answer = server_control.api(f"/api/traces/{trace_id}/search?q=LandmarkListItemView")
    assert answer["count"] == total and answer["updates"] == total
    assert query_of(page)["tf"] == "LandmarkListItemView"
    timeline.wait_idle(page)
    assert int(page.locator('#timeline .tl-header[data-lane="view-body"]').get_attribute("data-matches")) > 0
    shot(page, "polish-find")
    page.locator("#timeline-canvas").focus()
    page.keyboard.press("]")
    expect(count).to_have_text(f"1 of {total}")
    page.keyboard.press("]")
    expect(count).to_have_text(f"2 of {total}")
    first = page.url
    page.keyboard.press("[")
    expect(count).to_have_text(f"1 of {total}")
    assert "/updates/" in first
    # The query comes back with the link.
    page.goto(page.url)
    expect(page.locator("#timeline-find")).to_have_value("LandmarkListItemView")


@pytest.mark.parametrize("width", [1440, 1000, 800])
def test_the_find_box_shows_its_whole_hint(new_context, sample_id, timeline, width):
    """The placeholder says what the box takes ("> 2 ms" included): it is never cut off."""
    page = new_context(width=width, height=800).new_page()
    timeline.open(page, sample_id(SCROLL))
    room = page.locator("#timeline-find").evaluate("""input => {
        const style = getComputedStyle(input);
        const context = document.createElement('canvas').getContext('2d');
        context.font = style.font;
        return [context.measureText(input.placeholder).width,
                input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)];
    }""")
    assert room[0] <= room[1], room


def test_the_collapsed_swiftui_row_shows_its_matches_without_its_note_over_them(page, sample_id, timeline):
    timeline.open(page, sample_id(SCROLL))
    timeline.wait_idle(page)
    note = timeline.colour_columns(page, "swiftui", "muted")
    assert len(note) > 10, "the note says how to expand the row"
    page.locator("#timeline-find").fill("LandmarkListItemView")
    expect(page.locator("#timeline-find-count")).to_have_text(re.compile(r"^\d+ matches"))
    timeline.wait_idle(page)
    assert timeline.colour_columns(page, "swiftui", "match"), "the matches are lit on the collapsed row"
    assert len(timeline.colour_columns(page, "swiftui", "muted")) < 3, "no note text under them"


def test_zoom_crumbs_go_back_to_a_committed_zoom_in_one_click(page, sample_id, timeline):
    trace_id = sample_id(SCROLL)
    timeline.open(page, trace_id)
    crumbs = page.locator("#zoom-crumbs")
    expect(crumbs).to_be_hidden()
    page.goto(page.url.split("?")[0] + "?w=1000000000,2000000000")
    timeline.wait_idle(page)
    page.locator("#timeline-canvas").focus()
    page.keyboard.down("w")
    page.wait_for_timeout(400)
    page.keyboard.up("w")
    expect(crumbs.locator("li")).to_have_count(3, timeout=5000)
    expect(crumbs.locator("[aria-current]")).to_have_text(re.compile(r"ms$"))
    crumbs.locator("button").nth(1).click()
    page.wait_for_function("() => location.search.includes('w=1000000000,2000000000')")
    crumbs.locator("button").first.click()
    page.wait_for_function("() => !location.search.includes('w=1000000000')")
    expect(crumbs.locator("li")).to_have_count(3)


def test_lane_titles_show_the_category_with_the_subsystem_in_the_tooltip(page, sample_id, timeline):
    timeline.open(page, sample_id(SCROLL))
    legend = page.get_by_label("Legend").inner_text()
    assert "at most 12" not in legend and "subsystem" not in legend
    header = page.locator('#timeline .tl-header[data-lane="signposts-1"]')
    expect(header.locator(".title")).to_have_text("Images")
    assert "com.example.apple-samplecode.Landmarks" in header.get_attribute("title")


# ----- Graph (items 8, 9, 10) -----

def test_the_node_card_never_hides_the_selected_nodes_neighbours(page, sample_id, timeline, shot):
    trace_id = sample_id(ENVIRONMENT)
    timeline.open(page, trace_id, path_suffix="/updates/4", query="p=graph&g=u4")
    node = page.locator('.cg-node[data-kind="environment-writer"]').last
    node.click()
    page.locator(".cg-info").wait_for()
    page.wait_for_timeout(300)
    stage = page.locator(".cg-stage").bounding_box()
    selected = page.locator(".cg-node.cg-selected").get_attribute("data-id")
    near = page.evaluate("""(id) => [...document.querySelectorAll('.cg-edge')]
        .flatMap(e => e.dataset.from === id ? [e.dataset.to] : e.dataset.to === id ? [e.dataset.from] : [])""", selected)
    assert len(near) >= 2
    for node_id in [selected, *near]:
        box = page.locator(f'.cg-node[data-id="{node_id}"]').bounding_box()
        inside = stage["x"] - 1 <= box["x"] and box["x"] + box["width"] <= stage["x"] + stage["width"] + 1 \
            and stage["y"] - 1 <= box["y"] and box["y"] + box["height"] <= stage["y"] + stage["height"] + 1
        assert inside, (node_id, box, stage)
    shot(page, "polish-graph-card")


@pytest.mark.parametrize("width", [1000, 800])
def test_the_graph_hint_never_covers_a_node(new_context, sample_id, server_control, timeline, width, shot):
    # The fan-out graph is as tall as its pane: its last row sits at the pane's foot.
    trace_id = sample_id(FAVORITES)
    status, body = server_control.api(f"/api/traces/{trace_id}/findings")
    update = next(f for f in body["findings"] if f["kind"] == "collection-fan-out")["evidence"]["representativeUpdate"]
    page = new_context(width=width, height=800).new_page()
    timeline.open(page, trace_id, path_suffix=f"/updates/{update}", query=f"p=graph&g=u{update}")
    page.locator(".cg-node").first.wait_for()
    page.wait_for_timeout(300)
    hint = page.locator(".cg-stage-hint").bounding_box()
    for node in page.locator(".cg-node").all():
        box = node.bounding_box()
        assert box["y"] + box["height"] <= hint["y"] or box["y"] >= hint["y"] + hint["height"], (box, hint)
    shot(page, f"polish-graph-hint-{width}")


def test_the_focal_nodes_name_is_never_cut(new_context, server_control, generated_trace, timeline):
    # A synthetic app whose box for "CommentRow21" was sized too small for its bold title.
    trace = server_control.upload(generated_trace("polish-synthetic", updates=3000, seed=7))
    page = new_context(width=800, height=800).new_page()
    timeline.open(page, trace["id"], path_suffix="/updates/296", query="p=graph&g=u296")
    focal = page.locator(".cg-node.cg-focus .cg-title").first
    focal.wait_for()
    assert focal.evaluate("t => [...t.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('')") == "CommentRow21"
    # Narrowed to its box rather than cut.
    assert float(focal.get_attribute("textLength") or 0) > 0


# ----- Upload (item 12) -----

def test_a_file_over_the_limit_is_refused_before_it_is_sent(new_context, tmp_path):
    data_dir = tmp_path / "small"
    data_dir.mkdir()
    small = TraceServer(data_dir, extra_args=["--max-upload-mb", "1"])
    small.start()
    try:
        page = new_context().new_page()
        posts = []
        page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
        page.goto(small.url + "/")
        page.locator("#trace-list table, #trace-list p").first.wait_for()
        page.locator("#upload-input").set_input_files(files=[{"name": "big.json", "mimeType": "application/json", "buffer": b"{" + b" " * (2 << 20)}])
        status = page.locator("#upload-status")
        expect(status).to_have_attribute("data-state", "too-large")
        expect(status).to_contain_text("big.json is too large to upload")
        expect(status).to_contain_text("1.0 MB")
        assert "Could not read" not in status.inner_text()
        assert posts == []
    finally:
        small.stop()


def test_a_tarred_trace_bundle_gets_the_export_advice(page, server, tmp_path):
    import io
    import tarfile
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name in ["Harbor Run.trace/form.template", "Harbor Run.trace/instrument_data/run1.bin"]:
            info = tarfile.TarInfo(name)
            info.size = 4
            tar.addfile(info, io.BytesIO(b"data"))
    page.goto(server + "/")
    page.locator("#trace-list table").wait_for()
    page.locator("#upload-input").set_input_files(files=[{"name": "Harbor Run.trace.tar", "mimeType": "application/x-tar", "buffer": buffer.getvalue()}])
    status = page.locator("#upload-status")
    expect(status).to_have_attribute("data-state", "error")
    expect(status).to_contain_text("Instruments recording (Harbor Run.trace, in a tar archive)")
    expect(status).to_contain_text("scripts/export-instruments-trace.sh")


# ----- Compare and home (items 18, 19) -----

def test_the_compare_causes_name_a_property_once(page, server, sample_id):
    page.goto(f"{server}/compare/{sample_id(FAVORITES)}/{sample_id('landmarks-favorites-fixed')}")
    table = page.locator("#compare-causes")
    table.wait_for()
    expect(table).to_contain_text("@Observable LandmarkViewModel.isFavorite → LandmarkListItemView.body")
    assert "LandmarkViewModel.LandmarkViewModel" not in table.inner_text()
    assert not re.search(r"\.(\w+) \(\1\)", table.inner_text()), "a property named twice"


def test_each_sample_on_the_home_page_has_a_one_line_story(page, server, server_control):
    status, body = server_control.api("/api/traces")
    for trace in body["traces"]:
        if not trace["isSample"]:
            continue
        # Found by name: the list draws only the rows in view, and other tests' uploads come first.
        page.goto(f'{server}/?q={trace["name"]}')
        page.locator("#trace-list table").wait_for()
        story = page.locator(f'tr[data-trace-id="{trace["id"]}"] .sample-story')
        expect(story).to_be_visible()
        text = story.inner_text()
        assert 20 < len(text) < 140 and re.search(r"open|click|compare", text, re.I), text


@pytest.mark.parametrize("width", (1440, 800))
def test_a_samples_story_sits_under_its_name_apart_from_the_tags(new_context, server, server_control, width):
    """Issue 41, item 6: the story filled the Tags column, read as a tag. It sits under the name,
    the tags column stays the tags', the row keeps the list's one height and the story stops
    before the next column; hovering the name gives it whole."""
    page = new_context(width=width, height=900).new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    status, body = server_control.api("/api/traces?q=environment-color-scheme")
    sample = next(t for t in body["traces"] if t["isSample"])
    page.goto(f"{server}/?q=environment")
    row = page.locator(f'tr[data-trace-id="{sample["id"]}"]')
    story = row.locator("td.name .sample-story")
    expect(story).to_be_visible(timeout=30_000)
    expect(row.locator("td.tags")).to_have_text("")
    assert row.locator("td.tags .sample-story").count() == 0
    name = row.locator("td.name")
    expect(name).to_have_attribute("title", re.compile(r"^environment-color-scheme: Dark mode switch: .*Cause & Effect"))
    measured = row.evaluate("""(tr) => {
        const story = tr.querySelector('.sample-story').getBoundingClientRect();
        const link = tr.querySelector('td.name a').getBoundingClientRect();
        const next = [...tr.children].slice(3).find((td) => td.getBoundingClientRect().width > 0).getBoundingClientRect();
        return { height: tr.getBoundingClientRect().height, storyTop: story.top, linkBottom: link.bottom, storyRight: story.right, nextLeft: next.left };
    }""")
    assert measured["height"] <= 39, measured  # ROW_HEIGHT (trace-list.js): the virtual list's rows are all as high
    assert measured["storyTop"] >= measured["linkBottom"] - 1, measured  # its own line, under the name
    assert measured["storyRight"] <= measured["nextLeft"], measured
    assert not errors


def test_a_sample_header_offers_no_tag_editing_and_prints_no_stray_text(page, server, sample_id, server_control, timeline):
    # A sample is read-only (the server refuses its tags): its header said "null Add tags".
    trace_id = sample_id(SCROLL)
    status, body = server_control.api(f"/api/traces/{trace_id}")
    assert status == 200 and body["isSample"] is True and body["tags"] == []
    timeline.open(page, trace_id)
    expect(page.locator("#header-trace h1")).to_have_text(SCROLL)
    expect(page.locator("#edit-tags")).to_have_count(0)
    assert "null" not in page.locator("#trace-tags").inner_text()
    assert "null" not in page.locator("header").first.inner_text()


def test_the_trace_lists_numbers_and_headers_are_never_cut(page, server):
    # At 800 px the list printed "3.…" for a duration and "DURATI" for its header.
    page.goto(server + "/")
    expect(page.locator("table.traces tbody tr[data-trace-id]").first).to_be_visible(timeout=30_000)
    for width in [800, 1000, 1440]:
        page.set_viewport_size({"width": width, "height": 700})
        page.wait_for_timeout(100)
        cut = page.evaluate("""() => [...document.querySelectorAll('table.traces td.num, table.traces th, table.traces td:last-child')]
            .filter((cell) => cell.offsetParent !== null && cell.scrollWidth > cell.clientWidth + 1)
            .map((cell) => cell.textContent)""")
        assert cut == [], f"cut at {width} px: {cut}"
