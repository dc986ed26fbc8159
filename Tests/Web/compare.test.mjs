// The comparison page's row filters (WebRoot/js/pages/compare/sections.js): what "long only" and "app code only" keep.
import test from 'node:test';
import assert from 'node:assert/strict';
import { filterRows } from '../../WebRoot/js/pages/compare/sections.js';

const rows = [
  { view: 'Row', isAppCode: true, hasLongUpdates: true },
  { view: 'HStack', isAppCode: false, hasLongUpdates: true },
  { view: 'Label', isAppCode: true, hasLongUpdates: false },
  { view: 'Text', isAppCode: false, hasLongUpdates: false },
];

test('all keeps every row; long keeps rows with long updates on either side; app keeps the app\'s views', () => {
  assert.deepEqual(filterRows(rows, null).map((r) => r.view), ['Row', 'HStack', 'Label', 'Text']);
  assert.deepEqual(filterRows(rows, 'long').map((r) => r.view), ['Row', 'HStack']);
  assert.deepEqual(filterRows(rows, 'app').map((r) => r.view), ['Row', 'Label']);
});

// The drill-down's graphs, edge against edge (WebRoot/js/graph/diff.js).
import { bundleMark, edgeKey, graphDiff } from '../../WebRoot/js/graph/diff.js';
import { readableFit, READING_SCALE } from '../../WebRoot/js/graph/viewport.js';
import { anchorWindow, ANCHOR_AFTER_NS, ANCHOR_BEFORE_NS } from '../../WebRoot/js/compare-align.js';
import { counterpartName, nameStem, rankPartners } from '../../WebRoot/js/compare-partner.js';
import { formatPValue } from '../../WebRoot/js/format.js';

const graphOf = (nodes, edges) => ({ nodes: nodes.map(([id, kind, title, dimmed]) => ({ id, kind, title, dimmed: !!dimmed })), edges });

test('graphDiff: an edge only in A is gone, only in B new, another count changed; node ids do not matter, names do', () => {
  const a = graphOf([['1', 'observable', '@Observable Pantry.items'], ['2', 'view-body', 'ItemRowView'], ['3', 'environment-writer', 'EnvironmentWriter: CartCount'],
    ['4', 'view-body', 'AisleHeader', true], ['5', 'view-body', 'CartBadge']],
  [{ from: '1', to: '2', label: 'update', property: 'items', count: 14 }, { from: '3', to: '4', label: 'update', property: 'cartCount', count: 20 },
    { from: '1', to: '5', label: 'update', property: 'count', count: 1 }]);
  const b = graphOf([['9', 'observable', '@Observable Pantry.items'], ['8', 'view-body', 'ItemRowView'], ['7', 'observable', '@Observable ItemModel'], ['6', 'view-body', 'CartBadge']],
    [{ from: '9', to: '8', label: 'update', property: 'items', count: 2 }, { from: '7', to: '8', label: 'update', property: 'inCart', count: 1 },
      { from: '9', to: '6', label: 'update', property: 'count', count: 1 }]);
  const diff = graphDiff(a, b);
  const byChange = (change) => [...diff].filter(([, d]) => d.change === change).map(([key]) => key);
  assert.deepEqual(byChange('gone'), ['environment-writer|EnvironmentWriter: CartCount > view-body|AisleHeader (did not run) | update | cartCount']);
  assert.deepEqual(byChange('new'), ['observable|@Observable ItemModel > view-body|ItemRowView | update | inCart']);
  assert.deepEqual(byChange('changed'), ['observable|@Observable Pantry.items > view-body|ItemRowView | update | items']);
  assert.deepEqual(diff.get(byChange('changed')[0]), { change: 'changed', a: 14, b: 2 });
  // The unchanged CartBadge edge is not marked; a bundle takes its strongest change.
  const nodesA = new Map(a.nodes.map((n) => [n.id, n]));
  assert.equal(bundleMark({ edges: [a.edges[2]] }, nodesA, diff), null);
  assert.equal(bundleMark({ edges: [a.edges[0], a.edges[1]] }, nodesA, diff), 'gone');
  assert.equal(edgeKey({ from: 'x', to: 'y', label: 'creation' }, new Map()), 'x > y | creation | ');
  // A body that ran is another target than one that was notified and did not run.
  const ran = graphOf([['3', 'environment-writer', 'EnvironmentWriter: CartCount'], ['4', 'view-body', 'AisleHeader']], [{ from: '3', to: '4', label: 'update', property: 'cartCount', count: 20 }]);
  assert.equal(graphDiff(a, ran).size, 4);
});

