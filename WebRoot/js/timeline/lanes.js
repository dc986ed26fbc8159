// The rows of the timeline, top to bottom as the SwiftUI instrument draws them. Each row names
// its `kind` (kinds.js: what its tooltip says and what a click on it does); `long` rows are
// coloured by severity, `color` names the colour of the others (render.js).

export const RULER_HEIGHT = 28;

// `nouns`: what a merged mark of the lane counts ("5 updates").
const UPDATES = ['update', 'updates'];
export const ROWS = [
  { id: 'update-groups', kind: 'intervals', title: 'Update Groups', height: 22, color: 'accent', nouns: ['group', 'groups'] },
  { id: 'long-view-body', kind: 'updates', title: 'Long View Body Updates', height: 22, long: true, nouns: UPDATES },
  { id: 'long-representable', kind: 'updates', title: 'Long Representable Updates', height: 22, long: true, nouns: UPDATES },
  { id: 'long-other', kind: 'updates', title: 'Other Long Updates', height: 22, long: true, nouns: UPDATES },
  { id: 'swiftui', kind: 'track', title: 'SwiftUI', height: 22, track: true },
  { id: 'view-body', kind: 'updates', title: 'View Body Updates', height: 20, parent: 'swiftui', long: true, nouns: UPDATES },
  { id: 'representable', kind: 'updates', title: 'Representable Updates', height: 20, parent: 'swiftui', long: true, nouns: UPDATES },
  { id: 'other', kind: 'updates', title: 'Other Updates', height: 20, parent: 'swiftui', long: true, nouns: UPDATES },
  { id: 'hitches', kind: 'intervals', title: 'Hitches', height: 22, color: 'hitch', nouns: ['hitch', 'hitches'] },
  { id: 'hangs', kind: 'intervals', title: 'Hangs', height: 22, color: 'hang', nouns: ['hang', 'hangs'] },
  // Instruments 27's hang risks (instants), only for a recording that has them.
  { id: 'hang-risks', kind: 'hang-risks', title: 'Hang Risks', height: 22, long: true, hangRisks: true, nouns: ['hang risk', 'hang risks'] },
  // Swift concurrency: coloured by severity (main-actor work like updates; waits orange > 16 ms, red > 100 ms).
  { id: 'main-actor', kind: 'tasks', title: 'Main Actor', height: 22, long: true, tasks: true, nouns: ['interval', 'intervals'] },
  { id: 'main-actor-waits', kind: 'tasks', title: 'Main Actor Waits', height: 22, long: true, tasks: true, waits: true, nouns: ['wait', 'waits'] },
  { id: 'cpu', kind: 'cpu', title: 'CPU', height: 44, cpu: true },
];

