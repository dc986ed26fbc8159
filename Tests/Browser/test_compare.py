"""Comparison page /compare/{a}/{b}: the Landmarks pairs tell their story, filters and the row
drilled into live in the URL (back/forward, a fresh browser), swap, and the ways there."""
import re
import urllib.parse

from playwright.sync_api import expect

SCROLL_RANGE = "1000000000,4600000000"  # the scroll, after the launch both versions share


def open_compare(page, server, a, b, query=""):
    page.goto(f"{server}/compare/{a}/{b}{('?' + query) if query else ''}")
    page.locator("#compare-views").wait_for(timeout=30_000)
    expect(page.locator("#compare")).to_have_attribute("aria-busy", "false")


def query_of(page):
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).items()}


def view_row(page, view, category="View Body"):
    return page.locator(f'#compare-views tr[data-view="{view}"][data-category="{category}"]')


def test_favorites_fix_shows_one_row_body_per_tap_and_the_shared_fan_out_gone(page, server, sample_id, shot):
    slow, fixed = sample_id("landmarks-favorites-slow"), sample_id("landmarks-favorites-fixed")
    open_compare(page, server, slow, fixed)
    expect(page.locator("#compare-title")).to_have_text("landmarks-favorites-slow → landmarks-favorites-fixed")
    assert page.locator("#compare-warning").count() == 0
    row = view_row(page, "LandmarkListItemView")
    expect(row).to_have_attribute("data-change", "improved")
    expect(row).to_have_attribute("data-significant", "true")
    # Counts per tap: each row reads per its own interaction (the rows are driven by taps).
    expect(row.locator("td.interaction")).to_have_text("Tap Gesture 12 → 1")
    assert "36 → 14" in row.inner_text()
    expect(row.locator("td.count-change")).to_have_text("fewer bodies")
    gone = page.locator('#compare-causes tr[data-change="disappeared"]', has_text="ModelData.favoritesCollection")
    expect(gone).to_contain_text("LandmarkListItemView.body")
    expect(gone).to_contain_text("×12 per event")
    appeared = page.locator('#compare-causes tr[data-change="appeared"]', has_text="LandmarkViewModel")
    expect(appeared).to_contain_text("×1 per event")
    # Counts of one read in the singular ("1 event", not "1 events").
    unchanged = page.locator('#compare-causes tr[data-change="unchanged"]', has_text="LandmarksApp.body")
    expect(unchanged).to_contain_text("×1 per event · 1 event · 1 update")
    # The improvement is coloured as one (green), the unchanged rows are not.
    better = page.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--better').trim()")
    colour = row.locator("td.delta").evaluate("cell => getComputedStyle(cell).color")
    probe = page.evaluate("(c) => { const d = document.createElement('div'); d.style.color = c; document.body.append(d); "
                          "const v = getComputedStyle(d).color; d.remove(); return v; }", better)
    assert colour == probe
    # Nothing but the sections: no stray text between them (a missing drill-down once showed "null").
    stray = page.evaluate("() => [...document.querySelector('#compare-views').closest('section').parentElement.childNodes]"
                          ".filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim()).map((n) => n.textContent)")
    assert stray == []
    shot(page, "compare-01-favorites")
    assert not page.errors


def test_scroll_fix_has_no_red_row_updates_and_formatters_leave_the_cpu(page, server, sample_id, shot):
    slow, fixed = sample_id("landmarks-scroll-slow"), sample_id("landmarks-scroll-fixed")
    open_compare(page, server, slow, fixed, f"ra={SCROLL_RANGE}&rb={SCROLL_RANGE}")
    row = view_row(page, "LandmarkListItemView")
    cells = row.locator("td").all_inner_texts()
    red = cells[-1]
    assert red.endswith("→ 0") and int(red.split(" → ")[0]) > 50, cells
    expect(row).to_have_attribute("data-significant", "true")
    expect(row.locator("td.speed-change")).to_contain_text("faster per body")
    # Rows within noise say so in words: as many, as fast.
    quiet = page.locator("#compare-views tr.not-significant td.count-change")
    assert quiet.count() >= 1 and quiet.first.inner_text().startswith("as many")
    functions = page.locator("#compare-functions tbody tr")
    top = functions.evaluate_all("rows => rows.slice(0, 5).map(r => r.dataset.function)")
    assert "unum_open" in top and "-[NSMeasurementFormatter stringFromMeasurement:]" in top, top
    expect(page.locator('#compare-functions tr[data-function="unum_open"]')).to_contain_text("→ 0 ms")
    hitches = page.locator('#compare-totals tr[data-total="hitches"]')
    expect(hitches).to_have_class("change-improved")
    # The header says which part of each trace is compared.
    expect(page.locator('.compare-card[data-side="A"]')).to_contain_text(" in ")
    shot(page, "compare-02-scroll")
    assert not page.errors


