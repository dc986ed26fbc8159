// Edge label placement of the cause graph (WebRoot/js/graph/labels.js): parallel edges bundled,
// labels kept off nodes and off each other, heavier counts placed first, hidden when no room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundleEdges, labelCandidates, placeLabels } from '../../WebRoot/js/graph/labels.js';

const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test('parallel edges between the same two nodes become one bundle with the summed count', () => {
  const points = [[0, 0], [100, 0]];
  const bundles = bundleEdges([
    { from: 'a', to: 'b', label: 'update', count: 3, points },
    { from: 'a', to: 'c', label: 'update', count: 1, points },
    { from: 'a', to: 'b', label: 'creation', count: 2, points },
  ]);
  assert.deepEqual(bundles.map((b) => [b.from, b.to, b.count, b.edges.map((e) => e.label)]),
    [['a', 'b', 5, ['update', 'creation']], ['a', 'c', 1, ['update']]]);
});

test('candidates start on the last hop near the effect, then move towards the cause', () => {
  const candidates = labelCandidates([[0, 0], [100, 0], [200, 100]]);
  assert.equal(candidates.length, 14);
  assert.ok(candidates[0][0] > 100 && candidates[0][0] < 200, 'first candidate on the last hop');
  assert.ok(candidates[7][0] <= 100, 'then the hop before');
});

test('a fan-in of twenty edges into one node: no label on a node or on another label', () => {
  // Twenty causes stacked at x=0..120, one effect at x=400: every edge ends at the same point.
  const nodes = Array.from({ length: 20 }, (_, i) => ({ x: 0, y: i * 50, width: 120, height: 38 }));
  const target = { x: 400, y: 480, width: 120, height: 38 };
  const labels = nodes.map((n, i) => ({
    id: i, width: 70, height: 15, weight: i,
    candidates: labelCandidates([[n.x + n.width, n.y + 19], [target.x, target.y + 19]]),
  }));
  const placed = placeLabels(labels, [...nodes, target]);
  const boxes = [...placed.values()].filter((box) => box && !box.dropped);
  assert.ok(boxes.length >= 10, `${boxes.length} of 20 labels placed`);
  for (const [i, a] of boxes.entries()) {
    for (const n of [...nodes, target]) assert.ok(!overlaps(a, n), 'label on a node');
    for (const b of boxes.slice(i + 1)) assert.ok(!overlaps(a, b), 'labels overlap');
  }
  // The heaviest count (weight 19) always gets its place.
  assert.ok(placed.get(19));
});

test('a label with no free spot is dropped at its first point, to be shown on hover', () => {
  const wall = { x: -1000, y: -1000, width: 3000, height: 3000 };
  const placed = placeLabels([{ id: 'x', width: 10, height: 10, candidates: [[0, 0], [50, 50]] }], [wall]);
  assert.deepEqual(placed.get('x'), { x: -5, y: -5, width: 10, height: 10, dropped: true });
});

test('two labels wanting the same place stack: "creation ×12" under "update ×24", neither dropped', () => {
  // Two edges from one cause to two effects drawn on top of each other (a narrow graph).
  const candidates = [[200, 100]];
  const placed = placeLabels([
    { id: 'update', width: 70, height: 15, weight: 24, candidates },
    { id: 'creation', width: 80, height: 15, weight: 12, candidates },
  ], [{ x: 0, y: 80, width: 120, height: 40 }, { x: 300, y: 80, width: 120, height: 40 }]);
  const [update, creation] = [placed.get('update'), placed.get('creation')];
  assert.ok(update && !update.stacked && !update.dropped);
  assert.ok(creation && creation.stacked && !creation.dropped, JSON.stringify(creation));
  assert.ok(!overlaps(update, creation));
});
