"""History (issue 29): tags on uploads, the list filtered from its URL, the history chart naming the
first bad build, and notes on the evidence. A server of its own, so its thirty uploads stay out of
the other tests' list."""
import json
import re
import shutil
import subprocess
import tempfile
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import TraceServer, tracesvc_bin


def recipes_trace(build, body_ns, bodies=12, view="RecipeRowView"):
    """A native trace of a recipes app: RecipeRowView bodies of about `body_ns` each (as the Swift
    tests' recipesTrace), and one HeaderView body; `build` makes every file different."""
    rows = []
    for i in range(bodies):
        jitter = ((build * 7919 + i * 104_729) % 41) * 1_000
        rows.append([1_000_000 + i * 2_000_000 + build, body_ns + jitter, "view-body", "Recipes", view, "", "", 0, 0, 0, "none"])
    rows.append([40_000_000 + build, 20_000, "view-body", "Recipes", "HeaderView", "", "", 0, 0, 0, "none"])
    end = 60_000_000
    return json.dumps({
        "format": "tracesvc-trace", "version": 1,
        "metadata": {"app": "Recipes", "device": "iPad Pro", "osVersion": "18.0", "refreshRate": 120, "recordedAt": None,
                     "start": 0, "end": end, "importNotes": []},
        "processes": [[42, "Recipes"]], "threads": [[7, "Main Thread", 0, True]],
        "updateGroups": [[900_000, end - 1_000_000, "Transaction", 0]],
        "updates": rows, "nodes": [], "edges": [], "frames": [], "stacks": [], "samples": [],
    }).encode()


@pytest.fixture(scope="module")
def history_server():
    data_dir = Path(tempfile.mkdtemp(prefix="tracesvc-history-"))
    server = TraceServer(data_dir)
    server.start()
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def upload(server, body, name, tags=()):
    query = "&".join([f"name={urllib.request.quote(name)}"] + [f"tag={urllib.request.quote(tag, safe=':/')}" for tag in tags])
    status, answer = server.api(f"/api/traces?{query}", "POST", body, {"Content-Type": "application/octet-stream"})
    assert status in (200, 201), answer
    return answer["trace"]


@pytest.fixture(scope="module")
def builds(history_server):
    """30 builds of the scroll scenario on main: RecipeRowView's bodies take 300 µs up to build 19
    and 1.5 ms from build 20. Returns {build: trace id}."""
    ids = {}
    for build in range(1, 31):
        body = recipes_trace(build, 300_000 if build < 20 else 1_500_000)
        ids[build] = upload(history_server, body, f"scroll-{build}.json",
                            ["scenario:scroll", "branch:main", f"build:{build}", f"commit:c{build:04d}"])["id"]
    return ids