test('readableFit: a graph is drawn at reading scale or larger, its box as tall as the graph (capped), wider graphs pan', () => {
  const small = { width: 600, height: 300, nodes: [] };
  const fit = readableFit(small, 1300, 640);
  assert.ok(fit.transform.k >= READING_SCALE && fit.transform.k <= 1.25, fit.transform.k);
  assert.equal(fit.height, 300 * fit.transform.k + 24);
  const wide = { width: 3000, height: 900, nodes: [] };
  const wideFit = readableFit(wide, 1300, 640);
  // Titles 12 px and subtitles 11 px never shrink below 11 px: the graph pans instead.
  assert.equal(wideFit.transform.k, READING_SCALE);
  assert.equal(wideFit.height, 640);
  assert.deepEqual([wideFit.transform.x, wideFit.transform.y], [12, 12]);
  // The view drilled into (the focus, at the graph's right end) is in view: the graph's right edge at the box's.
  const focused = { width: 3000, height: 300, nodes: [{ x: 2800, y: 100, width: 160, height: 40, focus: true }] };
  const focusFit = readableFit(focused, 1300, 640);
  assert.equal(focusFit.transform.x, 1300 - 12 - 3000);
  assert.ok(focusFit.transform.x + 2800 + 160 <= 1300);
});

test('anchorWindow: "Align at" zooms to the anchor (0 on the shared axis), a compared range with a margin, both starts to both whole traces', () => {
  assert.equal(anchorWindow(null), null);
  assert.deepEqual(anchorWindow({ group: 'Tap' }), [-ANCHOR_BEFORE_NS, ANCHOR_AFTER_NS]);
  assert.deepEqual(anchorWindow('ranges', { a: [100, 1100], b: [0, 500] }), [-100, 1100]);
  assert.deepEqual(anchorWindow('ranges', {}), [-ANCHOR_BEFORE_NS, ANCHOR_AFTER_NS]);
});

test('"Compare with…" proposes the other recording of the scenario first, then the same scenario, then the same app and device, latest first', () => {
  assert.equal(counterpartName('landmarks-favorites-slow'), 'landmarks-favorites-fixed');
  assert.equal(counterpartName('Checkout_Before'), 'Checkout_After');
  assert.equal(counterpartName('slowpoke-run'), 'slowpoke-run');
  assert.equal(nameStem('pantry-slow-2.json'), 'pantry');
  assert.equal(nameStem('Pantry fixed run3'), 'pantry');
  const me = { id: 'me', name: 'pantry-slow-1', app: 'Pantry', device: 'iPhone 15' };
  const traces = [
    { id: 'alpha', name: 'aardvark', app: 'Other', device: 'iPhone 15', uploadedAt: '2026-01-03T00:00:00Z' },
    { id: 'same-app-old', name: 'checkout', app: 'Pantry', device: 'iPhone 15', uploadedAt: '2026-01-01T00:00:00Z' },
    { id: 'same-app-new', name: 'search', app: 'Pantry', device: 'iPhone 15', uploadedAt: '2026-01-02T00:00:00Z' },
    { id: 'stem', name: 'pantry-slow-2', app: 'Pantry', device: 'iPhone 15', uploadedAt: '2026-01-01T00:00:00Z' },
    { id: 'partner', name: 'pantry-fixed-1', app: 'Pantry', device: 'iPhone 15', uploadedAt: '2025-12-01T00:00:00Z' },
    me,
  ];
  const ranked = rankPartners(me, traces);
  assert.deepEqual(ranked.map((t) => t.id), ['partner', 'stem', 'same-app-new', 'same-app-old', 'alpha']);
  assert.equal(ranked[0].why, 'the other recording of this scenario');
});

test('p-values read as the CLI prints them', () => {
  assert.deepEqual([0.41, 1, 0.0034, 0.00096, 3.2e-11, 0].map(formatPValue), ['p = 0.41', 'p = 1', 'p = 0.003', 'p = 1e-3', 'p = 3e-11', 'p < 1e-300']);
});
