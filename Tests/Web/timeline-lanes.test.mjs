// What the pointer picks on the timeline and how lanes label and layer their marks (WebRoot/js/timeline/lanes.js, render.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import { countLabel, hasTaskData, nearestEvent, layoutRows, RULER_HEIGHT } from '../../WebRoot/js/timeline/lanes.js';
import { overlaps } from '../../WebRoot/js/timeline/render.js';

const lane = (events) => ({
  length: events.length,
  start: Float64Array.from(events.map(([s]) => s)),
  duration: Float64Array.from(events.map(([, d]) => d)),
});

test('the pointer picks the mark it is over, else the closest one within the slop', () => {
  const marks = lane([[100, 50], [300, 10], [400, 100]]);
  assert.equal(nearestEvent(marks, 120, 5), 0);     // inside the first
  assert.equal(nearestEvent(marks, 313, 5), 1);     // 3 ns after the second ends
  assert.equal(nearestEvent(marks, 200, 5), -1);    // nothing within 5 ns
  assert.equal(nearestEvent(marks, 397, 5), 2);     // 3 ns before the third starts
  assert.equal(nearestEvent(lane([]), 0, 5), -1);
});

test('where marks overlap, the shorter one wins (an update over its long group)', () => {
  const marks = lane([[0, 1_000], [400, 20], [410, 5]]);
  assert.equal(nearestEvent(marks, 412, 1), 2);
  assert.equal(nearestEvent(marks, 405, 1), 1);
  assert.equal(nearestEvent(marks, 900, 1), 0);
  // Equally close from both sides: the shorter mark.
  assert.equal(nearestEvent(lane([[0, 90], [110, 5]]), 100, 20), 1);
});

test('lanes stack below the ruler; the SwiftUI track shows its lanes only when expanded', () => {
  const closed = layoutRows([]);
  const open = layoutRows(['swiftui']);
  assert.equal(closed.rows[0].y, RULER_HEIGHT);
  assert.ok(!closed.rows.some((row) => row.parent === 'swiftui'));
  assert.deepEqual(open.rows.filter((row) => row.parent === 'swiftui').map((row) => row.id), ['view-body', 'representable', 'other']);
  assert.equal(open.height - closed.height, 60);
  for (const { rows, height } of [closed, open]) {
    rows.forEach((row, i) => assert.equal(row.y + row.height, rows[i + 1]?.y ?? height));
  }
});

test('a merged mark says what it counts in its lane ("5 updates", "1 hitch")', () => {
  const rows = Object.fromEntries(layoutRows(['swiftui']).rows.map((row) => [row.id, row]));
  assert.equal(countLabel(rows['long-view-body'], 5), '5 updates');
  assert.equal(countLabel(rows['view-body'], 1), '1 update');
  assert.equal(countLabel(rows.hitches, 1), '1 hitch');
  assert.equal(countLabel(rows.hangs, 2_000), '2,000 hangs');
  assert.equal(countLabel(rows['update-groups'], 3), '3 groups');
});

test('orange runs under red runs: the overlapping pixel spans', () => {
  assert.deepEqual(overlaps([0, 2, 5, 9, 20, 21], [1, 6, 8, 30]), [[1, 2], [5, 6], [8, 9], [20, 21]]);
  assert.deepEqual(overlaps([0, 2], [2, 4]), []);
  assert.deepEqual(overlaps([], [0, 1]), []);
});

test('the Main Actor lanes are laid out only for a trace with Swift task data', () => {
  const ids = (layout) => layout.rows.map((row) => row.id);
  const withTasks = layoutRows([], { hasTasks: hasTaskData({ counts: { taskStates: 12 } }) });
  const without = layoutRows([], { hasTasks: hasTaskData({ counts: { taskStates: 0 } }) });
  assert.ok(ids(withTasks).includes('main-actor') && ids(withTasks).includes('main-actor-waits'));
  assert.deepEqual(ids(without), ids(withTasks).filter((id) => !id.startsWith('main-actor')));
  // The CPU lane moves up: no gap where the lanes were.
  assert.equal(without.height, withTasks.height - 44);
  // Counts unknown (an older server): the lanes stay.
  assert.ok(ids(layoutRows([], { hasTasks: hasTaskData({}) })).includes('main-actor'));
});