def test_the_history_names_build_20_first_bad_and_opens_the_comparison_of_19_and_20(page, history_server, builds, shot):
    page.goto(f"{history_server.url}/history?tag=scenario:scroll&tag=branch:main&view=RecipeRowView")
    first_bad = page.locator("#first-bad")
    expect(first_bad).to_contain_text("First bad build: 20", timeout=30_000)
    expect(first_bad).to_contain_text("first seen in commit c0020")
    expect(page.locator("svg.history-chart circle.hc-point")).to_have_count(30)
    expect(page.locator('svg.history-chart .hc-change[data-index="19"]')).to_have_count(1)
    expect(page.locator("#history-summary")).to_contain_text("30 traces in 30 builds · total body time of RecipeRowView")
    # The finding that came with the step: first seen in build 20, still present.
    row = page.locator('#finding-history tr[data-finding="long-body:Recipes.RecipeRowView"]')
    expect(row).to_contain_text("build 20")
    expect(row).to_contain_text("still present")
    # Hovering a point says its build and value.
    point = page.locator(f'circle.hc-point[data-trace-id="{builds[20]}"]')
    point.hover()
    tooltip = page.locator(".history-tooltip")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text("Build 20")
    expect(tooltip).to_contain_text("ms")
    shot(page, "history-01-first-bad")

    # The banner's comparison pools the builds before the step against those after (issue 40): 5 and 5.
    expect(page.locator("#first-bad-compare")).to_contain_text("Compare 5 recordings before → 5 after")
    page.locator("#first-bad-compare").click()
    before, after = ",".join(builds[b] for b in range(15, 20)), ",".join(builds[b] for b in range(20, 25))
    page.wait_for_url(re.compile(rf"/compare\?.*a={before}&b={after}"))

    # Back on the chart: a click opens a trace; shift-clicking two points compares them, the older as A.
    page.go_back()
    expect(first_bad).to_contain_text("First bad build: 20", timeout=30_000)
    page.locator(f'circle.hc-point[data-trace-id="{builds[20]}"]').click(modifiers=["Shift"])
    expect(page.locator("#history-picked")).to_contain_text("One point picked")
    page.locator(f'circle.hc-point[data-trace-id="{builds[19]}"]').click(modifiers=["Shift"])
    page.wait_for_url(re.compile(rf"/compare/{builds[19]}/{builds[20]}\?"))
    page.go_back()
    page.locator(f'circle.hc-point[data-trace-id="{builds[3]}"]').click()
    page.wait_for_url(re.compile(rf"/traces/{builds[3]}\?"))
    expect(page.locator("#header-trace h1")).to_have_text("scroll-3")
    assert not page.errors


def test_the_chart_draws_the_noise_band_and_each_steps_strength_and_no_step_on_an_unchanged_series(page, history_server, builds, shot):
    # The real step (300 µs -> 1.5 ms at build 20): a band before and one after it, and the step's
    # ratio and p over the series on the chart, bold (strong) and in the list below.
    page.goto(f"{history_server.url}/history?tag=scenario:scroll&tag=branch:main&view=RecipeRowView")
    expect(page.locator("#first-bad")).to_contain_text("First bad build: 20", timeout=30_000)
    bands = page.locator("svg.history-chart g.hc-band")
    expect(bands).to_have_count(2)
    expect(bands.nth(0)).to_have_attribute("data-to", "18")
    expect(bands.nth(1)).to_have_attribute("data-from", "19")
    for band in (bands.nth(0), bands.nth(1)):
        box = band.locator("rect").bounding_box()
        assert box and box["width"] > 100 and box["height"] > 2, box
    # The band after the step sits above the band before it.
    assert bands.nth(1).locator("rect").bounding_box()["y"] < bands.nth(0).locator("rect").bounding_box()["y"]
    change = page.locator('svg.history-chart .hc-change[data-index="19"]')
    expect(change.locator("text")).to_have_text(re.compile(r"^▲ 20 · [45]\.\d\dx, p<0\.001$"))
    assert float(change.get_attribute("opacity")) > 0.9, "a 5x step far past the threshold is drawn at full strength"
    expect(page.locator('#change-points li[data-index="19"]')).to_contain_text("x, p<0.001")
    legend = page.locator("#history-legend")
    expect(legend).to_contain_text("noise band")
    expect(legend).to_contain_text("change point")
    shot(page, "history-04-noise-band")

    # An unchanged series with run-to-run noise (each recording's bodies scaled by up to ±12 %):
    # one band, no change point, and a sentence that says what it could have told.
    factors = [1.00, 1.09, 0.93, 1.04, 0.90, 1.12, 0.97, 1.06, 0.95, 1.02, 0.91, 1.08]
    for build, factor in enumerate(factors, start=1):
        upload(history_server, recipes_trace(build + 500, int(300_000 * factor)), f"steady-{build}.json",
               ["scenario:steady", "branch:release", f"build:{build}"])
    page.goto(f"{history_server.url}/history?tag=scenario:steady&view=RecipeRowView")
    expect(page.locator("svg.history-chart circle.hc-point")).to_have_count(12, timeout=30_000)
    expect(page.locator("svg.history-chart g.hc-band")).to_have_count(1)
    expect(page.locator("svg.history-chart .hc-change")).to_have_count(0)
    expect(page.locator("#first-bad .first-bad")).to_have_count(0)
    expect(page.locator("#no-regression")).to_contain_text("No step beyond run-to-run noise in 12 builds")
    expect(page.locator("#history-legend")).to_contain_text("from the series' own recordings")

    # Comparing two builds one recording a side: the page says its noise came from the 18 builds uploaded before them.
    page.goto(f"{history_server.url}/compare/{builds[19]}/{builds[20]}")
    expect(page.locator("#compare-noise")).to_contain_text(
        "noise from 18 earlier recordings tagged branch=main, scenario=scroll", timeout=30_000)
    assert not page.errors


