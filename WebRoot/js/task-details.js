// A Swift task's state interval in the side panel (#update-details), shown when a Main Actor
// lane interval is clicked: GET /api/traces/{id}/task-states/{row}.
import { el } from './dom.js';
import { formatDuration, formatTimestamp, severityLabel, waitSeverityLabel } from './format.js';
const stateLabel = { creating: 'Creating', enqueued: 'Enqueued', running: 'Running', suspended: 'Suspended', continuation: 'Continuation', unknown: 'Unknown' };

/** "503 in Landmarks (2741)": task ids are per process, so the process is part of the name. */
function taskKey(task) {
  const process = task.process;
  return process ? `${task.id} in ${process.name || 'process'} (${process.pid})` : `${task.id}`;
}

export function createTaskDetails(root, ctx) {
  let controller = null;

  /** The longest interval of `lane` in [start, end], with the others that overlap it listed. */
  async function showSpan(lane, start, end) {
    controller?.abort();
    const span = new AbortController();
    controller = span;
    try {
      const list = await ctx.api.get('task-states', { lane, start: Math.floor(start), end: Math.ceil(end) }, { signal: span.signal });
      if (list.rows.length) await show(list.rows[0].row, list);
    } catch (error) {
      if (error.name !== 'AbortError') root.replaceChildren(el('div', { class: 'error-box', role: 'alert', text: error.message }));
    }
  }

  async function show(row, overlapping = null) {
    controller?.abort();
    // The panel is shared with the selected update: clear that selection first.
    if (ctx.state.get().update !== null) ctx.selectUpdate(null);
    controller = new AbortController();
    // details.js hides the shared panel when no update is selected.
    root.hidden = false;
    root.setAttribute('aria-busy', 'true');
    try {
      render(await ctx.api.get(`task-states/${row}`, null, { signal: controller.signal }), overlapping);
    } catch (error) {
      if (error.name === 'AbortError') return;
      root.replaceChildren(el('h2', { text: `Task state ${row}` }), el('div', { class: 'error-box', role: 'alert', text: error.message }));
    } finally {
      root.setAttribute('aria-busy', 'false');
    }
  }

  function backtrace(title, frames) {
    if (!frames?.length) return null;
    return el('details', { class: 'task-backtrace' }, el('summary', { text: `${title} (${frames.length} frames)` }),
      el('ol', {}, ...frames.map((f) => el('li', { class: f.isAppCode ? 'app-frame' : null, text: f.binary ? `${f.name} — ${f.binary}` : f.name }))));
  }

  function others(list, current) {
    if (!list || list.rows.length < 2) return null;
    return el('div', { class: 'task-overlap' },
      el('h3', { class: 'causes-title', text: `${list.count} intervals overlap here` }),
      el('ul', { class: 'causes' }, ...list.rows.map((r) => el('li', {},
        el('button', { type: 'button', class: 'link', disabled: r.row === current, onclick: () => show(r.row, list), text: r.task }), ' ',
        el('span', { class: `sev sev-${r.severity}`, text: formatDuration(r.duration) })))));
  }

  function render(s, overlapping) {
    const field = (name, value) => (value === null || value === undefined || value === '' ? [] : [el('dt', { text: name }), el('dd', {}, value)]);
    const isWait = s.state === 'enqueued' && s.isMainActor;
    const label = isWait ? waitSeverityLabel[s.severity] : severityLabel[s.severity];
    root.replaceChildren(...[
      el('h2', { id: 'task-details-title', text: s.task.title }),
      others(overlapping, s.row),
      el('div', {}, el('span', { class: `sev sev-${s.severity}`, text: label ?? s.severity }), ' ',
        el('strong', { text: `${stateLabel[s.state] ?? s.state} ${formatDuration(s.duration)}` })),
      el('dl', { id: 'task-details-fields' },
        ...field('Task', taskKey(s.task)),
        ...field('State', stateLabel[s.state] ?? s.state),
        ...field('Start', formatTimestamp(s.start)),
        ...field('Duration', formatDuration(s.duration)),
        ...field('Actor', s.actor),
        ...field('Priority', s.priority),
        ...field('Resume function', s.resumeFunction),
        ...field('Waiting for', s.waitingFor ? `${s.waitingFor.title} (task ${taskKey(s.waitingFor)})` : null),
        ...field('Thread', s.thread ? `${s.thread.name || 'Thread'} (${s.thread.tid})` : null),
        ...field('Narrative', s.narrative)),
      el('div', { class: 'actions' },
        el('button', { type: 'button', 'aria-label': 'Set inspection range to this interval and zoom',
          onclick: () => ctx.setRange(s.start, s.start + Math.max(s.duration, 1), { zoom: true }), text: 'Set range & zoom' }),
        el('button', { type: 'button', 'aria-label': 'Set inspection range to the whole task',
          onclick: () => ctx.setRange(s.task.start, Math.max(s.task.end, s.task.start + 1), { zoom: true }), text: 'Range: whole task' })),
      el('h3', { class: 'causes-title', text: `States of this task${s.stateCount > s.states.length ? ` (first ${s.states.length} of ${s.stateCount})` : ''}` }),
      el('table', { class: 'task-states', id: 'task-states' },
        el('tbody', {}, ...s.states.map((state) => el('tr', { class: state.row === s.row ? 'current' : null },
          el('td', {}, el('button', { type: 'button', class: 'link', onclick: () => show(state.row), text: stateLabel[state.state] ?? state.state })),
          el('td', { text: formatTimestamp(state.start) }),
          el('td', {}, el('span', { class: `sev sev-${state.severity}`, text: formatDuration(state.duration) })),
          el('td', { text: state.actor }))))),
      backtrace('Creation backtrace', s.creationBacktrace),
      backtrace('Suspend backtrace', s.suspendBacktrace),
    ].filter(Boolean));
  }

  return { show, showSpan, destroy() { controller?.abort(); } };
}
