// What each kind of timeline lane means to the user: the lines of a mark's tooltip and what a click
// on the mark does (where a selection is outlined is its descriptor's, selections/). Pure (no DOM, no requests):
// `node --test` checks it. A lane row names its kind (lanes.js: `kind`); a new kind of lane adds
// its row there, its entry here, and, when a click selects something new, a side-panel module.
import { countLabel } from './lanes.js';
import { markWindow } from './viewport.js';
import { formatDuration, formatTimestamp, kindLabel, noteTargetText, severityLabel, taskRunSeverityLabel, waitSeverityLabel } from '../format.js';

/** The mark's span, at least 1 ns: what a click selects or makes the inspection range. */
const spanOf = (e) => [e.start, e.start + Math.max(e.duration, 1)];

/** The lines shared by most marks: one event (label, kind or lane, duration, severity, start) or a merged mark. */
function markLines(row, e, severities = severityLabel) {
  if (e.count > 1) {
    const lines = [['Lane', row.title], ['Span', formatDuration(e.duration)]];
    if (row.long) lines.push(['Worst', severities[e.severity] ?? e.severity]);
    if (row.long && e.alsoOrange) lines.push(['Also', severities.orange]);
    lines.push(['Start', formatTimestamp(e.start)]);
    return { title: `${countLabel(row, e.count)} (click or zoom in to separate them)`, lines };
  }
  const lines = [e.kind ? ['Kind', kindLabel[e.kind] ?? e.kind] : ['Lane', row.title], ['Duration', formatDuration(e.duration)]];
  // Update severities are duration classes of updates: a hitch or hang has its own kind (the label).
  if (row.long) lines.push(['Severity', severities[e.severity] ?? e.severity]);
  lines.push(['Start', formatTimestamp(e.start)]);
  if (e.update !== undefined) lines.push(['Update', String(e.update)]);
  return { title: e.label || row.title, lines };
}

/**
 * A click on a mark of the update and interval lanes: a merged mark opens (zoom into it so its
 * events separate), an update is selected, anything else (a group, hitch or hang) becomes the range.
 */
function markClick(row, e) {
  if (e.count > 1) return { zoom: markWindow(e) };
  if (e.update !== undefined) return { select: { kind: 'update', id: e.update }, span: spanOf(e) };
  return { range: spanOf(e) };
}

/**
 * Per lane kind:
 * - `tooltip(row, event, detail)` → {title, lines: [[name, value]]}; `detail` is the answer to
 *   `detail(row, event)` (a path of the trace's API the tooltip wants, or null) once it arrived;
 * - `click(row, event)` → {select: {kind, id}, span} (trace-view.js), {range: [start, end]} (the
 *   inspection range), {zoom: [start, end]} (a window), or null: nothing to do.
 */
export const LANE_KINDS = Object.freeze({
  /** Update lanes (long ones, and the SwiftUI track's): a click selects the update. */
  updates: {
    tooltip: (row, e) => markLines(row, e),
    click: markClick,
  },
  /** Update groups, hitches, hangs: a click makes the mark the inspection range. */
  intervals: {
    tooltip: (row, e) => markLines(row, e),
    click: markClick,
  },
  /** Instruments 27's hang risks (instants): the tooltip says what the recording flagged; a click opens its details. */
  'hang-risks': {
    tooltip(row, e) {
      if (e.count > 1) return markLines(row, e);
      return { title: e.label || 'Hang risk', lines: [['Lane', row.title], ['At', formatTimestamp(e.start)], ['Click', 'the details: where it fell, the backtrace']] };
    },
    click: (row, e) => (e.count <= 1 && e.hangRisk !== undefined ? { select: { kind: 'hang-risk', id: e.hangRisk }, span: spanOf(e) } : markClick(row, e)),
  },
  /** Main Actor lanes: one interval, or all of a mark's (several tasks wait for the main actor at once). */
  tasks: {
    tooltip: (row, e) => markLines(row, e, row.waits ? waitSeverityLabel : taskRunSeverityLabel),
    click(row, e) {
      const span = spanOf(e);
      if (e.taskState !== undefined && e.count <= 1) return { select: { kind: 'task-state', id: e.taskState }, span };
      return { select: { kind: 'task-states', id: { lane: row.id, start: Math.floor(span[0]), end: Math.ceil(span[1]), row: null } }, span };
    },
  },
  /** The trace's signposts (one lane per subsystem and category): the tooltip says what the signpost said. */
  signposts: {
    detail: (row, e) => (e.count <= 1 && e.signpost !== undefined ? `signposts/${e.signpost}` : null),
    tooltip(row, e, detail) {
      if (e.count > 1) return markLines(row, e);
      const lines = [];
      if (detail) {
        lines.push(['Subsystem', detail.subsystem || '—'], ['Category', detail.category || '—'], ['Name', detail.name]);
        lines.push(['Duration', detail.kind === 'event' ? 'event (instant)' : `${formatDuration(detail.duration)}${detail.kind === 'unended' ? ' (never ended)' : ''}`]);
        if (detail.beginMessage) lines.push([detail.kind === 'event' ? 'Message' : 'Begin message', detail.beginMessage]);
        if (detail.endMessage) lines.push(['End message', detail.endMessage]);
      } else {
        lines.push(['Lane', row.title], ['Duration', formatDuration(e.duration)]);
      }
      lines.push(['Start', formatTimestamp(e.start)]);
      return { title: e.label || row.title, lines };
    },
    click: (row, e) => (e.count <= 1 && e.signpost !== undefined ? { select: { kind: 'signpost', id: e.signpost }, span: spanOf(e) } : markClick(row, e)),
  },
  /** CPU load: nothing to select. */
  cpu: {
    tooltip: (row, e) => ({ title: 'CPU', lines: [['Load', `${Math.round((e.load ?? 0) * 100)} %`], ['Main thread', `${Math.round((e.mainLoad ?? 0) * 100)} %`], ['At', formatTimestamp(e.start)]] }),
    click: () => null,
  },
});

const kindOf = (row) => LANE_KINDS[row.kind] ?? LANE_KINDS.intervals;

/** The tooltip of mark `event` on `row`: {title, lines}. */
export const tooltipOf = (row, event, detail = null) => kindOf(row).tooltip(row, event, detail);

/** The API path whose answer the tooltip of `event` shows (GET …/{path}), or null. */
export const tooltipDetail = (row, event) => kindOf(row).detail?.(row, event) ?? null;

/** What a click on mark `event` of `row` does (LANE_KINDS' `click`), or null. */
export const clickOf = (row, event) => kindOf(row).click(row, event);

/** Whether the pointer over `event` says it can be clicked: it selects something or opens a merged mark. */
export function clickable(row, event) {
  const target = clickOf(row, event);
  return !!target && !target.range;
}

/** A note's mark on the ruler (lanes.js noteMarks): its tooltip, and a click shows it in the side panel. */
export const NOTE_MARK = Object.freeze({
  tooltip: (note) => ({ title: 'Note', lines: [['About', noteTargetText(note.target)], ['Note', note.text.length > 120 ? `${note.text.slice(0, 119)}…` : note.text]] }),
  click: (note) => ({ select: { kind: 'note', id: note.id } }),
});
