"""CPU of all updates of a view (issue 17 item 5) in Chromium against a real `tracesvc serve`: the
samples inside every update of the view, merged and rooted at its body frame, opened from the
Summary row menu and from the Updates list; a warning when a tree holds too few samples; a tie on
the heaviest path said, not hidden; "Hide system libraries" and "Charge to caller"."""

import json
import re
import urllib.parse
import urllib.request

from playwright.sync_api import expect

SLOW = 'landmarks-scroll-slow'
VIEW = 'LandmarkListItemView'


def api(server, trace_id, path, **params):
    query = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
    with urllib.request.urlopen(f'{server}/api/traces/{trace_id}/{path}' + (f'?{query}' if query else '')) as response:
        return json.load(response)


def module_of(server, trace_id, view):
    return next(m['name'] for p in api(server, trace_id, 'summary')['processes'] for m in p['modules']
                if any(v['name'] == view for v in m['views']))


def view_count(server, trace_id, view):
    return next(v['count'] for p in api(server, trace_id, 'summary')['processes'] for m in p['modules']
                for v in m['views'] if v['name'] == view)


def shown_rows(page):
    """The tree rows as drawn: (level, name)."""
    return page.locator('.cpu-row').evaluate_all(
        "rows => rows.map(r => [Number(r.getAttribute('aria-level')), r.dataset.name])")


def children_of(rows, name):
    """Names of the rows one level below the first row called `name`, in drawn order."""
    start = next(i for i, (_, n) in enumerate(rows) if n == name)
    level = rows[start][0]
    out = []
    for depth, n in rows[start + 1:]:
        if depth <= level:
            break
        if depth == level + 1:
            out.append(n)
    return out


def wait_tree(page):
    expect(page.locator('.cpu-row').first).to_be_visible(timeout=30_000)


