"""CPU you can see (issue 27) in Chromium against a real `tracesvc serve`: the flame graph (zoom
with breadcrumb, hover, search, legend, transforms), the stack chart following the timeline, the
search message for matches a transform hides, every CPU setting in the link opened in a fresh
browser, the long-body finding's merged CPU, and the differential flame graph of the scroll pair
on the comparison page at 1440 and 1000 px."""

import json
import re
import subprocess
import urllib.parse
import urllib.request

from conftest import tracesvc_bin
from playwright.sync_api import expect

SLOW = 'landmarks-scroll-slow'
FIXED = 'landmarks-scroll-fixed'
VIEW = 'LandmarkListItemView'
ROW = 18


def get(server, path, **params):
    query = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
    with urllib.request.urlopen(f'{server}{path}' + (f'?{query}' if query else '')) as response:
        return json.load(response)


def view_query(trace_id, extra=''):
    return f'/traces/{trace_id}?p=cpu&c=view&pv={urllib.parse.quote("Landmarks:" + VIEW)}{extra}'


def fresh_page(new_context, width=1280, height=800):
    """A page of a new browser context (a colleague's), recording its script errors."""
    page = new_context(width=width, height=height).new_page()
    page.errors = []
    page.on('pageerror', lambda error: page.errors.append(str(error)))
    return page


def wait_flame(page):
    page.wait_for_selector('#cpu-flame-canvas[data-frames]', timeout=30_000)
    page.wait_for_timeout(200)


def frame_point(page, answer, name, selector='#cpu-flame-canvas'):
    """Page coordinates of the middle of the first frame called `name` in a flame graph answer drawn whole."""
    frames, names = answer['frames'], answer['names']
    i = next(k for k in range(len(frames['name'])) if names[frames['name'][k]] == name)
    box = page.locator(selector).bounding_box()
    w0, w1 = answer['window']
    x = box['x'] + (frames['x'][i] + frames['total'][i] / 2 - w0) / (w1 - w0) * box['width']
    return x, box['y'] + frames['depth'][i] * ROW + ROW / 2, i


def test_flame_graph_zooms_with_a_breadcrumb_hovers_searches_and_says_its_colours(page, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    page.goto(server + view_query(trace_id, '&m=flame'))
    wait_flame(page)
    canvas = page.locator('#cpu-flame-canvas')
    expect(page.get_by_role('radio', name='Flame Graph')).to_have_attribute('aria-checked', 'true')
    legend = page.locator('.cpu-legend').first
    expect(legend).to_contain_text('The app’s code')
    expect(legend).to_contain_text('System libraries')
    width = round(canvas.bounding_box()['width'])
    answer = get(server, f'/api/traces/{trace_id}/flamegraph', view=VIEW, module='Landmarks', width=width)
    assert canvas.get_attribute('data-frames') == str(len(answer['frames']['name']))
    # Hundreds of samples: no warning; the totals are the answer's.
    expect(page.locator('.cpu-warning')).to_have_count(0)
    expect(page.get_by_test_id('cpu-total')).to_contain_text(f"{answer['sampleCount']:,} samples")

    # Hover: the frame's weight, share, self and samples.
    x, y, i = frame_point(page, answer, 'NumberFormatter.init()')
    page.mouse.move(x, y)
    tooltip = page.locator('.cpu-box-tooltip')
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text('NumberFormatter.init()')
    expect(tooltip).to_contain_text(f"{answer['frames']['samples'][i]}")
    share = 100 * answer['frames']['total'][i] / answer['totalWeight']
    expect(tooltip).to_contain_text(f'{share:.1f}%')
    shot(page, 'cpu-flame-landmarks-scroll-slow')

    # Click: zoom into the distance getter; its path is in the URL, its ancestors are the breadcrumb.
    x, y, _ = frame_point(page, answer, f'{VIEW}.distance.getter')
    page.mouse.click(x, y)
    page.wait_for_function("() => new URLSearchParams(location.search).get('fz')")
    crumbs = page.locator('.cpu-crumb')
    expect(crumbs.last).to_have_text(f'{VIEW}.distance.getter')
    expect(crumbs.nth(1)).to_have_text(f'{VIEW}.body.getter')
    zoom = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)['fz'][0]
    zoomed = get(server, f'/api/traces/{trace_id}/flamegraph', view=VIEW, module='Landmarks', width=width, zoom=zoom)
    assert zoomed['zoomFound'] and zoomed['names'][zoomed['frames']['name'][zoomed['zoom'][-1]]] == f'{VIEW}.distance.getter'
    page.wait_for_timeout(400)
    shot(page, 'cpu-flame-zoomed')
    # Escape zooms out one level; the breadcrumb's first item shows everything.
    canvas.focus()
    page.keyboard.press('Escape')
    expect(crumbs.last).to_have_text(f'{VIEW}.body.getter')
    page.go_back()
    expect(crumbs.last).to_have_text(f'{VIEW}.distance.getter')
    page.get_by_role('button', name='All frames').click()
    page.wait_for_function("() => !new URLSearchParams(location.search).get('fz')")

    # Search: matching frames in colour, the others grey, said in the legend.
    page.get_by_label('Search frames').fill('Formatter')
    page.wait_for_function("() => Number(document.getElementById('cpu-flame-canvas').dataset.matches) > 0")
    expect(legend).to_contain_text('matching frame')
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === 'Formatter'")
    shot(page, 'cpu-flame-search')
    assert not page.errors


