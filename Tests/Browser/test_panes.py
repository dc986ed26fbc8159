"""Detail panes (issue 5): Summary, a view's Updates, the CPU call tree and the pane tab bar,
driven in Chromium against a real `tracesvc serve` with the sample traces (fixtures in conftest.py).
Numbers shown in the browser are checked against the API and against `tracesvc inspect`."""

import json
import os
import random
import re
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

REPO = Path(__file__).resolve().parents[2]
SLOW = 'landmarks-scroll-slow'


def api(server, trace_id, path, **params):
    query = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
    url = f'{server}/api/traces/{trace_id}/{path}' + (f'?{query}' if query else '')
    with urllib.request.urlopen(url) as response:
        return json.load(response)


def query_of(page):
    return urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)


def open_trace(page, server, trace_id, query=''):
    page.goto(f'{server}/traces/{trace_id}?v=1{query}')
    expect(page.locator('#detail-pane [role=tablist]')).to_be_visible()


def summary_row(page, view):
    return page.locator(f'#detail-pane tr[data-level=view][data-view="{view}"]').first


def row_numbers(row):
    """Count, total, average, max, orange, red cells of a summary row, as the page shows them."""
    return [c.strip() for c in row.locator('td.num').all_inner_texts()]


def view_stats(summary, view):
    for process in summary['processes']:
        for module in process['modules']:
            for v in module['views']:
                if v['name'] == view:
                    return module['name'], v
    raise AssertionError(f'{view} not in the summary')


def count_text(n):
    return f'{n:,}'


# --- Summary -----------------------------------------------------------------------------------

