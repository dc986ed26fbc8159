// A signpost interval or event in the side panel, shown when one is clicked on a signpost lane:
// GET /api/traces/{id}/signposts/{row}. "Set Inspection Range" makes the interval the range.
import { el } from '../dom.js';
import { formatDuration, formatTimestamp } from '../format.js';
import { field } from './panel.js';
import { signpost } from '../selections/signpost.js';

const KIND_LABEL = { interval: 'Interval', event: 'Event (an instant)', unended: 'Interval that never ended (runs to the end of the recording)' };

/** Shows signpost `row` of `traceView` in `panel` (panel.js). */
export function showSignpost(panel, traceView, row) {
  return panel.load(`Signpost ${row}`, (signal) => traceView.api.get(signpost.resource(row), null, { signal }), (s) => render(panel, traceView, s));
}

function render(panel, traceView, s) {
  const end = s.start + Math.max(s.duration, 1);
  panel.announce(`Signpost ${s.name || ''} selected${s.kind === 'event' ? '' : `: ${formatDuration(s.duration)}`}, at ${formatTimestamp(s.start)}`);
  panel.show(
    el('h2', { id: 'signpost-details-title', text: s.name || 'Signpost' }),
    el('div', {}, el('strong', { text: s.kind === 'event' ? 'Event' : formatDuration(s.duration) }), ' · ', el('span', { text: s.laneTitle })),
    el('div', { class: 'signpost-actions' },
      el('button', { type: 'button', id: 'signpost-set-range', class: 'primary',
        title: 'Make this interval the inspection range: the summary, updates and CPU panes then cover only it',
        onclick: () => traceView.setRange(s.start, end, { zoom: false }), text: 'Set Inspection Range' }),
      el('button', { type: 'button', title: 'Make this signpost the inspection range and zoom to it, with some time around it',
        onclick: () => traceView.setRange(s.start, end, { zoom: 'context' }), text: 'Set Inspection Range and Zoom' })),
    el('dl', { id: 'signpost-details-fields' },
      ...field('Name', s.name),
      ...field('Subsystem', s.subsystem),
      ...field('Category', s.category),
      ...field('Kind', KIND_LABEL[s.kind] ?? s.kind),
      ...field('Start', formatTimestamp(s.start)),
      ...field('Duration', s.kind === 'event' ? null : formatDuration(s.duration)),
      ...field(s.kind === 'event' ? 'Message' : 'Begin message', s.beginMessage),
      ...field('End message', s.endMessage),
      ...field('Signpost ID', s.signpostID),
      ...field('Process', s.process ? `${s.process.name} (${s.process.pid})` : null),
      ...field('Thread', s.thread ? `${s.thread.name || 'Thread'} (${s.thread.tid})` : null)),
  );
}
