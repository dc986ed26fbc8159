// The URL form of the view state (WebRoot/js/state.js): parse, format, upgrade.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  STATE_VERSION, EMPTY_STATE, COMPARE_EMPTY_STATE, parseLocation, buildPath, buildComparePath, upgradeParams, currentRange, graphSubject,
  selectedUpdate, currentSelection, selectionPatch, createLocalViewState, createViewState,
} from '../../WebRoot/js/state.js';

const ORIGIN = 'http://tracesvc.test';
const at = (path) => parseLocation(new URL(path, ORIGIN));
const roundTrip = (traceId, state) => at(buildPath(traceId, state));

// One non-empty value per key; a key added to EMPTY_STATE without one here fails the coverage test.
const SAMPLES = {
  update: 42,
  window: [1_000, 2_000_000],
  range: [1_500, 1_800_000],
  expanded: ['swiftui'],
  pane: 'updates',
  paneView: { module: 'My App', view: 'Row<Item>: "x" & y', category: 'View Body' },
  filter: 'long-view-body',
  node: 'n17',
  graph: 'u40',
  groups: ['gn3-0', 'gn9-1'],
  search: 'NumberFormatter init, 100% #2',
  cpuView: 'flame',
  inverted: true,
  cpuThread: 3,
  hideSystem: true,
  charged: ['-[NSMeasurementFormatter stringFromMeasurement:]', 'f(a, b)'],
  flatten: true,
  focus: 't0.f12.f40',
  flameZoom: 'f7.sys',
  finding: 'collection-fan-out:@Observable Store.items>Row<Item>',
  findingKind: 'hitch-explained',
  findingSeverity: 'medium',
  find: 'Row<Item> & "x"',
  cpu: 'view',
  longerThan: 1_000_000,
  selection: { kind: 'task-states', id: { lane: 'main-actor-waits', start: 1_000, end: 9_000, row: 17 } },
};
// The update is the selection when there is one: `selection` is of the other kinds.
const ONE_SELECTION = { ...SAMPLES, selection: null };

test('every key of the view state has a round-trip sample', () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), Object.keys(EMPTY_STATE).sort());
});

test('each key alone survives format -> parse, and leaves every other key empty', () => {
  for (const [key, value] of Object.entries(SAMPLES)) {
    const parsed = roundTrip('t1', { [key]: value });
    assert.equal(parsed.route, 'trace', key);
    // With an update in the path, no p= means the graph: the Summary is written out (p=summary).
    const expected = { ...EMPTY_STATE, [key]: value, ...(key === 'update' ? { pane: 'summary' } : {}) };
    assert.deepEqual(parsed.state, expected, key);
  }
});

test('all keys together survive format -> parse, for trace ids that need escaping', () => {
  for (const traceId of ['landmarks-scroll-slow', 'a b/c?d#e', 'ünïcode']) {
    assert.deepEqual(roundTrip(traceId, ONE_SELECTION), { route: 'trace', traceId, state: ONE_SELECTION });
    const other = { ...SAMPLES, update: null };
    assert.deepEqual(roundTrip(traceId, other), { route: 'trace', traceId, state: other });
  }
});

test('every kind of selection survives format -> parse: an update in the path, the others in sp=, ts=, tm=', () => {
  const selections = [
    { kind: 'update', id: 42 },
    { kind: 'signpost', id: 7 },
    { kind: 'task-state', id: 0 },
    { kind: 'task-states', id: { lane: 'main-actor', start: 5, end: 6, row: null } },
    { kind: 'task-states', id: { lane: 'main-actor-waits', start: 990_000_000, end: 1_140_000_000, row: 12 } },
  ];
  for (const selection of selections) {
    const path = buildPath('t1', { ...selectionPatch(selection), pane: 'summary' });
    const { state } = at(path);
    assert.deepEqual(state, { ...EMPTY_STATE, ...selectionPatch(selection), pane: 'summary' }, path);
    assert.deepEqual(currentSelection(state), selection, path);
  }
  assert.equal(buildPath('t1', selectionPatch(selections[0])), '/traces/t1/updates/42?v=3&p=summary');
  assert.equal(buildPath('t1', selectionPatch(selections[4])), '/traces/t1?v=3&tm=main-actor-waits:990000000,1140000000&ts=12');
  assert.equal(buildPath('t1', selectionPatch(selections[1])), '/traces/t1?v=3&sp=7');
  assert.deepEqual([selectedUpdate(at('/traces/t1/updates/5').state), selectedUpdate(at('/traces/t1?sp=5').state)], [5, null]);
  assert.equal(currentSelection(EMPTY_STATE), null);
});

