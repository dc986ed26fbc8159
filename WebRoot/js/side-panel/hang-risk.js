// A hang risk (Instruments 27's `hang-risks`) in the side panel, shown when one is clicked on the
// Hang Risks lane: GET /api/traces/{id}/hang-risks/{row}. What the recording flagged, when, on
// which thread, the hang or hitch it fell in (how long the app was held), the app frame that did
// it with its file and line, and the backtrace.
import { codeName, el } from '../dom.js';
import { formatDuration, formatTimestamp } from '../format.js';
import { sourceLinkNode } from '../source-link.js';
import { field } from './panel.js';

/** Shows hang risk `row` of `traceView` in `panel` (panel.js). */
export function showHangRisk(panel, traceView, row) {
  return panel.load(`Hang risk ${row}`, (signal) => traceView.api.get(`hang-risks/${row}`, null, { signal }), (r) => render(panel, traceView, r));
}

/** "Hang of 320 ms at 3.000 s": the interval a risk fell in, or what to say without one. */
export function withinText(within) {
  if (!within) return 'Outside every recorded hang and hitch';
  return `${within.kind || (within.lane === 'hang' ? 'Hang' : 'Hitch')} of ${formatDuration(within.duration)} at ${formatTimestamp(within.start)}`;
}

function render(panel, traceView, r) {
  const select = (id) => traceView.select({ kind: 'hang-risk', id }, { zoom: false });
  const source = (f) => (f?.source ? [' — ', sourceLinkNode(f.source, traceView.trace.sourceLink, traceView.copyLink)] : null);
  panel.announce(`Hang risk selected: ${r.message}, at ${formatTimestamp(r.time)}`);
  const within = r.within;
  panel.show(
    el('h2', { id: 'hang-risk-details-title', text: r.message || 'Hang risk' }),
    el('div', {}, el('span', { class: 'sev sev-orange', text: r.severity || 'Hang risk' }), ' ',
      el('strong', { 'data-testid': 'hang-risk-within', text: withinText(within) })),
    r.frame ? el('p', { class: 'hang-risk-cause', 'data-testid': 'hang-risk-frame' }, 'In ', codeName(r.frame.name), source(r.frame)) : null,
    el('div', { class: 'signpost-actions' },
      within ? el('button', {
        type: 'button', class: 'primary', title: `Make the ${within.lane} this risk fell in the inspection range and zoom to it`,
        onclick: () => traceView.setRange(within.start, within.start + Math.max(within.duration, 1), { zoom: 'context' }),
        text: `Zoom to the ${within.lane}`,
      }) : null,
      r.previous != null ? el('button', { type: 'button', onclick: () => select(r.previous), text: 'Previous risk' }) : null,
      r.next != null ? el('button', { type: 'button', onclick: () => select(r.next), text: 'Next risk' }) : null),
    el('dl', { id: 'hang-risk-details-fields' },
      ...field('Message', r.message),
      ...field('At', formatTimestamp(r.time)),
      ...field('Held the app', within ? `${formatDuration(within.duration)} (${within.lane === 'hang' ? 'the hang' : 'the hitch'} it fell in)` : null),
      ...field('Severity', r.severity),
      ...field('Event type', r.eventType),
      ...field('Thread', r.thread ? `${r.thread.name || 'Thread'} (${r.thread.tid})` : null)),
    backtrace(r, source));
}

function backtrace(r, source) {
  if (!r.backtrace?.length) return el('p', { class: 'placeholder', text: 'No backtrace was recorded for this risk.' });
  const count = r.backtraceTruncated ? `the ${r.backtrace.length} innermost frames of a deeper stack` : `${r.backtrace.length} frames`;
  return el('details', { class: 'task-backtrace', open: true, 'data-testid': 'hang-risk-backtrace' }, el('summary', { text: `Backtrace (${count})` }),
    el('ol', {}, ...r.backtrace.map((f) => el('li', { class: f.isAppCode ? 'app-frame' : null }, codeName(f.binary ? `${f.name} — ${f.binary}` : f.name), source(f)))));
}
