// What each kind of timeline lane says and does (WebRoot/js/timeline/kinds.js): the tooltip's
// lines, what a click on a mark selects, and how a selection is outlined.
import test from 'node:test';
import assert from 'node:assert/strict';
import { LANE_KINDS, NOTE_MARK, clickOf, clickable, tooltipDetail, tooltipOf } from '../../WebRoot/js/timeline/kinds.js';
import { ROWS, signpostRows } from '../../WebRoot/js/timeline/lanes.js';
import { markWindow } from '../../WebRoot/js/timeline/viewport.js';
import { SELECTION_KINDS } from '../../WebRoot/js/state.js';
import { selectionDescriptor } from '../../WebRoot/js/selections/index.js';

const row = (id) => ROWS.find((r) => r.id === id);
const [signposts] = signpostRows([{ id: 'signposts-0', title: 'Points of Interest · com.example.app', signposts: true, count: 3 }]);
const mark = (fields) => ({ index: 0, start: 1_000, duration: 500, count: 1, severity: 'normal', ...fields });
const asText = ({ title, lines }) => [title, ...lines.map(([k, v]) => `${k}: ${v}`)];

test('every lane row names a kind that says what its marks mean (a track has no marks of its own)', () => {
  for (const r of [...ROWS, signposts]) {
    if (r.track) continue;
    const kind = LANE_KINDS[r.kind];
    assert.ok(kind, `${r.id} has kind ${r.kind}, which LANE_KINDS lacks`);
    assert.equal(typeof kind.tooltip, 'function', r.kind);
    assert.equal(typeof kind.click, 'function', r.kind);
  }
});

test('an update mark selects its update; a merged one zooms in to separate its updates', () => {
  const long = row('long-view-body');
  const one = mark({ update: 42, severity: 'red', kind: 'view-body', label: 'RecipeRow' });
  assert.deepEqual(clickOf(long, one), { select: { kind: 'update', id: 42 }, span: [1_000, 1_500] });
  assert.deepEqual(asText(tooltipOf(long, one)),
    ['RecipeRow', 'Kind: View Body', 'Duration: 500 ns', 'Severity: Very long (> 1 ms)', `Start: ${tooltipOf(long, one).lines[3][1]}`, 'Update: 42']);
  const merged = mark({ count: 5, severity: 'orange' });
  assert.deepEqual(clickOf(long, merged), { zoom: markWindow(merged) });
  assert.equal(tooltipOf(long, merged).title, '5 updates (click or zoom in to separate them)');
  assert.deepEqual(tooltipOf(long, merged).lines[2], ['Worst', 'Long (> 500 µs)']);
  assert.ok(clickable(long, one) && clickable(long, merged));
});

test('a group, hitch or hang becomes the inspection range (at least 1 ns), and says so without a pointer cursor', () => {
  for (const id of ['update-groups', 'hitches', 'hangs']) {
    assert.deepEqual(clickOf(row(id), mark({ duration: 0, label: 'Hitch' })), { range: [1_000, 1_001] }, id);
    assert.equal(clickable(row(id), mark({})), false, id);
    assert.deepEqual(tooltipOf(row(id), mark({ label: 'Frame Update' })).lines[0], ['Lane', row(id).title], id);
  }
});

test('a Main Actor interval selects its task state; a mark of several selects them all, in whole nanoseconds', () => {
  const waits = row('main-actor-waits');
  assert.deepEqual(clickOf(waits, mark({ taskState: 9 })), { select: { kind: 'task-state', id: 9 }, span: [1_000, 1_500] });
  const several = mark({ count: 3, start: 1_000.4, duration: 200.2, severity: 'red' });
  assert.deepEqual(clickOf(waits, several).select, { kind: 'task-states', id: { lane: 'main-actor-waits', start: 1_000, end: 1_201, row: null } });
  // Waits are coloured by how long they waited, which the tooltip says in its words.
  assert.deepEqual(tooltipOf(waits, mark({ taskState: 9, severity: 'red' })).lines[2], ['Severity', 'Very long wait (> 100 ms)']);
  // A task's run holds the Main Actor: a task's words, never an update's duration class (issue 41).
  assert.deepEqual(tooltipOf(row('main-actor'), mark({ taskState: 9, severity: 'red' })).lines[2], ['Severity', 'Holds the Main Actor > 1 ms']);
  assert.equal(tooltipOf(waits, several).title, '3 waits (click or zoom in to separate them)');
});

