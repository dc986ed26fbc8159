// The selection descriptors (WebRoot/js/selections/): one module per kind, read by state.js (the
// link), the side panel (what to fetch) and the timeline (where to outline). Links written before
// the descriptors (v1, v2 and v3 links with a selection) still select what they named.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { SELECTIONS, SELECTION_KINDS, parseSelection, selectionDescriptor, selectionQuery } from '../../WebRoot/js/selections/index.js';
import { buildComparePath, buildPath, currentSelection, parseLocation, selectionPatch, STATE_VERSION } from '../../WebRoot/js/state.js';
import { viewFromQuery, viewOf, viewQuery } from '../../WebRoot/js/selections/view.js';
import { currentRange, parseSpan, rangeOf, rangeParams } from '../../WebRoot/js/selections/range.js';

const at = (path) => parseLocation(new URL(path, 'http://tracesvc.test'));
const IDS = {
  update: 42,
  signpost: 3,
  'task-state': 9,
  'task-states': { lane: 'main-actor-waits', start: 10, end: 20, row: null },
  note: '0123456789abcdef',
  'hang-risk': 1,
};

test('each kind has its own descriptor module, and every descriptor says how it is read, written, fetched and outlined', () => {
  const folder = new URL('../../WebRoot/js/selections/', import.meta.url);
  // Beside the kinds: the helpers (keys.js) and what a page selects beside the one selection (a view, a time range).
  const modules = readdirSync(folder).filter((name) => !['index.js', 'keys.js', 'view.js', 'range.js'].includes(name)).map((name) => name.replace(/\.js$/, '')).sort();
  assert.deepEqual(modules, [...SELECTION_KINDS].sort(), 'one module per selection kind, named by the kind');
  assert.deepEqual(Object.keys(IDS).sort(), [...SELECTION_KINDS].sort());
  for (const descriptor of SELECTIONS) {
    assert.equal(selectionDescriptor(descriptor.kind), descriptor);
    for (const name of ['fromQuery', 'toQuery', 'resource']) assert.equal(typeof descriptor[name], 'function', `${descriptor.kind}.${name}`);
    assert.ok(descriptor.extent === null || typeof descriptor.extent === 'function', `${descriptor.kind}.extent`);
  }
  assert.equal(selectionDescriptor('frame'), null);
});

test('the side panel has a details module for every kind', () => {
  const source = readFileSync(new URL('../../WebRoot/js/side-panel/index.js', import.meta.url), 'utf8');
  const details = /DETAILS = Object\.freeze\(\{([\s\S]*?)\}\)/.exec(source)[1];
  const kinds = [...details.matchAll(/^\s*'?([a-z-]+)'?:/gm)].map((m) => m[1]).sort();
  assert.deepEqual(kinds, [...SELECTION_KINDS].sort());
});

test('every kind reads back what it writes, through a whole link', () => {
  for (const [kind, id] of Object.entries(IDS)) {
    const path = buildPath('t1', selectionPatch({ kind, id }));
    assert.deepEqual(currentSelection(at(path).state), { kind, id }, path);
    const query = selectionQuery({ kind, id });
    if (kind === 'update') assert.deepEqual(query, [], 'an update is in the path');
    else assert.deepEqual(parseSelection(new URLSearchParams(query.join('&')), null), { kind, id }, kind);
  }
  assert.deepEqual(selectionQuery(null), []);
});

test('links written by earlier versions still select what they named', () => {
  assert.ok(STATE_VERSION >= 3);
  const cases = [
    ['/traces/t1/updates/12?v=1&w=1,2', { kind: 'update', id: 12 }],
    ['/traces/t1?v=1&sp=7', { kind: 'signpost', id: 7 }],
    ['/traces/t1?v=2&ts=8&m=bu', { kind: 'task-state', id: 8 }],
    ['/traces/t1?v=2&tm=main-actor:100,400&ts=9', { kind: 'task-states', id: { lane: 'main-actor', start: 100, end: 400, row: 9 } }],
    ['/traces/t1?v=3&nt=0123456789abcdef', { kind: 'note', id: '0123456789abcdef' }],
    ['/traces/t1?v=2&sp=3&nt=0123456789abcdef', { kind: 'note', id: '0123456789abcdef' }],
  ];
  for (const [link, selection] of cases) {
    const route = at(link);
    assert.equal(route.route, 'trace', link);
    assert.deepEqual(currentSelection(route.state), selection, link);
  }
  // Written again at the current version: the same selection, the same keys.
  assert.equal(buildPath('t1', at('/traces/t1?v=1&sp=7').state), `/traces/t1?v=${STATE_VERSION}&sp=7`);
  assert.equal(buildPath('t1', at('/traces/t1?v=2&tm=main-actor:100,400&ts=9').state), `/traces/t1?v=${STATE_VERSION}&tm=main-actor:100,400&ts=9`);
});

test('a view is one shape wherever it is picked, and reads back from both pages\' links', () => {
  assert.deepEqual(viewOf({ view: 'Row', module: 'App' }), { module: 'App', view: 'Row', category: '' });
  assert.equal(viewOf({ module: 'App' }), null);
  const view = { module: 'My App', view: 'Row<Item>: Equatable', category: 'View Body' };
  const query = viewQuery(view);
  assert.deepEqual(query, ['pv=My%20App%3ARow%3CItem%3E%3A%20Equatable', 'pc=View%20Body']);
  assert.deepEqual(viewFromQuery(new URLSearchParams(query.join('&'))), view);
  assert.deepEqual(viewFromQuery(new URLSearchParams('pv=NoModule')), { module: '', view: 'NoModule', category: '' });
  assert.deepEqual(viewQuery(null), []);
  assert.deepEqual(at(buildPath('t1', { paneView: view })).state.paneView, view);
  assert.deepEqual(at(buildComparePath('a', 'b', { row: view })).state.row, view);
});

test('a time range: spans parse strictly, and the panes ask for the range the state holds', () => {
  assert.deepEqual(parseSpan('10,20'), [10, 20]);
  assert.deepEqual(parseSpan('-5,5'), [-5, 5]);
  for (const bad of ['', '20,10', '10,10', '1.5,2', '1,2,3', 'a,b']) assert.equal(parseSpan(bad), null, bad);
  assert.deepEqual(rangeOf([10, 20]), { start: 10, end: 20 });
  assert.equal(rangeOf(null), null);
  assert.deepEqual(currentRange({ range: [10, 20] }), { start: 10, end: 20 });
  assert.deepEqual(rangeParams(currentRange({ range: [10, 20] })), { start: 10, end: 20 });
  assert.deepEqual(rangeParams(currentRange({ range: null })), {});
  assert.deepEqual(at('/traces/t1?r=10,20').state.range, [10, 20]);
});
