// The timeline's view math (WebRoot/js/timeline/viewport.js): what a wheel, drag or key does to the window.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  MIN_WINDOW_NS, GESTURE_GAP_MS, traceBounds, clampWindow, timeAt, zoomAround, panBy, pixelsToTime,
  historyStep, contextWindow, markWindow,
} from '../../WebRoot/js/timeline/viewport.js';

const MS = 1_000_000;
// A 2 s trace that does not start at 0, as recordings rarely do.
const trace = { start: 5_000 * MS, end: 7_000 * MS };
const bounds = traceBounds(trace);

test('zooming keeps the time under the cursor under the cursor', () => {
  const view = { start: 5_200 * MS, end: 5_600 * MS };
  const width = 1000;
  for (const x of [0, 137, 500, 999]) {
    for (const factor of [0.5, 0.8, 1.25, 3]) {
      const anchor = timeAt(view, width, x);
      const [start, end] = zoomAround(view, anchor, factor);
      const zoomed = { start, end };
      assert.ok(Math.abs(timeAt(zoomed, width, x) - anchor) < 1e-3, `x=${x} factor=${factor}`);
      assert.ok(Math.abs((end - start) - (view.end - view.start) * factor) < 1e-3);
    }
  }
});

test('zooming in stops at the minimum window, still around the anchor', () => {
  const view = { start: 5_000 * MS, end: 5_000 * MS + 4_000 };
  const anchor = view.start + 1_000; // a quarter in
  const [start, end] = zoomAround(view, anchor, 0.001);
  assert.equal(end - start, MIN_WINDOW_NS);
  assert.equal(start, anchor - MIN_WINDOW_NS / 4);
});

test('a window past either end of the trace is shifted back inside, keeping its width', () => {
  assert.deepEqual(clampWindow([4_900 * MS, 5_100 * MS], bounds), { start: 5_000 * MS, end: 5_200 * MS });
  assert.deepEqual(clampWindow([6_950 * MS, 7_150 * MS], bounds), { start: 6_800 * MS, end: 7_000 * MS });
  const inside = clampWindow([5_500 * MS, 5_600 * MS], bounds);
  assert.deepEqual(inside, { start: 5_500 * MS, end: 5_600 * MS });
});

test('a window wider than the trace becomes the whole trace; a too narrow one the minimum', () => {
  assert.deepEqual(clampWindow([0, 100_000 * MS], bounds), { start: trace.start, end: trace.end });
  assert.deepEqual(clampWindow([6_000 * MS, 6_000 * MS], bounds), { start: 6_000 * MS, end: 6_000 * MS + MIN_WINDOW_NS });
  // Zooming out at the end of the trace shows the whole trace, not a window hanging off the end.
  const atEnd = { start: 6_900 * MS, end: 7_000 * MS };
  assert.deepEqual(clampWindow(zoomAround(atEnd, atEnd.end, 100), bounds), { start: trace.start, end: trace.end });
});

test('an empty trace still has a window to show', () => {
  const empty = traceBounds({ start: 10, end: 10 });
  assert.deepEqual(empty, { start: 10, end: 10 + MIN_WINDOW_NS });
  assert.deepEqual(clampWindow([10, 10], empty), { start: 10, end: 10 + MIN_WINDOW_NS });
});

test('dragging moves the content with the pointer, and panning stops at the trace ends', () => {
  const view = { start: 5_400 * MS, end: 5_600 * MS };
  // Drag 250 px right on a 1000 px timeline: a quarter of the window earlier.
  const dragged = clampWindow(panBy(view, -pixelsToTime(view, 1000, 250)), bounds);
  assert.deepEqual(dragged, { start: 5_350 * MS, end: 5_550 * MS });
  const farLeft = clampWindow(panBy(view, -10_000 * MS), bounds);
  assert.deepEqual(farLeft, { start: trace.start, end: trace.start + 200 * MS });
  const farRight = clampWindow(panBy(view, 10_000 * MS), bounds);
  assert.deepEqual(farRight, { start: trace.end - 200 * MS, end: trace.end });
});

test('one zoom gesture is one history entry; jumps always push; pans never do', () => {
  let last = 0;
  const pushes = [];
  // Wheel steps 16 ms apart, a pause, then another gesture.
  for (const now of [10_000, 10_016, 10_032, 10_048, 10_048 + GESTURE_GAP_MS + 1, 10_048 + GESTURE_GAP_MS + 17]) {
    const step = historyStep('zoom', now, last);
    pushes.push(step.push);
    last = step.lastZoomAt;
  }
  assert.deepEqual(pushes, [true, false, false, false, true, false]);
  assert.deepEqual(historyStep('pan', 20_000, 0), { push: false, lastZoomAt: 0 });
  assert.deepEqual(historyStep('jump', 20_000, 19_999), { push: true, lastZoomAt: 19_999 });
  // A pan in the middle of a zoom gesture does not end the gesture.
  assert.equal(historyStep('zoom', 10_100, historyStep('pan', 10_090, 10_048).lastZoomAt).push, false);
});

test('time and pixels map linearly across the width', () => {
  const view = { start: 1_000, end: 3_000 };
  assert.equal(timeAt(view, 200, 0), 1_000);
  assert.equal(timeAt(view, 200, 100), 2_000);
  assert.equal(timeAt(view, 200, 200), 3_000);
  assert.equal(pixelsToTime(view, 200, 50), 500);
});

test("an update's context window puts it in the middle third, at least 2 ms wide, inside the trace", () => {
  const [start, end] = contextWindow(trace, 6_000 * MS, 10 * MS);
  assert.deepEqual([start, end], [5_990 * MS, 6_020 * MS]);
  assert.deepEqual(contextWindow(trace, 6_000 * MS, 100_000), [5_999 * MS + 50_000, 6_001 * MS + 50_000]);
  // Near the start the window slides right instead of leaving the trace.
  assert.deepEqual(contextWindow(trace, trace.start, 100_000), [trace.start, trace.start + 2 * MS]);
  // Near the end it slides left.
  assert.deepEqual(contextWindow(trace, trace.end - 100_000, 100_000), [trace.end - 2 * MS, trace.end]);
});

test('a merged mark opens with a quarter of its width on each side', () => {
  assert.deepEqual(markWindow({ start: 1_000_000, duration: 400_000 }), [900_000, 1_500_000]);
  assert.deepEqual(markWindow({ start: 1_000_000, duration: 0 }), [1_000_000 - MIN_WINDOW_NS, 1_000_000 + MIN_WINDOW_NS]);
});
