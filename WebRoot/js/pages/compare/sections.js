// The comparison page's sections below the timelines, each a function of the comparison (GET
// /api/compare) and the page's state: the compared traces, the views table, the cause fan-outs,
// the totals (with the frames drawn), Swift tasks on the Main Actor and the top self-time
// changes. The drill-down into a row is drill.js. The words for a change are the API's
// `changeText` (ComparisonWords in Comparison.swift), the ones `tracesvc compare` prints.
import { el } from '../../dom.js';
import { buildPath } from '../../state.js';
import { formatDuration, plural } from '../../format.js';

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
export function scrollBox(table, label) {
  return el('div', { class: 'compare-table-scroll', tabindex: '0', role: 'region', 'aria-label': label }, table);
}
export const rowKey = (row) => `${row.module}:${row.view}:${row.category}`;
export const rangeParams = (range) => (range ? { start: range[0], end: range[1] } : {});

/** Which rows a filter keeps: long = either side has orange or red updates; app = the app's own views. */
export function filterRows(views, filter) {
  if (filter === 'long') return views.filter((v) => v.hasLongUpdates);
  if (filter === 'app') return views.filter((v) => v.isAppCode);
  return views;
}

export function headerSection(c, s, { a, b }) {
  const card = (side, trace, id, range) => el('div', { class: `compare-card side-${side.toLowerCase()}`, 'data-side': side },
    el('div', { class: 'compare-side', text: side === 'A' ? 'A · before' : 'B · after' }),
    el('a', { href: buildPath(id, { range }), class: 'compare-name', text: trace.name }),
    el('div', { class: 'meta', text: [trace.app, trace.device, trace.osVersion].filter(Boolean).join(' · ') }),
    el('div', { class: 'meta', text: `${formatDuration(trace.durationNs)} · ${plural(trace.updates, 'update')}`
      + (range ? ` in ${formatDuration(range[0])}–${formatDuration(range[1])}` : '') }));
  return el('section', { class: 'compare-header', 'aria-label': 'Compared traces' },
    el('div', { class: 'compare-cards' }, card('A', c.a, a, s.rangeA), card('B', c.b, b, s.rangeB)),
    c.differences.length ? el('div', { class: 'compare-warning', id: 'compare-warning', role: 'note' },
      el('strong', { text: 'These traces differ: ' }), c.differences.join('; '),
      '. The comparison may be of different things.') : null);
}

export function viewsSection(c, s, { setRows, setRow }) {
  const rows = filterRows(c.views, s.rows);
  const interaction = c.interactions.find((i) => i.a > 0 && i.b > 0) ?? null;
  const filters = el('div', { class: 'segmented', role: 'group', 'aria-label': 'Which views', id: 'views-filter' },
    ...ROW_FILTERS.map(([value, label]) => el('button', {
      type: 'button', 'aria-pressed': String(s.rows === value), 'data-filter': value ?? 'all', text: label,
      onclick: () => setRows(value),
    })));
  const headings = ['View', 'Count A → B', interaction ? `Per ${interaction.label} A → B` : null, 'Total A → B', 'Δ total', 'Δ %',
    'Avg A → B', 'p95 A → B', 'Red A → B', 'Change'].filter(Boolean);
  const table = el('table', { class: 'compare-table', id: 'compare-views', 'aria-label': 'Views, A against B' },
    el('thead', {}, el('tr', {}, ...headings.map((h, i) => el('th', { scope: 'col', class: i > 0 && i < headings.length - 1 ? 'num' : null, text: h })))),
    el('tbody', {}, ...rows.map((v) => viewRow(v, interaction, s, setRow))));
  return el('section', { class: 'compare-section', 'aria-label': 'Views' },
    el('div', { class: 'compare-section-head' }, el('h2', { text: 'Views' }), filters,
      el('span', { class: 'meta', text: `${rows.length} of ${c.views.length} rows, by change of total time`
        + (c.viewsTotal > c.views.length ? ` (the ${c.views.length} largest changes of ${c.viewsTotal})` : '') })),
    rows.length ? scrollBox(table, 'Views table (scrolls sideways)') : el('p', { class: 'empty', text: 'No views match this filter.' }),
    el('p', { class: 'compare-note', text: 'n.s.: not significant. The durations do not differ beyond noise (Mann-Whitney U, '
      + 'p ≥ 0.05, tested when both sides have 8 updates or more) and the count changed by 10% or less.'
      + (rows.some((v) => v.change === 'follows-frames') ? ` "${c.frames.changeText}": the count followed the frames drawn `
        + `(${arrow(c.frames.a, c.frames.b)}) at the same time per update, so it is not a regression.` : '') }));
}

