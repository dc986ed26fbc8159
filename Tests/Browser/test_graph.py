"""Cause & Effect graph (issue 6) in Chromium against a real `tracesvc serve` (fixtures in conftest.py):
the samples' stories, opening the graph from an update / a summary row / a shared link, hover and
selection highlights, backtraces, selecting a body on the timeline, folded fan-outs, pan / zoom / fit.
What the page draws is checked against the graph API."""

import json
import subprocess
import urllib.parse
import urllib.request

import pytest
from conftest import tracesvc_bin
from playwright.sync_api import expect

FAV_SLOW = 'landmarks-favorites-slow'
FAV_FIXED = 'landmarks-favorites-fixed'
ENVIRONMENT = 'environment-color-scheme'


@pytest.fixture(autouse=True)
def graph_errors(page):
    """Uncaught errors thrown from the graph's own modules (other areas have their own tests)."""
    errors = []
    page.on('pageerror', lambda error: errors.append(str(error)) if '/js/graph/' in (error.stack or '') else None)
    return errors


def api(server, trace_id, path, **params):
    query = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
    url = f'{server}/api/traces/{trace_id}/{path}' + (f'?{query}' if query else '')
    with urllib.request.urlopen(url) as response:
        return json.load(response)


def query_of(page):
    return urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)


def first_update(server, trace_id, view, cause_prefix, module=None):
    """The first update of `view` whose one-line cause starts with `cause_prefix`."""
    if module is None:
        module = next(m['name'] for p in api(server, trace_id, 'summary')['processes'] for m in p['modules']
                      if any(v['name'] == view for v in m['views']))
    updates = api(server, trace_id, 'updates', view=view, module=module, sort='start', order='asc', limit=500)['updates']
    return next(u['id'] for u in updates if u['cause'].startswith(cause_prefix))


def open_graph(page, server, trace_id, update=None, query=''):
    path = f'/traces/{trace_id}' + (f'/updates/{update}' if update is not None else '')
    page.goto(f'{server}{path}?v=1&p=graph{query}')
    wait_graph(page)


def wait_graph(page):
    page.wait_for_selector('.cg-root:not([aria-busy]) .cg-node', state='attached', timeout=30_000)


def drawn_nodes(page):
    """Every node as drawn: id, kind, classes, and its box on screen."""
    return page.evaluate("""() => [...document.querySelectorAll('.cg-node')].map(n => {
        const b = n.querySelector('.cg-box').getBoundingClientRect();
        return {id: n.dataset.id, kind: n.dataset.kind, classes: [...n.classList], sameKey: n.dataset.sameKey,
                label: n.getAttribute('aria-label'), x: b.x, y: b.y, right: b.right, bottom: b.bottom};
    })""")


def drawn_edges(page):
    return page.evaluate("""() => [...document.querySelectorAll('.cg-edge')].map(e => (
        {from: e.dataset.from, to: e.dataset.to, label: e.querySelector('.cg-edge-label').textContent}))""")


def assert_causes_left_of_effects(nodes, edges):
    box = {n['id']: n for n in nodes}
    for edge in edges:
        assert box[edge['from']]['right'] < box[edge['to']]['x'], edge


def assert_no_overlap(nodes):
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            apart = a['right'] <= b['x'] or b['right'] <= a['x'] or a['bottom'] <= b['y'] or b['bottom'] <= a['y']
            assert apart, (a['id'], b['id'])


# --- Crafted traces (native format) for what the samples do not have ------------------------------

