// The call tree as data (WebRoot/js/panes/cpu/model.js): ids and order, the search filter, the
// heaviest path and its ties, the rows an expansion shows; none of it recurses, so any depth holds.
import test from 'node:test';
import assert from 'node:assert/strict';
import { flattenTree, heaviestPath, prepareTree, searchTree } from '../../WebRoot/js/panes/cpu/model.js';

const frame = (name, total, children = []) => ({ name, total, self: 0, children });
const answer = {
  mode: 'top-down', totalWeight: 100, sampleCount: 100, unit: 'ns',
  roots: [
    frame('Worker', 40, [frame('compress', 40)]),
    frame('Main Thread', 60, [frame('body', 30, [frame('NumberFormatter.init', 30)]), frame('layout', 30, [frame('measure', 10)])]),
  ],
};
const { data, byId } = prepareTree(answer, new Set(['Main Thread']));
const names = (nodes) => nodes.map((n) => n.name);
const all = (node) => node.children;

test('the main thread comes first top-down, children by weight; every node has an id of its own', () => {
  assert.deepEqual(names(data.roots), ['Main Thread', 'Worker']);
  assert.deepEqual(names(data.roots[0].children), ['body', 'layout']);
  const formatter = data.roots[0].children[0].children[0];
  assert.equal(byId.get(formatter.id), formatter);
  assert.deepEqual([formatter.name, formatter.parent.name, formatter.depth], ['NumberFormatter.init', 'body', 2]);
  assert.equal(byId.size, 7);
  // Bottom-up trees are by weight only.
  assert.deepEqual(names(prepareTree({ ...answer, mode: 'bottom-up' }, new Set(['Main Thread'])).data.roots), ['Main Thread', 'Worker']);
  assert.deepEqual(names(prepareTree({ ...answer, roots: [...answer.roots].reverse(), mode: 'bottom-up' }).data.roots), ['Main Thread', 'Worker']);
});

test('the heaviest path follows the heaviest child down, and names the ties it broke', () => {
  const path = heaviestPath(data.roots[0], all);
  assert.deepEqual(path.open, [data.roots[0].id, data.roots[0].children[0].id]);
  assert.equal(path.end.name, 'NumberFormatter.init');
  assert.equal(path.ties.length, 1);
  assert.deepEqual([path.ties[0].parent.name, path.ties[0].best.name, names(path.ties[0].tied)], ['Main Thread', 'body', ['layout']]);
});

test('a search keeps matches, what leads to them and what is inside them, and opens the way', () => {
  const found = searchTree(data.roots, 'body');
  const [main] = data.roots;
  const [body, layout] = main.children;
  assert.deepEqual([...found.shown].sort(), [main.id, body.id, body.children[0].id].sort());
  assert.deepEqual([...found.opened], [main.id]);
  assert.equal(found.firstMatch, body);
  assert.ok(!found.shown.has(layout.id));
  const none = searchTree(data.roots, 'nothing');
  assert.deepEqual([none.shown.size, none.opened.size, none.firstMatch], [0, 0, null]);
});

test('the rows are the roots and the children of every open node, in order', () => {
  const rows = flattenTree(data.roots, new Set([data.roots[0].id, data.roots[0].children[1].id]), all);
  assert.deepEqual(rows.map((r) => `${'  '.repeat(r.depth)}${r.node.name}${r.expanded ? ' (open)' : ''}`),
    ['Main Thread (open)', '  body', '  layout (open)', '    measure', 'Worker']);
  assert.equal(rows[1].hasChildren, true);
  assert.equal(rows[3].hasChildren, false);
});

test('a stack 50 000 frames deep (recursion would overflow) is prepared, searched, walked and shown without recursion', () => {
  let deep = frame('leaf', 1);
  for (let i = 0; i < 50_000; i++) deep = frame(`f${i}`, 1, [deep]);
  const tree = prepareTree({ roots: [deep] });
  assert.equal(tree.byId.size, 50_001);
  assert.equal(heaviestPath(tree.data.roots[0], all).end.name, 'leaf');
  assert.equal(searchTree(tree.data.roots, 'leaf').shown.size, 50_001);
  assert.equal(flattenTree(tree.data.roots, new Set(tree.byId.keys()), all).length, 50_001);
});
