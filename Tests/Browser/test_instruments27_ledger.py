"""Issue 43's first target in Chromium on another app than Trips: Ledger, a bookkeeping app built on a
CI runner, exported in Instruments 27.0's shape (Fixtures/xctrace-27-ledger, every table the
SwiftUI template records). Its flame graph frame links its own file and line into its own
repository, its cause graph says which nodes are layout passes, and the summary counts the
LazyVStack pass that holds EntryRow's once."""

import shutil
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import REPO, TraceServer
from test_source_links import click_frame
from tracesvc_test import xctrace_tar

FIXTURES = REPO / 'Tests' / 'TraceFormatsTests' / 'Fixtures' / 'xctrace-27-ledger'
TABLES = ['swiftui-updates', 'swiftui-full-causes', 'SwiftUILayoutUpdates2', 'swiftui-layout-updates', 'time-profile', 'potential-hangs', 'hang-risks']


@pytest.fixture(scope='module')
def ledger_server():
    data_dir = Path(tempfile.mkdtemp(prefix='tracesvc-ledger-'))
    server = TraceServer(data_dir, ['--source-url', 'https://git.example.com/books/ledger/src/{commit}/{path}?line={line}',
                                    '--source-root', '/Users/runner/work/ledger/'])
    server.start()
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def upload(server):
    status, body = server.api('/api/traces?name=ledger.tar&tag=commit:9e0d1b7', 'POST', xctrace_tar(FIXTURES, 'ledger', TABLES),
                              {'Content-Type': 'application/octet-stream'})
    assert status in (200, 201), body
    return body['trace']['id']


def test_the_ledger_app_shows_its_lines_layout_passes_and_totals(ledger_server, page):
    trace_id = upload(ledger_server)
    _, trace = ledger_server.api(f'/api/traces/{trace_id}')
    assert trace['app'] == 'Ledger'
    skipped = [n for n in trace['importNotes'] if 'Skipped table' in n]
    assert len(skipped) == 1 and 'swiftui-layout-updates' in skipped[0], trace['importNotes']

    click_frame(page, ledger_server, trace_id, 'EntryRow.body.getter')
    line = page.get_by_test_id('cpu-source')
    expect(line).to_contain_text('EntryRow.body.getter — EntryRow.swift:142')
    expect(line.get_by_test_id('source-link')).to_have_attribute(
        'href', 'https://git.example.com/books/ledger/src/9e0d1b7/App/Sources/Rows/EntryRow.swift?line=142')

    # The long layout's cause graph: its node says it is a layout pass, below what asked for it.
    layout = next(u for uid in range(12)
                  for status, u in [ledger_server.api(f'/api/traces/{trace_id}/updates/{uid}')]
                  if status == 200 and u['description'].startswith('_LazyVStackLayout'))
    page.goto(f'{ledger_server.url}/traces/{trace_id}/updates/{layout["id"]}?p=graph')
    focus = page.locator('.cg-node.cg-focus')
    expect(focus.locator('.cg-title')).to_have_text('LazyVStack · layout (sizeThatFits)', timeout=30_000)
    expect(focus.locator('.cg-subtitle')).to_have_text('_LazyVStackLayout')

    # The summary's total (6.802 ms of updates) counts EntryRow's passes (0.712 ms) inside LazyVStack's 2.4 ms once.
    _, summary = ledger_server.api(f'/api/traces/{trace_id}/summary')
    assert summary['total']['totalNs'] == 6_802_000 - 712_000, summary['total']
