// docs/share-links.md and state.js agree, and every link version ever written still opens: an
// upgrade for each version below the current one (as Firefox Profiler's url-handling tests check).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  STATE_VERSION, UPGRADES, EMPTY_STATE, COMPARE_EMPTY_STATE, SELECTION_KINDS, parseLocation, buildPath, buildComparePath, selectionPatch,
  LIST_EMPTY, HISTORY_EMPTY, buildListPath, buildHistoryPath,
} from '../../WebRoot/js/state.js';

const ORIGIN = 'http://tracesvc.test';
const at = (path) => parseLocation(new URL(path, ORIGIN));
// One selection of each kind: each writes its own keys (an update, its path).
const EVERY_SELECTION = {
  update: { kind: 'update', id: 42 },
  signpost: { kind: 'signpost', id: 3 },
  'task-state': { kind: 'task-state', id: 9 },
  'task-states': { kind: 'task-states', id: { lane: 'main-actor-waits', start: 10, end: 20, row: 9 } },
  note: { kind: 'note', id: '0123456789abcdef' },
  'hang-risk': { kind: 'hang-risk', id: 1 },
};
const EVERY_LIST_KEY = { tags: ['branch:main', 'nightly'], q: 'scroll ipad', from: '2026-11-01', to: '2026-11-30', sort: 'name', order: 'desc' };
const EVERY_HISTORY_KEY = { tags: ['scenario:scroll'], view: 'RecipeRowView', module: 'Recipes', metric: 'body-time-p95', finding: 'long-body:RecipeRowView', order: 'commit' };
const EVERY_KEY = {
  update: 42, window: [1, 2], range: [1, 2], expanded: ['swiftui'], pane: 'updates',
  paneView: { module: 'M', view: 'V', category: 'C' }, filter: 'all', node: 'n1', graph: 'view',
  groups: ['g1'], search: 'q', cpuView: 'stack', inverted: true, cpuThread: 0, hideSystem: true, charged: ['f'], flatten: true,
  focus: 't0.f1', flameZoom: 'f2', finding: 'long-body:M.V', findingKind: 'long-body', findingSeverity: 'high', find: 'Row', cpu: 'view', longerThan: 1000, selection: EVERY_SELECTION.signpost,
};
const EVERY_COMPARE_KEY = {
  rangeA: [1, 2], rangeB: [3, 4], rows: 'long', row: { module: 'M', view: 'V', category: 'C' },
  anchor: { group: 'Tap' }, timeline: [-1, 2], lanes: ['swiftui'], ruler: 'anchor',
};

test('there is an upgrade for every version below the current one, and none beyond', () => {
  for (let v = 1; v < STATE_VERSION; v += 1) assert.equal(typeof UPGRADES[v], 'function', `no upgrade from v${v} to v${v + 1}`);
  assert.deepEqual(Object.keys(UPGRADES).map(Number).sort((a, b) => a - b), Array.from({ length: STATE_VERSION - 1 }, (_, i) => i + 1));
  // Every old version parses (through the whole chain) to a trace route.
  for (let v = 1; v <= STATE_VERSION; v += 1) assert.equal(at(`/traces/t1/updates/3?v=${v}&w=1,2`).route, 'trace', `v${v}`);
});

test('docs/share-links.md documents every query key a link can carry', () => {
  const doc = readFileSync(new URL('../../docs/share-links.md', import.meta.url), 'utf8');
  assert.deepEqual(Object.keys(EVERY_KEY).sort(), Object.keys(EMPTY_STATE).sort(), 'EVERY_KEY must set every state key');
  assert.deepEqual(Object.keys(EVERY_COMPARE_KEY).sort(), Object.keys(COMPARE_EMPTY_STATE).sort(), 'EVERY_COMPARE_KEY must set every key');
  assert.deepEqual(Object.keys(EVERY_SELECTION).sort(), [...SELECTION_KINDS].sort(), 'EVERY_SELECTION must have every selection kind');
  const keysOf = (path) => [...new URL(path, ORIGIN).searchParams.keys()];
  assert.deepEqual(Object.keys(EVERY_LIST_KEY).sort(), Object.keys(LIST_EMPTY).sort(), 'EVERY_LIST_KEY must set every list key');
  assert.deepEqual(Object.keys(EVERY_HISTORY_KEY).sort(), Object.keys(HISTORY_EMPTY).sort(), 'EVERY_HISTORY_KEY must set every history key');
  const written = [...new Set([...keysOf(buildPath('t1', EVERY_KEY)), ...keysOf(buildComparePath('t1', 't2', EVERY_COMPARE_KEY)),
    ...keysOf(buildComparePath(['t1', 't3'], ['t2'], EVERY_COMPARE_KEY)),
    ...keysOf(buildListPath(EVERY_LIST_KEY)), ...keysOf(buildHistoryPath(EVERY_HISTORY_KEY)),
    ...Object.values(EVERY_SELECTION).flatMap((selection) => keysOf(buildPath('t1', selectionPatch(selection))))])].sort();
  const documented = [...new Set([...doc.matchAll(/^\| `([a-z]+)=`/gm)].map((m) => m[1]))].sort();
  assert.deepEqual(documented, written, 'the key table of docs/share-links.md and the keys buildPath writes differ');
  assert.match(doc, new RegExp(`current version is \\*\\*${STATE_VERSION}\\*\\*`), 'the doc names another current version');
  for (let v = 1; v < STATE_VERSION; v += 1) assert.match(doc, new RegExp(`^### v${v} → v${v + 1}`, 'm'), `no upgrade section v${v} → v${v + 1}`);
});

test('the list and the history read back what they write, and drop what the server would refuse', () => {
  const list = at(buildListPath(EVERY_LIST_KEY));
  assert.equal(list.route, 'home');
  assert.deepEqual(list.list, { ...LIST_EMPTY, ...EVERY_LIST_KEY });
  assert.deepEqual(at('/').list, LIST_EMPTY);
  assert.equal(buildListPath(LIST_EMPTY), '/');
  const history = at(buildHistoryPath(EVERY_HISTORY_KEY));
  assert.equal(history.route, 'history');
  assert.deepEqual(history.history, { ...HISTORY_EMPTY, ...EVERY_HISTORY_KEY });
  assert.equal(buildHistoryPath({ tags: ['branch:feature/x+y'] }), '/history?tag=branch:feature/x%2By');
  assert.deepEqual(at('/history?tag=branch:feature/x%2By').history.tags, ['branch:feature/x+y']);
  const bad = at('/?tag=Branch:main&tag=ok&tag=ok&tag=x:has%20space&from=yesterday&sort=size&order=up');
  assert.deepEqual(bad.list, { ...LIST_EMPTY, tags: ['ok'], sort: 'size' });
  assert.equal(at('/?sort=name').list.order, null);
});

test('a note link selects the note and nothing else', () => {
  const parsed = at('/traces/t1?v=2&nt=0123456789abcdef&sp=3');
  assert.deepEqual(parsed.state.selection, { kind: 'note', id: '0123456789abcdef' });
  assert.equal(at('/traces/t1?v=2&nt=xyz').state.selection, null);
  assert.equal(buildPath('t1', { selection: { kind: 'note', id: '0123456789abcdef' } }), `/traces/t1?v=${STATE_VERSION}&nt=0123456789abcdef`);
});
