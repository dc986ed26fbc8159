// The URL form of the view state (WebRoot/js/state.js): parse, format, upgrade.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  STATE_VERSION, EMPTY_STATE, COMPARE_EMPTY_STATE, parseLocation, buildPath, buildComparePath, upgradeParams, currentRange, graphSubject,
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
  mode: 'bottom-up',
  finding: 'collection-fan-out:@Observable Store.items>Row<Item>',
  cpu: 'view',
  signpost: 7,
};

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
    const parsed = roundTrip(traceId, SAMPLES);
    assert.deepEqual(parsed, { route: 'trace', traceId, state: SAMPLES });
  }
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
  assert.equal(path, '/traces/t1?v=2&w=1,2&x=swiftui&pv=M%3AV&e=g1,g2');
});

test('malformed values are dropped, not guessed', () => {
  const state = at('/traces/t1?v=2&w=20,10&r=1,x&g=node7&m=sideways').state;
  assert.equal(state.window, null);   // end before start
  assert.equal(state.range, null);    // not a number
  assert.equal(state.graph, null);    // neither u<id> nor view
  assert.equal(state.mode, null);
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
  assert.deepEqual(at(path), { route: 'compare', a: 'id a', b: 'b/2', state });
  assert.deepEqual(at('/compare/x/y').state, COMPARE_EMPTY_STATE);
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
