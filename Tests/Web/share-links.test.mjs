// docs/share-links.md and state.js agree, and every link version ever written still opens: an
// upgrade for each version below the current one (as Firefox Profiler's url-handling tests check).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  STATE_VERSION, UPGRADES, EMPTY_STATE, COMPARE_EMPTY_STATE, SELECTION_KINDS, parseLocation, buildPath, buildComparePath, selectionPatch,
} from '../../WebRoot/js/state.js';

const ORIGIN = 'http://tracesvc.test';
const at = (path) => parseLocation(new URL(path, ORIGIN));
// One selection of each kind: each writes its own keys (an update, its path).
const EVERY_SELECTION = {
  update: { kind: 'update', id: 42 },
  signpost: { kind: 'signpost', id: 3 },
  'task-state': { kind: 'task-state', id: 9 },
  'task-states': { kind: 'task-states', id: { lane: 'main-actor-waits', start: 10, end: 20, row: 9 } },
};
const EVERY_KEY = {
  update: 42, window: [1, 2], range: [1, 2], expanded: ['swiftui'], pane: 'updates',
  paneView: { module: 'M', view: 'V', category: 'C' }, filter: 'all', node: 'n1', graph: 'view',
  groups: ['g1'], search: 'q', mode: 'bottom-up', finding: 'long-body:M.V', findingKind: 'long-body', findingSeverity: 'high', find: 'Row', cpu: 'view', selection: EVERY_SELECTION.signpost,
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
  const written = [...new Set([...keysOf(buildPath('t1', EVERY_KEY)), ...keysOf(buildComparePath('t1', 't2', EVERY_COMPARE_KEY)),
    ...keysOf(buildComparePath(['t1', 't3'], ['t2'], EVERY_COMPARE_KEY)),
    ...Object.values(EVERY_SELECTION).flatMap((selection) => keysOf(buildPath('t1', selectionPatch(selection))))])].sort();
  const documented = [...new Set([...doc.matchAll(/^\| `([a-z]+)=`/gm)].map((m) => m[1]))].sort();
  assert.deepEqual(documented, written, 'the key table of docs/share-links.md and the keys buildPath writes differ');
  assert.match(doc, new RegExp(`current version is \\*\\*${STATE_VERSION}\\*\\*`), 'the doc names another current version');
  for (let v = 1; v < STATE_VERSION; v += 1) assert.match(doc, new RegExp(`^### v${v} → v${v + 1}`, 'm'), `no upgrade section v${v} → v${v + 1}`);
});
