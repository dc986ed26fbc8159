// The comparison page's aligned timelines (WebRoot/js/compare-align.js): anchors and the shared axis.
import test from 'node:test';
import assert from 'node:assert/strict';
import { anchorTimes, sharedBounds, toShared, toTrace, parseAnchor, formatAnchor } from '../../WebRoot/js/compare-align.js';

const traces = { a: { start: 0, end: 4_000_000_000 }, b: { start: 100, end: 3_000_000_100 } };
const interactions = [
  { label: 'Tap Gesture', a: 2, b: 2, firstA: 1_400_000_000, firstB: 900_000_100 },
  { label: 'App Launch', a: 1, b: 0, firstA: 50_000_000, firstB: null },
];

test('both starts by default; the first group of a label; the compared ranges', () => {
  assert.deepEqual(anchorTimes(null, { traces, interactions }), { a: 0, b: 100, fellBack: [] });
  assert.deepEqual(anchorTimes({ group: 'Tap Gesture' }, { traces, interactions }), { a: 1_400_000_000, b: 900_000_100, fellBack: [] });
  const ranges = { a: [2_000_000_000, 3_000_000_000], b: null };
  // B has no compared range: it stays at its start, and the page says so.
  assert.deepEqual(anchorTimes('ranges', { traces, ranges, interactions }), { a: 2_000_000_000, b: 100, fellBack: ['B'] });
  assert.deepEqual(anchorTimes({ group: 'App Launch' }, { traces, interactions }), { a: 50_000_000, b: 100, fellBack: ['B'] });
  assert.deepEqual(anchorTimes({ group: 'Nowhere' }, { traces, interactions }), { a: 0, b: 100, fellBack: ['A', 'B'] });
});

test('the shared axis covers both traces moved by their anchors, and windows map both ways', () => {
  const anchors = anchorTimes({ group: 'Tap Gesture' }, { traces, interactions });
  // A starts 1.4 s before its tap, B 0.9 s before its tap; A ends 2.6 s after, B 2.1 s after.
  assert.deepEqual(sharedBounds(traces, anchors), { start: -1_400_000_000, end: 2_600_000_000 });
  const shared = [-1_000_000, 5_000_000];
  assert.deepEqual(toTrace(shared, anchors.a), [1_399_000_000, 1_405_000_000]);
  assert.deepEqual(toTrace(shared, anchors.b), [899_000_100, 905_000_100]);
  // A window moved on A's timeline is the same shared window: B's follows by the anchors' difference.
  const onA = [1_300_000_000, 1_500_000_000];
  const onB = toTrace(toShared(onA, anchors.a), anchors.b);
  assert.deepEqual(onB, [800_000_100, 1_000_000_100]);
  assert.deepEqual(toShared(onB, anchors.b), toShared(onA, anchors.a));
  // Zooming keeps the two windows the same width: the axis is one scale.
  assert.equal(onB[1] - onB[0], onA[1] - onA[0]);
});

test('al= values parse and format back; anything else is the default', () => {
  for (const anchor of ['ranges', { group: 'Tap Gesture' }, { group: 'a:b, c' }]) assert.deepEqual(parseAnchor(formatAnchor(anchor)), anchor);
  assert.equal(formatAnchor(null), null);
  for (const junk of [null, undefined, '', 'start', 'g:', 'G:Tap']) assert.equal(parseAnchor(junk), null, String(junk));
});