def crafted_trace(items):
    """Tap -> @Observable Store.items -> `items` ItemView bodies; @State count -> ParentView, whose body
    appears twice (once as an effect, once as the cause of ChildView's creation)."""
    updates = [[1_000, 200_000, 'view-body', 'Demo', 'ParentView', 'ParentView.body', 'View Body', 0, 0, 0, 'none']]
    for i in range(items):
        updates.append([2_000_000 + i * 10_000, 5_000, 'view-body', 'Demo', 'ItemView', 'ItemView.body', 'View Body', 0, 0, 0, 'none'])
    updates.append([9_000_000, 50_000, 'view-body', 'Demo', 'ChildView', 'ChildView.body', 'View Body', 0, 0, 0, 'none'])
    child_update = len(updates) - 1
    nodes = [
        ['state', '@State count', 'ParentView', True, 1, 900, None],
        ['view-body', 'ParentView', '', True, 2, 1_000, 0],
        ['view-body', 'ParentView', '', True, 2, 1_000, 0],
        ['view-creation', 'View Creation / Reuse', '', False, 3, 8_000_000, None],
        ['view-body', 'ChildView', '', True, 4, 9_000_000, child_update],
        ['gesture', 'Tap Gesture', '', False, 5, 1_900_000, None],
        ['observable', '@Observable Store.items', 'Store', True, 6, 1_950_000, None],
    ]
    edges = [[0, 1, 'update', 'count', 1_000, 0], [2, 3, 'creation', '', 8_000_000, 0], [3, 4, 'creation', '', 9_000_000, 0],
             [5, 6, 'update', '', 1_950_000, 0]]
    for i in range(items):
        nodes.append(['view-body', 'ItemView', '', True, 100 + i, 2_000_000 + i * 10_000, 1 + i])
        edges.append([6, len(nodes) - 1, 'update', 'items', 2_000_000 + i * 10_000, 0])
    end = 20_000_000
    return {
        'format': 'tracesvc-trace', 'version': 1,
        'metadata': {'app': 'Demo', 'device': 'iPhone', 'osVersion': '26.0', 'refreshRate': 120, 'recordedAt': None,
                     'start': 0, 'end': end, 'importNotes': []},
        'processes': [[7, 'Demo']], 'threads': [[70, 'Main Thread', 0, True]],
        'updateGroups': [[500, 15_000_000, 'Transaction', 0]],
        'updates': updates, 'nodes': nodes, 'edges': edges,
        'frames': [['main', 'Demo', True], ['Store.add(_:)', 'Demo', True], ['ObservationRegistrar.withMutation', 'libswiftObservation.dylib', False]],
        'stacks': [[None, 0], [0, 1], [1, 2]],
        'stateChanges': [[1_950_000, 6, 'Store.items appended', 2, 0]],
        'samples': [], 'hitches': [], 'hangs': [],
    }


@pytest.fixture(scope='module')
def crafted(server_control, tmp_path_factory):
    """crafted(items) -> trace id of an uploaded crafted trace."""
    directory = tmp_path_factory.mktemp('graph-traces')
    ids = {}

    def make(items):
        if items not in ids:
            path = directory / f'graph-fanout-{items}.json'
            path.write_text(json.dumps(crafted_trace(items)))
            ids[items] = server_control.upload(path)['id']
        return ids[items]
    return make


# --- The samples' stories -------------------------------------------------------------------------

def test_favorites_slow_reads_gesture_observable_every_visible_row(page, server, sample_id, shot, graph_errors):
    trace_id = sample_id(FAV_SLOW)
    update = first_update(server, trace_id, 'LandmarkListItemView', '@Observable')
    open_graph(page, server, trace_id, update)
    shot(page, 'graph-favorites-slow')
    graph = api(server, trace_id, f'updates/{update}/graph')
    nodes = drawn_nodes(page)
    assert sorted(n['id'] for n in nodes) == sorted(n['id'] for n in graph['nodes'])
    kinds = [n['kind'] for n in nodes]
    assert kinds.count('gesture') == 1 and kinds.count('observable') == 1
    bodies = [n for n in nodes if n['kind'] == 'view-body']
    assert len(bodies) == 12, 'every visible row body is shown, none folded'
    assert all('cg-app' in n['classes'] and 'cg-dimmed' not in n['classes'] for n in bodies)
    gesture = next(n for n in nodes if n['kind'] == 'gesture')
    observable = next(n for n in nodes if n['kind'] == 'observable')
    # Blue: the app's code and the user's own action (the tap), as Instruments draws them.
    assert 'cg-app' in gesture['classes'] and 'your action' in gesture['label'] and 'cg-app' in observable['classes']
    focus = [n for n in nodes if 'cg-focus' in n['classes']]
    assert [n['id'] for n in focus] == [n['id'] for n in graph['nodes'] if n['updates'] == [update]]
    edges = drawn_edges(page)
    assert sum(1 for e in edges if e['from'] == observable['id']) == 12
    assert all(e['label'] == 'update' for e in edges)
    assert gesture['right'] < observable['x'] and all(observable['right'] < b['x'] for b in bodies)
    assert_causes_left_of_effects(nodes, edges)
    assert_no_overlap(nodes)
    assert graph_errors == []