test('signpost lanes of the trace come before CPU, only those with signposts, with their titles', async () => {
  const { signpostRows } = await import('../../WebRoot/js/timeline/lanes.js');
  const infos = [
    { id: 'hangs', title: 'Hangs', count: 0 },
    { id: 'signposts-0', title: 'Points of Interest · com.acme.mail', count: 4, signposts: true },
    { id: 'signposts-1', title: 'Sync · com.acme.mail', count: 0, signposts: true },
    { id: 'signposts-2', title: 'Other signposts (3 groups)', count: 9, signposts: true },
  ];
  const extra = signpostRows(infos);
  assert.deepEqual(extra.map((row) => row.id), ['signposts-0', 'signposts-2']);
  const { rows } = layoutRows([], { extra });
  const ids = rows.map((row) => row.id);
  assert.equal(ids.indexOf('signposts-0'), ids.indexOf('cpu') - 2);
  assert.equal(ids.at(-1), 'cpu');
  assert.equal(rows.find((row) => row.id === 'signposts-2').title, 'Other signposts (3 groups)');
  // A trace without signposts lays out exactly as before.
  assert.deepEqual(layoutRows([], { extra: signpostRows([{ id: 'cpu', title: 'CPU', count: 5 }]) }).rows.map((r) => r.id), layoutRows([]).rows.map((r) => r.id));
});

test('the rows of a stack of overlapping signposts follow their group, untitled, the group counted once', async () => {
  const { signpostRows } = await import('../../WebRoot/js/timeline/lanes.js');
  const infos = [
    { id: 'signposts-0', title: 'Network · fm.overcast.player', count: 2, signposts: true, level: 0, groupSignposts: 7 },
    { id: 'signposts-1', title: 'Network · fm.overcast.player', count: 1, signposts: true, level: 1, groupSignposts: 7 },
    { id: 'signposts-2', title: 'Network · fm.overcast.player', count: 4, signposts: true, level: 2, groupSignposts: 7 },
    { id: 'signposts-3', title: 'Audio · fm.overcast.player', count: 1, signposts: true, level: 0, groupSignposts: 1 },
  ];
  const extra = signpostRows(infos);
  assert.deepEqual(extra.map((row) => row.stacked), [false, true, true, false]);
  assert.deepEqual(extra.map((row) => row.groupSignposts), [7, 7, 7, 1]);
  const { rows } = layoutRows([], { extra });
  const ids = rows.map((row) => row.id);
  assert.deepEqual(ids.slice(ids.indexOf('signposts-0'), ids.indexOf('cpu')), ['signposts-0', 'signposts-1', 'signposts-2', 'signposts-3']);
  // An older server (no level): every lane is a group of its own.
  assert.deepEqual(signpostRows([{ id: 'signposts-0', title: 'X', count: 3, signposts: true }]).map((row) => [row.stacked, row.groupSignposts]), [[false, 3]]);
});

test('the Hang Risks lane is laid out only for a trace that has one (Instruments 27)', async () => {
  const { hasHangRiskLane } = await import('../../WebRoot/js/timeline/lanes.js');
  const ids = (layout) => layout.rows.map((row) => row.id);
  const trips = { lanes: [{ id: 'hangs', count: 1 }, { id: 'hang-risks', count: 2 }] };
  const older = { lanes: [{ id: 'hangs', count: 1 }] };
  const withRisks = ids(layoutRows([], { hasHangRisks: hasHangRiskLane(trips) }));
  assert.equal(withRisks[withRisks.indexOf('hangs') + 1], 'hang-risks');
  assert.ok(!ids(layoutRows([], { hasHangRisks: hasHangRiskLane(older) })).includes('hang-risks'));
  assert.ok(!ids(layoutRows([])).includes('hang-risks'));
});
