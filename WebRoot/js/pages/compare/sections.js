// The comparison page's sections below the verdict and the timelines, each a function of the
// comparison (GET /api/compare) and the page's state: the compared traces, the views table, the
// cause fan-outs, the totals (with the frames drawn), Swift tasks on the Main Actor and the top
// self-time changes. The verdict and findings are verdict.js, the per-interaction tables
// intervals.js, the drill-down into a row drill.js. Change words are the API's (`countText`,
// `speedText`, `changeText`: the model's ComparisonWords), the same the CLI prints.
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
 * Focusable, so the keyboard can scroll it too. While columns are out of sight on the right the
 * box says so (a shaded edge and "more columns →"; `data-more`).
 */
export function scrollBox(table, label) {
  const cue = el('span', { class: 'scroll-cue', 'aria-hidden': 'true', text: 'more columns →' });
  const box = el('div', { class: 'compare-table-scroll', tabindex: '0', role: 'region', 'aria-label': label }, table);
  const frame = el('div', { class: 'compare-table-frame' }, box, cue);
  const update = () => {
    const more = box.scrollLeft + box.clientWidth < box.scrollWidth - 2;
    if (frame.dataset.more !== String(more)) frame.dataset.more = String(more);
  };
  box.addEventListener('scroll', update, { passive: true });
  new ResizeObserver(update).observe(box);
  return frame;
}
export const rowKey = (row) => `${row.module}:${row.view}:${row.category}`;

/** Which rows a filter keeps: long = either side has orange or red updates; app = the app's own views. */
export function filterRows(views, filter) {
  if (filter === 'long') return views.filter((v) => v.hasLongUpdates);
  if (filter === 'app') return views.filter((v) => v.isAppCode);
  return views;
}

/**
 * The spans differ (GET compare's `spanMismatch`): said before anything else, with the button
 * that gives the other side the same range (`setRange(side, [start, end])`).
 */
function spanWarning(c, setRange) {
  const m = c.spanMismatch;
  if (!m) return null;
  const side = m.side.toUpperCase();
  return el('div', { class: 'compare-warning compare-span-warning', id: 'compare-span-warning', role: 'alert' },
    el('strong', { text: 'Not comparable as it stands. ' }), m.text, ' ',
    el('button', { type: 'button', class: 'button primary', id: 'compare-same-span', onclick: () => setRange(m.side, [m.start, m.end]),
      text: `Set ${side} to the same range` }));
}

export function headerSection(c, s, { a, b, setRange }) {
  const card = (side, trace, ids, range) => el('div', { class: `compare-card side-${side.toLowerCase()}`, 'data-side': side, 'data-runs': String(trace.runs) },
    // How many recordings a side holds, on both sides once either pools several.
    el('div', { class: 'compare-side', text: (side === 'A' ? 'A · before' : 'B · after')
      + (trace.runs > 1 ? ` · ${trace.runs} recordings pooled` : c.a.runs > 1 || c.b.runs > 1 ? ' · 1 recording' : '') }),
    trace.runs > 1
      ? el('div', { class: 'compare-runs' }, ...ids.flatMap((id, i) => [i ? ', ' : null, el('a', { href: buildPath(id, {}), class: 'compare-name', text: trace.runNames[i] ?? id })]))
      : el('a', { href: buildPath(ids[0], { range }), class: 'compare-name', text: trace.name }),
    el('div', { class: 'meta', text: [trace.app, trace.device, trace.osVersion].filter(Boolean).join(' · ') }),
    el('div', { class: 'meta', text: `${formatDuration(trace.durationNs)} · ${plural(trace.updates, 'update')}${trace.runs > 1 ? ' in all' : ''}`
      + (range ? ` in ${formatDuration(range[0])}–${formatDuration(range[1])}` : '') }));
  return el('section', { class: 'compare-header', 'aria-label': 'Compared traces' },
    el('div', { class: 'compare-cards' }, card('A', c.a, a, s.rangeA), card('B', c.b, b, s.rangeB)),
    spanWarning(c, setRange),
    c.differences.length ? el('div', { class: 'compare-warning', id: 'compare-warning', role: 'note' },
      el('strong', { text: 'These traces differ: ' }), c.differences.join('; '),
      '. The comparison may be of different things.') : null);
}