def test_a_metric_without_a_step_names_no_bad_build(page, history_server, builds):
    page.goto(f"{history_server.url}/history?tag=scenario:scroll&view=RecipeRowView&metric=body-count")
    expect(page.locator("#no-regression")).to_be_visible(timeout=30_000)
    expect(page.locator("#first-bad .first-bad")).to_have_count(0)
    expect(page.locator("#history-metric")).to_have_value("body-count")
    assert not page.errors


def test_tag_an_upload_then_filter_the_list_from_a_url_in_a_fresh_context(page, history_server, builds, new_context, tmp_path, shot):
    recording = tmp_path / "tagged-in-browser.json"
    recording.write_bytes(recipes_trace(777, 250_000))
    page.goto(history_server.url)
    page.set_input_files("#upload-input", str(recording))
    page.wait_for_url("**/traces/**", timeout=60_000)
    expect(page.locator("#header-trace h1")).to_have_text("tagged-in-browser")
    page.locator("#edit-tags").click()
    page.locator("#tags-input").fill("branch=feature/tags-ui scenario:checkout nightly")
    page.get_by_role("button", name="Save tags").click()
    tags = page.locator("#trace-tags .tag-chip")
    expect(tags).to_have_text(["branch:feature/tags-ui", "nightly", "scenario:checkout"])
    shot(page, "history-02-tagged")

    # A colleague opens the filtered list from its link: only that trace, with its tags.
    colleague = new_context().new_page()
    colleague.errors = []
    colleague.on("pageerror", lambda error: colleague.errors.append(str(error)))
    colleague.goto(f"{history_server.url}/?tag=branch:feature/tags-ui&q=checkout")
    expect(colleague.locator("#trace-count")).to_have_text("1 trace", timeout=30_000)
    rows = colleague.locator("table.traces tbody tr[data-trace-id]")
    expect(rows).to_have_count(1)
    expect(rows.first.locator("td.name")).to_have_text("tagged-in-browser")
    expect(rows.first.locator("td.tags")).to_contain_text("nightly")
    expect(colleague.locator(".tag-filter .tag-chip-active bdi")).to_have_text(["branch:feature/tags-ui"])
    expect(colleague.locator("#list-search")).to_have_value("checkout")

    # Filters in the page write the URL: a tag clicked in a row, then sorted by name.
    colleague.goto(f"{history_server.url}/?tag=scenario:scroll")
    expect(colleague.locator("#trace-count")).to_have_text("30 traces", timeout=30_000)
    colleague.locator("#list-sort").select_option("name")
    colleague.wait_for_url(re.compile(r"sort=name"))
    expect(colleague.locator("table.traces tbody tr[data-trace-id] td.name").first).to_have_text("scroll-1")
    colleague.locator("table.traces tbody tr[data-trace-id]").first.locator(".tag-chip", has_text="build:1").click()
    colleague.wait_for_url(re.compile(r"tag=scenario:scroll&tag=build:1&sort=name"))
    expect(colleague.locator("#trace-count")).to_have_text("1 trace")
    assert not colleague.errors and not page.errors


