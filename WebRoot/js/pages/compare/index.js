// The comparison page /compare/{a}/{b} (or /compare?a=ID,ID&b=ID,ID, several recordings a side
// pooled): trace A (before) against trace B (after), from GET /api/compare (docs/api.md, "Compare
// two traces"). It tells its story first (the verdict), then the timelines, then the evidence.
// Its view state (ranges, the views filter, the row drilled into) lives in the URL like a trace
// page's (docs/share-links.md).
import { getJSON, getTrace, ApiError } from '../../api.js';
import { el } from '../../dom.js';
import { mountAlignedTimelines } from './timelines.js';
import { causesSection, functionsSection, headerSection, mainActorSection, totalsSection, viewsSection } from './sections.js';
import { findingsSection, verdictSection } from './verdict.js';
import { intervalsSection } from './intervals.js';
import { drillSection } from './drill.js';
import { diffFlameSection } from './flame.js';
import { copyText, navigate } from '../../shell.js';
import { buildComparePath, createViewState, COMPARE_EMPTY_STATE } from '../../state.js';

/** The key of a comparison of the recordings `a` with `b` (arrays of ids): the router restores a page of the same key. */
export const compareKey = (a, b) => `${a.join(',')}/${b.join(',')}`;

/**
 * Mounts the page into `root` (header parts into `header`); returns {key, restore(state), teardown()}.
 * `a`, `b`: each side's trace ids (one or more). `key` identifies the pair, so the router restores
 * instead of remounting on back/forward. The timelines and the drill-down show each side's first.
 */
