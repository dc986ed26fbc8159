// A Swift task's state interval in the side panel, shown when a Main Actor lane interval is
// clicked: GET /api/traces/{id}/task-states/{row}; a mark that holds several intervals (several
// tasks wait for the main actor at once) shows the longest, with the others listed.
import { codeName, el } from '../dom.js';
import { formatDuration, formatTimestamp, taskRunSeverityLabel, waitSeverityLabel } from '../format.js';
import { field } from './panel.js';
import { taskState } from '../selections/task-state.js';
import { sourceLinkNode } from '../source-link.js';

// Every state the Swift Tasks instrument writes (SwiftTaskState.title).
const stateLabel = {
  creating: 'Creating', enqueued: 'Enqueued', running: 'Running', suspended: 'Suspended', waiting: 'Waiting',
  continuation: 'Continuation', ending: 'Ending', unknown: 'Unknown',
};

/** "503 in Landmarks (2741)": task ids are per process, so the process is part of the name. */
function taskKey(task) {
  const process = task.process;
  return process ? `${task.id} in ${process.name || 'process'} (${process.pid})` : `${task.id}`;
}

/** Shows task state `row` of `traceView` in `panel` (panel.js). */
export function showTaskState(panel, traceView, row) {
  return panel.load(`Task state ${row}`, (signal) => traceView.api.get(taskState.resource(row), null, { signal }),
    (state) => render(panel, traceView, state, null));
}

/** Shows the intervals of a Main Actor lane mark, {lane, start, end, row}: interval `row`, else the longest. */
export function showTaskStates(panel, traceView, mark) {
  return panel.load(null, async (signal) => {
    const list = await traceView.api.get('task-states', { lane: mark.lane, start: Math.floor(mark.start), end: Math.ceil(mark.end) }, { signal });
    const row = mark.row ?? list.rows[0]?.row;
    return { list, state: row === undefined ? null : await traceView.api.get(taskState.resource(row), null, { signal }) };
  }, ({ list, state }) => {
    if (state) render(panel, traceView, state, { mark, list });
    else panel.show(el('h2', { text: 'No interval here' }), el('p', { class: 'placeholder', text: 'This mark holds no task interval.' }));
  });
}

function backtrace(traceView, title, frames, truncated) {
  if (!frames?.length) return null;
  const count = truncated ? `the ${frames.length} innermost frames of a deeper stack` : `${frames.length} frames`;
  return el('details', { class: 'task-backtrace' }, el('summary', { text: `${title} (${count})` }),
    el('ol', {}, ...frames.map((f) => el('li', { class: f.isAppCode ? 'app-frame' : null }, codeName(f.binary ? `${f.name} — ${f.binary}` : f.name),
      f.source ? [' — ', sourceLinkNode(f.source, traceView.trace.sourceLink, traceView.copyLink)] : null))));
}

/** The other intervals of the clicked mark, each selectable. */
function others(traceView, overlapping, current) {
  if (!overlapping || overlapping.list.rows.length < 2) return null;
  const { mark, list } = overlapping;
  return el('div', { class: 'task-overlap' },
    el('h3', { class: 'causes-title', text: `${list.count} intervals overlap here` }),
    el('ul', { class: 'causes' }, ...list.rows.map((r) => el('li', {},
      el('button', { type: 'button', class: 'link', disabled: r.row === current,
        onclick: () => traceView.select({ kind: 'task-states', id: { ...mark, row: r.row } }) }, codeName(r.task)), ' ',
      el('span', { class: `sev sev-${r.severity}`, text: formatDuration(r.duration) })))));
}

function render(panel, traceView, s, overlapping) {
  const isWait = s.state === 'enqueued' && s.isMainActor;
  const label = isWait ? waitSeverityLabel[s.severity] : s.state === 'running' ? taskRunSeverityLabel[s.severity] : null;
  panel.announce(`${s.task.title} selected: ${stateLabel[s.state] ?? s.state} ${formatDuration(s.duration)}${s.resumeFunction ? ` in ${s.resumeFunction}` : ''}`);
  panel.show(
    el('h2', { id: 'task-details-title' }, codeName(s.task.title)),
    others(traceView, overlapping, s.row),
    el('div', {}, label ? el('span', { class: `sev sev-${s.severity}`, text: label }) : null, label ? ' ' : null,
      el('strong', { text: `${stateLabel[s.state] ?? s.state} ${formatDuration(s.duration)}` })),
    el('dl', { id: 'task-details-fields' },
      ...field('Task', taskKey(s.task)),
      ...field('State', stateLabel[s.state] ?? s.state),
      ...field('Start', formatTimestamp(s.start)),
      ...field('Duration', formatDuration(s.duration)),
      ...field('Actor', s.actor),
      ...field('Priority', s.priority),
      ...field('Resume function', s.resumeFunction ? codeName(s.resumeFunction) : null),
      ...field('Waiting for', s.waitingFor ? codeName(`${s.waitingFor.title} (task ${taskKey(s.waitingFor)})`) : null),
      ...field('Thread', s.thread ? `${s.thread.name || 'Thread'} (${s.thread.tid})` : null),
      ...field('Narrative', s.narrative)),
    el('div', { class: 'actions' },
      el('button', { type: 'button', title: 'Make this interval the inspection range and zoom to it, with some time around it',
        onclick: () => traceView.setRange(s.start, s.start + Math.max(s.duration, 1), { zoom: 'context' }), text: 'Set Inspection Range and Zoom' }),
      el('button', { type: 'button', title: 'Make the whole task, from its creation to its end, the inspection range',
        onclick: () => traceView.setRange(s.task.start, Math.max(s.task.end, s.task.start + 1), { zoom: 'context' }), text: 'Range: whole task' })),
    el('h3', { class: 'causes-title', text: `States of this task${s.stateCount > s.states.length ? ` (first ${s.states.length} of ${s.stateCount})` : ''}` }),
    el('table', { class: 'task-states', id: 'task-states' },
      el('tbody', {}, ...s.states.map((state) => el('tr', { class: state.row === s.row ? 'current' : null },
        el('td', {}, el('button', { type: 'button', class: 'link', text: stateLabel[state.state] ?? state.state,
          onclick: () => traceView.select({ kind: 'task-state', id: state.row }) })),
        el('td', { text: formatTimestamp(state.start) }),
        el('td', {}, el('span', { class: `sev sev-${state.severity}`, text: formatDuration(state.duration) })),
        el('td', { text: state.actor }))))),
    backtrace(traceView, 'Creation backtrace', s.creationBacktrace, s.creationBacktraceTruncated),
    backtrace(traceView, 'Suspend backtrace', s.suspendBacktrace, s.suspendBacktraceTruncated),
  );
}