def test_cpu_of_all_updates_of_a_view_puts_the_formatters_first(page, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    page.goto(f'{server}/traces/{trace_id}?v=2&p=summary')
    row = page.locator(f'#detail-pane tr[data-level=view][data-view="{VIEW}"]').first
    row.click(button='right')
    page.get_by_role('menuitem', name='CPU of All Updates of This View').click()
    expect(page.locator('#pane-tab-cpu')).to_have_attribute('aria-selected', 'true')
    assert 'c=view' in page.url
    wait_tree(page)
    count = view_count(server, trace_id, VIEW)
    expect(page.get_by_test_id('cpu-total')).to_contain_text(f'{count:,} updates')
    expect(page.locator('#detail-pane .pane-scope')).to_contain_text(f'Every update of {VIEW}')
    rows = shown_rows(page)
    # Rooted at the body frame (not at threads / dyld start), heaviest path open below it.
    assert rows[0] == [1, f'{VIEW}.body.getter'], rows[:3]
    assert children_of(rows, f'{VIEW}.body.getter')[0] == f'{VIEW}.distance.getter'
    below = children_of(rows, f'{VIEW}.distance.getter')
    assert below[:2] == ['NumberFormatter.init()', 'MeasurementFormatter.string(from:)'], below
    # Hundreds of samples: no warning.
    expect(page.locator('.cpu-warning')).to_have_count(0)
    shot(page, 'cpu-view-landmarks-scroll-slow')

    # The tree is the API's: the same totals.
    tree = api(server, trace_id, 'calltree', view=VIEW, module=module_of(server, trace_id, VIEW))
    assert tree['updateCount'] == count and tree['roots'][0]['name'] == f'{VIEW}.body.getter'
    expect(page.get_by_test_id('cpu-total')).to_contain_text(f"{tree['sampleCount']:,} samples")

    # Hide system libraries: only app frames (and the two named placeholders) remain; the formatter
    # time is charged to distance.getter, the heaviest frame below the body.
    page.get_by_label('Hide system libraries').check()
    expect(page.locator('.cpu-row[data-name="NumberFormatter.init()"]')).to_have_count(0)
    rows = shown_rows(page)
    system = page.locator('.cpu-row:not(.app-code)').evaluate_all('rows => rows.map(r => r.dataset.name)')
    assert all(n.startswith('Outside ') or n == 'System libraries' for n in system), system
    assert children_of(rows, f'{VIEW}.body.getter')[0] == f'{VIEW}.distance.getter'
    page.get_by_label('Hide system libraries').uncheck()

    # Charge to caller: distance.getter's time goes to the body; the formatters move up one level.
    page.locator(f'.cpu-row[data-name="{VIEW}.distance.getter"]').click()
    page.get_by_role('button', name='Charge to Caller').click()
    expect(page.locator(f'.cpu-row[data-name="{VIEW}.distance.getter"]')).to_have_count(0)
    rows = shown_rows(page)
    assert children_of(rows, f'{VIEW}.body.getter')[0] == 'NumberFormatter.init()', rows[:4]
    expect(page.locator('.cpu-charged')).to_contain_text(f'{VIEW}.distance.getter')
    page.get_by_role('button', name=f'Show {VIEW}.distance.getter again').click()
    expect(page.locator(f'.cpu-row[data-name="{VIEW}.distance.getter"]')).to_have_count(1)


def test_cpu_of_all_updates_from_the_updates_list(page, server, sample_id):
    trace_id = sample_id(SLOW)
    module = module_of(server, trace_id, VIEW)
    page.goto(f'{server}/traces/{trace_id}?v=2&p=updates&pv={urllib.parse.quote(module + ":" + VIEW)}')
    expect(page.locator('.updates-row[data-id]').first).to_be_visible()
    # From a row's menu...
    first = page.locator('.updates-row[data-id]').first
    first.hover()
    first.get_by_role('button').click()
    page.get_by_role('menuitem', name='CPU of All Updates of This View').click()
    wait_tree(page)
    assert shown_rows(page)[0][1] == f'{VIEW}.body.getter'
    # ...and the list's toolbar button; "Show the range instead" goes back to the plain tree.
    page.locator('#pane-tab-updates').click()
    page.get_by_role('button', name='CPU of All Updates').click()
    wait_tree(page)
    assert shown_rows(page)[0][1] == f'{VIEW}.body.getter'
    page.get_by_role('button', name='Show the range instead').click()
    expect(page.locator('.cpu-row').first).to_have_attribute('data-name', 'Main Thread')
    assert 'c=view' not in page.url


def heaviest_path_ties(tree):
    """Ties met walking the heaviest path from the first root, as the pane walks it."""
    node, ties = tree['roots'][0], []
    while node['children']:
        best = max(c['total'] for c in node['children'])
        tied = [c['name'] for c in node['children'] if c['total'] == best]
        if len(tied) > 1:
            ties.append(tied)
        node = next(c for c in node['children'] if c['total'] == best)
    return ties


def test_one_short_update_warns_and_names_the_tie(page, server, sample_id, shot):
    """A 1 ms-sampled update of a few ms has a handful of samples: the pane says it is too few to
    trust, and where the heaviest path had to pick between equal rows it says which and why."""
    trace_id = sample_id(SLOW)
    module = module_of(server, trace_id, VIEW)
    updates = api(server, trace_id, 'updates', view=VIEW, module=module, sort='start', limit=200)['updates']
    for u in updates:
        tree = api(server, trace_id, 'calltree', start=u['start'], end=u['start'] + u['duration'])
        ties = heaviest_path_ties(tree) if tree['roots'] else []
        if ties and tree['sampleCount'] >= 2:
            break
    else:
        raise AssertionError('no update of the sample has a tie on its heaviest path')
    page.goto(f"{server}/traces/{trace_id}?v=2&p=cpu&r={u['start']},{u['start'] + u['duration']}")
    wait_tree(page)
    warning = page.locator('.cpu-warning')
    expect(warning).to_contain_text(f"Only {tree['sampleCount']} samples")
    expect(warning).to_contain_text('too few to trust')
    note = page.locator('.cpu-tie-note')
    expect(note).to_contain_text('Tie')
    for name in ties[0]:
        expect(note).to_contain_text(name)
    # The tied rows are marked where they are drawn.
    assert page.locator('.cpu-row.cpu-tie .cpu-tie-mark').count() >= len(ties[0])
    shot(page, 'cpu-one-update-tie-warning')
