"""Source locations (issue 43) in Chromium against a real `tracesvc serve`: an Instruments 27 export
of an app called Trips, whose app frames carry their file and line. Clicking a flame graph frame
shows "TripCard.body.getter — TripCard.swift:88": a link into the repository at the trace's commit
with --source-url/--source-root, else a button copying the xed command that opens the line."""

import shutil
import tempfile
import urllib.parse
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import REPO, TraceServer
from tracesvc_test import xctrace_tar

FIXTURES = REPO / 'Tests' / 'TraceFormatsTests' / 'Fixtures' / 'xctrace-27'
ROW = 18


def trips_export(folder='trips') -> bytes:
    """toc.xml and the time profile, bundled under `folder` (another folder: another trace)."""
    return xctrace_tar(FIXTURES, folder, ['time-profile'])


@pytest.fixture(scope='module')
def linked_server():
    data_dir = Path(tempfile.mkdtemp(prefix='tracesvc-source-links-'))
    server = TraceServer(data_dir, ['--source-url', 'https://github.com/org/trips/blob/{commit}/{path}#L{line}',
                                    '--source-root', '/Users/dev/Trips'])
    server.start()
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def upload(server, tags=(), folder='trips'):
    query = '&'.join(['name=trips.tar'] + [f'tag={urllib.parse.quote(t)}' for t in tags])
    status, body = server.api(f'/api/traces?{query}', 'POST', trips_export(folder), {'Content-Type': 'application/octet-stream'})
    assert status in (200, 201), body
    return body['trace']['id']


def click_frame(page, server, trace_id, name):
    page.goto(f'{server.url}/traces/{trace_id}?p=cpu&m=flame')
    canvas = page.locator('#cpu-flame-canvas[data-frames]')
    canvas.wait_for(timeout=30_000)
    page.wait_for_timeout(200)
    box = canvas.bounding_box()
    _, answer = server.api(f'/api/traces/{trace_id}/flamegraph?width={round(box["width"])}')
    frames, names = answer['frames'], answer['names']
    i = next(k for k in range(len(frames['name'])) if names[frames['name'][k]] == name)
    w0, w1 = answer['window']
    x = box['x'] + (frames['x'][i] + frames['total'][i] / 2 - w0) / (w1 - w0) * box['width']
    page.mouse.click(x, box['y'] + frames['depth'][i] * ROW + ROW / 2)
    return answer, i


def test_a_flame_graph_frame_links_its_line_at_the_traces_commit(linked_server, page):
    trace_id = upload(linked_server, ['commit:4f2a91c'])
    answer, i = click_frame(page, linked_server, trace_id, 'TripCard.body.getter')
    assert answer['sources'][answer['frames']['source'][i]] == {'path': '/Users/dev/Trips/Trips/Views/TripCard.swift', 'line': 88}
    line = page.get_by_test_id('cpu-source')
    expect(line).to_contain_text('TripCard.body.getter — TripCard.swift:88')
    link = line.get_by_test_id('source-link')
    expect(link).to_have_text('TripCard.swift:88')
    expect(link).to_have_attribute('href', 'https://github.com/org/trips/blob/4f2a91c/Trips/Views/TripCard.swift#L88')

    # A system frame has no line: the line goes away.
    click_frame(page, linked_server, trace_id, 'read')
    expect(page.get_by_test_id('cpu-source')).to_have_count(0)


def test_without_a_commit_the_frame_copies_the_xed_command(linked_server, page):
    trace_id = upload(linked_server, folder='trips-untagged')
    click_frame(page, linked_server, trace_id, 'TripStore.load()')
    button = page.get_by_test_id('cpu-source').get_by_test_id('source-copy')
    expect(button).to_have_text('TripStore.swift:57')
    expect(button).to_have_attribute('title', 'Copy: xed --line 57 Trips/Model/TripStore.swift')
    button.click()
    expect(page.locator('#toast')).to_contain_text('xed --line 57 Trips/Model/TripStore.swift')