def test_filter_and_row_are_in_the_url_and_back_forward_step_through_them(page, server, server_control, sample_id):
    slow, fixed = sample_id("landmarks-favorites-slow"), sample_id("landmarks-favorites-fixed")
    open_compare(page, server, slow, fixed)
    assert page.locator('#compare-views tr[data-module="SwiftUI"]').count() > 0
    page.get_by_role("button", name="App code only").click()
    expect(page.get_by_role("button", name="App code only")).to_have_attribute("aria-pressed", "true")
    assert query_of(page)["vf"] == "app"
    assert page.locator('#compare-views tr[data-module="SwiftUI"]').count() == 0
    page.get_by_role("button", name="Long updates only").click()
    assert query_of(page)["vf"] == "long"
    # Long only: the rows with an orange or red update on either side, as the API says.
    status, body = server_control.api(f"/api/compare?a={slow}&b={fixed}")
    assert status == 200, body
    long_views = sorted(v["view"] for v in body["views"] if v["a"]["orange"] + v["a"]["red"] + v["b"]["orange"] + v["b"]["red"])
    shown = sorted(page.locator("#compare-views tbody tr").evaluate_all("rows => rows.map(r => r.dataset.view)"))
    assert shown == long_views and "LandmarkListItemView" in shown and len(shown) < len(body["views"]), shown
    view_row(page, "LandmarkListItemView").get_by_role("button", name="LandmarkListItemView").click()
    drill = page.locator("#compare-drill")
    expect(drill).to_be_visible()
    assert query_of(page)["pv"] == "Landmarks:LandmarkListItemView" and query_of(page)["pc"] == "View Body"
    # Drill-down: the longest updates of each side, links into both single-trace pages.
    expect(drill.locator('[data-side="A"] .drill-updates li').first).to_be_visible()
    expect(drill.locator('[data-side="B"] .drill-updates li').first).to_be_visible()
    graph_b = drill.locator('[data-side="B"] a[data-link="graph"]').get_attribute("href")
    assert graph_b.startswith(f"/traces/{fixed}?") and "p=graph" in graph_b and "g=view" in graph_b
    updates_a = drill.locator('[data-side="A"] a[data-link="updates"]').get_attribute("href")
    assert updates_a.startswith(f"/traces/{slow}?") and "p=updates" in updates_a

    page.go_back()
    expect(drill).to_have_count(0)
    assert query_of(page)["vf"] == "long"
    page.go_back()
    expect(page.get_by_role("button", name="App code only")).to_have_attribute("aria-pressed", "true")
    page.go_forward()
    page.go_forward()
    expect(page.locator("#compare-drill")).to_be_visible()

    # An update in the drill-down opens the single-trace page on that update.
    first = page.locator('#compare-drill [data-side="A"] .drill-updates a').first
    first.click()
    page.wait_for_url(f"**/traces/{slow}/updates/*")
    assert not page.errors


def graph_labels(page, side):
    nodes = page.locator(f'#compare-drill [data-graph="{side}"] .cg-node')
    nodes.first.wait_for(state="attached", timeout=30_000)
    return nodes.evaluate_all("nodes => nodes.map(n => n.getAttribute('aria-label'))")


