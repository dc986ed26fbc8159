"""Cause & Effect readability (issue 17 items 4 and 8) in Chromium against a real `tracesvc serve`:
edge labels legible and never overlapping a node or another label (measured from the drawn boxes,
getBBox through the screen transform) on the favorites sample and on a big generated trace; parallel
edges drawn once; a legend that does not look like controls; the user's gesture in blue; a view's
graph with its notified-not-run appearances; two nodes of one update lighting up together."""

import json
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import expect

FAV_SLOW = 'landmarks-favorites-slow'
ENVIRONMENT = 'environment-color-scheme'
MIN_LABEL_PX = 11


def api(server, trace_id, path, **params):
    query = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
    with urllib.request.urlopen(f'{server}/api/traces/{trace_id}/{path}' + (f'?{query}' if query else ''), timeout=300) as response:
        return json.load(response)


def wait_graph(page):
    page.wait_for_selector('.cg-root:not([aria-busy]) .cg-node', state='attached', timeout=120_000)
    # Labels are placed on the next animation frame after the transform is set.
    page.evaluate('() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))')


def drawn_geometry(page):
    """Screen boxes of every drawn edge label (with its on-screen font size) and of every node box."""
    return page.evaluate("""() => {
        const screenBox = (el) => {
            const b = el.getBBox();
            const m = el.getScreenCTM();
            const a = new DOMPoint(b.x, b.y).matrixTransform(m);
            const c = new DOMPoint(b.x + b.width, b.y + b.height).matrixTransform(m);
            return {x: Math.min(a.x, c.x), y: Math.min(a.y, c.y), right: Math.max(a.x, c.x), bottom: Math.max(a.y, c.y)};
        };
        const stage = document.querySelector('.cg-stage').getBoundingClientRect();
        const onStage = (b) => b.right > stage.left && b.x < stage.right && b.bottom > stage.top && b.y < stage.bottom;
        const labels = [...document.querySelectorAll('.cg-edge-label')]
            .filter(t => getComputedStyle(t).display !== 'none')
            .map(t => ({text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a, ...screenBox(t)}))
            .filter(onStage);
        const nodes = [...document.querySelectorAll('.cg-node .cg-box')].map(r => ({id: r.parentNode.dataset.id, ...screenBox(r)}));
        return {labels, nodes, edges: document.querySelectorAll('.cg-edge').length};
    }""")


def overlap(a, b, tolerance=0.5):
    return (a['x'] < b['right'] - tolerance and b['x'] < a['right'] - tolerance
            and a['y'] < b['bottom'] - tolerance and b['y'] < a['bottom'] - tolerance)


def assert_labels_readable(geometry, at_least=1):
    labels, nodes = geometry['labels'], geometry['nodes']
    assert len(labels) >= at_least, f'{len(labels)} labels drawn on the stage'
    small = [(l['text'], round(l['px'], 1)) for l in labels if l['px'] < MIN_LABEL_PX]
    assert not small, f'labels under {MIN_LABEL_PX} px on screen: {small[:5]}'
    crossing = [(a['text'], b['text']) for i, a in enumerate(labels) for b in labels[i + 1:] if overlap(a, b)]
    assert not crossing, f'{len(crossing)} pairs of labels overlap, e.g. {crossing[:5]}'
    on_nodes = [(l['text'], n['id']) for l in labels for n in nodes if overlap(l, n)]
    assert not on_nodes, f'{len(on_nodes)} labels overlap nodes, e.g. {on_nodes[:5]}'


def first_update(server, trace_id, view, cause_prefix):
    module = next(m['name'] for p in api(server, trace_id, 'summary')['processes'] for m in p['modules']
                  if any(v['name'] == view for v in m['views']))
    updates = api(server, trace_id, 'updates', view=view, module=module, sort='start', order='asc', limit=500)['updates']
    return module, next(u['id'] for u in updates if u['cause'].startswith(cause_prefix))


def open_update_graph(page, server, sample_id, sample, view, cause_prefix):
    """The graph of the first update of `view` whose cause starts with `cause_prefix`; (trace id, module)."""
    trace_id = sample_id(sample)
    module, update = first_update(server, trace_id, view, cause_prefix)
    page.goto(f'{server}/traces/{trace_id}/updates/{update}?v=2&p=graph')
    wait_graph(page)
    return trace_id, module