def test_favorites_fixed_updates_one_row_per_tap(page, server, sample_id, shot):
    trace_id = sample_id(FAV_FIXED)
    update = first_update(server, trace_id, 'LandmarkListItemView', '@Observable')
    open_graph(page, server, trace_id, update)
    shot(page, 'graph-favorites-fixed')
    nodes = drawn_nodes(page)
    assert [n['kind'] for n in nodes].count('view-body') == 1
    assert {n['kind'] for n in nodes} == {'gesture', 'observable', 'view-body'}
    # The view's merged graph over the whole trace: both taps, one row each.
    module = next(m['name'] for p in api(server, trace_id, 'summary')['processes'] for m in p['modules']
                  if any(v['name'] == 'LandmarkListItemView' for v in m['views']))
    view_graph = api(server, trace_id, 'graph', view='LandmarkListItemView', module=module)
    observable = next(n for n in view_graph['nodes'] if n['kind'] == 'observable' and 'LandmarkViewModel' in n['title'])
    assert next(e for e in view_graph['edges'] if e['from'] == observable['id'])['count'] == 2


def test_environment_change_runs_view1_and_dims_view2(page, server, sample_id, shot):
    trace_id = sample_id(ENVIRONMENT)
    update = first_update(server, trace_id, 'View1', 'EnvironmentWriter')
    open_graph(page, server, trace_id, update)
    shot(page, 'graph-environment-color-scheme')
    nodes = drawn_nodes(page)
    by_label = {n['label'].split(', ')[1]: n for n in nodes}
    assert 'External Environment' in by_label
    assert 'cg-dimmed' not in by_label['View1']['classes'] and 'cg-focus' in by_label['View1']['classes']
    assert 'cg-dimmed' in by_label['View2']['classes']
    assert 'did not run' in by_label['View2']['label']
    opacity = page.locator(f'.cg-node[data-id="{by_label["View2"]["id"]}"]').evaluate('e => getComputedStyle(e).opacity')
    assert float(opacity) < 0.6
    assert by_label['External Environment']['right'] < by_label['View1']['x']
    assert_causes_left_of_effects(nodes, drawn_edges(page))


# --- Opening the graph -----------------------------------------------------------------------------

def test_opened_from_the_selected_update(page, server, sample_id):
    trace_id = sample_id(FAV_SLOW)
    update = first_update(server, trace_id, 'LandmarkListItemView', '@Observable')
    page.goto(f'{server}/traces/{trace_id}/updates/{update}?v=1')
    page.get_by_role('button', name='Show cause and effect graph of this update').click()
    wait_graph(page)
    expect(page.locator('#pane-tab-graph')).to_have_attribute('aria-selected', 'true')
    assert query_of(page)['p'] == ['graph']
    expect(page.locator('.cg-heading')).to_contain_text(f'#{update}')


def test_view_graph_from_summary_merges_updates_with_counts(page, server, sample_id, shot):
    trace_id = sample_id(FAV_SLOW)
    page.goto(f'{server}/traces/{trace_id}?v=1')
    row = page.locator('#detail-pane tr[data-level=view][data-view="LandmarkListItemView"]').first
    row.click(button='right')
    page.get_by_role('menuitem', name='Show Cause & Effect Graph').click()
    wait_graph(page)
    shot(page, 'graph-view-merged')
    edges = drawn_edges(page)
    nodes = {n['id']: n for n in drawn_nodes(page)}
    into_rows = [e for e in edges if nodes[e['from']]['kind'] == 'observable' and 'favoritesCollection' in nodes[e['from']]['label']]
    assert into_rows and into_rows[0]['label'] == 'update \u00d724', 'two taps x twelve rows, merged into one edge'
    assert 'cg-focus' in nodes[into_rows[0]['to']]['classes']

    # With an inspection range around the first tap only, the same edge counts 12.
    module = query_of(page)['pv'][0].split(':')[0]
    first_tap = api(server, trace_id, 'updates', view='LandmarkListItemView', module=module, sort='start', order='asc', limit=500)['updates']
    tapped = [u for u in first_tap if u['cause'].startswith('@Observable')][:12]
    start, end = tapped[0]['start'], tapped[-1]['start'] + tapped[-1]['duration']
    page.goto(f'{server}/traces/{trace_id}?v=1&p=graph&pv={module}:LandmarkListItemView&r={start},{end}')
    wait_graph(page)
    expect(page.locator('.cg-edge-label', has_text='update \u00d712')).to_have_count(1)
    expect(page.locator('.cg-heading')).to_contain_text('inspection range')


