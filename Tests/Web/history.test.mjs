// The history chart's layout, the virtual list's window and the note flags on the ruler: pure parts
// of issue 29's browser code.
import test from 'node:test';
import assert from 'node:assert/strict';
import { BAND_SIGMAS, chartLayout, formatValue, MARGIN, niceTicks, noiseBands, shortP, stepLabel, stepWeight } from '../../WebRoot/js/chart/history.js';
import { ROW_HEIGHT, visibleRows } from '../../WebRoot/js/pages/trace-list.js';
import { noteMarkAt, noteMarks, RULER_HEIGHT } from '../../WebRoot/js/timeline/lanes.js';
import { NOTE_MARK } from '../../WebRoot/js/timeline/kinds.js';
import { noteTargets } from '../../WebRoot/js/panes/notes.js';
import { EMPTY_STATE } from '../../WebRoot/js/state.js';

const build = (index, values, extra = {}) => ({
  index, label: String(index + 1), median: [...values].sort((a, b) => a - b)[(values.length - 1) >> 1], min: Math.min(...values), max: Math.max(...values),
  traces: values.map((value, i) => ({ id: `t${index}-${i}`, name: `run ${index}`, value, check: null })), ...extra,
});

test('value ticks are round steps from 0 that reach the largest value', () => {
  assert.deepEqual(niceTicks(3_400_000), [0, 1_000_000, 2_000_000, 3_000_000, 4_000_000]);
  assert.deepEqual(niceTicks(12), [0, 5, 10, 15]);
  assert.deepEqual(niceTicks(0), [0]);
  assert.equal(formatValue(1_500_000, 'ns'), '1.50 ms');
  assert.equal(formatValue(1234, 'count'), '1,234');
});

test('the chart puts builds left to right, values bottom to top, and a change point between two builds', () => {
  const answer = {
    builds: [build(0, [100]), build(1, [100, 300]), build(2, [400])],
    changePoints: [{ index: 2, label: '3', direction: 'up' }],
  };
  const layout = chartLayout(answer, 400, 300);
  const bottom = 300 - MARGIN.bottom;
  assert.deepEqual(layout.builds.map((b) => b.x), [MARGIN.left, MARGIN.left + 156, MARGIN.left + 312]);
  assert.equal(layout.builds[1].points.length, 2);
  assert.equal(layout.ticks[0].y, bottom);
  const top = layout.ticks[layout.ticks.length - 1];
  assert.ok(top.value >= 400);
  assert.equal(layout.builds[2].points[0].y, bottom - (400 / top.value) * (bottom - MARGIN.top));
  assert.ok(layout.builds[1].max < layout.builds[1].min, 'the spread runs from the largest value (higher up) to the smallest');
  assert.equal(layout.changes[0].x, MARGIN.left + 312 - 78);
  // One build alone sits in the middle.
  assert.equal(chartLayout({ builds: [build(0, [5])], changePoints: [] }, 400, 300).builds[0].x, MARGIN.left + 156);
});

test('the noise band: one per stretch between change points, around its geometric level, as wide as the series noise', () => {
  const sigma = 0.1;
  const answer = {
    builds: [build(0, [99]), build(1, [120, 81]), build(2, [399]), build(3, [399])],
    changePoints: [{ index: 2, label: '3', direction: 'up', step: { exact: false, strength: 9, threshold: 3, percent: 300, pValue: 1e-6, status: 'suspect' } }],
    noise: { sigma, source: 'series', degreesOfFreedom: 2 },
  };
  const bands = noiseBands(answer);
  assert.deepEqual(bands.map((b) => [b.from, b.to]), [[0, 1], [2, 3]]);
  const level = Math.exp((Math.log(100) + Math.log(121) + Math.log(82)) / 3) - 1;
  assert.ok(Math.abs(bands[0].level - level) < 1e-9);
  assert.ok(Math.abs(bands[1].level - 399) < 1e-9);
  assert.ok(Math.abs(bands[1].high - (400 * Math.exp(BAND_SIGMAS * sigma) - 1)) < 1e-9);
  assert.ok(Math.abs(bands[1].low - (400 * Math.exp(-BAND_SIGMAS * sigma) - 1)) < 1e-9);
  // Without a change point: one band over the whole series; the value axis reaches the band's top.
  const flat = { builds: [build(0, [100]), build(1, [100])], changePoints: [], noise: { sigma: 0.5 } };
  assert.equal(noiseBands(flat).length, 1);
  const layout = chartLayout(flat, 400, 300);
  assert.ok(layout.top >= noiseBands(flat)[0].high);
  assert.equal(layout.bands[0].x1, MARGIN.left);
  assert.equal(layout.bands[0].x2, 400 - MARGIN.right);
  assert.ok(layout.bands[0].yHigh < layout.bands[0].yLevel && layout.bands[0].yLevel < layout.bands[0].yLow);
  // The bands meet at the change point's line.
  const stepped = chartLayout(answer, 400, 300);
  assert.equal(stepped.bands[0].x2, stepped.changes[0].x);
  assert.equal(stepped.bands[1].x1, stepped.changes[0].x);
});