function viewRow(v, interaction, s, setRow) {
  const selected = s.row && rowKey(s.row) === rowKey(v);
  const rate = interaction ? v.perInteraction.find((r) => r.label === interaction.label) : null;
  const perInteraction = (x) => (x === null || x === undefined ? '–' : String(Math.round(x * 10) / 10));
  const open = () => setRow(selected ? null : { module: v.module, view: v.view, category: v.category });
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
    el('td', { class: 'change', title: v.change === 'follows-frames'
      ? 'The count followed the frames drawn at the same time per update: not a regression' : null }, v.changeText,
      !v.significant && v.change !== 'unchanged' && v.change !== 'follows-frames'
        ? el('span', { class: 'badge ns', title: 'Not significant: within noise', text: 'n.s.' }) : null),
  ];
  return el('tr', {
    class: `change-${v.change}${v.significant ? ' significant' : ' not-significant'}${selected ? ' selected' : ''}`,
    'data-view': v.view, 'data-module': v.module, 'data-category': v.category, 'data-change': v.change,
    'data-significant': String(v.significant),
  }, ...cells);
}

export function causesSection(c) {
  // Each part unbroken, the parts free to wrap: on a narrow window the A and B cells take two
  // lines so the cause column keeps the room to be read.
  const fanOut = (side) => (side ? [`${side.fanOut} per event`, plural(side.events, 'event'), plural(side.updates, 'update')]
    .flatMap((part, i) => [i ? ' · ' : null, el('span', { class: 'nowrap', text: part })]) : '–');
  const table = el('table', { class: 'compare-table', id: 'compare-causes', 'aria-label': 'Cause fan-outs, A against B' },
    el('thead', {}, el('tr', {}, ...['Change', 'Cause → target', 'A', 'B'].map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, ...c.causes.map((cause) => el('tr', { class: `change-${cause.change}`, 'data-change': cause.change },
      el('td', { class: 'change', text: cause.change }),
      el('td', { class: 'name', text: `${cause.title} → ${cause.target}` }),
      el('td', { class: 'fan-out' }, fanOut(cause.a)), el('td', { class: 'fan-out' }, fanOut(cause.b))))));
  return el('section', { class: 'compare-section', 'aria-label': 'Causes' },
    el('h2', { text: 'Causes' }),
    el('p', { class: 'meta', text: 'What made bodies run: one cause event fanning out to N updates.'
      + (c.causesTotal > c.causes.length ? ` The ${c.causes.length} largest changes of ${c.causesTotal}.` : '') }),
    c.causes.length ? scrollBox(table, 'Causes table (scrolls sideways)') : el('p', { class: 'empty', text: 'Neither trace recorded causes.' }));
}

export function totalsSection(c) {
  const names = { updates: 'Updates', hitches: 'Hitches', hangs: 'Hangs', cpu: 'CPU samples' };
  const rows = c.totals.map((t) => el('tr', {
    'data-total': t.name, class: t.totalNsDelta < 0 ? 'change-improved' : t.totalNsDelta > 0 ? 'change-regressed' : 'change-unchanged',
  },
  el('th', { scope: 'row', text: names[t.name] ?? t.name }),
  el('td', { class: 'num', text: arrow(t.a.count, t.b.count) }),
  el('td', { class: 'num', text: arrow(formatDuration(t.a.totalNs), formatDuration(t.b.totalNs)) }),
  el('td', { class: 'num delta', text: signedDuration(t.totalNsDelta) }),
  el('td', { class: 'change' })));
  // Frames drawn: more is better (a fixed hitch draws the frames it used to miss).
  rows.splice(1, 0, el('tr', { 'data-total': 'frames', class: `change-${c.frames.change}` },
    el('th', { scope: 'row', text: 'Frames drawn' }),
    el('td', { class: 'num', text: arrow(c.frames.a, c.frames.b) }),
    el('td', { class: 'num' }), el('td', { class: 'num delta' }),
    el('td', { class: 'change', text: c.frames.changeText })));
  return el('section', { class: 'compare-section', 'aria-label': 'Hitches, hangs and CPU' },
    el('h2', { text: 'Frames, hitches, hangs and CPU' }),
    el('table', { class: 'compare-table', id: 'compare-totals' },
      el('thead', {}, el('tr', {}, ...['', 'Count A → B', 'Time A → B', 'Δ time', 'Change'].map((h, i) => el('th', { scope: 'col', class: i && i < 4 ? 'num' : null, text: h })))),
      el('tbody', {}, ...rows)));
}

/** Swift tasks on the Main Actor (time busy, waiting, longest wait) and per resume function and actor; null when neither trace has Swift Tasks data. */
export function mainActorSection(c) {
  if (!c.tasks?.length) return null;
  const sign = (ns) => (ns < 0 ? 'change-improved' : ns > 0 ? 'change-regressed' : 'change-unchanged');
  const totals = el('table', { class: 'compare-table', id: 'compare-main-actor', 'aria-label': 'Main Actor, A against B' },
    el('thead', {}, el('tr', {}, ...['', 'Count A → B', 'Time A → B', 'Δ time', 'Change'].map((h, i) => el('th', { scope: 'col', class: i && i < 4 ? 'num' : null, text: h })))),
    el('tbody', {}, ...c.mainActor.map((m) => el('tr', { 'data-main-actor': m.name, class: sign(m.deltaNs) },
      el('th', { scope: 'row', text: m.title }),
      el('td', { class: 'num', text: m.countA === null ? '' : arrow(m.countA, m.countB) }),
      el('td', { class: 'num', text: arrow(formatDuration(m.a), formatDuration(m.b)) }),
      el('td', { class: 'num delta', text: signedDuration(m.deltaNs) }),
      el('td', { class: 'change', text: m.changeText })))));
  const tasks = el('table', { class: 'compare-table', id: 'compare-tasks', 'aria-label': 'Swift tasks by resume function and actor, A against B' },
    el('thead', {}, el('tr', {}, ...['Resume function', 'Actor', 'Running A → B', 'Waiting A → B', 'Longest wait A → B', 'Δ Main Actor', 'Change']
      .map((h, i) => el('th', { scope: 'col', class: i > 1 && i < 6 ? 'num' : null, text: h })))),
    el('tbody', {}, ...c.tasks.map((t) => el('tr', {
      class: sign(t.mainActorDeltaNs), 'data-function': t.function, 'data-actor': t.actor, 'data-change': t.change,
    },
    el('td', { class: 'name', text: t.function }),
    el('td', { class: t.isMainActor ? 'main-actor' : null, text: t.actor || '?' }),
    el('td', { class: 'num', text: arrow(formatDuration(t.a.running), formatDuration(t.b.running)) }),
    el('td', { class: 'num', text: arrow(formatDuration(t.a.waiting), formatDuration(t.b.waiting)) }),
    el('td', { class: 'num', text: arrow(formatDuration(t.a.longestWait), formatDuration(t.b.longestWait)) }),
    el('td', { class: 'num delta', text: signedDuration(t.mainActorDeltaNs) }),
    el('td', { class: 'change', text: t.changeText })))));
  return el('section', { class: 'compare-section', 'aria-label': 'Swift tasks on the Main Actor' },
    el('h2', { text: 'Swift tasks on the Main Actor' }),
    el('p', { class: 'meta', text: 'Time Swift tasks ran on the Main Actor and waited to get onto it. Δ Main Actor: running and '
      + 'waiting time on the Main Actor; on other actors only the waiting (running there costs the main thread nothing).' }),
    totals, scrollBox(tasks, 'Swift tasks table (scrolls sideways)'));
}

export function functionsSection(c) {
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
