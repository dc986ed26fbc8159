// The layout math of the flame graph and the stack chart (WebRoot/js/chart/boxes.js,
// chart/flame-model.js) and the CPU pane's settings (settings.js), without a browser.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  boxAt, clampView, diffColor, fitLabel, forEachVisible, interpolateView, kindColor, matchingBoxes, prepareBoxes, ROW_HEIGHT, zoomAround,
} from '../../WebRoot/js/chart/boxes.js';
import { ancestry, flameTooltip, frameAtPath, framePath, frameWindow, needsFinerAnswer, prepareFlame } from '../../WebRoot/js/chart/flame-model.js';
import { cpuParams, fewSamplesWarning, hiddenMatchesNote, MIN_TRUSTED_SAMPLES } from '../../WebRoot/js/panes/cpu/settings.js';
import { EMPTY_STATE } from '../../WebRoot/js/state.js';

// GET flamegraph of: Main Thread (10) > run (10) > [body (6) > format (4), layout (3), 3 frames merged (1)].
const ANSWER = {
  start: 0, end: 10, mode: 'top-down', unit: 'ns', totalWeight: 10_000_000, sampleCount: 10, focusFound: true, zoomFound: true, zoom: [],
  window: [0, 10_000_000], width: 1000, minWeight: 10_000, mergedFrames: 3, maxDepth: 200,
  names: ['Main Thread', 'RunLoop.run', 'Forecast.body', 'Formatter.string', 'VStack.layout', '3 frames'],
  binaries: ['', 'Foundation', 'Weather', 'SwiftUICore'],
  frames: {
    parent: [-1, 0, 1, 2, 1, 1],
    depth: [0, 1, 2, 3, 2, 2],
    x: [0, 0, 0, 0, 6_000_000, 9_000_000],
    total: [10_000_000, 10_000_000, 6_000_000, 4_000_000, 3_000_000, 1_000_000],
    self: [0, 0, 2_000_000, 4_000_000, 3_000_000, 0],
    samples: [10, 10, 6, 4, 3, 1],
    name: [0, 1, 2, 3, 4, 5],
    binary: [0, 1, 2, 1, 3, 0],
    kind: ['thread', 'system', 'app', 'system', 'swiftui', 'merged'],
    step: ['t0', 'f1', 'f2', 'f3', 'f4', ''],
    merged: [0, 0, 0, 0, 0, 3],
    foldedDepth: [],
  },
};

test('boxes of a window are drawn at their pixels, rows by depth, off-window ones skipped', () => {
  const { boxes } = prepareFlame(ANSWER);
  assert.equal(boxes.maxDepth, 3);
  assert.deepEqual(boxes.rows[2], [2, 4, 5]);
  const drawn = [];
  forEachVisible(boxes, { from: 0, to: 10_000_000 }, 1000, (i, left, right) => drawn.push([boxes.name[i], left, right]));
  assert.deepEqual(drawn.find(([name]) => name === 'VStack.layout'), ['VStack.layout', 600, 900]);
  // Zoomed into the body: the layout frame is outside, the body fills the width.
  const zoomed = [];
  forEachVisible(boxes, frameWindow(prepareFlame(ANSWER), 2), 1000, (i, left, right) => zoomed.push([boxes.name[i], left, right]));
  assert.deepEqual(zoomed.map(([name]) => name), ['Main Thread', 'RunLoop.run', 'Forecast.body', 'Formatter.string']);
  assert.deepEqual(zoomed[2].slice(1), [0, 1000]);
  assert.ok(zoomed[0][1] === 0 && Math.abs(zoomed[0][2] - 10_000 / 6) < 1e-9);
});

test('the box under the pointer is found by row and x', () => {
  const { boxes } = prepareFlame(ANSWER);
  const view = { from: 0, to: 10_000_000 };
  assert.equal(boxes.name[boxAt(boxes, view, 1000, 700, 2 * ROW_HEIGHT + 5)], 'VStack.layout');
  assert.equal(boxAt(boxes, view, 1000, 700, 3 * ROW_HEIGHT + 5), -1);  // no frame of depth 3 there
  assert.equal(boxes.name[boxAt(boxes, view, 1000, 100, 3 * ROW_HEIGHT + 5)], 'Formatter.string');
  assert.equal(boxAt(boxes, view, 1000, 100, 9 * ROW_HEIGHT), -1);
  assert.equal(boxAt(boxes, view, 1000, -5, 5), -1);
});