def test_shared_link_restores_the_selected_node(page, server, sample_id, new_context):
    trace_id = sample_id(FAV_SLOW)
    update = first_update(server, trace_id, 'LandmarkListItemView', '@Observable')
    open_graph(page, server, trace_id, update)
    observable = page.locator('.cg-node[data-kind=observable]')
    observable.click()
    assert query_of(page)['n'] == [observable.get_attribute('data-id')]
    link = page.url

    other = new_context().new_page()
    other.goto(link)
    wait_graph(other)
    selected = other.locator('.cg-node.cg-selected')
    expect(selected).to_have_count(1)
    assert selected.get_attribute('data-id') == observable.get_attribute('data-id')
    expect(other.locator('.cg-info-title')).to_have_text('@Observable ModelData.favoritesCollection')


# --- Interactions ----------------------------------------------------------------------------------

def test_hover_highlights_every_appearance_of_the_same_update(page, server, crafted, shot):
    trace_id = crafted(8)
    open_graph(page, server, trace_id, 0)
    parents = page.locator('.cg-node[data-same-key="u0"]')
    expect(parents).to_have_count(2)
    parents.first.hover()
    expect(page.locator('.cg-node.cg-hover')).to_have_count(2)
    shot(page, 'graph-hover-same-update')
    page.locator('.cg-node[data-kind=state]').hover()
    expect(page.locator('.cg-node.cg-hover')).to_have_count(1)
    # Selecting one appearance marks both.
    parents.nth(1).click()
    expect(page.locator('.cg-node.cg-same')).to_have_count(2)


def test_selecting_an_observable_change_shows_where_it_was_written(page, server, sample_id, shot):
    trace_id = sample_id(FAV_SLOW)
    update = first_update(server, trace_id, 'LandmarkListItemView', '@Observable')
    open_graph(page, server, trace_id, update)
    page.locator('.cg-node[data-kind=observable]').click()
    info = page.locator('.cg-info')
    expect(info).to_be_visible()
    expect(info.locator('h4', has_text='Where the value was written')).to_be_visible()
    graph = api(server, trace_id, f'updates/{update}/graph')
    backtrace = next(n for n in graph['nodes'] if n['kind'] == 'observable')['backtrace']
    assert backtrace, 'the sample records the setter stack'
    expect(info.locator('.cg-frames li')).to_have_count(len(backtrace))
    expect(info.locator('.cg-frames li').first.locator('.cg-frame-name')).to_have_text(backtrace[0]['name'])
    app_frames = sum(1 for f in backtrace if f['isAppCode'])
    expect(info.locator('.cg-frames li.cg-frame-app')).to_have_count(app_frames)
    shot(page, 'graph-observable-backtrace')
    # Esc and the close button hide the card.
    info.get_by_role('button', name='Close node details').click()
    expect(info).to_be_hidden()


