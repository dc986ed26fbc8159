// The selected update in the side panel: GET /api/traces/{id}/updates/{uid}.
import { codeName, el } from '../dom.js';
import { updateLink } from '../state.js';
import { formatCount, formatDuration, formatTimestamp, kindLabel, severityLabel } from '../format.js';
import { field } from './panel.js';
import { update } from '../selections/update.js';

/** Shows update `id` of `traceView` in `panel` (panel.js). */
export function showUpdate(panel, traceView, id) {
  return panel.load(`Update ${id}`, (signal) => traceView.api.get(update.resource(id), null, { signal }), (u) => render(panel, traceView, u));
}

/** The two severities an update has, each said with where it comes from. */
const SEVERITY_SOURCE = 'Apple’s thresholds for the SwiftUI instrument’s lanes: long above 500 µs (orange), very long above 1 ms (red)';

/** "very-low" as recorded -> "Very low, the recording's own rating (not Apple's thresholds)". */
export function recordedSeverity(value) {
  const words = String(value).replace(/-/g, ' ');
  return `${words[0].toUpperCase()}${words.slice(1)}, the recording’s own rating (not Apple’s thresholds)`;
}

/** "made 8 updates run, 9.60 ms". */
export function downstreamText({ cost, events }) {
  return `made ${formatCount(events)} update${events === 1 ? '' : 's'} run, ${formatDuration(cost)}`;
}

function render(panel, traceView, u) {
  const group = u.group ? `${u.group.label || 'Group'} · ${formatDuration(u.group.duration)} at ${formatTimestamp(u.group.start)}` : null;
  const link = updateLink(traceView.traceId, u.id);
  const select = (id) => traceView.select({ kind: 'update', id }, { zoom: true });
  panel.announce(`Update ${u.id} selected: ${u.view || u.description || kindLabel[u.kind] || 'update'}, ${formatDuration(u.duration)}`
    + `${u.severity !== 'normal' ? `, ${severityLabel[u.severity] ?? u.severity}` : ''}, at ${formatTimestamp(u.start)}`);
  panel.show(
    el('h2', { id: 'update-details-title' }, codeName(u.view || u.description || `Update ${u.id}`)),
    el('div', {}, el('span', { class: `sev sev-${u.severity}`, title: SEVERITY_SOURCE, text: severityLabel[u.severity] ?? u.severity }), ' ',
      el('strong', { text: formatDuration(u.duration) }),
      el('span', { class: 'sev-source', text: ` · by Apple's thresholds` })),
    el('dl', {},
      ...field('Update', String(u.id)),
      ...field('Kind', kindLabel[u.kind] ?? u.kind),
      ...field('Start', formatTimestamp(u.start)),
      ...field('Duration', formatDuration(u.duration)),
      ...field('Module', u.module),
      ...field('View', u.view),
      ...field('Description', u.description),
      ...field('Category', u.category),
      ...field('Allocations', u.allocations ? formatCount(u.allocations) : null),
      // Instruments 27's layout tables: the layout call is the description; its own time, depth, cache.
      ...field('Self time', u.layout?.selfDuration != null ? `${formatDuration(u.layout.selfDuration)} (without the layouts it called)` : null),
      ...field('Layout depth', u.layout?.depth != null ? String(u.layout.depth) : null),
      ...field('Cached', u.layout?.cached != null ? (u.layout.cached ? 'Yes: the answer came from the cache' : 'No') : null),
      // What the update made run after it; an older recording says so once here, never 0.
      ...field('Downstream', u.downstream ? downstreamText(u.downstream)
        : u.downstreamRecorded === false && u.kind !== 'layout' ? 'not recorded (Instruments 27 records it)' : null),
      ...field('Thread', u.thread ? `${u.thread.name || 'Thread'} (${u.thread.tid})` : null),
      ...field('Process', u.process ? `${u.process.name} (${u.process.pid})` : null),
      ...field('Group', group),
      ...field('Recorded severity', u.sourceSeverity && u.sourceSeverity !== 'none' ? recordedSeverity(u.sourceSeverity) : null)),
    el('div', { class: 'actions' },
      el('button', { type: 'button', 'aria-label': 'Zoom to this update', onclick: () => select(u.id), text: 'Zoom to update' }),
      el('button', { type: 'button', title: 'Make this update the inspection range and zoom to it, with some time around it',
        onclick: () => traceView.setRange(u.start, u.start + Math.max(u.duration, 1), { zoom: 'context' }), text: 'Set Inspection Range and Zoom' }),
      el('button', { type: 'button', 'aria-label': 'Show cause and effect graph of this update', onclick: () => traceView.openPane('graph', { update: u.id }), text: 'Cause & Effect' }),
      // Not the header's "Link to this view": this one opens the update zoomed around it with its graph.
      el('button', { type: 'button', id: 'copy-update-link', 'aria-label': 'Copy link to this update',
        title: 'Copy a link that opens this update zoomed around it, with its Cause & Effect graph (not your current pane, zoom or range)',
        onclick: () => traceView.copyLink(link, 'Link to this update') },
        el('span', { class: 'icon icon-link', 'aria-hidden': 'true' }), 'Link to this update')),
    el('div', { class: 'actions' },
      el('button', { type: 'button', 'aria-label': `Previous update of ${u.view}`, disabled: u.previous === null || u.previous === undefined,
        onclick: () => select(u.previous), text: '← Previous' }),
      el('button', { type: 'button', 'aria-label': `Next update of ${u.view}`, disabled: u.next === null || u.next === undefined,
        onclick: () => select(u.next), text: 'Next →' })),
    u.causes?.length ? el('div', {}, el('h3', { class: 'causes-title',
      text: u.causeCount > u.causes.length ? `Caused by (first ${u.causes.length} of ${u.causeCount})` : 'Caused by' }),
      el('ul', { class: 'causes' }, ...u.causes.map((c) => el('li', {},
        c.title, c.property ? ` (${c.property})` : '', c.label ? el('span', { class: 'badge badge-after', text: c.label }) : null)))) : null,
  );
}
