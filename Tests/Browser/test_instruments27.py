"""Instruments 27's layout updates, downstream cost and hang risks (issue 43) in Chromium against a
real `tracesvc serve`: an export of an app called Trips in 27.0's shape. The 2.4 ms LazyVStack layout
is red in Other Long Updates with its own time; TripCard's update made 8 updates run, 9.6 ms; the
320 ms hang names the file read that held it, at TripStore.swift:57; its hang risk is a mark on the
Hang Risks lane whose details say so; the summary sorts by downstream cost and the cause graph weighs
TripCard by it."""

import io
import tarfile

from playwright.sync_api import expect

from conftest import REPO

FIXTURES = REPO / 'Tests' / 'TraceFormatsTests' / 'Fixtures' / 'xctrace-27'
TABLES = ['toc', 'swiftui-updates', 'swiftui-full-causes', 'SwiftUILayoutUpdates2', 'swiftui-layout-updates', 'time-profile', 'potential-hangs', 'hang-risks']


def trips_export() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode='w') as tar:
        for name in TABLES:
            tar.add(FIXTURES / f'{name}.xml', arcname=f'trips27/{name}.xml')
    return buffer.getvalue()


def upload(server_control):
    status, body = server_control.api('/api/traces?name=trips27.tar', 'POST', trips_export(), {'Content-Type': 'application/octet-stream'})
    assert status in (200, 201), body
    return body['trace']['id']


def update_where(server_control, trace_id, predicate):
    for uid in range(0, 12):
        status, u = server_control.api(f'/api/traces/{trace_id}/updates/{uid}')
        if status == 200 and predicate(u):
            return u
    raise AssertionError('no such update')


def test_the_layout_update_shows_its_own_time_and_the_body_its_downstream_cost(page, server_control):
    trace_id = upload(server_control)
    layout = update_where(server_control, trace_id, lambda u: u['description'].startswith('_LazyVStackLayout'))
    assert layout['kind'] == 'layout' and layout['severity'] == 'red' and layout['duration'] == 2_400_000
    assert layout['layout'] == {'selfDuration': 1_900_000, 'depth': 0, 'cached': False}
    page.goto(f'{server_control.url}/traces/{trace_id}/updates/{layout["id"]}?p=summary')
    panel = page.locator('#update-details-title').locator('xpath=..')
    expect(page.locator('#update-details-title')).to_have_text('LazyVStack', timeout=30_000)
    expect(panel).to_contain_text('2.40 ms')
    expect(panel).to_contain_text('1.90 ms (without the layouts it called)')
    expect(panel).to_contain_text('_LazyVStackLayout: sizeThatFits')

    card = update_where(server_control, trace_id, lambda u: u['view'] == 'TripCard' and u['kind'] == 'view-body')
    assert card['downstream'] == {'cost': 9_600_000, 'events': 8}
    page.goto(f'{server_control.url}/traces/{trace_id}/updates/{card["id"]}?p=summary')
    expect(page.locator('#update-details-title')).to_have_text('TripCard', timeout=30_000)
    expect(page.locator('#update-details-title').locator('xpath=..')).to_contain_text('made 8 updates run, 9.60 ms')


def test_the_hang_finding_names_the_file_read_and_its_line(page, server_control):
    trace_id = upload(server_control)
    _, answer = server_control.api(f'/api/traces/{trace_id}/findings')
    findings = answer['findings'] if isinstance(answer, dict) else answer
    hang = next(f for f in findings if f['kind'] == 'hang-explained')
    assert 'read 4.1 MB from trips.json in TripStore.load(), TripStore.swift:57' in hang['title']
    assert any(f['kind'] == 'long-layout' for f in findings)
    page.goto(f'{server_control.url}/traces/{trace_id}?v=2&p=findings')
    pane = page.locator('.pane-findings')
    expect(pane).to_contain_text('Main thread performed file I/O: read 4.1 MB from trips.json in TripStore.load(), TripStore.swift:57', timeout=30_000)
    expect(pane).to_contain_text('Long layout')
    expect(pane).to_contain_text('Hang risk')


