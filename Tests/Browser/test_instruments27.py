"""Instruments 27's layout updates, downstream cost and hang risks (issue 43) in Chromium against a
real `tracesvc serve`: an export of an app called Trips in 27.0's shape. The 2.4 ms LazyVStack layout
is red in Other Long Updates with its own time; TripCard's update made 8 updates run, 9.6 ms; the
320 ms hang names the file read that held it, at TripStore.swift:57."""

import io
import tarfile

from playwright.sync_api import expect

from conftest import REPO

FIXTURES = REPO / 'Tests' / 'TraceFormatsTests' / 'Fixtures' / 'xctrace-27'
TABLES = ['toc', 'swiftui-updates', 'SwiftUILayoutUpdates2', 'swiftui-layout-updates', 'time-profile', 'potential-hangs', 'hang-risks']


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