def test_drill_down_shows_the_views_merged_cause_graph_in_a_and_in_b(page, server, sample_id, shot):
    slow, fixed = sample_id("landmarks-favorites-slow"), sample_id("landmarks-favorites-fixed")
    open_compare(page, server, slow, fixed, "pv=Landmarks%3ALandmarkListItemView&pc=View%20Body")
    url = page.url
    before, after = graph_labels(page, "A"), graph_labels(page, "B")
    # The fix in one picture: the shared collection fans out to the rows in A; per-row models in B.
    assert any("favoritesCollection" in label for label in before), before
    assert not any("favoritesCollection" in label for label in after), after
    assert any("LandmarkViewModel" in label for label in after), after
    # The graph is the trace page's: selecting a node shows its card, and stays in the drill-down.
    page.locator("#compare-drill").scroll_into_view_if_needed()
    shot(page, "compare-03-drill-graphs")
    node = page.locator('#compare-drill [data-graph="B"] .cg-node[data-kind="observable"][aria-label*="LandmarkViewModel"]')
    node.click()
    expect(page.locator('#compare-drill [data-graph="B"] .cg-info')).to_be_visible()
    assert page.url == url
    assert not page.errors


def test_copied_compare_link_opens_the_same_view_in_a_fresh_browser(page, server, sample_id, new_context):
    slow, fixed = sample_id("landmarks-favorites-slow"), sample_id("landmarks-favorites-fixed")
    open_compare(page, server, slow, fixed)
    page.get_by_role("button", name="App code only").click()
    view_row(page, "LandmarkListItemView").get_by_role("button", name="LandmarkListItemView").click()
    page.locator("#compare-drill").wait_for()
    page.evaluate("() => navigator.clipboard.writeText('')")
    page.get_by_role("button", name="Copy link to this comparison").click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()).startsWith('http')")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert link == page.url and "/compare/" in link

    colleague = new_context().new_page()
    colleague.goto(link)
    colleague.locator("#compare-drill").wait_for(timeout=30_000)
    expect(colleague.get_by_role("button", name="App code only")).to_have_attribute("aria-pressed", "true")
    assert colleague.locator("#compare-views tbody tr").all_inner_texts() == page.locator("#compare-views tbody tr").all_inner_texts()
    expect(colleague.locator("#compare-drill > h2")).to_have_text("LandmarkListItemView: longest updates and merged cause graph, A above B")


def test_swap_makes_b_the_before(page, server, sample_id):
    slow, fixed = sample_id("landmarks-favorites-slow"), sample_id("landmarks-favorites-fixed")
    open_compare(page, server, slow, fixed, "ra=0,2000000000")
    page.get_by_role("button", name="Swap A and B").click()
    page.wait_for_url(f"**/compare/{fixed}/{slow}?*")
    page.locator("#compare-views").wait_for()
    assert query_of(page)["rb"] == "0,2000000000" and "ra" not in query_of(page)
    expect(page.locator("#compare-title")).to_have_text("landmarks-favorites-fixed → landmarks-favorites-slow")
    expect(view_row(page, "LandmarkListItemView")).to_have_attribute("data-change", "regressed")


def test_pick_two_traces_in_the_list_and_compare(page, server, sample_id):
    slow, fixed = sample_id("landmarks-scroll-slow"), sample_id("landmarks-scroll-fixed")
    page.goto(server)
    page.get_by_role("table", name="Traces").wait_for()
    compare = page.locator("#compare-button")
    expect(compare).to_be_disabled()
    page.get_by_label("Pick landmarks-scroll-slow to compare").check()
    expect(compare).to_be_disabled()
    page.get_by_label("Pick landmarks-scroll-fixed to compare").check()
    compare.click()
    page.wait_for_url(f"**/compare/{slow}/{fixed}?*")
    page.locator("#compare-views").wait_for()
    assert not page.errors


def test_compare_with_from_a_trace_page(page, server, sample_id, timeline):
    slow, fixed = sample_id("landmarks-favorites-slow"), sample_id("landmarks-favorites-fixed")
    timeline.open(page, slow, "r=1000000000,3000000000")
    page.get_by_role("button", name="Compare with…").click()
    page.get_by_label("Trace to compare with").select_option(value=fixed)
    page.locator("#compare-with-go").click()
    page.wait_for_url(f"**/compare/{slow}/{fixed}?*")
    page.locator("#compare-views").wait_for()
    # The trace page's inspection range becomes A's compared range.
    assert query_of(page)["ra"] == "1000000000,3000000000"
    expect(page.locator('.compare-card[data-side="A"]')).to_contain_text(" in ")


