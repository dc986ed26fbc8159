"""HTTP caching of the answers computed from a stored trace (docs/api.md, "Caching"): reloading a
trace page downloads none of them again. The browser's own cache revalidates each with its ETag
and the server answers 304 with no body."""

import re

from playwright.sync_api import expect

# The answers computed from the trace alone; the trace's info, the list and notes change (tags,
# notes) and are asked again.
IMMUTABLE = re.compile(r'/api/(traces/[0-9a-f]+/(timeline|summary|findings|calltree|flamegraph|stackchart|updates|tasks|task-states|signposts|search|graph|long-update)|compare)')


def watch(page):
    """The answers of IMMUTABLE the page gets: (url, body bytes that crossed the wire, the
    If-None-Match it sent) per response. The status the page sees is 200 either way (the cache
    hands a revalidated answer on as 200), so the wire's body size tells a 304."""
    seen = []

    def record(response):
        if IMMUTABLE.search(response.url):
            response.finished()
            seen.append((response.url, response.request.sizes()['responseBodySize'], response.request.all_headers().get('if-none-match')))
    page.on('response', record)
    return seen


def open_and_settle(page, url, pane):
    page.goto(url)
    expect(page.locator('#detail-pane [role=tablist]')).to_be_visible(timeout=30_000)
    expect(page.locator(pane).first).to_be_visible(timeout=30_000)
    page.wait_for_load_state('networkidle')


def test_a_reloaded_trace_page_downloads_no_answer_again(page, server, sample_id):
    trace = sample_id('landmarks-concurrency-slow')
    seen = watch(page)
    url = f'{server}/traces/{trace}?v=1'
    open_and_settle(page, url, '#detail-pane tr[data-level=view]')
    first = list(seen)
    assert any('/timeline' in u for u, _, _ in first) and any('/summary' in u for u, _, _ in first), first
    assert all(size > 0 and tag is None for _, size, tag in first), first
    seen.clear()
    page.reload()
    expect(page.locator('#detail-pane [role=tablist]')).to_be_visible(timeout=30_000)
    expect(page.locator('#detail-pane tr[data-level=view]').first).to_be_visible(timeout=30_000)
    page.wait_for_load_state('networkidle')
    again = list(seen)
    # The same answers are asked, and each revalidated with its ETag: no body crosses the wire.
    assert sorted(u for u, _, _ in again) == sorted(u for u, _, _ in first), (first, again)
    assert all(size == 0 and tag for _, size, tag in again), again
    assert page.errors == []