def test_selecting_a_body_selects_its_update_on_the_timeline(page, server, sample_id):
    trace_id = sample_id(FAV_SLOW)
    update = first_update(server, trace_id, 'LandmarkListItemView', '@Observable')
    open_graph(page, server, trace_id, update)
    graph = api(server, trace_id, f'updates/{update}/graph')
    sibling = next(n for n in graph['nodes'] if n['kind'] == 'view-body' and not n['focus'])
    page.locator(f'.cg-node[data-id="{sibling["id"]}"]').click()
    page.wait_for_url(f'**/updates/{sibling["updates"][0]}?**')
    # The graph keeps its subject (no re-centring); the clicked node is selected, in the URL too.
    expect(page.locator('.cg-heading')).to_contain_text(f'#{update}')
    selected = page.locator('.cg-node.cg-selected')
    expect(selected).to_have_count(1)
    assert selected.get_attribute('data-id') == sibling['id']
    assert query_of(page)['n'] == [sibling['id']]
    # The details panel shows the clicked update.
    expect(page.locator('#update-details')).to_contain_text(str(sibling['updates'][0]))
    # A shared link of this view shows what the sender saw: the same graph (pinned in g=), with the
    # clicked node selected, although the URL's update is the clicked one.
    assert query_of(page)['g'] == [f'u{update}']
    page.goto(page.url)
    wait_graph(page)
    expect(page.locator('.cg-heading')).to_contain_text(f'#{update}')
    expect(page.locator('.cg-node.cg-selected')).to_have_attribute('data-id', sibling['id'])
    expect(page.locator('#update-details')).to_contain_text(str(sibling['updates'][0]))


def test_large_fan_out_is_folded_and_expands_on_click(page, server, crafted, shot):
    trace_id = crafted(40)
    item_update = 10
    open_graph(page, server, trace_id, item_update)
    group = page.locator('.cg-node.cg-group')
    expect(group).to_have_count(1)
    expect(group.locator('.cg-title')).to_contain_text('+ 35 more ItemView')
    group_key = group.get_attribute('data-id')
    expect(page.locator('.cg-node[data-kind=view-body]:not(.cg-group)')).to_have_count(5)
    shot(page, 'graph-fanout-folded')
    group.click()
    expect(page.locator('.cg-node.cg-group')).to_have_count(0)
    expect(page.locator('.cg-node[data-kind=view-body]')).to_have_count(40)
    assert query_of(page)['e'] == [group_key], 'the opened group is part of the view state'
    # Back folds it again; forward opens it again.
    page.go_back()
    expect(page.locator('.cg-node.cg-group')).to_have_count(1)
    page.go_forward()
    expect(page.locator('.cg-node.cg-group')).to_have_count(0)
    nodes = drawn_nodes(page)
    assert_no_overlap(nodes)
    assert_causes_left_of_effects(nodes, drawn_edges(page))
    shot(page, 'graph-fanout-expanded')
    page.get_by_role('button', name='Fold expanded groups again').click()
    expect(page.locator('.cg-node.cg-group')).to_have_count(1)


def test_five_hundred_effects_stay_readable_and_interactive(page, server, crafted, shot, graph_errors):
    trace_id = crafted(520)
    open_graph(page, server, trace_id, 1)
    assert len(drawn_nodes(page)) == 8  # tap, change, 5 rows (the focus among them), one group of 515
    page.locator('.cg-node.cg-group').click()
    expect(page.locator('.cg-node[data-kind=view-body]')).to_have_count(520)
    # Still interactive: hover and select respond at once.
    page.locator('.cg-node[data-kind=observable]').click()
    expect(page.locator('.cg-edge.cg-edge-active')).to_have_count(521)
    page.get_by_role('button', name='Fit graph to pane').click()
    shot(page, 'graph-520-expanded-fit')
    assert graph_errors == []


def test_pan_zoom_and_fit(page, server, sample_id):
    trace_id = sample_id(FAV_SLOW)
    update = first_update(server, trace_id, 'LandmarkListItemView', '@Observable')
    open_graph(page, server, trace_id, update)
    canvas = page.locator('.cg-canvas')
    page.get_by_role('button', name='Fit graph to pane').click()
    fit_scale = float(canvas.get_attribute('data-scale'))
    stage = page.locator('.cg-stage').bounding_box()
    cx, cy = stage['x'] + stage['width'] / 2, stage['y'] + stage['height'] / 2
    page.mouse.move(cx, cy)
    page.mouse.wheel(0, -400)
    expect(canvas).not_to_have_attribute('data-scale', f'{fit_scale:.3f}')
    zoomed = float(canvas.get_attribute('data-scale'))
    assert zoomed > fit_scale

    gesture = page.locator('.cg-node[data-kind=gesture] .cg-box')
    before = gesture.bounding_box()
    page.mouse.move(stage['x'] + 20, stage['y'] + 20)
    page.mouse.down()
    page.mouse.move(stage['x'] + 120, stage['y'] + 70, steps=5)
    page.mouse.up()
    after = gesture.bounding_box()
    assert abs(after['x'] - before['x'] - 100) < 2 and abs(after['y'] - before['y'] - 50) < 2
    assert 'n' not in query_of(page), 'a drag is not a click'

    page.get_by_role('button', name='Zoom out').click()
    assert float(canvas.get_attribute('data-scale')) == pytest.approx(zoomed * 0.8, rel=1e-2)
    page.get_by_role('button', name='Fit graph to pane').click()
    assert float(canvas.get_attribute('data-scale')) == pytest.approx(fit_scale, rel=1e-3)
    # Every node is inside the stage after Fit.
    for n in drawn_nodes(page):
        assert n['x'] >= stage['x'] - 1 and n['right'] <= stage['x'] + stage['width'] + 1
        assert n['y'] >= stage['y'] - 1 and n['bottom'] <= stage['y'] + stage['height'] + 1