export function viewsSection(c, s, { setRows, setRow }) {
  const rows = filterRows(c.views, s.rows);
  const filters = el('div', { class: 'segmented', role: 'group', 'aria-label': 'Which views', id: 'views-filter' },
    ...ROW_FILTERS.map(([value, label]) => el('button', {
      type: 'button', 'aria-pressed': String(s.rows === value), 'data-filter': value ?? 'all', text: label,
      onclick: () => setRows(value),
    })));
  const headings = ['View', 'Count A → B', 'How many', 'Per interaction A → B', 'Total A → B', 'Δ total', 'Avg A → B', 'p95 A → B', 'Each one', 'Red A → B'];
  const words = new Set([2, 8]);
  const table = el('table', { class: 'compare-table', id: 'compare-views', 'aria-label': 'Views, A against B' },
    el('thead', {}, el('tr', {}, ...headings.map((h, i) => el('th', { scope: 'col', class: i > 0 && !words.has(i) ? 'num' : null, text: h })))),
    el('tbody', {}, ...rows.map((v) => viewRow(v, s, setRow))));
  const pooled = c.a.runs > 1 || c.b.runs > 1;
  return el('section', { class: 'compare-section', 'aria-label': 'Views' },
    el('div', { class: 'compare-section-head' }, el('h2', { text: 'Views' }), filters,
      el('span', { class: 'meta', text: `${rows.length} of ${c.views.length} rows, by change of total time`
        + (c.viewsTotal > c.views.length ? ` (the ${c.views.length} largest changes of ${c.viewsTotal})` : '') })),
    rows.length ? scrollBox(table, 'Views table (scrolls sideways)') : el('p', { class: 'empty', text: 'No views match this filter.' }),
    el('p', { class: 'compare-note', text: `How many: fewer / more ${pooled ? 'per recording (mean, least–most) ' : ''}when the count changed by 2 or more and over 10 %`
      + `${pooled ? ', and every recording of one side is beyond every recording of the other' : ''}. Each one: faster / slower per body (or update) `
      + 'when each recording\'s mean time is beyond the run-to-run noise (the recording is the unit: docs/statistics.md); '
      + '"within noise" is no change told, not a claim of none. Per interaction: the row\'s updates per update group '
      + 'of the label whose rate changed most.'
      + (rows.some((v) => v.change === 'follows-frames') ? ` "${c.frames.changeText}": the count followed the frames drawn `
        + `(${arrow(c.frames.a, c.frames.b)}) at the same time per update, so it is not a regression.` : '') }));
}

/** A rate as the CLI prints it: "12", "1.5", "0.03", "–". */
export function rateText(x) {
  if (x === null || x === undefined) return '–';
  if (Number.isInteger(x)) return String(x);
  return Math.abs(x) < 0.1 ? x.toFixed(2) : x.toFixed(1);
}

/** "36", or a pooled side's mean per recording and, when its recordings differ, their least and most: "36 (35–37)". */
export function countText(stats) {
  const spread = stats.spread;
  return spread && spread.countMin !== spread.countMax ? `${stats.count} (${spread.countMin}–${spread.countMax})` : String(stats.count);
}

function viewRow(v, s, setRow) {
  const selected = s.row && rowKey(s.row) === rowKey(v);
  const rate = rateText;
  const open = () => setRow(selected ? null : { module: v.module, view: v.view, category: v.category });
  const tone = (change) => ({ fewer: 'better', faster: 'better', gone: 'better', more: 'worse', slower: 'worse', new: 'worse' }[change] ?? '');
  const speed = v.speedText + ((v.speedChange === 'faster' || v.speedChange === 'slower') && v.recordings ? ` (${v.recordings.text})` : '');
  const cells = [
    el('td', { class: 'name' }, el('button', { type: 'button', class: 'link-like row-open', 'aria-expanded': String(!!selected), onclick: open },
      v.view), el('span', { class: 'meta', text: ` ${v.module}${v.category ? `, ${v.category}` : ''}` })),
    el('td', { class: 'num', text: arrow(countText(v.a), countText(v.b)) }),
    el('td', { class: `count-change ${tone(v.countChange)}`, text: v.countText }),
    el('td', { class: 'num interaction', text: v.interaction ? `${v.interaction.label} ${arrow(rate(v.interaction.a), rate(v.interaction.b))}` : '–' }),
    el('td', { class: 'num', text: arrow(formatDuration(v.a.totalNs), formatDuration(v.b.totalNs)) }),
    el('td', { class: 'num delta', text: signedDuration(v.delta.totalNs) }),
    el('td', { class: 'num', text: arrow(formatDuration(v.a.avgNs), formatDuration(v.b.avgNs)) }),
    el('td', { class: 'num', text: arrow(formatDuration(v.a.p95Ns), formatDuration(v.b.p95Ns)) }),
    el('td', { class: `speed-change ${tone(v.speedChange)}`, text: speed || '–' }),
    el('td', { class: 'num', text: arrow(v.a.red, v.b.red) }),
  ];
  return el('tr', {
    class: `change-${v.change}${v.significant ? ' significant' : ' not-significant'}${selected ? ' selected' : ''}`,
    'data-key': rowKey(v), 'data-view': v.view, 'data-module': v.module, 'data-category': v.category, 'data-change': v.change,
    'data-significant': String(v.significant), 'data-count-change': v.countChange, 'data-speed-change': v.speedChange,
  }, ...cells);
}