def test_summary_tree_matches_api_and_follows_filter_and_range(page, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    open_trace(page, server, trace_id)
    expect(page.locator('#pane-tab-summary')).to_have_attribute('aria-selected', 'true')
    whole = api(server, trace_id, 'summary')
    module, stats = view_stats(whole, 'LandmarkListItemView')

    # process -> module -> view rows, with the API's numbers
    expect(page.locator('#detail-pane tr[data-level=process]').first).to_be_visible()
    expect(page.locator(f'#detail-pane tr[data-level=module][data-module="{module}"]').first).to_be_visible()
    row = summary_row(page, 'LandmarkListItemView')
    expect(row).to_be_visible()
    cells = row_numbers(row)
    assert cells[0] == count_text(stats['count'])
    assert cells[4] == count_text(stats['orange']) and cells[5] == count_text(stats['red'])
    assert stats['red'] > 0, 'the slow sample has red LandmarkListItemView updates'
    expect(page.get_by_test_id('summary-total')).to_contain_text(f"{count_text(whole['total']['count'])} updates")
    shot(page, 'panes-summary-all')

    # Long View Body Updates: only long view-body updates are counted, and the URL says so
    page.get_by_label('Updates to include').select_option('long-view-body')
    expect(page).to_have_url(re.compile(r'[?&]f=long-view-body'))
    long = api(server, trace_id, 'summary', filter='long-view-body')
    _, long_stats = view_stats(long, 'LandmarkListItemView')
    expect(summary_row(page, 'LandmarkListItemView').locator('td.num').first).to_have_text(count_text(long_stats['count']))
    assert long_stats['count'] == long_stats['orange'] + long_stats['red']

    # An inspection range (set in the URL, as the timeline would): the summary follows it
    u = api(server, trace_id, 'updates', view='LandmarkListItemView', filter='long-view-body', sort='duration', order='desc', limit=1)['updates'][0]
    start, end = u['start'] - 20_000_000, u['start'] + u['duration'] + 20_000_000
    open_trace(page, server, trace_id, f'&f=long-view-body&r={start},{end}')
    ranged = api(server, trace_id, 'summary', filter='long-view-body', start=start, end=end)
    _, ranged_stats = view_stats(ranged, 'LandmarkListItemView')
    assert ranged_stats['count'] < long_stats['count']
    expect(page.locator('#detail-pane .pane-scope')).to_contain_text('Inspection range')
    expect(summary_row(page, 'LandmarkListItemView').locator('td.num').first).to_have_text(count_text(ranged_stats['count']))
    expect(page.get_by_test_id('summary-total')).to_contain_text(f"{count_text(ranged['total']['count'])} updates")
    shot(page, 'panes-summary-range')


def test_summary_columns_sort(page, server, sample_id):
    trace_id = sample_id(SLOW)
    open_trace(page, server, trace_id)
    expect(summary_row(page, 'LandmarkListItemView')).to_be_visible()

    module, _ = view_stats(api(server, trace_id, 'summary'), 'LandmarkListItemView')

    def view_counts():
        """Counts of the view rows under LandmarkListItemView's module, in page order."""
        levels = page.locator('#detail-pane tr[data-level]').evaluate_all(
            'rs => rs.map(r => [r.dataset.level, r.dataset.module, r.querySelector("td.num").textContent])')
        start = next(i for i, (level, name, _) in enumerate(levels) if level == 'module' and name == module)
        counts = []
        for level, _, count in levels[start + 1:]:
            if level != 'view':
                break
            counts.append(int(count.replace(',', '')))
        return counts

    page.get_by_role('button', name='Sort by Count').click()
    expect(page.locator('#detail-pane th[aria-sort=descending]')).to_contain_text('Count')
    counts = view_counts()
    assert len(counts) >= 2 and counts == sorted(counts, reverse=True)
    page.get_by_role('button', name='Sort by Count').click()
    expect(page.locator('#detail-pane th[aria-sort=ascending]')).to_contain_text('Count')
    assert view_counts() == sorted(counts)

    # keyboard: arrows walk the tree, Left collapses a module, Right opens it, Enter shows updates
    module_row = page.locator(f'#detail-pane tr[data-level=module][data-module="{module}"]')
    module_row.click()
    expect(module_row).to_be_focused()
    page.keyboard.press('ArrowLeft')
    expect(module_row).to_have_attribute('aria-expanded', 'false')
    expect(summary_row(page, 'LandmarkListItemView')).to_have_count(0)
    page.keyboard.press('ArrowRight')
    expect(module_row).to_have_attribute('aria-expanded', 'true')
    page.keyboard.press('ArrowRight')  # into the first view
    first_view = page.locator('#detail-pane tr[data-level=view][aria-selected=true]')
    expect(first_view).to_be_focused()
    view = first_view.get_attribute('data-view')
    page.keyboard.press('Enter')
    assert query_of(page)['pv'] == [f'{module}:{view}']


def test_panes_follow_the_dark_theme(new_context, server, sample_id, shot):
    page = new_context(width=1920, height=1080, color_scheme='dark').new_page()
    open_trace(page, server, sample_id(SLOW), '&p=cpu')
    expect(page.locator('.cpu-row.selected')).to_be_visible()
    light_text = page.locator('.cpu-row').first.evaluate(
        'r => { const [red, green, blue] = getComputedStyle(r).color.match(/\\d+/g).map(Number);'
        ' return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255; }')
    background = page.locator('#detail-pane thead th').first.evaluate(
        'th => { const [red, green, blue] = getComputedStyle(th).backgroundColor.match(/\\d+/g).map(Number);'
        ' return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255; }')
    assert light_text > 0.6 and background < 0.3, (light_text, background)
    shot(page, 'panes-cpu-1920x1080-dark')


UNITS = {'ns': 1, 'us': 1e3, 'µs': 1e3, 'ms': 1e6, 's': 1e9}


def duration_ns(text):
    value, unit = text.replace(',', '').split()
    return float(value) * UNITS[unit]


def inspect_views(binary, sample, start=None, end=None):
    """The "Top views by total time" table of `tracesvc inspect`: {(view, module, category): stats}."""
    args = [binary, 'inspect', str(sample), '--top', '1000']
    if start is not None:
        args += ['--start', str(start), '--end', str(end)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    at = lines.index('Top views by total time')
    rows = {}
    for line in lines[at + 2:]:
        m = re.match(r'\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+ \S+)\s+([\d.]+ \S+)\s+([\d.]+ \S+)\s+(\S+) \((.*), (.*)\)$', line)
        if not m:
            break
        red, orange, count, total, avg, longest, view, module, category = m.groups()
        rows[(view, module, category)] = {'count': int(count), 'orange': int(orange), 'red': int(red),
                                          'totalNs': duration_ns(total), 'avgNs': duration_ns(avg),
                                          'maxNs': duration_ns(longest)}
    total = re.search(r'^Updates: ([\d,]+)', out.stdout, re.M)
    return rows, int(total.group(1).replace(',', '')) if total else 0


@pytest.mark.parametrize('span', [None, (1_000_000_000, 1_500_000_000)], ids=['whole-trace', 'range'])
def test_summary_matches_tracesvc_inspect(page, server, sample_id, shot, span):
    """The browser's summary shows what `tracesvc inspect` prints for the same trace and range
    (both read `Trace.summary`): every view row's count, orange, red, total, average and max."""
    binary = os.environ.get('TRACESVC_BIN', str(REPO / '.build/debug/tracesvc'))
    expected, expected_total = inspect_views(binary, REPO / 'SampleTraces' / f'{SLOW}.json', *(span or (None, None)))
    assert len(expected) >= 2 and expected_total > 0

    open_trace(page, server, sample_id(SLOW), f'&r={span[0]},{span[1]}' if span else '')
    expect(page.get_by_test_id('summary-total')).to_contain_text(f'{count_text(expected_total)} updates')
    shown = page.locator('#detail-pane tr[data-level=view]').evaluate_all(
        'rs => rs.map(r => [r.dataset.view, r.dataset.module, r.dataset.category,'
        ' [...r.querySelectorAll("td.num")].map(c => c.textContent)])')
    assert sorted((v, m, c) for v, m, c, _ in shown) == sorted(expected)
    for view, module, category, cells in shown:
        want = expected[(view, module, category)]
        count, total, avg, longest, orange, red = cells
        assert [int(n.replace(',', '')) for n in (count, orange, red)] == [want['count'], want['orange'], want['red']], view
        for text, ns in ((total, want['totalNs']), (avg, want['avgNs']), (longest, want['maxNs'])):
            # both round for display: the browser to three significant digits, inspect to two decimals
            assert abs(duration_ns(text) - ns) <= max(0.006 * ns, 1_000), (view, text, ns)
    if span:
        shot(page, 'panes-summary-vs-inspect-range')


# --- A view's menu -----------------------------------------------------------------------------

def test_view_menu_show_updates_graph_and_zoom(page, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    open_trace(page, server, trace_id)
    whole = api(server, trace_id, 'summary')
    module, stats = view_stats(whole, 'LandmarkListItemView')
    row = summary_row(page, 'LandmarkListItemView')

    # right click opens the menu with the view's actions
    row.click(button='right')
    menu = page.get_by_role('menu')
    expect(menu.get_by_role('menuitem')).to_have_text(['Show Updates', 'Show Cause & Effect Graph', 'Set Inspection Range and Zoom',
                                                        'CPU of All Updates of This View'])
    shot(page, 'panes-summary-menu')
    menu.get_by_role('menuitem', name='Show Updates').click()
    expect(page.locator('#pane-tab-updates')).to_have_attribute('aria-selected', 'true')
    q = query_of(page)
    assert q['p'] == ['updates'] and q['pv'] == [f'{module}:LandmarkListItemView']
    expect(page.get_by_test_id('updates-total')).to_have_text(f"{count_text(stats['count'])} updates")

    # the "⋯" button: Cause & Effect graph of the view
    page.locator('#pane-tab-summary').click()
    summary_row(page, 'LandmarkListItemView').hover()
    page.get_by_role('button', name='Actions for LandmarkListItemView').click()
    page.get_by_role('menuitem', name='Show Cause & Effect Graph').click()
    expect(page.locator('#pane-tab-graph')).to_have_attribute('aria-selected', 'true')
    assert query_of(page)['p'] == ['graph'] and query_of(page)['pv'] == [f'{module}:LandmarkListItemView']
    expect(page.locator('#detail-pane .pane-message-error')).to_have_count(0)

    # Set Inspection Range and Zoom: the span of the view's updates
    page.go_back()
    expect(page.locator('#pane-tab-summary')).to_have_attribute('aria-selected', 'true')
    summary_row(page, 'LandmarkListItemView').click(button='right')
    page.get_by_role('menuitem', name='Set Inspection Range and Zoom').click()
    expect(page).to_have_url(re.compile(r'[?&]r=\d+,\d+'))
    first = api(server, trace_id, 'updates', view='LandmarkListItemView', module=module, sort='start', order='asc', limit=1)['updates'][0]
    last = api(server, trace_id, 'updates', view='LandmarkListItemView', module=module, sort='start', order='desc', limit=200)['updates']
    expected = f"{first['start']},{max(u['start'] + u['duration'] for u in last)}"
    q = query_of(page)
    assert q['r'] == [expected] and q['w'] == [expected]


def test_show_updates_lists_exactly_the_rows_updates_when_a_view_has_two_categories(page, server, server_control, tmp_path):
    """A summary row is one (view, category): its list must hold the updates it counts, not every
    update of the view name."""
    updates = [[1_000_000 + i * 100_000, 30_000, 'layout', 'SwiftUI', 'Text', '', 'Layout', 0, 0, 0, 'none'] for i in range(3)]
    updates += [[2_000_000 + i * 100_000, 40_000, 'other', 'SwiftUI', 'Text', '', 'Text Measurement', 0, 0, 0, 'none'] for i in range(2)]
    path = tmp_path / 'two-categories.json'
    path.write_text(json.dumps({
        'format': 'tracesvc-trace', 'version': 1,
        'metadata': {'app': 'Demo', 'device': 'iPhone', 'osVersion': '26.0', 'refreshRate': 120, 'recordedAt': None,
                     'start': 0, 'end': 5_000_000, 'importNotes': []},
        'processes': [[7, 'Demo']], 'threads': [[70, 'Main Thread', 0, True]],
        'updateGroups': [[500_000, 3_000_000, 'Transaction', 0]], 'updates': updates}))
    trace_id = server_control.upload(path)['id']
    open_trace(page, server, trace_id)
    for category, count in [('Text Measurement', 2), ('Layout', 3)]:
        page.locator('#pane-tab-summary').click()
        row = page.locator(f'#detail-pane tr[data-level=view][data-view="Text"][data-category="{category}"]')
        expect(row.locator('td.num').first).to_have_text(str(count))
        row.click(button='right')
        page.get_by_role('menuitem', name='Show Updates').click()
        expect(page.get_by_test_id('updates-total')).to_have_text(f'{count} updates')
        assert query_of(page)['pc'] == [category]
        expect(page.locator('.updates-row[data-id]')).to_have_count(count)


# --- Updates list ------------------------------------------------------------------------------

def test_updates_list_select_sort_and_range(page, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    module, stats = view_stats(api(server, trace_id, 'summary'), 'LandmarkListItemView')
    open_trace(page, server, trace_id, f'&p=updates&pv={urllib.parse.quote(module + ":LandmarkListItemView")}')
    rows = page.locator('.updates-row[data-id]')
    expect(rows.first).to_be_visible()
    first = api(server, trace_id, 'updates', view='LandmarkListItemView', module=module, sort='start', order='asc', limit=3)['updates']
    expect(rows.first).to_have_attribute('data-id', str(first[0]['id']))

    # click selects the update (timeline + URL path)
    rows.nth(1).click()
    expect(page).to_have_url(re.compile(rf"/updates/{first[1]['id']}\?"))
    expect(rows.nth(1)).to_have_attribute('aria-selected', 'true')
    # Down selects the next update (and the timeline pans nothing: the list keeps the key)
    window = query_of(page).get('w')
    page.keyboard.press('ArrowDown')
    expect(page).to_have_url(re.compile(rf"/updates/{first[2]['id']}\?"))
    assert query_of(page).get('w') == window

    # sort by duration: longest first, and it is the view's max
    page.get_by_role('button', name='Sort by Duration').click()
    longest = api(server, trace_id, 'updates', view='LandmarkListItemView', module=module, sort='duration', order='desc', limit=1)['updates'][0]
    expect(rows.first).to_have_attribute('data-id', str(longest['id']))
    assert longest['duration'] == stats['maxNs']
    expect(rows.first.locator('.col-severity')).to_contain_text('1 ms')
    shot(page, 'panes-updates-by-duration')

    # a row's menu: Set Inspection Range to exactly that update, and zoom with context around it
    rows.first.click(button='right')
    page.get_by_role('menuitem', name='Set Inspection Range and Zoom').click()
    span = f"{longest['start']},{longest['start'] + longest['duration']}"
    expect(page).to_have_url(re.compile(rf'[?&]r={span}'))
    w0, w1 = map(int, query_of(page)['w'][0].split(','))
    assert w0 < longest['start'] - longest['duration'] / 2 and w1 > longest['start'] + 1.5 * longest['duration']
    expect(page.get_by_test_id('updates-total')).to_contain_text('update')


def test_updates_list_is_virtualised(page, server, big_trace_id, shot):
    """100k updates of one view: a bounded number of rows in the DOM, pages fetched as they come into sight."""
    total = 100_000
    requested = []
    page.on('request', lambda r: requested.append(r.url) if '/updates?' in r.url else None)
    open_trace(page, server, big_trace_id, '&p=updates&pv=BigList:RowView')
    expect(page.get_by_test_id('updates-total')).to_have_text(f'{count_text(total)} updates')
    viewport = page.locator('.updates-viewport')
    assert page.locator('.updates-row').count() < 80
    page_requests_at_top = len(requested)

    # jump to the end: the last rows arrive, still few rows in the DOM, few pages fetched
    viewport.evaluate('v => v.scrollTop = v.scrollHeight')
    last = page.locator(f'.updates-row[aria-rowindex="{total}"][data-id]')
    expect(last).to_be_visible()
    assert page.locator('.updates-row').count() < 80
    # scroll up through 250 rows frame by frame: neighbouring pages arrive before they are seen
    placeholders = viewport.evaluate('''async v => {
        let seen = 0;
        for (let i = 0; i < 60; i++) {
            v.scrollTop -= 100;
            await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
            const box = v.getBoundingClientRect();
            seen += [...v.querySelectorAll('.updates-row.loading')]
                .filter(r => { const b = r.getBoundingClientRect(); return b.bottom > box.top && b.top < box.bottom; }).length;
        }
        return seen;
    }''')
    assert placeholders == 0
    assert page.locator('.updates-row').count() < 80
    assert len(requested) - page_requests_at_top <= 6, requested
    shot(page, 'panes-updates-100k-end')

    # a link to one update (or a selection on the timeline) scrolls the list to it
    page.goto(f'{server}/traces/{big_trace_id}/updates/77777?v=1&p=updates&pv=BigList:RowView')
    row = page.locator('.updates-row[data-id="77777"]')
    expect(row).to_have_attribute('aria-selected', 'true')
    expect(row).to_be_in_viewport()
    assert row.get_attribute('aria-rowindex') == '77778'
    page.evaluate("history.pushState({}, '', location.pathname.replace('/77777', '/1234') + location.search)")
    page.evaluate("dispatchEvent(new PopStateEvent('popstate'))")
    expect(page.locator('.updates-row[data-id="1234"]')).to_be_in_viewport()


# --- CPU call tree -----------------------------------------------------------------------------

def test_long_item_update_range_shows_formatters_as_heaviest_path(page, server, sample_id, shot):
    """The Landmarks story: select a long LandmarkListItemView update, set the inspection range to
    it, open CPU: the heaviest path runs body.getter -> distance.getter -> the formatter frames."""
    trace_id = sample_id(SLOW)
    module, _ = view_stats(api(server, trace_id, 'summary'), 'LandmarkListItemView')
    open_trace(page, server, trace_id, f'&p=updates&f=long-view-body&pv={urllib.parse.quote(module + ":LandmarkListItemView")}')
    page.get_by_role('button', name='Sort by Duration').click()
    row = page.locator('.updates-row[data-id]').first
    expect(row.locator('.col-severity')).to_contain_text('1 ms')
    row.click()
    row.hover()
    row.get_by_role('button').click()
    page.get_by_role('menuitem', name='Set Inspection Range and Zoom').click()
    expect(page).to_have_url(re.compile(r'[?&]r=\d+,\d+'))

    page.locator('#pane-tab-cpu').click()
    expect(page).to_have_url(re.compile(r'[?&]p=cpu'))
    selected = page.locator('.cpu-row.selected')
    expect(selected).to_be_visible()
    path = selected.evaluate('''tr => {
        const names = [];
        let level = Number(tr.getAttribute('aria-level'));
        for (let r = tr; r; r = r.previousElementSibling) {
            const l = Number(r.getAttribute('aria-level'));
            if (r === tr || l < level) { names.unshift(r.dataset.name); level = l; }
        }
        return names;
    }''')
    body = path.index('LandmarkListItemView.body.getter')
    assert path[body + 1] == 'LandmarkListItemView.distance.getter', path
    assert re.match(r'NumberFormatter\.init|MeasurementFormatter\.string\(from:\)', path[body + 2]), path
    expect(page.locator('#detail-pane .pane-scope')).to_contain_text('Inspection range')
    shot(page, 'panes-cpu-heaviest-path')


def test_cpu_tree_keyboard_invert_and_search(page, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    open_trace(page, server, trace_id, '&p=cpu')
    selected = page.locator('.cpu-row.selected')
    expect(selected).to_be_visible()

    # main thread first
    first_root = page.locator('.cpu-row[aria-level="1"]').first
    main = next(t for t in api(server, trace_id, '')['threads'] if t['isMain'])
    expect(first_root).to_have_attribute('data-name', main['name'])

    # keyboard: Left on a leaf goes to its parent, Left again collapses it, Right expands
    selected.click()
    expect(selected).to_be_focused()
    leaf_level = int(selected.get_attribute('aria-level'))
    page.keyboard.press('ArrowLeft')
    expect(page.locator('.cpu-row.selected')).to_have_attribute('aria-level', str(leaf_level - 1))
    parent = page.locator('.cpu-row.selected')
    page.keyboard.press('ArrowLeft')
    expect(parent).to_have_attribute('aria-expanded', 'false')
    page.keyboard.press('ArrowRight')
    expect(page.locator('.cpu-row.selected')).to_have_attribute('aria-expanded', 'true')
    page.keyboard.press('ArrowDown')
    expect(page.locator('.cpu-row.selected')).to_have_attribute('aria-level', str(leaf_level))
    # collapse everything to the root, then H expands the heaviest path again
    page.keyboard.press('Home')
    page.keyboard.press('ArrowLeft')
    expect(page.locator('.cpu-row')).to_have_count(page.locator('.cpu-row[aria-level="1"]').count())
    page.keyboard.press('h')
    expect(page.locator('.cpu-row.selected')).to_have_attribute('aria-level', str(leaf_level))

    # Ctrl+F focuses the search box; matches are kept and highlighted, others hidden
    page.keyboard.press('Control+f')
    search = page.get_by_label('Search frames')
    expect(search).to_be_focused()
    page.keyboard.type('Formatter')
    expect(page).to_have_url(re.compile(r'[?&]q=Formatter'))
    expect(page.locator('.cpu-row mark').first).to_be_visible()
    names = page.locator('.cpu-row').evaluate_all('rs => rs.map(r => [Number(r.getAttribute("aria-level")), r.dataset.name])')
    # every shown row matches, or lies on a path to a match (an ancestor or a descendant of one)
    stack = []
    for i, (level, name) in enumerate(names):
        del stack[level - 1:]
        stack.append('formatter' in name.lower())
        leads_to_match = any('formatter' in n.lower() for l, n in names[i + 1:i + 1 + next(
            (k for k, (l2, _) in enumerate(names[i + 1:]) if l2 <= level), len(names) - i - 1)])
        assert any(stack) or leads_to_match, (name, names)
    shot(page, 'panes-cpu-search')

    # inverted: roots are the functions that ran (self time); formatter frames among the heaviest
    page.get_by_label('Invert call tree').check()
    expect(page).to_have_url(re.compile(r'[?&]i=1'))
    search.fill('')
    roots = page.locator('.cpu-row[aria-level="1"]')
    expect(roots.first).to_be_visible()
    bottom_up = api(server, trace_id, 'calltree', mode='bottom-up')
    heaviest_leaf = max(bottom_up['roots'], key=lambda r: r['total'])['name']
    expect(roots.first).to_have_attribute('data-name', heaviest_leaf)
    shot(page, 'panes-cpu-inverted')

    # the URL restores it all
    page.reload()
    expect(page.get_by_label('Invert call tree')).to_be_checked()
    expect(page.locator('#pane-tab-cpu')).to_have_attribute('aria-selected', 'true')


def test_tabs_and_back_button_restore_panes(page, server, sample_id):
    trace_id = sample_id(SLOW)
    open_trace(page, server, trace_id)
    page.locator('#pane-tab-cpu').click()
    expect(page).to_have_url(re.compile(r'[?&]p=cpu'))
    page.locator('#pane-tab-summary').focus()
    page.keyboard.press('ArrowRight')
    expect(page.locator('#pane-tab-updates')).to_have_attribute('aria-selected', 'true')
    expect(page.locator('#detail-pane .pane-message')).to_contain_text('Choose a view')
    page.go_back()
    expect(page.locator('#pane-tab-cpu')).to_have_attribute('aria-selected', 'true')
    page.go_back()
    expect(page.locator('#pane-tab-summary')).to_have_attribute('aria-selected', 'true')


@pytest.fixture(scope='module')
def big_trace_id(server_control, tmp_path_factory):
    """A native-format trace with 100,000 updates of one view (RowView in BigList), uploaded once."""
    rng = random.Random(7)
    updates, t = [], 1_000_000
    for _ in range(100_000):
        updates.append([t, int(rng.expovariate(1 / 400_000)) + 20_000, 'view-body', 'BigList', 'RowView',
                        'RowView.body', 'View Body', 0, 0, None, 'none'])
        t += 50_000
    trace = {'format': 'tracesvc-trace', 'version': 1,
             'metadata': {'app': 'BigList', 'device': 'Test', 'osVersion': '', 'refreshRate': 120, 'recordedAt': None,
                          'start': 0, 'end': t + 10_000_000, 'importNotes': []},
             'processes': [[1, 'BigList']], 'threads': [[1, 'Main Thread', 0, True]], 'updateGroups': [],
             'updates': updates, 'nodes': [], 'edges': [], 'frames': [], 'stacks': [], 'stateChanges': [],
             'samples': [], 'hitches': [], 'hangs': []}
    path = tmp_path_factory.mktemp('big') / 'big-list-100k.json'
    path.write_text(json.dumps(trace))
    trace_id = server_control.upload(path)['id']
    yield trace_id
    # the server is shared by the whole session: leave the trace list as other tests expect it
    status, _ = server_control.api(f'/api/traces/{trace_id}', 'DELETE')
    assert status == 204


# --- Cause & Effect tab ------------------------------------------------------------------------

def mark_graph_pane(page):
    page.locator('#pane-body .pane-graph').evaluate('p => { p.dataset.testMark = "kept"; }')


def test_graph_tab_keeps_its_subject_when_a_node_is_clicked(page, server, sample_id, shot):
    """A view's graph stays that view's graph when a body node in it selects its update."""
    trace_id = sample_id('landmarks-favorites-slow')
    open_trace(page, server, trace_id)
    summary_row(page, 'LandmarkListItemView').click(button='right')
    page.get_by_role('menuitem', name='Show Cause & Effect Graph').click()
    # LandmarkList's body ran once: its node stands for one update, which a click selects
    node = page.locator('#pane-body .cg-node[data-kind=view-body]').filter(has_text=re.compile(r'^LandmarkList(?!Item)'))
    expect(node).to_be_visible()
    mark_graph_pane(page)
    node.click()
    expect(page).to_have_url(re.compile(r'/updates/\d+\?'))
    expect(page.locator('#pane-body .pane-graph')).to_have_attribute('data-test-mark', 'kept')
    assert query_of(page)['pv'][0].endswith(':LandmarkListItemView')
    shot(page, 'panes-graph-view-node-selected')


def test_update_graph_follows_a_selection_made_on_the_timeline(page, server, sample_id):
    trace_id = sample_id(SLOW)
    first = api(server, trace_id, 'updates', view='LandmarkListItemView', filter='long-view-body', limit=1)['updates'][0]
    page.goto(f'{server}/traces/{trace_id}/updates/{first["id"]}?v=1&p=graph')
    expect(page.locator('#pane-body .cg-node').first).to_be_visible()
    mark_graph_pane(page)
    # the next long update, chosen with the timeline's "]" key while the graph pane is not in use
    page.evaluate('document.activeElement?.blur()')
    page.wait_for_timeout(1100)
    page.keyboard.press(']')
    expect(page).not_to_have_url(re.compile(rf'/updates/{first["id"]}\?'))
    expect(page.locator('#pane-body .pane-graph')).not_to_have_attribute('data-test-mark', 'kept')
    expect(page.locator('#pane-body .cg-node').first).to_be_visible()