def test_flame_graph_transforms_flatten_and_focus(page, server, sample_id):
    trace_id = sample_id(SLOW)
    page.goto(server + view_query(trace_id, '&m=flame'))
    wait_flame(page)
    width = round(page.locator('#cpu-flame-canvas').bounding_box()['width'])
    answer = get(server, f'/api/traces/{trace_id}/flamegraph', view=VIEW, module='Landmarks', width=width)
    # Select a frame (click zooms and selects it), then Focus on Subtree: it is the root and the total.
    x, y, i = frame_point(page, answer, f'{VIEW}.distance.getter')
    page.mouse.click(x, y)
    page.get_by_role('button', name='Focus on Subtree').click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('fo')")
    expect(page.locator('.cpu-charged')).to_contain_text(f'Focus: {VIEW}.distance.getter')
    expect(page.get_by_test_id('cpu-total')).to_contain_text(f"{answer['frames']['samples'][i]:,} samples")
    page.get_by_role('button', name='Remove the focus').click()
    page.wait_for_function("() => !new URLSearchParams(location.search).get('fo')")
    # Hide system libraries: no system frame is drawn.
    page.get_by_label('Hide system libraries').check()
    page.wait_for_function("() => new URLSearchParams(location.search).get('hs') === '1'")
    hidden = get(server, f'/api/traces/{trace_id}/flamegraph', view=VIEW, module='Landmarks', width=width, hideSystem='true')
    assert 'system' not in hidden['frames']['kind']
    page.wait_for_function(f"() => document.getElementById('cpu-flame-canvas').dataset.frames === '{len(hidden['frames']['name'])}'")
    page.get_by_label('Flatten recursion').check()
    page.wait_for_function("() => new URLSearchParams(location.search).get('fr') === '1'")
    assert not page.errors


