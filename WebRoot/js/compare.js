// The comparison page /compare/{a}/{b}: trace A (before) against trace B (after), from
// GET /api/compare (docs/api.md, "Compare two traces"). Its view state (ranges, the views filter,
// the row drilled into) lives in the URL like a trace page's (docs/share-links.md).
import { getJSON, traceApi, ApiError } from './api.js';
import { el } from './dom.js';
import { mountAlignedTimelines } from './compare-timelines.js';
import { copyText, navigate } from './shell.js';
import { buildComparePath, buildPath, createViewState, COMPARE_EMPTY_STATE, EMPTY_STATE } from './state.js';
import { formatDuration, plural } from './format.js';

const ROW_FILTERS = [[null, 'All views'], ['long', 'Long updates only'], ['app', 'App code only']];

/** "+1.20 ms" / "−300 us" / "±0". */
function signedDuration(ns) {
  if (!ns) return '±0';
  return `${ns > 0 ? '+' : '−'}${formatDuration(Math.abs(ns))}`;
}

function signedPercent(percent) {
  if (percent === null || percent === undefined) return 'new';
  const rounded = Math.round(percent);
  return `${rounded > 0 ? '+' : rounded < 0 ? '−' : '±'}${Math.abs(rounded)}%`;
}

const arrow = (a, b) => `${a} → ${b}`;

/**
 * A wide table in a box of its own that scrolls sideways when the window is narrower than the
 * table: the page itself never scrolls sideways, and the first column stays in place (CSS).
 * Focusable, so the keyboard can scroll it too.
 */
function scrollBox(table, label) {
  return el('div', { class: 'compare-table-scroll', tabindex: '0', role: 'region', 'aria-label': label }, table);
}
const rowKey = (row) => `${row.module}:${row.view}:${row.category}`;
const rangeParams = (range) => (range ? { start: range[0], end: range[1] } : {});

/** Which rows a filter keeps: long = either side has orange or red updates; app = the app's own views. */
export function filterRows(views, filter) {
  if (filter === 'long') return views.filter((v) => v.hasLongUpdates);
  if (filter === 'app') return views.filter((v) => v.isAppCode);
  return views;
}

/**
 * Mounts the page into `root` (header parts into `header`); returns {key, restore(state), teardown()}.
 * `key` identifies the pair, so the router restores instead of remounting on back/forward.
 */
