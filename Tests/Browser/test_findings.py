"""Findings pane (issue 14): opened first from the trace list with a count badge, each finding
expanding to its evidence, whose share links land on the right update, cause graph and CPU range.
Driven in Chromium against a real `tracesvc serve` with the sample traces (fixtures in conftest.py)."""

import json
import urllib.parse
import urllib.request

from playwright.sync_api import expect

FAVORITES = 'landmarks-favorites-slow'
SCROLL = 'landmarks-scroll-slow'


def findings(server, trace_id):
    with urllib.request.urlopen(f'{server}/api/traces/{trace_id}/findings') as response:
        return json.load(response)['findings']


def query_of(page):
    return urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)


def test_trace_list_opens_findings_first_with_a_badge_and_the_fan_out(page, server, sample_id, shot):
    trace_id = sample_id(FAVORITES)
    expected = findings(server, trace_id)
    fan_out = next(f for f in expected if f['kind'] == 'collection-fan-out')

    page.goto(f'{server}/')
    page.locator(f'tr[data-trace-id="{trace_id}"] a').click()
    # The trace page's first draw waits for the model (as conftest's open_trace does): on a loaded
    # machine that took longer than expect's 5 s, so this waits as long as open_trace.
    expect(page.locator('#pane-tab-findings')).to_have_attribute('aria-selected', 'true', timeout=30_000)
    expect(page.locator('#pane-tab-findings .tab-badge')).to_have_text(str(len(expected)))
    rows = page.locator('.finding')
    expect(rows).to_have_count(len(expected))
    row = page.locator(f'.finding[data-kind="collection-fan-out"]')
    expect(row).to_contain_text('favoritesCollection')
    expect(row).to_contain_text('LandmarkListItemView')

    # Expanding puts the finding in the URL; the evidence shows the fix and the links.
    row.locator('.finding-head').click()
    expect(row.locator('.finding-fix')).to_contain_text('@Observable model')
    assert query_of(page)['fd'] == [fan_out['id']]
    shot(page, 'findings-fan-out-open')

    # The cause graph link lands on the representative update with its graph.
    update = fan_out['evidence']['representativeUpdate']
    row.locator('.evidence-graph').click()
    page.wait_for_url(f'**/traces/{trace_id}/updates/{update}?**')
    expect(page.locator('#pane-tab-graph')).to_have_attribute('aria-selected', 'true')
    expect(page.locator('.cg-heading')).to_contain_text(f'#{update}')
    expect(page.locator('.cg-node[data-kind=observable]').first).to_be_visible()

    # Back returns to the open finding; an update link selects that update with the finding kept open.
    page.go_back()
    expect(page.locator('#pane-tab-findings')).to_have_attribute('aria-selected', 'true')
    expect(page.locator('.finding.open')).to_have_attribute('data-id', fan_out['id'])
    second = fan_out['evidence']['updates'][1]
    page.locator('.finding.open .evidence-update', has_text=str(second)).first.click()
    page.wait_for_url(f'**/traces/{trace_id}/updates/{second}?**')
    expect(page.locator('#update-details')).to_contain_text('LandmarkListItemView')
    expect(page.locator('.finding.open')).to_have_attribute('data-id', fan_out['id'])


def test_long_body_range_link_opens_the_call_tree_of_one_update(page, server, sample_id, shot):
    trace_id = sample_id(SCROLL)
    long_body = next(f for f in findings(server, trace_id) if f['kind'] == 'long-body')
    # A shared link to the open finding shows it expanded, with the formatter frames.
    page.goto(f'{server}/traces/{trace_id}?v=2&p=findings&fd={urllib.parse.quote(long_body["id"])}')
    row = page.locator('.finding.open')
    expect(row).to_have_attribute('data-kind', 'long-body')
    expect(row.locator('.finding-frames')).to_contain_text('NumberFormatter.init()')
    expect(row.locator('.finding-frames')).to_contain_text('LandmarkListItemView.distance.getter')

    # The merged CPU of all its bodies comes first (test_cpu_flame.py); one update's range second.
    row.locator('.evidence-cpu-range').click()
    evidence_range = long_body['evidence']['range']
    expect(page.locator('#pane-tab-cpu')).to_have_attribute('aria-selected', 'true')
    assert query_of(page)['r'] == [f"{evidence_range['start']},{evidence_range['end']}"]
    expect(page.locator('#detail-pane .pane-scope')).to_contain_text('Inspection range')
    expect(page.locator('.cpu-row').first).to_be_visible()
    shot(page, 'findings-long-body-cpu')


def test_a_trace_without_findings_says_so(page, server, sample_id):
    trace_id = sample_id('landmarks-favorites-fixed')
    assert findings(server, trace_id) == []
    page.goto(f'{server}/traces/{trace_id}?v=2&p=findings')
    expect(page.locator('#pane-tab-findings .tab-badge')).to_have_text('0')
    expect(page.locator('.pane-findings')).to_contain_text('No findings')


def test_findings_are_marked_on_the_timeline_ruler(page, server, sample_id, timeline, shot):
    """Each finding's evidence range is a bar at the foot of the ruler, in its severity's colour."""
    trace_id = sample_id(FAVORITES)
    expected = [f for f in findings(server, trace_id) if f['evidence']['range']]
    assert expected, 'the sample has findings with a range'
    timeline.open(page, trace_id)
    expect(page.locator('#timeline-canvas')).to_have_attribute('data-findings', str(len(expected)))
    fan_out = next(f for f in expected if f['kind'] == 'collection-fan-out')
    colour = {'high': 'red', 'medium': 'orange'}.get(fan_out['severity'], 'muted')
    # The ruler's foot, read as pixels: the fan-out's bar starts where its range starts.
    columns = page.evaluate("""([cssVar]) => {
        const canvas = document.getElementById('timeline-canvas');
        const dpr = canvas.width / canvas.getBoundingClientRect().width;
        const probe = document.createElement('canvas').getContext('2d');
        probe.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--' + cssVar).trim();
        probe.fillRect(0, 0, 1, 1);
        const want = probe.getImageData(0, 0, 1, 1).data;
        const row = canvas.getContext('2d').getImageData(0, Math.round(25 * dpr), canvas.width, 1).data;
        const columns = [];
        for (let x = 0; x < canvas.width; x++) {
          const i = x * 4;
          if (Math.abs(row[i] - want[0]) < 8 && Math.abs(row[i + 1] - want[1]) < 8 && Math.abs(row[i + 2] - want[2]) < 8) columns.push(x / dpr);
        }
        return columns;
    }""", [colour])
    assert columns, f'no {colour} mark on the ruler'
    trace = json.load(urllib.request.urlopen(f'{server}/api/traces/{trace_id}'))
    width = page.locator('#timeline-canvas').bounding_box()['width']
    x = (fan_out['evidence']['range']['start'] - trace['start']) / (trace['end'] - trace['start']) * width
    assert any(abs(c - x) <= 4 for c in columns), (x, columns[:10])
    shot(page, 'findings-timeline-marks')