export function mountCompare(root, header, { a, b, state: initial }) {
  const key = compareKey(a, b);
  const state = createViewState(key, initial, { empty: COMPARE_EMPTY_STATE, path: (s) => buildComparePath(a, b, s) });
  history.replaceState({ tracesvc: true }, '', buildComparePath(a, b, state.get()));
  document.title = 'Compare – tracesvc';
  let alive = true;
  let comparison = null;
  let loadToken = 0;

  const swap = el('button', { type: 'button', id: 'compare-swap', title: 'Make B the before and A the after',
    onclick: () => {
      const s = state.get();
      navigate(buildComparePath(b, a, { ...s, rangeA: s.rangeB, rangeB: s.rangeA }));
    } }, 'Swap A and B');
  const copy = el('button', { type: 'button', id: 'copy-link', 'aria-label': 'Copy link to this comparison',
    onclick: () => { timelines.flush(); copyText(state.link(), 'Link to this comparison'); } }, el('span', { class: 'icon icon-link', 'aria-hidden': 'true' }), 'Copy link');
  header.trace.append(el('h1', { text: 'Compare' }), el('span', { class: 'meta', id: 'compare-title', text: 'Loading…' }));
  header.actions.append(swap, copy);

  const body = el('div', { class: 'compare', id: 'compare', 'aria-busy': 'true' }, el('p', { class: 'page-loading', text: 'Comparing…' }));
  root.append(body);
  // Kept across renders (a table filter must not rebuild the timelines); `tables` is rebuilt.
  const timelineSection = el('section', { class: 'compare-section', id: 'compare-timelines-section', 'aria-label': 'Timelines' });
  // Both first traces' infos (GET /api/traces/{id}), for the timelines and the drill-down's graphs.
  const infos = Promise.all([getTrace(a[0]), getTrace(b[0])]);
  // Its users catch a failure; when the comparison itself fails (an unknown id) none asks, and the
  // rejection must not surface as an uncaught page error.
  infos.catch(() => {});
  const timelines = mountAlignedTimelines(timelineSection, { a, b, state, infos });
  const tables = el('div', { class: 'compare-tables' });
  let headerNode = null;
  let verdictNode = null;
  let drillGraphs = []; // the drill-down's graphs, destroyed when the tables are rebuilt

  async function load() {
    const token = ++loadToken;
    const s = state.get();
    const params = { a: a.join(','), b: b.join(',') };
    if (s.rangeA) Object.assign(params, { aStart: s.rangeA[0], aEnd: s.rangeA[1] });
    if (s.rangeB) Object.assign(params, { bStart: s.rangeB[0], bEnd: s.rangeB[1] });
    body.setAttribute('aria-busy', 'true');
    try {
      const result = await getJSON('/api/compare', params);
      if (!alive || token !== loadToken) return;
      comparison = result;
      render();
      timelines.update(comparison);
    } catch (error) {
      if (!alive || token !== loadToken) return;
      const missing = error instanceof ApiError && error.status === 404;
      body.replaceChildren(el('div', { class: 'message-page', role: 'alert' },
        el('h1', { text: missing ? 'Trace not found' : 'Could not compare the traces' }),
        el('p', { text: missing ? `${error.detail} It may have been deleted, or the link was made on another server.` : error.message }),
        el('p', {}, el('a', { href: '/', class: 'button primary', text: 'Back to all traces' }))));
      header.trace.querySelector('#compare-title').textContent = '';
    }
    body.setAttribute('aria-busy', 'false');
  }

  function render() {
    const c = comparison;
    // A pooled side is named by its first recording and how many others it has (as the CLI).
    const sideName = (side) => (side.runs > 1 ? `${side.name} and ${side.runs - 1} more` : side.name);
    header.trace.querySelector('#compare-title').textContent = `${sideName(c.a)} → ${sideName(c.b)}`;
    document.title = `Compare ${sideName(c.a)} → ${sideName(c.b)} – tracesvc`;
    const s = state.get();
    const nextHeader = headerSection(c, s, {
      a, b, setRange: (side, range) => state.set(side === 'a' ? { rangeA: range } : { rangeB: range }, { push: true }),
    });
    const nextVerdict = verdictSection(c, { showAllRows: () => { if (state.get().rows) state.set({ rows: null }, { push: true }); } });
    if (timelineSection.parentNode === body) {
      headerNode.replaceWith(nextHeader);
      verdictNode.replaceWith(nextVerdict);
    } else body.replaceChildren(nextHeader, nextVerdict, timelineSection, tables);
    headerNode = nextHeader;
    verdictNode = nextVerdict;
    for (const graph of drillGraphs) graph.destroy();
    drillGraphs = [];
    // Opening a row or filtering rebuilds the tables: a table scrolled sideways stays scrolled.
    const scrolled = new Map([...tables.querySelectorAll('.compare-table-scroll')].map((box) => [box.firstChild.id, box.scrollLeft]));
    // replaceChildren would write a null (no row drilled into) as the text "null".
    tables.replaceChildren(...[
      findingsSection(c),
      viewsSection(c, s, { setRows: (rows) => state.set({ rows }, { push: true }), setRow: (row) => state.set({ row }, { push: true }) }),
      drillSection(c, s, { a, b, infos, graphs: drillGraphs }),
      intervalsSection(c), causesSection(c), totalsSection(c), mainActorSection(c), functionsSection(c),
      diffFlameSection(c, s, { a, b, graphs: drillGraphs }),
    ].filter(Boolean));
    for (const box of tables.querySelectorAll('.compare-table-scroll')) box.scrollLeft = scrolled.get(box.firstChild.id) ?? 0;
  }

  const unsubscribe = state.subscribe((_, changed) => {
    if (changed.includes('rangeA') || changed.includes('rangeB')) load();
    else if (comparison && (changed.includes('rows') || changed.includes('row'))) render();
    // The timelines follow the window and tracks themselves.
    if (comparison && (changed.includes('anchor') || changed.includes('ruler'))) timelines.update(comparison);
  });
  load();

  return {
    key,
    restore: (next) => state.restore(next),
    teardown() {
      alive = false;
      unsubscribe();
      timelines.destroy();
      for (const graph of drillGraphs) graph.destroy();
    },
  };
}