test('a frame\'s path is its ancestors\' steps, and a path finds its frame', () => {
  const flame = prepareFlame(ANSWER);
  assert.equal(framePath(flame, 3), 't0.f1.f2.f3');
  assert.equal(framePath(flame, 5), null);
  assert.equal(frameAtPath(flame, 't0.f1.f4'), 4);
  assert.equal(frameAtPath(flame, 't0.f4'), -1);
  assert.deepEqual(ancestry(flame, 3), [0, 1, 2, 3]);
});

test('a pooled differential answer has no rows: a frame\'s path is its names, one a line', () => {
  const pooled = { ...ANSWER, runs: { a: 3, b: 2 }, frames: { ...ANSWER.frames, step: ['', '', '', '', '', ''] } };
  const flame = prepareFlame(pooled);
  assert.equal(framePath(flame, 3), 'Main Thread\nRunLoop.run\nForecast.body\nFormatter.string');
  assert.equal(framePath(flame, 5), null);
  assert.equal(frameAtPath(flame, 'Main Thread\nRunLoop.run\nVStack.layout'), 4);
  assert.equal(frameAtPath(flame, 'Main Thread\nVStack.layout'), -1);
  assert.equal(frameAtPath(flame, 't0.f1.f4'), -1);
});

test('zooming keeps the point under the pointer, stays inside the graph, and animates evenly', () => {
  const [from, to] = zoomAround({ from: 0, to: 100 }, 25, 0.5);
  assert.deepEqual([from, to], [12.5, 62.5]);
  assert.deepEqual(clampView([-10, 40], { from: 0, to: 100 }), { from: 0, to: 50 });
  assert.deepEqual(clampView([80, 130], { from: 0, to: 100 }), { from: 50, to: 100 });
  assert.deepEqual(clampView([-50, 500], { from: 0, to: 100 }), { from: 0, to: 100 });
  const a = { from: 0, to: 100 };
  const b = { from: 60, to: 70 };
  assert.deepEqual(interpolateView(a, b, 0), a);
  const end = interpolateView(a, b, 1);
  assert.ok(Math.abs(end.from - 60) < 1e-9 && Math.abs(end.to - 70) < 1e-9);
  // Halfway in a geometric zoom the span is the geometric mean.
  const half = interpolateView(a, b, 0.5);
  assert.ok(Math.abs((half.to - half.from) - Math.sqrt(100 * 10)) < 1e-9);
  // A pure pan moves linearly.
  assert.deepEqual(interpolateView({ from: 0, to: 10 }, { from: 10, to: 20 }, 0.5), { from: 5, to: 15 });
});

test('a window zoomed past the answer\'s resolution, or beyond what it covers, asks again', () => {
  assert.equal(needsFinerAnswer(ANSWER, { from: 0, to: 10_000_000 }, 1000), false);
  assert.equal(needsFinerAnswer(ANSWER, { from: 0, to: 6_000_000 }, 1000), false);
  assert.equal(needsFinerAnswer(ANSWER, { from: 0, to: 4_000_000 }, 1000), true);
  const part = { ...ANSWER, window: [0, 5_000_000], minWeight: 5_000 };
  assert.equal(needsFinerAnswer(part, { from: 4_000_000, to: 9_000_000 }, 1000), true);
});

test('labels fit their box, cut with an ellipsis, or are left out', () => {
  assert.equal(fitLabel('RunLoop.run', 400), 'RunLoop.run');
  assert.equal(fitLabel('RunLoop.run', 20), '');
  const cut = fitLabel('ForecastView.body.getter', 60);
  assert.ok(cut.endsWith('…') && cut.length * 6.6 <= 60, cut);
});