def test_favorites_edge_counts_are_legible_and_never_overlap(page, server, sample_id, shot):
    # One tap's graph: one @Observable change fanning out to the twelve visible rows.
    trace_id, module = open_update_graph(page, server, sample_id, FAV_SLOW, 'LandmarkListItemView', '@Observable')
    assert_labels_readable(drawn_geometry(page), at_least=4)
    shot(page, 'graph-readable-favorites-update')
    # The view's merged graph: the number the story is about, "update ×24", is drawn and legible.
    page.goto(f'{server}/traces/{trace_id}?v=2&p=graph&g=view&pv={urllib.parse.quote(module + ":LandmarkListItemView")}')
    wait_graph(page)
    geometry = drawn_geometry(page)
    assert_labels_readable(geometry, at_least=3)
    assert any('\u00d724' in l['text'] for l in geometry['labels']), [l['text'] for l in geometry['labels']]
    page.get_by_role('button', name='Fit graph to pane').click()
    page.evaluate('() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))')
    assert_labels_readable(drawn_geometry(page), at_least=1)
    shot(page, 'graph-readable-favorites-view')


@pytest.fixture(scope='module')
def big_trace_id(generated_trace, server_control):
    return server_control.upload(generated_trace('graph-big', updates=200_000, seed=11), name='graph-big.json')['id']


def test_big_generated_view_graph_stays_readable(page, server, big_trace_id, shot):
    """A view of a 200k-update synthetic trace (hundreds of merged causes): labels never stack, at
    the first view, fitted, and zoomed in; parallel edges are one drawn edge each."""
    trace_id = big_trace_id
    graph = api(server, trace_id, 'graph', view='FeedItemView3', module='Synthetic')
    pairs = {(e['from'], e['to']) for e in graph['edges']}
    page.goto(f'{server}/traces/{trace_id}?v=2&p=graph&g=view&pv=Synthetic:FeedItemView3')
    wait_graph(page)
    geometry = drawn_geometry(page)
    assert geometry['edges'] == len(pairs), 'one drawn edge per (cause, effect) pair'
    assert_labels_readable(geometry, at_least=1)
    shot(page, 'graph-readable-big-initial')
    page.get_by_role('button', name='Fit graph to pane').click()
    page.evaluate('() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))')
    assert_labels_readable(drawn_geometry(page), at_least=0)
    shot(page, 'graph-readable-big-fit')
    for _ in range(3):
        page.get_by_role('button', name='Zoom in').click()
    page.evaluate('() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))')
    assert_labels_readable(drawn_geometry(page), at_least=0)


def test_opening_other_causes_shows_the_causes_beside_their_view(page, server, big_trace_id, shot):
    """Issue 41, item 6: opening "+ 178 other causes" drew most of them among the effects (they
    are the view's effects too), and the view stayed where it was, the view and what opened off
    screen. The opened causes are left of the view, in view beside it once it opens."""
    trace_id = big_trace_id
    graph = api(server, trace_id, 'graph', view='FeedItemView3', module='Synthetic')
    fold = next(n for n in graph['nodes'] if n.get('collapsed') and 'other causes' in n['title'])
    focus = next(n['id'] for n in graph['nodes'] if n['focus'])
    opened = api(server, trace_id, 'graph', view='FeedItemView3', module='Synthetic', expand=fold['id'])
    at = {n['id']: n for n in opened['nodes']}
    members = [m['id'] for m in fold['collapsed']['members']]
    assert all(at[m]['x'] < at[focus]['x'] for m in members), 'every opened cause left of the view'
    members = sorted({e['from'] for e in opened['edges'] if e['to'] == focus})
    page.goto(f'{server}/traces/{trace_id}?v=2&p=graph&g=view&pv=Synthetic:FeedItemView3')
    wait_graph(page)
    page.locator(f'.cg-node[data-id="{fold["id"]}"]').click()
    page.wait_for_function("(n) => document.querySelectorAll('.cg-node').length > n", arg=len(graph['nodes']), timeout=30_000)
    page.wait_for_selector('.cg-root:not([aria-busy])')
    page.evaluate('() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))')
    assert f'e={fold["id"]}' in page.url
    seen = page.evaluate("""([focus, members]) => {
        const stage = document.querySelector('.cg-stage').getBoundingClientRect();
        const box = (id) => document.querySelector(`.cg-node[data-id="${id}"] .cg-box`)?.getBoundingClientRect();
        const inside = (b) => b && b.left >= stage.left && b.right <= stage.right && b.top >= stage.top && b.bottom <= stage.bottom;
        const f = box(focus);
        const shown = members.map(box).filter(inside);
        return { focus: inside(f), members: shown.length, causes: shown.filter((b) => b.right < f.left).length };
    }""", [focus, members])
    assert seen['focus'] and seen['causes'] >= 3, seen
    shot(page, 'graph-readable-big-causes-opened')