test('a change point says its ratio and p over the series, an exact count its values, a young one that it is suspect', () => {
  const change = (step, before = 100, after = 134) => ({ index: 1, label: '2', direction: 'up', before, after, step });
  assert.equal(stepLabel(change({ exact: false, percent: 34.2, pValue: 2e-7, strength: 8, threshold: 3.2, status: 'confirmed' })), '1.34x, p<0.001');
  assert.equal(stepLabel(change({ exact: false, percent: -50, pValue: 0.0042, strength: 3.5, threshold: 3.2, status: 'suspect' })), '0.50x, p=0.004, suspect');
  assert.equal(stepLabel(change({ exact: true, percent: 1000, status: 'confirmed' }, 0, 10), 'count'), '0 → 10, exact');
  assert.equal(shortP(0.031), 'p=0.03');
  assert.equal(shortP(0), 'p<0.001');
  // Bolder with strength: at the threshold 0, four times it (or exact) 1.
  assert.equal(stepWeight({ strength: 3, threshold: 3 }), 0);
  assert.equal(stepWeight({ strength: 12, threshold: 3 }), 1);
  assert.equal(stepWeight({ strength: 40, threshold: 3 }), 1);
  assert.ok(stepWeight({ strength: 6, threshold: 3 }) > 0.4 && stepWeight({ strength: 6, threshold: 3 }) < 0.6);
  assert.equal(stepWeight({ exact: true }), 1);
});

test('build labels that would collide are left out, except change points and the last', () => {
  const builds = Array.from({ length: 100 }, (_, i) => build(i, [i]));
  const layout = chartLayout({ builds, changePoints: [{ index: 37, label: '38', direction: 'up' }] }, 600, 300);
  const labelled = layout.builds.filter((b) => b.labelled).map((b) => b.index);
  assert.ok(labelled.length < 20, `${labelled.length} labels`);
  assert.ok(labelled.includes(0) && labelled.includes(37) && labelled.includes(99));
});

test('the list draws the rows in sight and a few more, never past the end', () => {
  assert.deepEqual(visibleRows(0, 600, 10_000), { first: 0, last: Math.ceil(600 / ROW_HEIGHT) + 12 });
  assert.deepEqual(visibleRows(ROW_HEIGHT * 5000, 600, 10_000), { first: 4988, last: 5000 + Math.ceil(600 / ROW_HEIGHT) + 12 });
  assert.deepEqual(visibleRows(ROW_HEIGHT * 20_000, 600, 10_000), { first: 19_988, last: 19_988 });
  assert.deepEqual(visibleRows(0, 600, 3), { first: 0, last: 3 });
});

test('notes are flagged over their span on the ruler, at least 6 px wide, the selected one on top', () => {
  const notes = [{ id: 'a', target: { kind: 'update', update: 3 }, text: 'x' }, { id: 'b', target: { kind: 'range', start: 0, end: 10 }, text: 'y' },
    { id: 'c', target: { kind: 'finding', finding: 'f' }, text: 'z' }];
  const spans = { a: [500, 501], b: [0, 100], c: null };
  const marks = noteMarks(notes, (id) => spans[id], { start: 0, end: 1000 }, 1000, 'a');
  assert.deepEqual(marks.map((m) => m.id), ['b', 'a']);
  assert.equal(marks[1].width, 6);
  assert.equal(marks[0].width, 100);
  assert.ok(marks.every((m) => m.y + m.height < RULER_HEIGHT));
  assert.equal(noteMarkAt(marks, 502, 4).id, 'a');
  assert.equal(noteMarkAt(marks, 300, 4), null);
  assert.equal(noteMarks(notes, (id) => spans[id], { start: 2000, end: 3000 }, 1000).length, 0);
  assert.deepEqual(NOTE_MARK.click(notes[0]), { select: { kind: 'note', id: 'a' } });
  assert.deepEqual(NOTE_MARK.tooltip(notes[0]).lines[0], ['About', 'update 3']);
});

test('a note can be about the selected update, the range and the open finding', () => {
  assert.deepEqual(noteTargets(EMPTY_STATE), []);
  assert.deepEqual(noteTargets({ ...EMPTY_STATE, update: 7, range: [10, 20], finding: 'long-body:V' }),
    [{ kind: 'update', update: 7 }, { kind: 'range', start: 10, end: 20 }, { kind: 'finding', finding: 'long-body:V' }]);
});

test('the builds before a split against the builds after: up to 5 builds a side, the nearest taken first, at most 10 recordings, in build order', async () => {
  const { splitSides } = await import('../../WebRoot/js/pages/history.js');
  const builds = Array.from({ length: 12 }, (_, index) => build(index, index === 7 ? [1, 2, 3, 4] : [1, 2]));
  const { before, after } = splitSides(builds, 6);
  // Builds 2-6 (indexes 1-5), two recordings each: 10, the pooling limit.
  assert.deepEqual(before.ids, ['t1-0', 't1-1', 't2-0', 't2-1', 't3-0', 't3-1', 't4-0', 't4-1', 't5-0', 't5-1']);
  assert.equal(before.text, '10 recordings (builds 2–6)');
  // Builds 7, 8 (four recordings), 9 and 10 make 10; build 11 would pass it.
  assert.deepEqual(after.ids, ['t6-0', 't6-1', 't7-0', 't7-1', 't7-2', 't7-3', 't8-0', 't8-1', 't9-0', 't9-1']);
  assert.equal(after.text, '10 recordings (builds 7–10)');
  const first = splitSides(builds, 1);
  assert.equal(first.before.text, '2 recordings (build 1)');
  // A build of more than 10 recordings still makes a side, cut to 10.
  const big = splitSides([build(0, Array(12).fill(1)), build(1, [1])], 1);
  assert.equal(big.before.ids.length, 10);
});