def test_traces_of_different_apps_are_flagged(page, server, sample_id):
    open_compare(page, server, sample_id("landmarks-favorites-slow"), sample_id("environment-color-scheme"))
    expect(page.locator("#compare-warning")).to_contain_text("app: Landmarks vs EnvironmentDemo")
    expect(view_row(page, "View1")).to_have_attribute("data-change", "appeared")


def test_broken_compare_links_say_what_is_wrong(page, server, sample_id):
    known = sample_id("landmarks-favorites-slow")
    page.goto(f"{server}/compare/ffffffffffffffffffffffffffffffff/{known}")
    expect(page.get_by_role("heading", name="Trace not found")).to_be_visible()
    page.goto(f"{server}/compare/{known}/{known}?v=99&vf=app")
    expect(page.get_by_role("heading", name="This link needs a newer tracesvc")).to_be_visible()
    plain = page.get_by_role("link", name="Open the comparison without the view")
    assert plain.get_attribute("href") == f"/compare/{known}/{known}?v=3"


def test_narrow_window_scrolls_the_views_table_in_its_box_and_keeps_the_cause_readable(new_context, server, sample_id, shot):
    slow, fixed = sample_id("landmarks-favorites-slow"), sample_id("landmarks-favorites-fixed")
    for width in (800, 1000):
        page = new_context(width=width, height=900).new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_compare(page, server, slow, fixed)
        sizes = page.evaluate("""() => {
          const page = document.querySelector('#compare'), box = document.querySelector('#compare-views').parentElement;
          const cause = document.querySelector('#compare-causes tr[data-change="disappeared"] td.name');
          return {pageScroll: page.scrollWidth, pageClient: page.clientWidth,
                  docScroll: document.documentElement.scrollWidth, docClient: document.documentElement.clientWidth,
                  boxScroll: box.scrollWidth, boxClient: box.clientWidth, boxRight: box.getBoundingClientRect().right,
                  causeWidth: cause.getBoundingClientRect().width,
                  causeLines: (() => { const range = document.createRange(); range.selectNodeContents(cause);
                    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size; })()};
        }""")
        # The page never scrolls sideways; the views table scrolls inside its own box, which fits.
        assert sizes["pageScroll"] <= sizes["pageClient"] and sizes["docScroll"] <= sizes["docClient"], (width, sizes)
        assert sizes["boxRight"] <= width, (width, sizes)
        # The cause ("@Observable ModelData.favoritesCollection (landmarks) → LandmarkListItemView.body")
        # reads in a line or two, not a column of word fragments.
        assert sizes["causeWidth"] >= 220 and sizes["causeLines"] <= 3, (width, sizes)
        if width == 800:
            assert sizes["boxScroll"] > sizes["boxClient"], sizes
            # Scrolled to its far end, the view column stays in place and the last column is in view.
            box = page.locator("#compare-views").locator("xpath=..")
            box.evaluate("box => { box.scrollLeft = box.scrollWidth; }")
            name = view_row(page, "LandmarkListItemView").locator("td.name")
            change = view_row(page, "LandmarkListItemView").locator("td:last-child")
            box_rect, name_rect, change_rect = (x.bounding_box() for x in (box, name, change))
            assert abs(name_rect["x"] - box_rect["x"]) < 2, (name_rect, box_rect)
            assert change_rect["x"] + change_rect["width"] <= box_rect["x"] + box_rect["width"] + 1, (change_rect, box_rect)
            assert change_rect["x"] >= name_rect["x"] + name_rect["width"] - 1, (change_rect, name_rect)
            # The row still opens from its (fixed) name, and the table stays scrolled where it was.
            scrolled = box.evaluate("box => box.scrollLeft")
            name.locator("button").click()
            expect(page.locator("#compare-drill")).to_be_visible()
            assert page.locator("#compare-views").locator("xpath=..").evaluate("box => box.scrollLeft") == scrolled > 0
            shot(page, "compare-narrow-800", full_page=True)
        assert not errors
        page.close()