def test_legend_is_a_key_not_controls(page, server, sample_id):
    open_update_graph(page, server, sample_id, FAV_SLOW, 'LandmarkListItemView', '@Observable')
    items = page.locator('.cg-legend > span')
    expect(items).to_have_count(3)
    for item in items.all():
        look = item.evaluate("""e => {
            const s = getComputedStyle(e, '::before');
            return {cursor: getComputedStyle(e).cursor, w: parseFloat(s.width), h: parseFloat(s.height),
                    role: e.getAttribute('role'), tab: e.tabIndex, input: !!e.querySelector('input')};
        }""")
        # Not a checkbox: wide node-shaped swatch, no role / tab stop / input, plain cursor.
        assert look['w'] >= 1.8 * look['h'], look
        assert look['cursor'] in ('default', 'auto') and look['role'] is None and look['tab'] < 0 and not look['input'], look


def test_gesture_of_a_user_action_is_blue(page, server, sample_id):
    open_update_graph(page, server, sample_id, FAV_SLOW, 'LandmarkListItemView', '@Observable')
    stroke = lambda selector: page.locator(selector).first.evaluate('e => getComputedStyle(e).stroke')
    accent = page.evaluate("""() => { const p = document.createElement('div'); p.style.color = 'var(--accent)';
        document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; }""")
    assert stroke('.cg-node[data-kind=gesture] .cg-box') == accent
    assert stroke('.cg-node[data-kind=observable] .cg-box') == accent


def test_view_graph_includes_notified_not_run_appearances(page, server, sample_id, shot):
    """Summary -> View2 -> Show Cause & Effect Graph: not only its creation at launch, also the two
    color scheme changes that notified it (its body did not run)."""
    trace_id = sample_id(ENVIRONMENT)
    page.goto(f'{server}/traces/{trace_id}?v=2&p=summary')
    page.locator('#detail-pane tr[data-level=view][data-view="View2"]').first.click(button='right')
    page.get_by_role('menuitem', name='Show Cause & Effect Graph').click()
    wait_graph(page)
    kinds = page.locator('.cg-node').evaluate_all('ns => ns.map(n => n.dataset.kind)')
    assert 'environment-writer' in kinds and 'external-environment' in kinds, kinds
    view2 = page.locator('.cg-node[data-kind=view-body]', has_text='View2')
    expect(view2).to_have_count(1)
    expect(view2.locator('.cg-subtitle')).to_have_text('body ran 1 of 3')
    into = page.locator(f'.cg-edge[data-to="{view2.get_attribute("data-id")}"]').evaluate_all('es => es.map(e => e.textContent)')
    assert any(t.startswith('update') for t in into) and any(t.startswith('creation') for t in into), into
    shot(page, 'graph-view2-notified')


def test_two_nodes_of_one_update_light_up_together(page, server, sample_id, shot):
    """The environment sample draws one External Environment change twice (the talk's picture):
    hovering either node highlights both."""
    open_update_graph(page, server, sample_id, ENVIRONMENT, 'View1', 'EnvironmentWriter')
    externals = page.locator('.cg-node[data-kind=external-environment]')
    expect(externals).to_have_count(2)
    key = externals.first.get_attribute('data-same-key')
    assert key and externals.nth(1).get_attribute('data-same-key') == key
    externals.nth(1).hover()
    expect(page.locator('.cg-node.cg-hover')).to_have_count(2)
    shot(page, 'graph-environment-same-update-hover')