export function mountCompare(root, header, { a, b, state: initial }) {
  const state = createViewState(`${a}/${b}`, initial, { empty: COMPARE_EMPTY_STATE, path: (s) => buildComparePath(a, b, s) });
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
  const timelines = mountAlignedTimelines(timelineSection, { a, b, state });
  const tables = el('div', { class: 'compare-tables' });
  let headerNode = null;

  async function load() {
    const token = ++loadToken;
    const s = state.get();
    const params = { a, b };
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
    header.trace.querySelector('#compare-title').textContent = `${c.a.name} → ${c.b.name}`;
    document.title = `Compare ${c.a.name} → ${c.b.name} – tracesvc`;
    const nextHeader = headerSection(c);
    if (timelineSection.parentNode === body) headerNode.replaceWith(nextHeader);
    else body.replaceChildren(nextHeader, timelineSection, tables);
    headerNode = nextHeader;
    for (const graph of drillGraphs) graph.destroy();
    drillGraphs = [];
    // Opening a row or filtering rebuilds the tables: a table scrolled sideways stays scrolled.
    const scrolled = new Map([...tables.querySelectorAll('.compare-table-scroll')].map((box) => [box.firstChild.id, box.scrollLeft]));
    // replaceChildren would write a null (no row drilled into) as the text "null".
    tables.replaceChildren(...[viewsSection(c), drillSection(c), causesSection(c), totalsSection(c), functionsSection(c)].filter(Boolean));
    for (const box of tables.querySelectorAll('.compare-table-scroll')) box.scrollLeft = scrolled.get(box.firstChild.id) ?? 0;
  }

  function sideLink(id, range, extra = {}) {
    return buildPath(id, { range, ...extra });
  }

  function headerSection(c) {
    const s = state.get();
    const card = (side, trace, id, range) => el('div', { class: `compare-card side-${side.toLowerCase()}`, 'data-side': side },
      el('div', { class: 'compare-side', text: side === 'A' ? 'A · before' : 'B · after' }),
      el('a', { href: sideLink(id, range), class: 'compare-name', text: trace.name }),
      el('div', { class: 'meta', text: [trace.app, trace.device, trace.osVersion].filter(Boolean).join(' · ') }),
      el('div', { class: 'meta', text: `${formatDuration(trace.durationNs)} · ${plural(trace.updates, 'update')}`
        + (range ? ` in ${formatDuration(range[0])}–${formatDuration(range[1])}` : '') }));
    return el('section', { class: 'compare-header', 'aria-label': 'Compared traces' },
      el('div', { class: 'compare-cards' }, card('A', c.a, a, s.rangeA), card('B', c.b, b, s.rangeB)),
      c.differences.length ? el('div', { class: 'compare-warning', id: 'compare-warning', role: 'note' },
        el('strong', { text: 'These traces differ: ' }), c.differences.join('; '),
        '. The comparison may be of different things.') : null);
  }

  function viewsSection(c) {
    const s = state.get();
    const rows = filterRows(c.views, s.rows);
    const interaction = c.interactions.find((i) => i.a > 0 && i.b > 0) ?? null;
    const filters = el('div', { class: 'segmented', role: 'group', 'aria-label': 'Which views', id: 'views-filter' },
      ...ROW_FILTERS.map(([value, label]) => el('button', {
        type: 'button', 'aria-pressed': String(s.rows === value), 'data-filter': value ?? 'all', text: label,
        onclick: () => state.set({ rows: value }, { push: true }),
      })));
    const headings = ['View', 'Count A → B', interaction ? `Per ${interaction.label} A → B` : null, 'Total A → B', 'Δ total', 'Δ %',
      'Avg A → B', 'p95 A → B', 'Red A → B', 'Change'].filter(Boolean);
    const table = el('table', { class: 'compare-table', id: 'compare-views', 'aria-label': 'Views, A against B' },
      el('thead', {}, el('tr', {}, ...headings.map((h, i) => el('th', { scope: 'col', class: i > 0 && i < headings.length - 1 ? 'num' : null, text: h })))),
      el('tbody', {}, ...rows.map((v) => viewRow(v, interaction, s))));
    return el('section', { class: 'compare-section', 'aria-label': 'Views' },
      el('div', { class: 'compare-section-head' }, el('h2', { text: 'Views' }), filters,
        el('span', { class: 'meta', text: `${rows.length} of ${c.views.length} rows, by change of total time` })),
      rows.length ? scrollBox(table, 'Views table (scrolls sideways)') : el('p', { class: 'empty', text: 'No views match this filter.' }),
      el('p', { class: 'compare-note', text: 'n.s.: not significant. The durations do not differ beyond noise (Mann-Whitney U, '
        + 'p ≥ 0.05, tested when both sides have 8 updates or more) and the count changed by 10% or less.' }));
  }

  function viewRow(v, interaction, s) {
    const selected = s.row && rowKey(s.row) === rowKey(v);
    const rate = interaction ? v.perInteraction.find((r) => r.label === interaction.label) : null;
    const perInteraction = (x) => (x === null || x === undefined ? '–' : String(Math.round(x * 10) / 10));
    const changeText = { appeared: 'appeared', disappeared: 'gone', regressed: 'slower', improved: 'faster', unchanged: 'same' }[v.change];
    const open = () => state.set({ row: selected ? null : { module: v.module, view: v.view, category: v.category } }, { push: true });
    const cells = [
      el('td', { class: 'name' }, el('button', { type: 'button', class: 'link-like row-open', 'aria-expanded': String(!!selected), onclick: open },
        v.view), el('span', { class: 'meta', text: ` ${v.module}${v.category ? `, ${v.category}` : ''}` })),
      el('td', { class: 'num', text: arrow(v.a.count, v.b.count) }),
      interaction ? el('td', { class: 'num', text: arrow(perInteraction(rate?.a ?? 0), perInteraction(rate?.b ?? 0)) }) : null,
      el('td', { class: 'num', text: arrow(formatDuration(v.a.totalNs), formatDuration(v.b.totalNs)) }),
      el('td', { class: 'num delta', text: signedDuration(v.delta.totalNs) }),
      el('td', { class: 'num', text: signedPercent(v.delta.totalPercent) }),
      el('td', { class: 'num', text: arrow(formatDuration(v.a.avgNs), formatDuration(v.b.avgNs)) }),
      el('td', { class: 'num', text: arrow(formatDuration(v.a.p95Ns), formatDuration(v.b.p95Ns)) }),
      el('td', { class: 'num', text: arrow(v.a.red, v.b.red) }),
      el('td', { class: 'change' }, changeText,
        !v.significant && v.change !== 'unchanged' ? el('span', { class: 'badge ns', title: 'Not significant: within noise', text: 'n.s.' }) : null),
    ];
    return el('tr', {
      class: `change-${v.change}${v.significant ? ' significant' : ' not-significant'}${selected ? ' selected' : ''}`,
      'data-view': v.view, 'data-module': v.module, 'data-category': v.category, 'data-change': v.change,
      'data-significant': String(v.significant),
    }, ...cells);
  }

  // The drill-down's graphs, destroyed when the tables are rebuilt.
  let drillGraphs = [];

  /**
   * The merged cause graph of `view` in one trace (the trace page's graph module), with a view
   * state of its own: opening groups or selecting nodes stays in the drill-down; the node card's
   * "Copy link" gives that trace's page with the node selected.
   */
  function mountDrillGraph(container, id, range, view) {
    let local = { ...EMPTY_STATE, range, pane: 'graph', graph: 'view', paneView: view };
    let instance = null;
    const ctx = {
      traceId: id,
      api: traceApi(id),
      state: {
        get: () => local,
        set(patch) {
          local = { ...local, ...patch };
          instance?.update(local, new Set(Object.keys(patch)));
        },
        link: () => new URL(buildPath(id, local), window.location.origin).href,
      },
      selectUpdate: (update) => ctx.state.set({ update }),
      copyLink: (text, what) => copyText(text, what),
    };
    const entry = { destroy: () => instance?.destroy(), destroyed: false };
    import('./graph/index.js')
      .then(({ mountCauseGraph }) => (entry.destroyed ? null : mountCauseGraph(container, ctx, view)))
      .then((mounted) => {
        if (entry.destroyed) { mounted?.destroy(); return; }
        instance = mounted;
        // Two graphs side by side are small: show each whole (its own Fit button) rather than
        // the trace page's readable-scale start at the view.
        container.querySelector('.cg-toolbar [aria-label="Fit graph to pane"]')?.click();
      })
      .catch((error) => { container.replaceChildren(el('p', { class: 'error-box', text: `Could not show the graph: ${error.message}` })); });
    return { destroy() { entry.destroyed = true; instance?.destroy(); } };
  }

  function drillSection(c) {
    const s = state.get();
    if (!s.row) return null;
    const v = c.views.find((row) => rowKey(row) === rowKey(s.row));
    const section = el('section', { class: 'compare-section compare-drill', id: 'compare-drill', 'aria-label': `${s.row.view} in A and B` });
    if (!v) {
      section.append(el('p', { text: `No row ${s.row.view} (${s.row.module}) in this comparison.` }));
      return section;
    }
    const paneView = { module: v.module, view: v.view, category: v.category };
    const side = (name, id, range, stats) => {
      const list = el('ol', { class: 'drill-updates', 'aria-busy': 'true' });
      const column = el('div', { class: 'drill-side', 'data-side': name },
        el('h3', { text: name === 'A' ? 'A · before' : 'B · after' }),
        el('p', { class: 'meta', text: `${stats.count} updates, ${formatDuration(stats.totalNs)}; max ${formatDuration(stats.maxNs)}` }),
        el('p', { class: 'drill-links' },
          el('a', { href: sideLink(id, range, { pane: 'updates', paneView }), 'data-link': 'updates', text: 'Updates in this trace' }), ' · ',
          el('a', { href: sideLink(id, range, { pane: 'graph', graph: 'view', paneView }), 'data-link': 'graph', text: 'Merged cause graph' })),
        list);
      if (!stats.count) {
        list.replaceWith(el('p', { class: 'empty', text: 'No updates of this view.' }));
        return column;
      }
      const graph = el('div', { class: 'drill-graph', 'data-graph': name });
      column.append(graph);
      drillGraphs.push(mountDrillGraph(graph, id, range, { view: v.view, module: v.module, category: v.category }));
      traceApi(id).get('updates', { view: v.view, module: v.module, category: v.category, sort: 'duration', order: 'desc', limit: 5, ...rangeParams(range) })
        .then((page) => {
          list.replaceChildren(...page.updates.map((u) => el('li', {},
            el('a', { href: buildPath(id, { update: u.id, pane: 'graph', graph: `u${u.id}` }), text: formatDuration(u.duration) }),
            u.cause ? el('span', { class: 'meta', text: ` ${u.cause}` }) : null)));
          list.setAttribute('aria-busy', 'false');
        })
        .catch((error) => { list.replaceChildren(el('li', { class: 'error-box', text: error.message })); });
      return column;
    };
    section.append(el('h2', { text: `${v.view}: longest updates and merged cause graph` }),
      el('div', { class: 'drill-columns' }, side('A', a, s.rangeA, v.a), side('B', b, s.rangeB, v.b)));
    return section;
  }

  function causesSection(c) {
    // Each part unbroken, the parts free to wrap: on a narrow window the A and B cells take two
    // lines so the cause column keeps the room to be read.
    const fanOut = (side) => (side ? [`${side.fanOut} per event`, plural(side.events, 'event'), plural(side.updates, 'update')]
      .flatMap((part, i) => [i ? ' · ' : null, el('span', { class: 'nowrap', text: part })]) : '–');
    const table = el('table', { class: 'compare-table', id: 'compare-causes', 'aria-label': 'Cause fan-outs, A against B' },
      el('thead', {}, el('tr', {}, ...['Change', 'Cause → target', 'A', 'B'].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, ...c.causes.map((cause) => el('tr', { class: `change-${cause.change}`, 'data-change': cause.change },
        el('td', { class: 'change', text: cause.change }),
        el('td', { class: 'name', text: `${cause.source}${cause.property ? ` (${cause.property})` : ''} → ${cause.target}` }),
        el('td', { class: 'fan-out' }, fanOut(cause.a)), el('td', { class: 'fan-out' }, fanOut(cause.b))))));
    return el('section', { class: 'compare-section', 'aria-label': 'Causes' },
      el('h2', { text: 'Causes' }),
      el('p', { class: 'meta', text: 'What made bodies run: one cause event fanning out to N updates.'
        + (c.causesTotal > c.causes.length ? ` The ${c.causes.length} largest changes of ${c.causesTotal}.` : '') }),
      c.causes.length ? scrollBox(table, 'Causes table (scrolls sideways)') : el('p', { class: 'empty', text: 'Neither trace recorded causes.' }));
  }

  function totalsSection(c) {
    const names = { updates: 'Updates', hitches: 'Hitches', hangs: 'Hangs', cpu: 'CPU samples' };
    return el('section', { class: 'compare-section', 'aria-label': 'Hitches, hangs and CPU' },
      el('h2', { text: 'Hitches, hangs and CPU' }),
      el('table', { class: 'compare-table', id: 'compare-totals' },
        el('thead', {}, el('tr', {}, ...['', 'Count A → B', 'Time A → B', 'Δ time'].map((h, i) => el('th', { scope: 'col', class: i ? 'num' : null, text: h })))),
        el('tbody', {}, ...c.totals.map((t) => el('tr', {
          'data-total': t.name, class: t.totalNsDelta < 0 ? 'change-improved' : t.totalNsDelta > 0 ? 'change-regressed' : 'change-unchanged',
        },
        el('th', { scope: 'row', text: names[t.name] ?? t.name }),
        el('td', { class: 'num', text: arrow(t.a.count, t.b.count) }),
        el('td', { class: 'num', text: arrow(formatDuration(t.a.totalNs), formatDuration(t.b.totalNs)) }),
        el('td', { class: 'num delta', text: signedDuration(t.totalNsDelta) }))))));
  }

  function functionsSection(c) {
    return el('section', { class: 'compare-section', 'aria-label': 'Top self-time changes' },
      el('h2', { text: 'Top self-time changes (CPU)' }),
      c.functions.length ? el('table', { class: 'compare-table', id: 'compare-functions' },
        el('thead', {}, el('tr', {}, ...['Function', 'Self A → B', 'Δ self'].map((h, i) => el('th', { scope: 'col', class: i ? 'num' : null, text: h })))),
        el('tbody', {}, ...c.functions.map((f) => el('tr', {
          class: f.deltaNs < 0 ? 'change-improved' : 'change-regressed', 'data-function': f.name,
        },
        el('td', { class: `name${f.isAppCode ? ' app-code' : ''}` }, f.name, el('span', { class: 'meta', text: ` ${f.binary}` })),
        el('td', { class: 'num', text: arrow(formatDuration(f.aSelfNs), formatDuration(f.bSelfNs)) }),
        el('td', { class: 'num delta', text: signedDuration(f.deltaNs) })))))
        : el('p', { class: 'empty', text: 'No CPU self time changed.' }));
  }

  const unsubscribe = state.subscribe((_, changed) => {
    if (changed.includes('rangeA') || changed.includes('rangeB')) load();
    else if (comparison && (changed.includes('rows') || changed.includes('row'))) render();
    // The timelines follow the window and tracks themselves.
    if (comparison && changed.includes('anchor')) timelines.update(comparison);
  });
  load();

  return {
    key: `${a}/${b}`,
    restore: (next) => state.restore(next),
    teardown() {
      alive = false;
      unsubscribe();
      timelines.destroy();
      for (const graph of drillGraphs) graph.destroy();
    },
  };
}