def test_a_hang_risk_on_its_lane_opens_its_details(page, server_control, timeline):
    trace_id = upload(server_control)
    timeline.open(page, trace_id)
    # Three risks: the semaphore wait at 0.5 s, the file read at 3.05 s, the IPC at the last instant.
    assert timeline.lane(page, 'hang-risks')['marks'] == 3
    # The file read at 3.05 s, inside the 320 ms hang: click its mark.
    x, y, width, height = timeline.lane_box(page, 'hang-risks')
    start, end = timeline.window(page)
    page.mouse.click(x + (3_050_000_000 - start) / (end - start) * width, y + height / 2)
    title = page.locator('#hang-risk-details-title')
    expect(title).to_have_text('Main thread performed file I/O: read 4.1 MB from trips.json', timeout=30_000)
    panel = title.locator('xpath=..')
    expect(page.get_by_test_id('hang-risk-within')).to_have_text('Hang of 320 ms at 3.000000 s')
    expect(panel).to_contain_text('Held the app320 ms (the hang it fell in)')
    expect(page.get_by_test_id('hang-risk-frame')).to_contain_text('TripStore.load()')
    expect(page.get_by_test_id('hang-risk-frame')).to_contain_text('TripStore.swift:57')
    expect(page.get_by_test_id('hang-risk-backtrace')).to_contain_text('Data.init(contentsOf:options:)')
    assert timeline.query(page).get('hr') == '1'
    # The other risk, outside every hang, is one click away and says so.
    panel.get_by_role('button', name='Previous risk').click()
    expect(title).to_have_text('Main thread waited on a semaphore')
    expect(page.get_by_test_id('hang-risk-within')).to_have_text('Outside every recorded hang and hitch')
    expect(page.get_by_test_id('hang-risk-frame')).to_contain_text('TripStore.swift:80')


def test_the_summary_sorts_by_downstream_cost_and_the_graph_weighs_by_it(page, server_control):
    trace_id = upload(server_control)
    page.goto(f'{server_control.url}/traces/{trace_id}?p=summary')
    sort = page.get_by_role('button', name='Sort by Downstream cost (the time of the updates these made run)')
    expect(sort).to_be_visible(timeout=30_000)
    sort.click()
    views = page.locator('tr.summary-row.level-view')
    # TripCard's one body made 8 updates run (9.60 ms): first, ahead of TripListView's 600 µs.
    expect(views.first).to_have_attribute('data-view', 'TripCard')
    expect(views.first.locator('td[data-column="downstreamNs"]')).to_have_text('9.60 ms')
    expect(page.get_by_test_id('summary-total')).to_contain_text('made 9 updates run, 10.2 ms')
    sort.click()
    expect(views.first).not_to_have_attribute('data-view', 'TripCard')

    card = update_where(server_control, trace_id, lambda u: u['view'] == 'TripCard' and u['kind'] == 'view-body')
    _, graph = server_control.api(f'/api/traces/{trace_id}/updates/{card["id"]}/graph')
    node = next(n for n in graph['nodes'] if n['focus'])
    assert (node['title'], node['downstreamNs'], node['downstreamEvents']) == ('TripCard', 9_600_000, 8)
    page.goto(f'{server_control.url}/traces/{trace_id}/updates/{card["id"]}?p=graph')
    weight = page.locator(f'.cg-node[data-id="{node["id"]}"] .cg-weight')
    expect(weight).to_have_count(1, timeout=30_000)
    expect(weight.locator('title')).to_have_text('made 8 updates run, 9.60 ms')
    # The layout passes joined to the graph: TripCard's two hang off it, LazyVStack's off TripListView;
    # each node says it is a layout pass, which call and (below) which layout answered it.
    layouts = [n for n in graph['nodes'] if ' · layout' in n['title']]
    assert sorted((n['title'], n['subtitle']) for n in layouts) == [
        ('LazyVStack · layout (sizeThatFits)', '_LazyVStackLayout'),
        ('TripCard · layout (sizeThatFits)', '_FlexFrameLayout'),
        ('TripCard · layout (sizeThatFits)', '_PaddingLayout'),
    ], graph['nodes']
    assert all(e['from'] == node['id'] for e in graph['edges'] for n in layouts if e['to'] == n['id'] and n['title'].startswith('TripCard'))
    card_pass = next(n for n in layouts if n['subtitle'] == '_FlexFrameLayout')
    drawn = page.locator(f'.cg-node[data-id="{card_pass["id"]}"]')
    expect(drawn.locator('.cg-title')).to_have_text('TripCard · layout (sizeThatFits)')
    expect(drawn.locator('.cg-subtitle')).to_have_text('_FlexFrameLayout')
