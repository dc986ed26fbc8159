// The comparison page's per-interaction tables: one per signpost name either trace has (GET
// /api/compare `intervals`): how many intervals, and per interval each measure A against B with
// the test over recordings, then the view bodies per interval by view.
import { el } from '../../dom.js';
import { formatDuration } from '../../format.js';
import { rateText, scrollBox } from './sections.js';

const MEASURES = {
  duration: 'Duration', bodies: 'View bodies', 'body-time': 'Body time', 'long-updates': 'Long updates',
  hitches: 'Hitches', 'main-actor': 'Main-actor time',
};

const number = rateText;

/** What decides, over recordings: a time's effect ("−67 %, 99 % interval −79 % … −49 %, 1 vs 1
 * recordings"), a count's rule ("every recording beyond the other side's, 3 vs 3 recordings");
 * "too few intervals to test". The intervals' own rank test is detail within the recordings. */
const pText = (m) => m.recordings?.text ?? m.counts?.text ?? 'too few intervals to test';

/** The table's headline: the view whose bodies per interval changed most. */
function headline(interval) {
  const top = interval.views.find((v) => v.a !== v.b);
  return top ? `${interval.name}: ${number(top.a)} → ${number(top.b)} ${top.view} bodies per interval` : null;
}

function intervalTable(interval, pooled) {
  const value = (m, x) => (x === null || x === undefined ? '–' : m.unit === 'nanoseconds' ? formatDuration(Math.round(x)) : number(x));
  // A measure that is zero on both sides (no hitches in any interval) says nothing.
  const rows = interval.measures.filter((m) => m.a || m.b).map((m) => el('tr', { 'data-measure': m.name, class: m.significant ? 'significant' : 'not-significant' },
    el('th', { scope: 'row', text: MEASURES[m.name] ?? m.name }),
    el('td', { class: 'num', text: `${value(m, m.a)} → ${value(m, m.b)}` }),
    el('td', { class: 'num', text: `${value(m, m.medianA)} → ${value(m, m.medianB)}` }),
    el('td', { class: `change${m.significant ? (m.b < m.a ? ' better' : ' worse') : ''}`, text: m.changeText }),
    el('td', { class: 'test', text: pText(m) })));
  const views = interval.views.map((v) => el('tr', { 'data-view': v.view, 'data-module': v.module },
    el('th', { scope: 'row', text: `${v.view} bodies` }),
    el('td', { class: 'num', text: `${number(v.a)} → ${number(v.b)}` }),
    el('td', {}), el('td', { class: `change${v.a !== v.b ? (v.b < v.a ? ' better' : ' worse') : ''}`, text: v.a === v.b ? '' : v.b < v.a ? 'fewer' : 'more' }), el('td', {})));
  const table = el('table', { class: 'compare-table compare-interval-table', 'aria-label': `${interval.name}, per interval, A against B` },
    el('thead', {}, el('tr', {}, ...['Per interval', 'Mean A → B', 'Median A → B', 'Change', 'Test'].map((h, i) => el('th', { scope: 'col', class: i === 1 || i === 2 ? 'num' : null, text: h })))),
    el('tbody', {}, ...rows, ...views));
  const place = [interval.subsystem, interval.category].filter(Boolean).join(' · ');
  const line = headline(interval);
  return el('div', { class: 'compare-interval', 'data-interval': interval.name },
    el('h3', {}, interval.name, el('span', { class: 'meta', text: ` ${interval.intervalsA} → ${interval.intervalsB} intervals${pooled ? ' per run' : ''}${place ? ` · ${place}` : ''}` })),
    line ? el('p', { class: 'interval-headline', text: line }) : null,
    scrollBox(table, `${interval.name} table (scrolls sideways)`),
    interval.viewsComplete ? null : el('p', { class: 'compare-note', text: 'Bodies by view cover only some intervals (very many overlapping intervals).' }));
}

export function intervalsSection(c) {
  if (!c.intervals.length) return null;
  return el('section', { class: 'compare-section', id: 'compare-intervals', 'aria-label': 'Per interaction' },
    el('h2', { text: 'Per interaction' }),
    el('p', { class: 'meta', text: 'Each signpost interval the app marks (any subsystem) is one sample: updates count in it when they start in it.' }),
    ...c.intervals.map((interval) => intervalTable(interval, c.a.runs > 1 || c.b.runs > 1)));
}
