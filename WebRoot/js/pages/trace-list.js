// The list of traces on the home page, for thousands: pages of the server's list (cursor paging,
// filtered and sorted by the server) are fetched as the list scrolls, and only the rows in sight
// are in the document (the table moves inside a scroller whose height is all the rows').
import { listTracePage, deleteTrace } from '../api.js';
import { el } from '../dom.js';
import { navigate, toast } from '../shell.js';
import { buildComparePath, buildPath } from '../state.js';
import { formatBytes, formatCount, formatDate, formatDuration } from '../format.js';

export const ROW_HEIGHT = 38;
const PAGE_SIZE = 200;
/** Rows drawn above and below the ones in sight. */
const OVERSCAN = 12;
/** The most recordings a compared side pools (the server's maxRecordingsPerSide). */
const MAX_RECORDINGS_PER_SIDE = 10;

/** Each sample's story: what it shows and what to click first (the samples are SampleTraces/). */
export const SAMPLE_STORIES = {
  'landmarks-scroll-slow': 'Scrolling hitches: open the Long body finding, then its CPU link: every row builds formatters.',
  'landmarks-scroll-fixed': 'The same scroll with cached strings: compare it with landmarks-scroll-slow to see the hitches go.',
  'landmarks-favorites-slow': 'A favorite tap re-runs all 12 rows: open the Collection fan-out finding and its Cause & Effect graph.',
  'landmarks-favorites-fixed': 'The same taps with a model per row: one row body per tap; compare it with the slow one.',
  'environment-color-scheme': 'Dark mode switch: click View1 on the timeline, then Cause & Effect: View2 was notified but did not run.',
  'landmarks-concurrency-slow': 'Images load on the Main Actor for 120 ms: open the Main Actor blocked finding, then click the red Main Actor mark.',
  'landmarks-concurrency-fixed': 'The loading moved off the Main Actor: the map’s task waits under a millisecond; compare it with the slow one.',
};

/** Opening a trace from the list shows its findings first. */
export const openTracePath = (id) => buildPath(id, { pane: 'findings' });

/**
 * The rows [first, last) to draw for a scroller at `scrollTop` showing `height` px of `total`
 * rows: those in sight, with OVERSCAN more on each side. Pure (node tests).
 */