test('a link carries one selection: the path\'s update wins, then a Main Actor mark, an interval, a signpost', () => {
  assert.deepEqual(currentSelection(at('/traces/t1/updates/5?sp=3&ts=4').state), { kind: 'update', id: 5 });
  assert.equal(at('/traces/t1/updates/5?sp=3&ts=4').state.selection, null);
  assert.deepEqual(at('/traces/t1?sp=3&ts=4').state.selection, { kind: 'task-state', id: 4 });
  assert.deepEqual(at('/traces/t1?sp=3&ts=4&tm=main-actor:1,2').state.selection,
    { kind: 'task-states', id: { lane: 'main-actor', start: 1, end: 2, row: 4 } });
  // A state written with both keeps the update only.
  assert.equal(buildPath('t1', { update: 5, selection: { kind: 'signpost', id: 3 }, pane: 'summary' }), '/traces/t1/updates/5?v=3&p=summary');
});

test('selecting one thing drops the other selection, in the state itself', () => {
  globalThis.history = { pushState() {}, replaceState() {} };
  const state = createViewState('t1', { update: 5 });
  state.set({ selection: { kind: 'signpost', id: 3 } });
  assert.deepEqual([state.get().update, state.get().selection], [null, { kind: 'signpost', id: 3 }]);
  state.set({ update: 8 });
  assert.deepEqual([state.get().update, state.get().selection], [8, null]);
  state.set({ update: null });
  assert.equal(currentSelection(state.get()), null);
});

test('a selection that does not parse is dropped, not guessed', () => {
  for (const query of ['sp=x', 'sp=-1', 'ts=1.5', 'tm=main-actor:2,1', 'tm=main-actor:1', 'tm=Main Actor:1,2', 'tm=:1,2']) {
    assert.equal(at(`/traces/t1?${query}`).state.selection, null, query);
  }
  // A damaged mark leaves its interval, which still parses.
  assert.deepEqual(at('/traces/t1?tm=main-actor:2,1&ts=4').state.selection, { kind: 'task-state', id: 4 });
});

test('a page-only view state tells its subscribers what changed, and makes links with its builder', () => {
  const state = createLocalViewState({ range: [1, 2] }, { link: (s) => buildPath('t1', s) });
  const seen = [];
  state.subscribe((s, changed) => seen.push(changed));
  state.set({ node: 'n1', range: [1, 2] });
  state.set({ node: 'n1' });
  assert.deepEqual(seen, [['node']]);
  assert.equal(state.link(), '/traces/t1?v=3&r=1,2&n=n1');
  assert.deepEqual(state.get(), { ...EMPTY_STATE, range: [1, 2], node: 'n1' });
});

test('the empty state is a bare versioned link, and parses back to the empty state', () => {
  assert.equal(buildPath('t1', {}), `/traces/t1?v=${STATE_VERSION}`);
  assert.deepEqual(at(`/traces/t1?v=${STATE_VERSION}`).state, EMPTY_STATE);
  // A hand-typed link without v= reads as the current version.
  assert.deepEqual(at('/traces/t1').state, EMPTY_STATE);
  assert.equal(at('/traces/t1/updates/5').state.pane, 'graph');
});

test('links keep "," and ":" readable', () => {
  const path = buildPath('t1', { window: [1, 2], expanded: ['swiftui'], groups: ['g1', 'g2'], paneView: { module: 'M', view: 'V' } });
  assert.equal(path, '/traces/t1?v=3&w=1,2&x=swiftui&pv=M%3AV&e=g1,g2');
});

test('malformed values are dropped, not guessed', () => {
  const state = at('/traces/t1?v=3&w=20,10&r=1,x&g=node7&m=sideways').state;
  assert.equal(state.window, null);   // end before start
  assert.equal(state.range, null);    // not a number
  assert.equal(state.graph, null);    // neither u<id> nor view
  assert.equal(state.cpuView, null);
  assert.equal(state.inverted, false);
  assert.equal(state.cpuThread, null);
  assert.equal(state.focus, null);
  assert.equal(state.flameZoom, null);
  assert.equal(state.hideSystem, false);
  assert.equal(at('/traces/t1/updates/abc').route, 'bad-update');
  assert.equal(at('/elsewhere').route, 'not-found');
  assert.equal(at('/').route, 'home');
});