/** "1 update", "5 updates", "2 hitches": what a (merged) mark of `row` holds. */
export function countLabel(row, count) {
  const [one, many] = row.nouns ?? ['event', 'events'];
  return `${Number(count).toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

/**
/**
 * The trace's signpost lanes (GET /api/traces/{id}: `lanes` with `signposts: true`, one per
 * subsystem and category, at most 12 groups: the rest share "Other signposts"), drawn above the
 * CPU lane. A group whose signposts overlap comes as several lanes, the rows of its stack
 * (`level` 1, 2...): those are `stacked` under the first, which alone shows the title and the
 * group's count (`groupSignposts`).
 */
export function signpostRows(laneInfos) {
  return (laneInfos ?? []).filter((lane) => lane.signposts && lane.count > 0)
    .map((lane) => ({
      id: lane.id, kind: 'signposts', title: lane.title, height: 22, color: 'signpost', signposts: true, nouns: ['signpost', 'signposts'],
      stacked: (lane.level ?? 0) > 0, level: lane.level ?? 0, groupSignposts: lane.groupSignposts ?? lane.count,
    }));
}

/**
 * Visible rows for the expanded tracks, with their y offset below the ruler. `hasTasks`: whether
 * the trace holds Swift task data; without it the Main Actor lanes would only say 0, so they go.
 * `hasHangRisks`: whether it has hang risks (Instruments 27); the server has no such lane otherwise.
 * `extra` rows (the trace's signpost lanes) go before CPU.
 */
export function layoutRows(expanded, { hasTasks = true, hasHangRisks = false, extra = [] } = {}) {
  let y = RULER_HEIGHT;
  const rows = [];
  const cpuAt = ROWS.findIndex((row) => row.cpu);
  for (const row of [...ROWS.slice(0, cpuAt), ...extra, ...ROWS.slice(cpuAt)]) {
    if (row.parent && !expanded.includes(row.parent)) continue;
    if (row.tasks && !hasTasks) continue;
    if (row.hangRisks && !hasHangRisks) continue;
    rows.push({ ...row, y, expanded: expanded.includes(row.id) });
    y += row.height;
  }
  return { rows, height: y };
}

/** Whether a trace (its /api/traces/{id} info) holds Swift task data; unknown counts count as yes. */
export const hasTaskData = (trace) => (trace?.counts?.taskStates ?? 1) > 0;

/** Whether a trace (its /api/traces/{id} info) has a hang-risk lane. */
export const hasHangRiskLane = (trace) => (trace?.lanes ?? []).some((lane) => lane.id === 'hang-risks');

/** Lanes the server is asked for: every visible row except track headers. */
export const queriedLanes = (rows) => rows.filter((row) => !row.track).map((row) => row.id);

/** Codes of the decoded lanes (worker.js): severity index and kind index. */
export const SEVERITIES = ['normal', 'orange', 'red'];
export const KINDS = ['', 'view-body', 'representable', 'layout', 'other'];

/** One event of a decoded lane as a plain object (for tooltips and clicks, not for drawing). */
export function eventOf(lane, i) {
  const event = {
    index: i,
    start: lane.start[i],
    duration: lane.duration[i],
    count: lane.count[i],
    severity: SEVERITIES[lane.severity[i]],
  };
  if (lane.alsoOrange?.[i]) event.alsoOrange = true;
  if (lane.update[i] >= 0) event.update = lane.update[i];
  if (lane.taskState && lane.taskState[i] >= 0) event.taskState = lane.taskState[i];
  if (lane.signpost && lane.signpost[i] >= 0) event.signpost = lane.signpost[i];
  if (lane.hangRisk && lane.hangRisk[i] >= 0) event.hangRisk = lane.hangRisk[i];
  if (lane.kind[i]) event.kind = KINDS[lane.kind[i]];
  if (lane.label[i] >= 0) event.label = lane.labels[lane.label[i]];
  if (lane.load) { event.load = lane.load[i]; event.mainLoad = lane.mainLoad[i]; }
  return event;
}

/** Index range [first, last) of a decoded lane's events that can overlap [start, end] (events are sorted by start). */
export function visibleSpan(lane, start, end) {
  const from = start - lane.maxDuration;
  let lo = 0;
  let hi = lane.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (lane.start[mid] < from) lo = mid + 1; else hi = mid;
  }
  let last = lo;
  hi = lane.length;
  while (last < hi) {
    const mid = (last + hi) >>> 1;
    if (lane.start[mid] <= end) last = mid + 1; else hi = mid;
  }
  return [lo, last];
}

/**
 * The index of the decoded lane's event under time `t`: one that contains it, else the closest
 * within `slop` ns; the shorter one when several are as close (a short update over a long group).
 * -1 when none.
 */
export function nearestEvent(lane, t, slop) {
  let best = -1;
  let bestDistance = Infinity;
  const { start, duration } = lane;
  for (let i = 0; i < lane.length; i++) {
    const s = start[i];
    const e = s + duration[i];
    if (s - slop > t || e + slop < t) continue;
    const distance = t < s ? s - t : t > e ? t - e : 0;
    if (distance < bestDistance || (distance === bestDistance && duration[i] < duration[best])) { best = i; bestDistance = distance; }
  }
  return best;
}

export const FINDING_MARK_HEIGHT = 4;

/**
 * Where the findings sit on the ruler: one bar per finding along its evidence range, at the
 * ruler's foot, at least 3 px wide so a short one stays visible. Findings without a range, or
 * outside the window, are left out. Pure: the node tests check it.
 */
export function findingMarks(findings, view, width, openId = null) {
  const k = width / (view.end - view.start);
  const marks = [];
  for (const finding of findings ?? []) {
    const range = finding.evidence?.range;
    if (!range || range.end < view.start || range.start > view.end) continue;
    const x0 = Math.max((range.start - view.start) * k, 0);
    const x1 = Math.min((range.end - view.start) * k, width);
    marks.push({ id: finding.id, severity: finding.severity, open: finding.id === openId,
      x: x0, width: Math.max(x1 - x0, 3), y: RULER_HEIGHT - 1 - FINDING_MARK_HEIGHT, height: FINDING_MARK_HEIGHT });
  }
  // The open finding last, so it is drawn on top.
  return marks.sort((a, b) => Number(a.open) - Number(b.open));
}

export const NOTE_MARK_HEIGHT = 7;

/**
 * Where the notes sit on the ruler: a flag along the top of the ruler over each note's span (its
 * update, range or finding: `spanOf(id)`), at least 6 px wide so a note on a short update can be
 * hit. Notes without a span, or outside the window, are left out. Pure: the node tests check it.
 */
export function noteMarks(notes, spanOf, view, width, selectedId = null) {
  const k = width / (view.end - view.start);
  const marks = [];
  for (const note of notes ?? []) {
    const span = spanOf(note.id);
    if (!span || span[1] < view.start || span[0] > view.end) continue;
    const x0 = Math.max((span[0] - view.start) * k, 0);
    const x1 = Math.min((span[1] - view.start) * k, width);
    const w = Math.max(x1 - x0, 6);
    marks.push({ id: note.id, note, selected: note.id === selectedId, x: Math.min(x0, width - w), width: w, y: 1, height: NOTE_MARK_HEIGHT });
  }
  return marks.sort((a, b) => Number(a.selected) - Number(b.selected));
}

/** The note mark under (x, y), with a little slop; the one drawn on top first. */
export function noteMarkAt(marks, x, y) {
  for (let i = marks.length - 1; i >= 0; i--) {
    const m = marks[i];
    if (x >= m.x - 3 && x <= m.x + m.width + 3 && y >= 0 && y <= m.y + m.height + 3) return m;
  }
  return null;
}