def test_keyboard_selects_nodes(page, server, sample_id):
    trace_id = sample_id(ENVIRONMENT)
    update = first_update(server, trace_id, 'View1', 'EnvironmentWriter')
    open_graph(page, server, trace_id, update)
    node = page.locator('.cg-node[data-kind=external-environment]').first
    node.focus()
    page.keyboard.press('Enter')
    expect(node).to_have_attribute('aria-pressed', 'true')
    expect(page.locator('.cg-info-title')).to_have_text('External Environment')


def test_the_graph_refits_when_the_node_card_opens_and_closes(new_context, server, server_control, tmp_path, shot):
    """Issue 41, item 6: the card beside the stage narrowed it and cut the graph that had been
    seen whole (its causes off the left edge). Another app: Pantry's Add to Cart chain, on a
    window where the fitted graph fills the stage's width."""
    page = new_context(width=1440, height=900).new_page()
    path = tmp_path / "pantry-slow-5.json"
    subprocess.run([tracesvc_bin(), "generate", "--scenario", "pantry-slow", "--seed", "5", "--output", str(path)], check=True, capture_output=True)
    trace_id = server_control.upload(path, name=path.name)["id"]
    finding = next(f for f in api(server, trace_id, 'findings')['findings'] if f['kind'] == 'long-body')
    open_graph(page, server, trace_id, finding['evidence']['representativeUpdate'])
    page.wait_for_timeout(300)

    def seen():
        return page.evaluate("""() => {
            const stage = document.querySelector('.cg-stage').getBoundingClientRect();
            const info = document.querySelector('.cg-info');
            const card = info.hidden ? null : info.getBoundingClientRect();
            const boxes = [...document.querySelectorAll('.cg-node')].map((n) => [n.dataset.id, n.querySelector('.cg-box').getBoundingClientRect()]);
            const inside = (b) => b.left >= stage.left - 0.5 && b.right <= stage.right + 0.5 && b.top >= stage.top - 0.5 && b.bottom <= stage.bottom + 0.5;
            const under = (b) => card && b.right > card.left && b.left < card.right && b.bottom > card.top && b.top < card.bottom;
            return { cut: boxes.filter(([, b]) => !inside(b)).map(([id]) => id), covered: boxes.filter(([, b]) => under(b)).map(([id]) => id),
                     right: boxes.reduce((best, [id, b]) => (!best || b.right > best[1] ? [id, b.right] : best), null)[0],
                     scale: Number(document.querySelector('.cg-canvas').dataset.scale) };
        }""")

    # The reader fits the graph (at 1280 px its first view is at reading scale, around the focus).
    page.get_by_role('button', name='Fit graph to pane').click()
    whole = seen()
    assert not whole['cut'], whole
    page.locator(f'.cg-node[data-id="{whole["right"]}"]').click()
    expect(page.locator('.cg-info')).to_be_visible()
    page.wait_for_timeout(300)
    opened = seen()
    assert not opened['cut'] and not opened['covered'], opened
    shot(page, 'graph-card-refit')
    page.locator('.cg-info').get_by_role('button', name='Close node details').click()
    expect(page.locator('.cg-info')).to_be_hidden()
    closed = seen()
    assert not closed['cut'] and abs(closed['scale'] - whole['scale']) < 0.01, closed
