// The cause graph's view math (WebRoot/js/graph/viewport.js): fit, zoom, the first view.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  MIN_SCALE, MAX_SCALE, READABLE_SCALE, fitTransform, initialTransform, zoomTransform, centreTransform, nodeInView, refitTransform,
} from '../../WebRoot/js/graph/viewport.js';

const node = (id, x, y, extra = {}) => ({ id, x, y, width: 160, height: 40, ...extra });
const screen = (t, gx, gy) => [t.x + gx * t.k, t.y + gy * t.k];

test('fit shows the whole graph centred, as large as fits but not blown up', () => {
  const wide = { width: 2000, height: 300, nodes: [] };
  const t = fitTransform(wide, 1000, 600);
  assert.equal(t.k, 0.5);
  assert.deepEqual(screen(t, 0, 0), [0, (600 - 150) / 2]);
  assert.deepEqual(screen(t, 2000, 300), [1000, (600 + 150) / 2]);
  const small = { width: 100, height: 50, nodes: [] };
  assert.equal(fitTransform(small, 1000, 600).k, 1.25);
});

test('fit goes below the zoom floor for a huge graph, and an unmeasured stage counts as 800 x 400', () => {
  const column = { width: 200, height: 40_000, nodes: [] };
  assert.equal(fitTransform(column, 800, 400).k, 0.01);
  assert.ok(fitTransform(column, 800, 400).k < MIN_SCALE);
  assert.deepEqual(fitTransform(column, 0, 0), fitTransform(column, 800, 400));
  assert.deepEqual(fitTransform({ width: 0, height: 0, nodes: [] }, 800, 400), { x: 0, y: 0, k: 1 });
});

test('zooming keeps the graph point under the cursor fixed', () => {
  const t = { x: 30, y: -20, k: 0.8 };
  for (const [px, py] of [[0, 0], [400, 200], [799, 399]]) {
    const gx = (px - t.x) / t.k;
    const gy = (py - t.y) / t.k;
    const z = zoomTransform(t, 1.25, px, py);
    assert.equal(z.k, 1);
    const [sx, sy] = screen(z, gx, gy);
    assert.ok(Math.abs(sx - px) < 1e-9 && Math.abs(sy - py) < 1e-9);
  }
});

test('zoom stays between the floor and the ceiling, but does not jump up from a fitted huge graph', () => {
  assert.equal(zoomTransform({ x: 0, y: 0, k: 3.5 }, 2, 0, 0).k, MAX_SCALE);
  assert.equal(zoomTransform({ x: 0, y: 0, k: 0.12 }, 0.5, 0, 0).k, MIN_SCALE);
  assert.equal(zoomTransform({ x: 0, y: 0, k: 0.01 }, 0.8, 0, 0).k, 0.01);
  assert.ok(Math.abs(zoomTransform({ x: 0, y: 0, k: 0.01 }, 1.25, 0, 0).k - 0.0125) < 1e-12);
});

test('the first view is the fit when it stays readable', () => {
  const graph = { width: 900, height: 300, nodes: [node('a', 0, 0, { focus: true })] };
  assert.deepEqual(initialTransform(graph, 1000, 500), fitTransform(graph, 1000, 500));
});

test('a large graph opens readable and centred on its focus, without scrolling past its edges', () => {
  const focus = node('f', 2000, 1000, { focus: true });
  const graph = { width: 4000, height: 2000, nodes: [node('a', 0, 0), focus] };
  const t = initialTransform(graph, 1000, 500);
  assert.equal(t.k, READABLE_SCALE);
  const [cx, cy] = screen(t, focus.x + focus.width / 2, focus.y + focus.height / 2);
  assert.ok(Math.abs(cx - 500) < 1e-9 && Math.abs(cy - 250) < 1e-9);
  // A focus at the left edge: the graph's left edge stays at the stage's left, not past it.
  const causeFirst = { width: 4000, height: 2000, nodes: [node('f', 0, 1000, { focus: true })] };
  assert.equal(initialTransform(causeFirst, 1000, 500).x, 0);
  // A graph as tall as the stage at that scale is centred vertically instead.
  const flat = { width: 4000, height: 100, nodes: [node('f', 2000, 30, { focus: true })] };
  assert.equal(initialTransform(flat, 1000, 500).y, (500 - 100 * READABLE_SCALE) / 2);
});