test('colours: a kind keeps its hue, a name its shade; a search dims the rest; a change is red or blue', () => {
  assert.equal(kindColor('app', 'x'), kindColor('app', 'x'));
  assert.notEqual(kindColor('app', 'x'), kindColor('swiftui', 'x'));
  assert.match(kindColor('app', 'x'), /^hsl\(28 /);
  assert.notEqual(kindColor('app', 'x', true), kindColor('app', 'x'));
  assert.match(diffColor(0.05), /^hsl\(4 /);
  assert.match(diffColor(-0.05), /^hsl\(214 /);
  assert.equal(diffColor(0), 'hsl(0 0% 92%)');
  const { boxes } = prepareFlame(ANSWER);
  assert.deepEqual([...matchingBoxes(boxes, 'format')], [3]);
  assert.equal(matchingBoxes(boxes, '').size, 0);
});

test('the tooltip says weight, share, self and samples, in cycles when the trace counts cycles', () => {
  const flame = prepareFlame(ANSWER);
  const { title, lines } = flameTooltip(flame, 2);
  assert.equal(title, 'Forecast.body');
  assert.deepEqual(Object.fromEntries(lines), { Binary: 'Weather', Total: '6.00 ms (60.0%)', Self: '2.00 ms (20.0%)', Samples: '6' });
  assert.match(flameTooltip(flame, 5).title, /3 frames, each narrower than a pixel/);
  const cycles = prepareFlame({ ...ANSWER, unit: 'cycles' });
  assert.match(Object.fromEntries(flameTooltip(cycles, 2).lines)['Total cycles'], /6\.00 M cycles/);
  const diff = { before: { totalWeight: 20_000_000, unit: 'ns', total: [null, null, 12_000_000, null, null, null], self: [null, null, 8_000_000, null, null, null] }, selfDelta: [0, 0, -0.2, 0, 0, 0] };
  const d = Object.fromEntries(flameTooltip(flame, 2, { diff }).lines);
  assert.equal(d['In A'], '12.0 ms (60.0%), self 40.0%');
  assert.equal(d['Self share change'], '-20.00 points');
  // The time change, in ms, before the share's: 8 ms of self in A, 2 ms in B.
  assert.equal(d['Self time'], '8.00 ms before, 2.00 ms after, −6.00 ms');
  const pooled = Object.fromEntries(flameTooltip(flame, 2, { diff: { ...diff, runs: { a: 3, b: 2 } } }).lines);
  assert.equal(pooled['Self time'], '8.00 ms before, 2.00 ms after, −6.00 ms a run');
});

test('the CPU settings become the API\'s parameters, one reading for every view', () => {
  const state = { ...EMPTY_STATE, range: [5, 9], inverted: true, cpuThread: 2, hideSystem: true, charged: ['a', 'b(c, d)'], flatten: true, focus: 'f1.f2' };
  assert.deepEqual(cpuParams(state), {
    start: 5, end: 9, mode: 'bottom-up', thread: 2, hideSystem: 'true', charge: 'a\nb(c, d)', flatten: 'true', focus: 'f1.f2',
  });
  // The stack chart: its range is the timeline's window, no direction, no focus.
  assert.deepEqual(cpuParams(state, { forStack: true }), { thread: 2, hideSystem: 'true', charge: 'a\nb(c, d)', flatten: 'true' });
  const view = { ...EMPTY_STATE, cpu: 'view', paneView: { module: 'M', view: 'Row', category: 'View Body' }, filter: 'long-view-body', longerThan: 1_000_000 };
  assert.deepEqual(cpuParams(view), { mode: 'top-down', view: 'Row', module: 'M', filter: 'long-view-body', longerThan: 1_000_000 });
});

test('too few samples are said; hidden search matches offer the switch that shows them', () => {
  assert.equal(fewSamplesWarning({ sampleCount: MIN_TRUSTED_SAMPLES, totalWeight: 1 }, false), null);
  assert.match(fewSamplesWarning({ sampleCount: 3, totalWeight: 3_000_000, unit: 'ns' }, false), /^Only 3 samples \(one every 1\.00 ms\): too few/);
  assert.equal(hiddenMatchesNote({ functions: 0 }, 'x'), null);
  const note = hiddenMatchesNote({ functions: 2, hideSystem: 2, charged: 1, focus: 0 }, 'unum');
  assert.equal(note.text, '2 functions matching “unum” are hidden by “Hide system libraries” and “Charge to caller”.');
  assert.deepEqual(note.patch, { hideSystem: false, charged: [] });
  assert.deepEqual(hiddenMatchesNote({ functions: 1, hideSystem: 0, charged: 0, focus: 1 }, 'q').patch, { focus: null, flameZoom: null });
});

test('a stack chart is boxes too: x is time, width its duration', () => {
  const boxes = prepareBoxes({ depth: [0, 1, 1], x: [100, 100, 300], width: [400, 150, 50], name: ['main', 'a', 'b'], kind: ['app', 'app', 'system'] });
  assert.equal(boxes.name[boxAt(boxes, { from: 0, to: 1000 }, 1000, 320, ROW_HEIGHT + 2)], 'b');
  assert.equal(boxAt(boxes, { from: 0, to: 1000 }, 1000, 260, ROW_HEIGHT + 2), -1);
});
