// Evidence links of a finding (WebRoot/js/panes/findings.js): each opens what proves it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { evidenceLinks, numbers } from '../../WebRoot/js/panes/findings.js';
import { parseLocation } from '../../WebRoot/js/state.js';

const ORIGIN = 'http://tracesvc.test';
const finding = (evidence) => ({
  id: 'long-body:Recipes.RecipeRow', kind: 'long-body',
  evidence: { updates: [], updateCount: 0, representativeUpdate: null, range: null, thread: null, frames: [], cpuCoverage: null, ...evidence },
});
const open = (link) => parseLocation(new URL(link.href, ORIGIN));

test('the graph link opens the representative update with its cause graph', () => {
  const [graph] = evidenceLinks('t 1', finding({ representativeUpdate: 7 }));
  assert.equal(graph.kind, 'graph');
  const { traceId, state } = open(graph);
  assert.equal(traceId, 't 1');
  assert.deepEqual([state.update, state.pane, state.graph], [7, 'graph', 'u7']);
});

test('the CPU link sets and zooms to the range with the CPU pane open', () => {
  const [cpu] = evidenceLinks('t1', finding({ range: { start: 1_000, end: 5_000 } }));
  assert.equal(cpu.kind, 'cpu');
  const { state } = open(cpu);
  assert.deepEqual([state.range, state.window, state.pane, state.update], [[1_000, 5_000], [1_000, 5_000], 'cpu', null]);
});

test('update links select each update and keep the finding open, at most twelve', () => {
  const ids = Array.from({ length: 30 }, (_, i) => i + 100);
  const links = evidenceLinks('t1', finding({ updates: ids, updateCount: 30 }));
  assert.equal(links.length, 12);
  assert.ok(links.every((link) => link.kind === 'update'));
  const { state } = open(links[3]);
  assert.deepEqual([state.update, state.pane, state.finding], [103, 'findings', 'long-body:Recipes.RecipeRow']);
});

test('a finding without evidence has no links', () => {
  assert.deepEqual(evidenceLinks('t1', finding({})), []);
});

test('task links show each Swift task interval in the side panel, the finding kept open', () => {
  const blocked = { ...finding({ taskStates: [8, 3, 5, 6, 9] }), id: 'main-actor-blocked:Decode@View.task @ Harbor/A.swift:4',
    subjects: [{ role: 'function', name: 'Decode', detail: 'Main Actor' }, { role: 'task', name: 'Task 7002', detail: '' }] };
  const links = evidenceLinks('t1', blocked).filter((link) => link.kind === 'task');
  assert.deepEqual(links.map((link) => link.text), ['Task: Task 7002', 'task interval 3', 'task interval 5', 'task interval 6']);
  const { state } = open(links[0]);
  assert.deepEqual([state.selection, state.update, state.pane, state.finding], [{ kind: 'task-state', id: 8 }, null, 'findings', blocked.id]);
});

test('no saving is claimed for a cause that is not identified', () => {
  assert.equal(numbers({ costNs: 50_000_000, occurrences: 1, savingNs: 0 }), 'Costs 50.0 ms (1×); no saving estimated: the cause is not identified.');
  assert.match(numbers({ costNs: 125_000_000, occurrences: 1, savingNs: 121_190_000 }), /the fix would save about 121 ms\.$/);
});