def test_the_list_draws_only_the_rows_in_sight_and_pages_as_it_scrolls(page, history_server, builds):
    page.set_viewport_size({"width": 1280, "height": 600})
    page.goto(f"{history_server.url}/?tag=branch:main")
    expect(page.locator("#trace-count")).to_have_text("30 traces", timeout=30_000)
    table = page.locator("table.traces")
    expect(table).to_have_attribute("aria-rowcount", "31")
    drawn = page.locator("table.traces tbody tr").count()
    assert drawn < 30, f"{drawn} rows drawn for a scroller showing about 8"
    page.locator(".trace-list-scroller").evaluate("(node) => { node.scrollTop = node.scrollHeight; }")
    expect(page.locator(f'tr[data-trace-id="{builds[1]}"]')).to_be_visible()
    assert not page.errors


def test_a_note_on_an_update_survives_a_reload_and_shows_for_a_second_user(page, history_server, builds, new_context, shot):
    trace = builds[21]
    page.goto(f"{history_server.url}/traces/{trace}/updates/3?v=2&p=notes")
    form = page.locator("#note-form")
    expect(form).to_contain_text("update 3", timeout=30_000)
    text = 'fixed in #1234: cached the formatter <img src=x onerror="window.__pwned=1">'
    page.locator("#note-text-input").fill(text)
    page.locator("#note-save").click()
    expect(page.locator("#note-text")).to_have_text(text)
    page.wait_for_url(re.compile(r"nt=[0-9a-f]{16}"))
    note_id = re.search(r"nt=([0-9a-f]{16})", page.url).group(1)
    expect(page.locator("#timeline-canvas")).to_have_attribute("data-notes", "1")
    shot(page, "history-03-note")

    page.reload()
    expect(page.locator("#note-text")).to_have_text(text, timeout=30_000)
    expect(page.locator(f'#note-list li[data-note-id="{note_id}"]')).to_contain_text("update 3")

    # A second user, with nothing of the first's browser: the link opens the note.
    colleague = new_context().new_page()
    colleague.errors = []
    colleague.on("pageerror", lambda error: colleague.errors.append(str(error)))
    colleague.goto(f"{history_server.url}/traces/{trace}?v=2&nt={note_id}")
    expect(colleague.locator("#note-text")).to_have_text(text, timeout=30_000)
    expect(colleague.locator("#note-details-fields")).to_contain_text("update 3")
    expect(colleague.locator("#timeline-canvas")).to_have_attribute("data-notes", "1")
    assert colleague.locator("#note-text img").count() == 0
    assert colleague.evaluate("() => window.__pwned") is None
    # Its button selects the update the note is about.
    colleague.locator("#note-show-target").click()
    colleague.wait_for_url(re.compile(rf"/traces/{trace}/updates/3\?"))
    assert not colleague.errors and not page.errors


def test_an_empty_history_names_the_tag_that_matched_nothing_and_never_prints_null(page, server):
    # Issue 41: /history?tag=scenario:nothing printed a literal "null" under the summary.
    page.goto(f'{server}/history?tag=scenario:nothing')
    expect(page.locator('#history-summary')).to_have_text('No trace has the tag “scenario:nothing”.', timeout=30_000)
    assert 'null' not in page.locator('main').inner_text()
    expect(page.locator('#first-bad')).to_be_empty()


def test_compare_the_builds_before_with_the_builds_after_a_chosen_build(page, history_server, builds):
    """Issue 41, item 4: from the history, the builds before a build the reader picks against that
    build and the ones after, pooled; the compare page says how many recordings a side."""
    page.goto(f"{history_server.url}/history?tag=scenario:scroll&tag=branch:main&view=RecipeRowView&metric=body-count")
    split = page.locator("#history-split-build")
    # Without a step, the split starts at the latest build: the 5 before it against it alone.
    expect(split).to_have_value("29", timeout=30_000)
    link = page.locator("#history-split-compare")
    expect(link).to_have_text("Compare 5 recordings (builds 25–29) → 1 recording (build 30)")
    split.select_option(label="build 10")
    expect(link).to_have_text("Compare 5 recordings (builds 5–9) → 5 recordings (builds 10–14)")
    link.click()
    before, after = ",".join(builds[b] for b in range(5, 10)), ",".join(builds[b] for b in range(10, 15))
    page.wait_for_url(re.compile(rf"/compare\?.*a={before}&b={after}"))
    expect(page.locator('.compare-card[data-side="A"] .compare-side')).to_have_text("A · before · 5 recordings pooled", timeout=30_000)
    expect(page.locator('.compare-card[data-side="B"] .compare-side')).to_have_text("B · after · 5 recordings pooled")
    assert not page.errors


