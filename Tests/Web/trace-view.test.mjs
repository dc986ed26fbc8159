// The contract between a page and the parts of its trace view (WebRoot/js/trace-view.js): every
// capability is there, a missing one is a no-op said out loud, and a selection names a known kind.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createTraceView, notOffered, SELECTION_KINDS } from '../../WebRoot/js/trace-view.js';
import { createLocalViewState } from '../../WebRoot/js/state.js';

const trace = { id: 't1', start: 0, end: 10 };
const api = { get: async () => ({}) };

test('a view offers every capability; what the page leaves out is a no-op, never undefined', () => {
  const view = createTraceView({ trace, api, state: createLocalViewState({}) });
  for (const name of ['select', 'setRange', 'openPane', 'copyLink']) {
    assert.equal(typeof view[name], 'function', name);
    assert.equal(view.offers(name), false, name);
    assert.doesNotThrow(() => view[name](null, null));
  }
  assert.equal(view.setRange, notOffered);
  assert.equal(view.traceId, 't1');
  assert.ok(Object.isFrozen(view));
});

test('select hands every kind of selection, and none, to the page; an unknown kind is an error', () => {
  const seen = [];
  const view = createTraceView({ trace, api, state: createLocalViewState({}), select: (selection, options) => seen.push([selection, options]) });
  assert.equal(view.offers('select'), true);
  for (const kind of SELECTION_KINDS) view.select({ kind, id: 1 }, { span: [1, 2] });
  view.select(null);
  assert.deepEqual(seen.map(([s]) => s?.kind ?? null), [...SELECTION_KINDS, null]);
  assert.deepEqual(seen[0][1], { span: [1, 2] });
  assert.throws(() => view.select({ kind: 'frame', id: 1 }), /unknown selection kind "frame"/);
  assert.throws(() => view.select({ id: 1 }), /unknown selection kind/);
});

test('a view needs a trace, its API and a state', () => {
  assert.throws(() => createTraceView({ api, state: createLocalViewState({}) }), /needs trace, api and state/);
  assert.throws(() => createTraceView({ trace, state: createLocalViewState({}) }), /needs trace, api and state/);
});