def test_a_search_the_transforms_hide_says_so_and_shows_them(page, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    page.goto(server + view_query(trace_id, '&hs=1'))
    expect(page.locator('.cpu-row').first).to_be_visible(timeout=30_000)
    page.get_by_label('Search frames').fill('unum')
    note = page.get_by_test_id('cpu-search-note')
    expect(note).to_contain_text('No frame matches “unum”.')
    expect(note).to_contain_text('1 function matching “unum” is hidden by “Hide system libraries”.')
    shot(page, 'cpu-search-hidden-matches')
    note.get_by_role('button', name='Show them').click()
    expect(page.get_by_label('Hide system libraries')).not_to_be_checked()
    expect(page.locator('.cpu-row[data-name="unum_open"]')).to_have_count(1)
    expect(note).to_have_count(0)
    assert 'hs=1' not in page.url


def test_stack_chart_follows_the_timeline_window(page, server, server_control, sample_id, shot):
    trace_id = sample_id(SLOW)
    info = server_control.api(f'/api/traces/{trace_id}')[1]
    start = 1_000_000_000
    page.goto(f'{server}/traces/{trace_id}?p=cpu&m=stack&w={start},{start + 60_000_000}')
    page.wait_for_selector('#cpu-stack-canvas[data-boxes]', timeout=30_000)
    expect(page.locator('.cpu-stack-about')).to_contain_text('Main Thread')
    boxes = int(page.locator('#cpu-stack-canvas').get_attribute('data-boxes'))
    assert boxes > 10
    shot(page, 'cpu-stack-chart')
    # Zooming the stack chart moves the timeline (and its URL).
    box = page.locator('#cpu-stack-canvas').bounding_box()
    page.mouse.move(box['x'] + box['width'] / 2, box['y'] + 10)
    page.keyboard.down('Control')
    for _ in range(6):
        page.mouse.wheel(0, -120)
        page.wait_for_timeout(30)
    page.keyboard.up('Control')
    page.wait_for_function(f"() => {{ const w = new URLSearchParams(location.search).get('w').split(',').map(Number); return w[1] - w[0] < 50000000; }}")
    # ...and the chart asks for the narrower window: fewer samples, fewer boxes.
    page.wait_for_function(f"() => Number(document.getElementById('cpu-stack-canvas').dataset.boxes) < {boxes}")
    boxes = int(page.locator('#cpu-stack-canvas').get_attribute('data-boxes'))
    # Zooming the timeline out moves the stack chart: it asks for the new window.
    page.locator('#timeline-canvas').focus()
    page.keyboard.down('s')
    page.wait_for_timeout(600)
    page.keyboard.up('s')
    page.wait_for_function(f"() => Number(document.getElementById('cpu-stack-canvas').dataset.boxes) > {boxes}")
    assert info['end'] > start
    assert not page.errors


def test_every_cpu_setting_is_in_the_link_and_opens_the_same_in_a_fresh_browser(page, new_context, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    page.goto(server + view_query(trace_id, '&m=flame'))
    wait_flame(page)
    width = round(page.locator('#cpu-flame-canvas').bounding_box()['width'])
    answer = get(server, f'/api/traces/{trace_id}/flamegraph', view=VIEW, module='Landmarks', width=width)
    page.get_by_label('Hide system libraries').check()
    page.get_by_label('Flatten recursion').check()
    page.locator('.cpu-thread').select_option(label='Main Thread (main)')
    page.wait_for_function("() => new URLSearchParams(location.search).get('th') === '0'")
    wait_flame(page)
    hidden = get(server, f'/api/traces/{trace_id}/flamegraph', view=VIEW, module='Landmarks', width=width, hideSystem='true', flatten='true', thread=0)
    x, y, _ = frame_point(page, hidden, f'{VIEW}.distance.getter')
    page.mouse.click(x, y)
    page.wait_for_function("() => new URLSearchParams(location.search).get('fz')")
    page.get_by_label('Search frames').fill('distance')
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === 'distance'")
    link = page.url
    query = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)
    settings = dict((k, query[k][0]) for k in ('v', 'm', 'hs', 'fr', 'th', 'c'))
    assert settings == {'v': '3', 'm': 'flame', 'hs': '1', 'fr': '1', 'th': '0', 'c': 'view'}, settings
    page.wait_for_timeout(500)
    frames = page.locator('#cpu-flame-canvas').get_attribute('data-frames')
    pixels = page.locator('#cpu-flame-canvas').evaluate('c => c.toDataURL()')

    colleague = fresh_page(new_context)
    colleague.goto(link)
    wait_flame(colleague)
    colleague.wait_for_timeout(500)
    expect(colleague.get_by_label('Hide system libraries')).to_be_checked()
    expect(colleague.get_by_label('Flatten recursion')).to_be_checked()
    expect(colleague.locator('.cpu-thread')).to_have_value('0')
    expect(colleague.get_by_label('Search frames')).to_have_value('distance')
    expect(colleague.locator('.cpu-crumb').last).to_have_text(f'{VIEW}.distance.getter')
    assert colleague.locator('#cpu-flame-canvas').get_attribute('data-frames') == frames
    assert colleague.locator('#cpu-flame-canvas').evaluate('c => c.toDataURL()') == pixels, 'the same link draws the same graph'
    shot(colleague, 'cpu-flame-link-fresh-context')

    # The tree with a focus and a charged frame, bottom-up: the same rows in a fresh browser.
    page.get_by_role('radio', name='Call Tree').click()
    page.get_by_label('Invert call tree').check()
    expect(page.locator('.cpu-row').first).to_be_visible()
    page.locator('.cpu-row[aria-level="1"]').first.click()
    page.get_by_role('button', name='Charge to Caller').click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('cc')")
    # The search matched only the frame now charged away: the pane says a transform hides it.
    expect(page.get_by_test_id('cpu-search-note')).to_contain_text('hidden by “Charge to caller”')
    page.get_by_label('Search frames').fill('')
    page.wait_for_function("() => !new URLSearchParams(location.search).get('q')")
    page.locator('.cpu-row[aria-level="1"]').first.click()
    page.get_by_role('button', name='Focus on Subtree').click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('fo')")
    expect(page.locator('.cpu-row').first).to_be_visible()
    rows = page.locator('.cpu-row').evaluate_all("rs => rs.map(r => r.dataset.name + ' ' + r.innerText)")
    other = fresh_page(new_context)
    other.goto(page.url)
    expect(other.locator('.cpu-row').first).to_be_visible(timeout=30_000)
    expect(other.get_by_label('Invert call tree')).to_be_checked()
    assert other.locator('.cpu-row').evaluate_all("rs => rs.map(r => r.dataset.name + ' ' + r.innerText)") == rows
    assert not page.errors and not colleague.errors and not other.errors


def test_the_long_body_finding_links_to_the_merged_cpu_of_its_bodies(page, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    page.goto(f'{server}/traces/{trace_id}?p=findings')
    finding = page.locator(f'.finding[data-id="long-body:Landmarks.{VIEW}"]')
    finding.locator('.finding-head').click()
    merged = finding.locator('.evidence-cpu')
    expect(merged).to_contain_text(f'CPU of all')
    expect(merged).to_contain_text(f'long bodies of {VIEW}')
    expect(finding.locator('.evidence-cpu-range')).to_contain_text('CPU of one of them')
    merged.click()
    expect(page.locator('.cpu-row').first).to_be_visible(timeout=30_000)
    # The bodies the finding counts: its lane, over its threshold (cl=, in ns).
    evidence = next(f for f in get(server, f'/api/traces/{trace_id}/findings')['findings'] if f['id'] == f'long-body:Landmarks.{VIEW}')['evidence']
    threshold = evidence['cpuView']['longerThanNs']
    assert 'c=view' in page.url and 'f=long-view-body' in page.url and f'cl={threshold}' in page.url
    expect(page.locator('#detail-pane .pane-scope')).to_contain_text(f'Every long update of {VIEW} over 1.00 ms')
    # Hundreds of samples, not three: no warning, and the formatters are on the heaviest path.
    expect(page.locator('.cpu-warning')).to_have_count(0)
    expect(page.locator('.cpu-row[data-name="NumberFormatter.init()"]')).to_have_count(1)
    tree = get(server, f'/api/traces/{trace_id}/calltree', view=VIEW, module='Landmarks', filter='long-view-body', longerThan=threshold)
    assert tree['sampleCount'] >= 50 and tree['updateCount'] == evidence['updateCount']
    expect(page.get_by_test_id('cpu-total')).to_contain_text(f"{evidence['updateCount']:,} updates · {tree['sampleCount']:,} samples")
    shot(page, 'cpu-finding-merged-cpu')


def test_the_scroll_pairs_differential_flame_graph_shows_the_formatters_removed(new_context, server, sample_id, shot):
    slow, fixed = sample_id(SLOW), sample_id(FIXED)
    for width, height in ((1440, 900), (1000, 800)):
        page = fresh_page(new_context, width, height)
        page.goto(f'{server}/compare/{slow}/{fixed}?ra=1000000000,3400000000&rb=1000000000,3400000000')
        section = page.locator('#compare-flame')
        section.scroll_into_view_if_needed()
        page.wait_for_selector('#diff-flame-canvas[data-frames]', timeout=30_000)
        removed = page.locator('#diff-removed-list')
        for name in ('NumberFormatter.init()', 'unum_open', '-[NSMeasurementFormatter stringFromMeasurement:]', f'{VIEW}.distance.getter'):
            expect(removed.locator(f'li[data-name="{name}"]')).to_have_count(1)
        # Legible: the graph and the list fit the page (no sideways scroll), the list's lines are whole.
        assert page.evaluate('() => document.documentElement.scrollWidth <= window.innerWidth')
        graph = page.locator('#diff-flame-canvas').bounding_box()
        listing = removed.bounding_box()
        assert graph['width'] >= 600, graph
        if width >= 1440:
            assert listing['x'] >= graph['x'] + graph['width'], 'the removed functions are beside the graph'
        else:
            assert listing['y'] >= graph['y'] + graph['height'] - 1, 'below it on a narrow window'
        page.locator('#diff-flame-canvas').scroll_into_view_if_needed()
        shot(page, f'compare-diff-flame-{width}', full_page=True)
        # A drilled-into view: its bodies only, the formatters gone from them too.
        page.goto(f'{server}/compare/{slow}/{fixed}?ra=1000000000,3400000000&rb=1000000000,3400000000&pv=Landmarks%3A{VIEW}&pc=View%20Body')
        page.wait_for_selector('#diff-flame-canvas-view[data-frames]', timeout=30_000)
        expect(page.locator('#diff-removed-view li[data-name="NumberFormatter.init()"]')).to_have_count(1)
        page.locator('#compare-drill-flame').scroll_into_view_if_needed()
        shot(page, f'compare-diff-flame-view-{width}')
        assert not page.errors
        page.close()


def canvas_rgb(page, selector, x, y):
    """The canvas pixel under page point (x, y), as [r, g, b]."""
    return page.evaluate('''([selector, x, y]) => {
        const canvas = document.querySelector(selector);
        const rect = canvas.getBoundingClientRect();
        const scale = canvas.width / rect.width;
        const d = canvas.getContext('2d').getImageData(Math.round((x - rect.left) * scale), Math.round((y - rect.top) * scale), 1, 1).data;
        return [d[0], d[1], d[2]];
    }''', [selector, x, y])


def test_the_differential_flame_graph_colours_by_time_so_an_unchanged_frame_is_not_red_when_cpu_halves(new_context, server, sample_id, shot):
    # Issue 41: the whole scroll pair's CPU about halves; commit_transaction's self time holds
    # (187 -> 181 ms). By self share it grew 44 points (saturated red); by time it shrank a little.
    slow, fixed = sample_id(SLOW), sample_id(FIXED)
    page = fresh_page(new_context, 1440, 900)
    page.goto(f'{server}/compare/{slow}/{fixed}')
    page.locator('#compare-flame').scroll_into_view_if_needed()
    page.wait_for_selector('#diff-flame-canvas[data-frames]', timeout=30_000)
    page.locator('#diff-flame-canvas').scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    width = round(page.locator('#diff-flame-canvas').bounding_box()['width'])
    answer = get(server, '/api/compare/flamegraph', a=slow, b=fixed, width=width)
    assert answer['totalWeight'] < 0.6 * answer['before']['totalWeight']
    name = 'CA::Context::commit_transaction(CA::Transaction*, double, double*)'
    x, y, i = frame_point(page, answer, name, '#diff-flame-canvas')
    red_when = lambda rgb: rgb[0] > rgb[2] + 40
    blue_when = lambda rgb: rgb[2] > rgb[0] + 10
    by_time = canvas_rgb(page, '#diff-flame-canvas', x, y)
    assert not red_when(by_time) and blue_when(by_time), by_time
    expect(page.locator('#compare-flame .diff-scale-text')).to_have_text(re.compile(r'^shrank \d+\.\d+ ms · unchanged · grew \d+\.\d+ ms$'))
    # The tooltip says the ms before, after and the difference, as the tables do.
    page.mouse.move(x, y)
    tip = page.locator('#compare-flame .cpu-box-tooltip')
    expect(tip).to_contain_text(re.compile(r'Self time\s*187(\.0+)? ms before, 181(\.0+)? ms after, −6(\.0+)? ms'))
    shot(page, 'compare-diff-flame-by-time')
    # The toggle: by share it is the saturated red it was.
    page.mouse.move(0, 0)
    page.locator('#compare-flame select.diff-colour-by').select_option('share')
    page.wait_for_timeout(200)
    by_share = canvas_rgb(page, '#diff-flame-canvas', x, y)
    assert red_when(by_share), by_share
    expect(page.locator('#compare-flame .diff-scale-text')).to_have_text('shrank 5 points · unchanged · grew 5 points')
    assert not page.errors
    page.close()


def test_a_long_body_findings_frame_chips_search_the_merged_cpu_of_the_view(page, server, server_control, tmp_path, shot):
    """Issue 41, item 6: a frame chip of the long-body finding opened the CPU of one update's range
    (three samples); it opens the view's long bodies merged, searched for the frame. Another app:
    Pantry's PriceTagView, whose bodies format currency."""
    path = tmp_path / "pantry-slow-4.json"
    subprocess.run([tracesvc_bin(), "generate", "--scenario", "pantry-slow", "--seed", "4", "--output", str(path)], check=True, capture_output=True)
    trace_id = server_control.upload(path, name=path.name)["id"]
    finding = next(f for f in get(server, f'/api/traces/{trace_id}/findings')['findings'] if f['kind'] == 'long-body')
    view = finding['evidence']['cpuView']
    frame = next(s['name'] for s in finding['subjects'] if s['role'] == 'frame')
    page.goto(f'{server}/traces/{trace_id}?p=findings&fd={urllib.parse.quote(finding["id"])}')
    chip = page.locator('.finding.open a.subject-frame', has_text=frame)
    expect(chip).to_be_visible(timeout=30_000)
    chip.click()
    expect(page.locator('#pane-tab-cpu')).to_have_attribute('aria-selected', 'true')
    query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
    assert query.get('c') == ['view'] and query.get('pv') == [f"{view['module']}:{view['name']}"], query
    assert 'r' not in query, 'the merged CPU of the view, not the finding range'
    expect(page.locator('#detail-pane .pane-scope')).to_contain_text(f"Every long update of {view['name']}")
    tree = get(server, f'/api/traces/{trace_id}/calltree', view=view['name'], module=view['module'],
               filter=view['filter'], longerThan=view.get('longerThanNs'))
    assert tree['updateCount'] == finding['evidence']['updateCount']
    expect(page.get_by_test_id('cpu-total')).to_contain_text(f"{tree['updateCount']:,} updates · {tree['sampleCount']:,} samples")
    expect(page.locator(f'.cpu-row[data-name="{frame}"]').first).to_be_visible()
    shot(page, 'cpu-finding-frame-chip-merged')
    assert not page.errors