@pytest.mark.parametrize("width", (1440, 1000, 800))
def test_the_history_page_does_not_scroll_sideways(page, history_server, builds, width):
    """Issue 41, item 6: the findings-over-builds table overflowed to 1,929 px."""
    # A view of a generic type: its name is one long word (SwiftUI's are often hundreds of characters).
    wide = "ModifiedContent<_ConditionalContent<RecipeRowView,EmptyView>,_EnvironmentKeyWritingModifier<Optional<RecipeStore>>>" * 2
    for build in (1, 2, 3):
        upload(history_server, recipes_trace(100 + build, 1_500_000, view=wide), f"wide-{build}.json", ["scenario:wide", f"build:{build}"])
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{history_server.url}/history?tag=scenario:wide")
    page.locator("#finding-history table").wait_for(timeout=30_000)
    measured = page.evaluate("""() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
        wide: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 || e.scrollWidth > window.innerWidth)
          .slice(0, 6).map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`.slice(0, 60)) })""")
    assert measured["scrollWidth"] <= measured["innerWidth"], measured
    assert not page.errors


def test_the_list_shows_every_tag_of_a_row_on_hover(page, history_server, builds):
    """Issue 41, item 6: a row shows the tags that fit on its line; hovering its tags names them all."""
    page.goto(f"{history_server.url}/?tag=build:7")
    row = page.locator(f'tr[data-trace-id="{builds[7]}"] td.tags')
    expect(row).to_have_attribute("title", "Tags: branch:main, build:7, commit:c0007, scenario:scroll", timeout=30_000)
    assert not page.errors


def test_findings_over_the_builds_read_as_names_and_a_builds_hitches_are_one_row(page, history_server, tmp_path):
    """Issue 41, item 6: the table named findings by their raw ids ("hitch-explained on …"), and a
    hitch finding's id is its time, so every build's hitches were rows of their own, each "gone
    after" its one build. Another app: Pantry, hitching in builds 1-3, fixed in build 4."""
    for build, (variant, seed) in enumerate((("slow", 1), ("slow", 2), ("slow", 3), ("fixed", 1)), start=1):
        path = tmp_path / f"pantry-{variant}-{seed}.json"
        subprocess.run([tracesvc_bin(), "generate", "--scenario", f"pantry-{variant}", "--seed", str(seed), "--output", str(path)],
                       check=True, capture_output=True)
        upload(history_server, path.read_bytes(), path.name, ["scenario:pantry-history", f"build:{build}"])
    page.goto(f"{history_server.url}/history?tag=scenario:pantry-history&metric=update-count")
    table = page.locator("#finding-history table")
    table.wait_for(timeout=30_000)
    hitches = table.locator("tbody tr", has_text="Hitch on")
    expect(hitches).to_have_count(1)
    expect(hitches.locator("td").nth(3)).to_have_text("gone after build 3")
    expect(hitches.locator("td").nth(4)).to_have_text("3")
    kinds = table.locator("tbody td strong").all_inner_texts()
    assert {"Hitch", "Collection fan-out", "Long body", "Environment churn"} <= set(kinds), kinds
    text = page.locator("main").inner_text()
    for raw in ("hitch-explained", "collection-fan-out", "long-body", "environment-churn"):
        assert raw not in text, raw
    # The row opens the last build's hitches in its Findings pane.
    hitches.get_by_role("link", name="build 3").click()
    page.wait_for_url(re.compile(r"fk=hitch-explained"))
    expect(page.locator(".finding-kind", has_text="Hitch").first).to_be_visible(timeout=30_000)
    assert not page.errors