def test_the_favorites_fix_reads_better_and_a_range_on_one_side_is_said_first(page, server, sample_id, shot):
    # Issue 41: the one-body cause that replaced the fan-out is the fix, not a new fan-out; A's
    # "Favorite Tap" (4.9 ms) against B's whole 4.2 s decides nothing until B gets the same range.
    slow, fixed = sample_id("landmarks-favorites-slow"), sample_id("landmarks-favorites-fixed")
    open_compare(page, server, slow, fixed)
    verdict = page.locator("#compare-verdict")
    expect(verdict.locator('.verdict-line[data-tone="worse"]')).to_have_count(0)
    expect(verdict.locator('.verdict-line[data-kind="cause"][data-tone="better"]')).to_contain_text(
        "replaced by @Observable LandmarkViewModel (isFavorite) ×1 per event")
    expect(page.locator("#compare-span-warning")).to_have_count(0)
    open_compare(page, server, slow, fixed, "ra=1399600000,1404497548")
    warning = page.locator("#compare-span-warning")
    expect(warning).to_contain_text("A is the range 1.400 s–1.404 s (4.90 ms), B the whole recording (4.20 s)")
    # Before the verdict, which calls nothing better or worse.
    assert warning.bounding_box()["y"] < verdict.bounding_box()["y"]
    expect(verdict.locator('.verdict-line[data-tone="worse"]')).to_have_count(0)
    expect(verdict.locator('.verdict-line[data-tone="better"]')).to_have_count(0)
    expect(verdict.locator('.verdict-line[data-kind="span"] .verdict-tone')).to_have_text("Spans differ")
    shot(page, "compare-span-warning")
    page.locator("#compare-same-span").click()
    expect(page.locator("#compare-span-warning")).to_have_count(0, timeout=30_000)
    assert query_of(page).get("rb") == "1399600000,1404497548"
    expect(verdict.locator('.verdict-line[data-tone="better"]').first).to_be_visible()
    expect(verdict.locator('.verdict-line[data-tone="worse"]')).to_have_count(0)


def test_an_unknown_pair_says_so_without_an_uncaught_page_error(page, server):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server}/compare/abc/def")
    expect(page.get_by_role("alert")).to_contain_text("Trace not found", timeout=30_000)
    page.wait_for_timeout(500)
    assert errors == []


def test_tick_groups_in_the_list_for_a_pooled_compare(page, server, sample_id):
    """Issue 41, item 4: tick N traces and M traces as two groups: the first tick is A, the later
    ones B, Shift-tick keeps the side, a tick's letter moves it; Compare opens the pooled page,
    which says how many recordings a side."""
    scroll_slow, fav_slow = sample_id("landmarks-scroll-slow"), sample_id("landmarks-favorites-slow")
    scroll_fixed, fav_fixed = sample_id("landmarks-scroll-fixed"), sample_id("landmarks-favorites-fixed")
    page.goto(server)
    page.get_by_role("table", name="Traces").wait_for()
    compare, picked = page.locator("#compare-button"), page.locator("#compare-picked")
    page.get_by_label("Pick landmarks-scroll-slow to compare").check()
    expect(picked).to_contain_text("A (before): 1 recording · B (after): 0 recordings")
    expect(compare).to_be_disabled()
    # Shift-tick: the same side as the last tick (A).
    page.get_by_label("Pick landmarks-favorites-slow to compare").click(modifiers=["Shift"])
    page.get_by_label("Pick landmarks-scroll-fixed to compare").check()
    page.get_by_label("Pick landmarks-favorites-fixed to compare").check()
    expect(picked).to_have_text("A (before): 2 recordings · B (after): 2 recordings")
    expect(compare).to_have_text("Compare 2 → 2")
    # The letter moves a tick to the other side, and back.
    chip = page.get_by_role("button", name="landmarks-favorites-fixed is in B: move it to A")
    chip.click()
    expect(picked).to_have_text("A (before): 3 recordings · B (after): 1 recording")
    page.get_by_role("button", name="landmarks-favorites-fixed is in A: move it to B").click()
    compare.click()
    page.wait_for_url(re.compile(rf"/compare\?.*a={scroll_slow},{fav_slow}&b={scroll_fixed},{fav_fixed}"))
    expect(page.locator('.compare-card[data-side="A"] .compare-side')).to_have_text("A · before · 2 recordings pooled", timeout=30_000)
    expect(page.locator('.compare-card[data-side="B"] .compare-side')).to_have_text("B · after · 2 recordings pooled")
    assert not page.errors