test('a link from a newer tracesvc, or with a damaged version, is refused with its version', () => {
  assert.deepEqual(at(`/traces/t1?v=${STATE_VERSION + 1}`), { route: 'bad-version', version: String(STATE_VERSION + 1), traceId: 't1' });
  for (const version of ['0', 'x', '1.5', '-1', '']) assert.equal(at(`/traces/t1?v=${version}`).route, 'bad-version', version);
});

test('a v1 update link without p= opened the Summary, and still does', () => {
  const v1 = at('/traces/t1/updates/5?v=1&w=10,20');
  assert.equal(v1.route, 'trace');
  assert.deepEqual(v1.state, { ...EMPTY_STATE, update: 5, window: [10, 20], pane: 'summary' });
  assert.equal(at('/traces/t1/updates/5?v=1&p=cpu').state.pane, 'cpu');
  // Without an update there was nothing to upgrade.
  assert.equal(at('/traces/t1?v=1').state.pane, null);
  // And the upgraded link is written back as the current version, meaning the same.
  assert.deepEqual(roundTrip('t1', v1.state).state, v1.state);
  assert.ok(buildPath('t1', v1.state).includes(`v=${STATE_VERSION}&`));
});

test('a v2 link kept the call tree direction in m=: bottom-up is i=1 now, and m= is the CPU view', () => {
  const bottomUp = at('/traces/t1?v=2&p=cpu&m=bu&q=format');
  assert.deepEqual(bottomUp.state, { ...EMPTY_STATE, pane: 'cpu', inverted: true, search: 'format' });
  assert.deepEqual(at('/traces/t1?v=2&p=cpu&m=td').state, { ...EMPTY_STATE, pane: 'cpu' });
  // Through the whole chain: a v1 update link with the tree bottom-up.
  assert.deepEqual(at('/traces/t1/updates/5?v=1&w=10,20&m=bu').state, { ...EMPTY_STATE, update: 5, window: [10, 20], pane: 'summary', inverted: true });
  assert.equal(buildPath('t1', bottomUp.state), `/traces/t1?v=${STATE_VERSION}&p=cpu&q=format&i=1`);
  // A v3 link's m= is the view; a v2 "m=flame" was never written and means nothing.
  assert.equal(at('/traces/t1?v=3&p=cpu&m=flame').state.cpuView, 'flame');
  assert.equal(at('/traces/t1?v=2&p=cpu&m=flame').state.cpuView, null);
});

test('the CPU settings are all in the link: view, direction, thread, transforms, focus and zoom', () => {
  const cpu = { pane: 'cpu', cpuView: 'flame', inverted: false, cpuThread: 0, hideSystem: true, charged: ['a, b', 'c\u00e9'], flatten: true,
    focus: 't0.f3.f9', flameZoom: 'f11.f12', search: 'unum' };
  const path = buildPath('t1', cpu);
  assert.equal(path, `/traces/t1?v=${STATE_VERSION}&p=cpu&q=unum&m=flame&th=0&hs=1&cc=a%2C%20b%0Ac%C3%A9&fr=1&fo=t0.f3.f9&fz=f11.f12`);
  assert.deepEqual(at(path).state, { ...EMPTY_STATE, ...cpu });
});

test('upgrades run in order from the link version up to the current one', () => {
  const params = upgradeParams(new URLSearchParams('w=1,2'), 1, 9);
  assert.equal(params.get('p'), 'summary');
  assert.equal(upgradeParams(new URLSearchParams('w=1,2'), STATE_VERSION, 9).get('p'), null);
});

test('currentRange reads the inspection range, or null for the whole trace', () => {
  assert.deepEqual(currentRange({ range: [10, 20] }), { start: 10, end: 20 });
  assert.deepEqual(currentRange({ range: ['10', '20'] }), { start: 10, end: 20 });
  for (const range of [null, undefined, [], [null, null], [20, 10], [1, 'x']]) assert.equal(currentRange({ range }), null);
});