test('centring puts a node in the middle at the same scale; nodeInView tells whether it needs it', () => {
  const t = { x: 0, y: 0, k: 0.5 };
  const far = node('far', 3000, 2000);
  assert.equal(nodeInView(t, far, 800, 400), false);
  const c = centreTransform(t, far, 800, 400);
  assert.equal(c.k, 0.5);
  assert.deepEqual(screen(c, far.x + far.width / 2, far.y + far.height / 2), [400, 200]);
  assert.equal(nodeInView(c, far, 800, 400), true);
  assert.equal(nodeInView(t, node('edge', 1440, 0), 800, 400), true);   // right edge exactly at 800
  assert.equal(nodeInView(t, node('over', 1441, 0), 800, 400), false);
});

test('revealing a node and its neighbours moves only as far as they need, zooming out only when they do not fit', async () => {
  const { revealTransform } = await import('../../WebRoot/js/graph/viewport.js');
  const node = (x, y) => ({ x, y, width: 100, height: 40 });
  const inView = (t, n, w, h) => t.x + n.x * t.k >= 0 && t.y + n.y * t.k >= 0 && t.x + (n.x + n.width) * t.k <= w && t.y + (n.y + n.height) * t.k <= h;
  // The stage narrowed to 500 px by the card; the effects at x=600 fell off its right edge.
  const nodes = [node(300, 100), node(600, 60), node(600, 140)];
  const moved = revealTransform({ x: 0, y: 0, k: 1 }, nodes, 500, 400);
  assert.equal(moved.k, 1);
  assert.ok(nodes.every((n) => inView(moved, n, 500, 400)), JSON.stringify(moved));
  // Too wide for the stage at this zoom: zoomed out just enough.
  const far = [node(0, 0), node(1200, 0)];
  const fitted = revealTransform({ x: 0, y: 0, k: 1 }, far, 500, 400);
  assert.ok(fitted.k < 1 && far.every((n) => inView(fitted, n, 500, 400)), JSON.stringify(fitted));
});

test('a graph seen whole is fitted again when the node card narrows the stage; a panned-into one stays put', () => {
  const graph = { width: 1200, height: 300, nodes: [node('a', 0, 0), node('b', 1040, 260)] };
  const wide = { width: 1100, height: 400 };
  const narrow = { width: 800, height: 400 };
  const whole = fitTransform(graph, wide.width, wide.height);
  assert.ok(graph.nodes.every((n) => nodeInView(whole, n, wide.width, wide.height)));
  assert.ok(!nodeInView(whole, graph.nodes[1], narrow.width, narrow.height), 'the card would cut the rightmost node');
  const refit = refitTransform(whole, graph, wide, narrow);
  assert.ok(graph.nodes.every((n) => nodeInView(refit, n, narrow.width, narrow.height)));
  // Closing the card gives the room back.
  assert.deepEqual(refitTransform(refit, graph, narrow, wide), fitTransform(graph, wide.width, wide.height));
  // Zoomed into a part: the reader's view stays (the selected node is revealed instead).
  const zoomed = { x: -400, y: 0, k: 1.5 };
  assert.deepEqual(refitTransform(zoomed, graph, wide, narrow), zoomed);
  // Whole but at a scale the narrow stage would shrink far below reading: stays.
  const long = { width: 3000, height: 100, nodes: [node('a', 0, 0), node('b', 2840, 60)] };
  const small = fitTransform(long, 3000, 400);
  assert.deepEqual(refitTransform(small, long, { width: 3000, height: 400 }, { width: 600, height: 400 }), small);
});