test('a signpost selects itself, and its tooltip shows what it said once its details arrive', () => {
  const one = mark({ signpost: 3, label: 'Favorite Tap: Muir Woods' });
  assert.deepEqual(clickOf(signposts, one), { select: { kind: 'signpost', id: 3 }, span: [1_000, 1_500] });
  assert.equal(tooltipDetail(signposts, one), 'signposts/3');
  assert.deepEqual(asText(tooltipOf(signposts, one)).slice(0, 3), ['Favorite Tap: Muir Woods', 'Lane: Points of Interest · com.example.app', 'Duration: 500 ns']);
  const detail = { subsystem: 'com.example.app', category: 'PointsOfInterest', name: 'Favorite Tap', kind: 'unended', duration: 2_000_000, beginMessage: 'Muir Woods', endMessage: '' };
  assert.deepEqual(asText(tooltipOf(signposts, one, detail)).slice(0, 6), ['Favorite Tap: Muir Woods', 'Subsystem: com.example.app',
    'Category: PointsOfInterest', 'Name: Favorite Tap', 'Duration: 2.00 ms (never ended)', 'Begin message: Muir Woods']);
  const merged = mark({ count: 2 });
  assert.equal(tooltipDetail(signposts, merged), null);
  assert.deepEqual(clickOf(signposts, merged), { zoom: markWindow(merged) });
});

test('the CPU lane shows its load and selects nothing', () => {
  const cpu = row('cpu');
  const load = mark({ load: 0.426, mainLoad: 0.2 });
  assert.deepEqual(tooltipOf(cpu, load).lines.slice(0, 2), [['Load', '43 %'], ['Main thread', '20 %']]);
  assert.equal(clickOf(cpu, load), null);
  assert.equal(clickable(cpu, load), false);
});

test('updates are outlined on their own lanes only (selections/update.js)', () => {
  const update = selectionDescriptor('update');
  assert.equal(update.resource(7), 'updates/7');
  assert.deepEqual(update.extent({ start: 5, duration: 2, kind: 'view-body', severity: 'red' }), { start: 5, duration: 2, lanes: ['view-body', 'long-view-body'] });
  assert.deepEqual(update.extent({ start: 5, duration: 2, kind: 'layout', severity: 'normal' }).lanes, ['other']);
  assert.deepEqual(selectionDescriptor('signpost').extent({ start: 1, duration: 0, lane: 'signposts-2' }), { start: 1, duration: 0, lanes: ['signposts-2'] });
});

test('every kind a click selects has a descriptor', () => {
  const clicks = [
    clickOf(row('long-view-body'), mark({ update: 3 })),
    clickOf(row('main-actor'), mark({ taskState: 4 })),
    clickOf(row('main-actor'), mark({ count: 3 })),
    clickOf(signposts, mark({ signpost: 2 })),
    NOTE_MARK.click({ id: '0123456789abcdef' }),
  ];
  assert.deepEqual(clicks.map((c) => c.select.kind).sort(), ['note', 'signpost', 'task-state', 'task-states', 'update']);
  for (const click of clicks) assert.ok(SELECTION_KINDS.includes(click.select.kind) && selectionDescriptor(click.select.kind), click.select.kind);
});

test('a chosen Main Actor interval is outlined on its lane: a run on Main Actor, a wait on the waits lane, a mark as itself', () => {
  const one = selectionDescriptor('task-state');
  assert.equal(one.resource(8), 'task-states/8');
  assert.deepEqual(one.extent({ start: 10, duration: 120, state: 'running', isMainActor: true }), { start: 10, duration: 120, lanes: ['main-actor'] });
  assert.deepEqual(one.extent({ start: 10, duration: 50, state: 'enqueued', isMainActor: true }).lanes, ['main-actor-waits']);
  const mark = selectionDescriptor('task-states');
  const id = { lane: 'main-actor-waits', start: 100, end: 400, row: null };
  assert.equal(mark.resource(id), null, 'the mark itself needs no request');
  assert.deepEqual(mark.extent(null, id), { start: 100, duration: 300, lanes: ['main-actor-waits'] });
  assert.equal(mark.resource({ ...id, row: 9 }), 'task-states/9', 'the interval picked from its list');
});

test('a hang-risk mark says what the recording flagged and opens the risk; merged ones zoom in', () => {
  const risks = row('hang-risks');
  const one = mark({ hangRisk: 1, duration: 0, severity: 'orange', label: 'Main thread performed file I/O' });
  assert.deepEqual(clickOf(risks, one), { select: { kind: 'hang-risk', id: 1 }, span: [1_000, 1_001] });
  assert.equal(tooltipOf(risks, one).title, 'Main thread performed file I/O');
  assert.deepEqual(clickOf(risks, mark({ count: 3, duration: 400 })), { zoom: markWindow(mark({ count: 3, duration: 400 })) });
  assert.deepEqual(selectionDescriptor('hang-risk').extent({ time: 3_050, message: 'x' }), { start: 3_050, duration: 0, lanes: ['hang-risks'] });
  assert.equal(selectionDescriptor('hang-risk').resource(1), 'hang-risks/1');
});