export function causesSection(c) {
  // Each part unbroken, the parts free to wrap: on a narrow window the A and B cells take two
  // lines so the cause column keeps the room to be read.
  const fanOut = (side, outcome) => (side ? [`${side.fanOut} per event`, plural(side.events, 'event'), plural(side.updates, outcome === 'skipped' ? 'notification' : 'update')]
    .flatMap((part, i) => [i ? ' · ' : null, el('span', { class: 'nowrap', text: part })]) : '–');
  const table = el('table', { class: 'compare-table', id: 'compare-causes', 'aria-label': 'Cause fan-outs, A against B' },
    el('thead', {}, el('tr', {}, ...['Change', 'Cause → target', 'A', 'B'].map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, ...c.causes.map((cause, index) => el('tr', {
      class: `change-${cause.change}`, 'data-change': cause.change, 'data-outcome': cause.outcome, 'data-index': String(index),
    },
    el('td', { class: 'change', text: cause.change }),
    el('td', { class: 'name' }, `${cause.title} → ${cause.target}`,
      cause.outcome === 'skipped' ? el('span', { class: 'meta', text: ' notified, did not run' }) : null),
    el('td', { class: 'fan-out' }, fanOut(cause.a, cause.outcome)), el('td', { class: 'fan-out' }, fanOut(cause.b, cause.outcome))))));
  return el('section', { class: 'compare-section', 'aria-label': 'Causes' },
    el('h2', { text: 'Causes' }),
    el('p', { class: 'meta', text: 'What made bodies run: one cause event fanning out to N updates; and the bodies a change notified that did not run '
      + '(an environment change checking views that do not read it).'
      + (c.causesTotal > c.causes.length ? ` The ${c.causes.length} largest changes of ${c.causesTotal}.` : '') }),
    c.causes.length ? scrollBox(table, 'Causes table (scrolls sideways)') : el('p', { class: 'empty', text: 'Neither trace recorded causes.' }));
}

/** Frames drawn, updates, hitches, hangs and CPU (a pooled side's counts with their spread). */
export function totalsSection(c) {
  const names = { updates: 'Updates', hitches: 'Hitches', hangs: 'Hangs', cpu: 'CPU samples' };
  const tone = (delta) => (delta < 0 ? 'change-improved' : delta > 0 ? 'change-regressed' : 'change-unchanged');
  const row = (key, title, counts, times, delta, words, className) => el('tr', { 'data-total': key, class: className },
    el('th', { scope: 'row', text: title }), el('td', { class: 'num', text: counts }), el('td', { class: 'num', text: times }),
    el('td', { class: 'num delta', text: delta }), el('td', { class: 'change', text: words }));
  const rows = c.totals.map((t) => row(t.name, names[t.name] ?? t.name, arrow(countText(t.a), countText(t.b)),
    arrow(formatDuration(t.a.totalNs), formatDuration(t.b.totalNs)), signedDuration(t.totalNsDelta), '', tone(t.totalNsDelta)));
  // More frames drawn is better: the tone is the other way round.
  rows.splice(1, 0, row('frames', 'Frames drawn', arrow(c.frames.a, c.frames.b), '', '', c.frames.changeText, tone(-c.frames.delta)));
  return el('section', { class: 'compare-section', 'aria-label': 'Frames, hitches, hangs and CPU' },
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