export function visibleRows(scrollTop, height, total) {
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(total, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  return { first, last: Math.max(first, last) };
}

/**
 * The list of the filters' `query` (state.js listQuery) in `root`. `onTag(tag)`: a tag in a row
 * was clicked (filter by it); `askForWriteToken(what, retry)`: a delete needs the token;
 * `onPage(answer)`: each page's answer as it arrives (the home page reads maxUploadBytes).
 * Returns {refresh(), destroy()}.
 */
export function mountTraceList(root, query, { onTag, askForWriteToken, onPage = () => {} }) {
  let rows = [];          // loaded so far, in order
  let total = null;       // all the query matches (null until the first page)
  let next = null;        // cursor of the next page; null when all are loaded
  let loading = null;     // the page request in flight
  let generation = 0;     // a refresh drops the answers of pages asked for before it
  let alive = true;
  const controller = new AbortController();
  // Ticked for comparison, in the order ticked, each on side A (before) or B (after): the first
  // tick is A, later ones B; Shift-tick keeps the last tick's side; a tick's letter moves it.
  const picked = [];

  const count = el('p', { id: 'trace-count', class: 'meta', role: 'status', 'aria-live': 'polite', text: 'Loading traces…' });
  const compareButton = el('button', { type: 'button', id: 'compare-button', disabled: true,
    title: 'Tick traces: the first one ticked is A (before), the others B (after); several a side are pooled',
    onclick: () => navigate(buildComparePath(idsOn('A'), idsOn('B'), {})) }, 'Compare');
  const pickedText = el('span', { class: 'meta', id: 'compare-picked', role: 'status',
    text: 'Tick two traces to compare them (the first is A, before). Tick more to pool recordings: Shift-tick keeps the side, a tick’s A or B moves it.' });
  const body = el('tbody');
  const table = el('table', { class: 'traces', 'aria-label': 'Traces', 'aria-rowcount': '0' },
    el('colgroup', {}, ...['pick', 'name', 'tags', 'app', 'num', 'num', 'size', 'date', 'actions'].map((name) => el('col', { class: `col-${name}` }))),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, el('span', { class: 'visually-hidden', text: 'Compare' })),
      ...['Name', 'Tags', 'App', 'Duration', 'Updates', 'Size', 'Uploaded', ''].map((title, i) =>
        el('th', { scope: 'col', class: i >= 3 && i <= 5 ? 'num' : null }, title || el('span', { class: 'visually-hidden', text: 'Actions' }))))),
    body);
  const spacer = el('div', { class: 'trace-list-spacer' });
  const scroller = el('div', { class: 'trace-list-scroller', tabindex: '-1' }, spacer, table);
  root.replaceChildren(
    el('div', { class: 'compare-bar' }, compareButton, pickedText, count),
    scroller);

  const idsOn = (side) => picked.filter((p) => p.side === side).map((p) => p.id);

  function pick(id, checked, keepSide) {
    const at = picked.findIndex((p) => p.id === id);
    if (checked && at < 0) {
      const side = keepSide && picked.length ? picked[picked.length - 1].side : idsOn('A').length ? 'B' : 'A';
      picked.push({ id, side });
    }
    if (!checked && at >= 0) picked.splice(at, 1);
    showPicked();
  }

  function moveSide(id) {
    const entry = picked.find((p) => p.id === id);
    if (entry) entry.side = entry.side === 'A' ? 'B' : 'A';
    showPicked();
  }

  /** The compare bar after a tick: how many a side, and whether the server can pool them. */
  function showPicked() {
    const [nA, nB] = [idsOn('A').length, idsOn('B').length];
    const tooMany = Math.max(nA, nB) > MAX_RECORDINGS_PER_SIDE;
    compareButton.disabled = !nA || !nB || tooMany;
    compareButton.textContent = nA + nB === 0 ? 'Compare' : nA === 1 && nB === 1 ? 'Compare A → B' : `Compare ${nA} → ${nB}`;
    if (nA + nB) {
      pickedText.textContent = `A (before): ${nA} recording${nA === 1 ? '' : 's'} · B (after): ${nB} recording${nB === 1 ? '' : 's'}`
        + (tooMany ? ` · a side pools at most ${MAX_RECORDINGS_PER_SIDE}` : !nB ? ' · tick the traces of B' : !nA ? ' · move one to A' : '');
    }
    // Redrawn rows replace the control that had the focus: it goes back to the same one.
    const active = document.activeElement;
    const row = active?.closest?.('tr[data-trace-id]')?.dataset.traceId;
    const kind = active?.classList?.contains('compare-pick') ? '.compare-pick' : '.compare-side-chip';
    draw();
    if (row) (body.querySelector(`tr[data-trace-id="${CSS.escape(row)}"] ${kind}`) ?? body.querySelector(`tr[data-trace-id="${CSS.escape(row)}"] .compare-pick`))?.focus();
  }

  const sideOf = (id) => picked.find((p) => p.id === id)?.side ?? null;

  function tagChip(tag) {
    return el('button', { type: 'button', class: 'tag-chip', title: `Show only traces tagged ${tag}`, onclick: () => onTag(tag) }, el('bdi', { text: tag }));
  }

  /** The name; a sample's story under it, apart from the tags, in the row's one height (whole on hover). */
  function nameCell(trace) {
    const story = trace.isSample ? SAMPLE_STORIES[trace.name] : null;
    const name = [el('a', { href: openTracePath(trace.id), text: trace.name }), trace.isSample ? el('span', { class: 'badge badge-after', text: 'sample' }) : null];
    if (!story) return el('td', { class: 'name', title: trace.name }, ...name);
    return el('td', { class: 'name with-story', title: `${trace.name}: ${story}` },
      el('span', { class: 'name-line' }, ...name), el('span', { class: 'sample-story', text: story }));
  }

  function row(trace, index) {
    return el('tr', { 'data-trace-id': trace.id, 'aria-rowindex': String(index + 2) },
      el('td', { class: 'pick' }, el('input', { type: 'checkbox', class: 'compare-pick', 'aria-label': `Pick ${trace.name} to compare`,
        checked: Boolean(sideOf(trace.id)), onclick: (event) => pick(trace.id, event.target.checked, event.shiftKey) }),
        sideOf(trace.id) ? el('button', { type: 'button', class: `compare-side-chip side-${sideOf(trace.id).toLowerCase()}`,
          'aria-label': `${trace.name} is in ${sideOf(trace.id)}: move it to ${sideOf(trace.id) === 'A' ? 'B' : 'A'}`,
          title: `In ${sideOf(trace.id) === 'A' ? 'A (before)' : 'B (after)'}: click to move it to the other side`,
          text: sideOf(trace.id), onclick: () => moveSide(trace.id) }) : null),
      nameCell(trace),
      // Every tag on hover: the cell shows as many as fit on its one line. A sample has none.
      el('td', { class: 'tags', title: trace.tags?.length ? `Tags: ${trace.tags.join(', ')}` : null }, ...(trace.tags ?? []).map(tagChip)),
      el('td', { text: trace.app || '–' }),
      el('td', { class: 'num', text: formatDuration(trace.durationNs) }),
      el('td', { class: 'num', text: formatCount(trace.updateCount) }),
      el('td', { class: 'num', text: formatBytes(trace.sizeBytes) }),
      el('td', { text: trace.uploadedAt ? formatDate(trace.uploadedAt) : 'Sample' }),
      el('td', {}, trace.isSample ? null : el('button', {
        type: 'button', class: 'link-like', 'aria-label': `Delete ${trace.name}`, text: 'Delete', onclick: () => remove(trace),
      })));
  }

  async function remove(trace) {
    if (!confirm(`Delete "${trace.name}"? Links to it will stop working.`)) return;
    try {
      await deleteTrace(trace.id);
      toast(`Deleted ${trace.name}`);
      refresh();
    } catch (error) {
      if (error.status === 401) askForWriteToken(`Deleting ${trace.name}`, () => remove(trace));
      else toast(error.message);
    }
  }

  /** Draws the rows in sight (placeholders where a page is still coming) and asks for more when they near the end. */
  function draw() {
    if (!alive || total === null) return;
    const { first, last } = visibleRows(scroller.scrollTop, scroller.clientHeight || 600, total);
    const children = [];
    for (let index = first; index < last; index++) {
      children.push(index < rows.length ? row(rows[index], index)
        : el('tr', { class: 'placeholder-row', 'aria-rowindex': String(index + 2) }, el('td', { colspan: '9', text: 'Loading…' })));
    }
    body.replaceChildren(...children);
    table.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
    if (last + OVERSCAN >= rows.length && next) loadMore();
  }

  async function loadMore() {
    if (loading || !alive) return;
    const mine = generation;
    loading = listTracePage(query, { limit: PAGE_SIZE, cursor: next, signal: controller.signal });
    try {
      const page = await loading;
      if (!alive || mine !== generation) return;
      onPage(page);
      rows = rows.concat(page.traces);
      next = page.nextCursor;
      // The last page lists the samples that match too: the total is what was listed then.
      total = next ? page.total : rows.length;
      show();
    } catch (error) {
      if (error.name === 'AbortError' || !alive) return;
      root.replaceChildren(el('div', { class: 'error-box', role: 'alert', text: `Could not load the trace list. ${error.message}` }));
    } finally {
      if (mine === generation) loading = null;
    }
    if (alive && mine === generation) draw();
  }

  function show() {
    spacer.style.height = `${(total + 1) * ROW_HEIGHT}px`;
    table.setAttribute('aria-rowcount', String(total + 1));
    root.setAttribute('aria-busy', 'false');
    count.textContent = total === 0 ? (query ? 'No traces match these filters.' : 'No traces yet. Upload one to start.') : `${formatCount(total)} trace${total === 1 ? '' : 's'}`;
    scroller.hidden = total === 0;
  }

  function refresh() {
    generation += 1;
    rows = [];
    next = null;
    total = null;
    loading = null;
    scroller.scrollTop = 0;
    loadMore();
  }

  let frame = 0;
  scroller.addEventListener('scroll', () => {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(); });
  });
  root.setAttribute('aria-busy', 'true');
  loadMore();
  return {
    refresh,
    destroy() {
      alive = false;
      controller.abort();
      cancelAnimationFrame(frame);
    },
  };
}