test('graphSubject names what a graph is of', () => {
  assert.equal(graphSubject({ update: 7 }), 'u7');
  assert.equal(graphSubject({ update: 0 }), 'u0');
  assert.equal(graphSubject({ view: 'Row', module: 'M' }), 'view');
  assert.equal(graphSubject({ update: null }), null);
});

test('a comparison link round-trips its ranges, filter and row, and ids are percent-encoded', () => {
  const state = { ...COMPARE_EMPTY_STATE, rangeA: [0, 1_000_000_000], rangeB: [5, 2_000_000], rows: 'app', row: { module: 'My App', view: 'Row: "x"', category: 'View Body' } };
  const path = buildComparePath('id a', 'b/2', state);
  assert.match(path, /^\/compare\/id%20a\/b%2F2\?v=\d+&ra=0,1000000000&rb=5,2000000&vf=app&pv=/);
  assert.deepEqual(at(path), { route: 'compare', a: ['id a'], b: ['b/2'], state });
  assert.deepEqual(at('/compare/x/y').state, COMPARE_EMPTY_STATE);
});

test('several recordings a side: /compare?a=ID,ID&b=ID, ids percent-encoded, the state as in the path form', () => {
  const state = { ...COMPARE_EMPTY_STATE, rows: 'long', anchor: { group: 'Add to Cart' }, ruler: 'anchor' };
  const path = buildComparePath(['a 1', 'a,2', 'a3'], ['b1', 'b/2'], state);
  assert.equal(path.split('&vf=')[0], `/compare?v=${STATE_VERSION}&a=a%201,a%2C2,a3&b=b1,b%2F2`);
  assert.deepEqual(at(path), { route: 'compare', a: ['a 1', 'a,2', 'a3'], b: ['b1', 'b/2'], state });
  // One recording each is always the path form; a list of one is the same link as its id.
  assert.equal(buildComparePath(['x'], ['y'], {}), buildComparePath('x', 'y', {}));
  assert.match(buildComparePath(['x'], ['y', 'z'], {}), /^\/compare\?v=\d+&a=x&b=y,z$/);
  // A side missing or with an empty id is no comparison.
  for (const junk of ['/compare?a=x', '/compare?b=y', '/compare?a=x,&b=y', '/compare?a=&b=y', '/compare']) assert.equal(at(junk).route, 'not-found', junk);
  assert.equal(at(`/compare?v=${STATE_VERSION + 1}&a=x,y&b=z`).plainPath, `/compare?v=${STATE_VERSION}&a=x,y&b=z`);
});

test('a comparison link round-trips the timelines: anchor, shared window (negative before the anchors), tracks', () => {
  const state = { ...COMPARE_EMPTY_STATE, anchor: { group: 'Tap: "x" & y' }, timeline: [-250_000, 2_000_000], lanes: ['swiftui'] };
  const path = buildComparePath('a', 'b', state);
  assert.match(path, /&al=g:Tap%3A%20%22x%22%20%26%20y&tw=-250000,2000000&tx=swiftui$/);
  assert.deepEqual(at(path).state, state);
  assert.deepEqual(at(buildComparePath('a', 'b', { anchor: 'ranges' })).state.anchor, 'ranges');
  // An anchor that does not parse reads as the default (both starts), never a guess.
  for (const junk of ['al=g:', 'al=start', 'al=x']) assert.equal(at(`/compare/a/b?${junk}`).state.anchor, null, junk);
});

test('comparison links follow the version rules and drop values that do not parse', () => {
  const tooNew = at(`/compare/x/y?v=${STATE_VERSION + 1}&vf=long`);
  assert.equal(tooNew.route, 'bad-version');
  assert.equal(tooNew.plainPath, `/compare/x/y?v=${STATE_VERSION}`);
  assert.equal(at('/compare/x/y?v=abc').route, 'bad-version');
  for (let v = 1; v <= STATE_VERSION; v += 1) assert.equal(at(`/compare/x/y?v=${v}&vf=long`).state.rows, 'long', `v${v}`);
  const junk = at('/compare/x/y?ra=5,1&rb=a,b&vf=everything').state;
  assert.deepEqual([junk.rangeA, junk.rangeB, junk.rows], [null, null, null]);
  assert.equal(at('/compare/x').route, 'not-found');
  assert.equal(at('/compare/x/y/z').route, 'not-found');
});
