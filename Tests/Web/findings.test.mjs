// Evidence links of a finding (WebRoot/js/panes/findings.js): each opens what proves it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { evidenceLinks, filterFindings, numbers, partLabel, partLinks, statusText, subjectLink } from '../../WebRoot/js/panes/findings.js';
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

test('a view\'s finding is proved by the merged CPU of every update it counts, one update\'s range second', () => {
  const links = evidenceLinks('t1', finding({
    updateCount: 31, range: { start: 1_000, end: 5_000 }, thread: 0,
    cpuView: { name: 'RecipeRow', module: 'Recipes', category: 'View Body', filter: 'long-view-body', longerThanNs: 1_000_000 },
  }));
  assert.deepEqual(links.map((link) => link.kind), ['cpu', 'cpu-range']);
  assert.equal(links[0].text, 'CPU of all 31 long bodies of RecipeRow');
  const merged = open(links[0]).state;
  assert.deepEqual([merged.pane, merged.cpu, merged.paneView, merged.filter, merged.longerThan, merged.range],
    ['cpu', 'view', { module: 'Recipes', view: 'RecipeRow', category: 'View Body' }, 'long-view-body', 1_000_000, null]);
  const one = open(links[1]).state;
  assert.deepEqual([one.pane, one.cpu, one.range, one.cpuThread], ['cpu', null, [1_000, 5_000], 0]);
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
  assert.equal(numbers({ costNs: 50_000_000, occurrences: 1, savingNs: 0 }), 'Costs 50.0 ms; no saving estimated: the cause is not identified.');
  assert.match(numbers({ costNs: 125_000_000, occurrences: 1, savingNs: 121_190_000 }), /the fix would save about 121 ms\.$/);
});

test('a lower-bound saving says "at least", an estimate "about"', () => {
  assert.match(numbers({ costNs: 9_000_000, occurrences: 3, worstNs: 4_000_000, savingNs: 6_000_000, savingIsLowerBound: true }),
    /the fix would save at least 6\.00 ms\.$/);
  assert.doesNotMatch(numbers({ costNs: 9_000_000, occurrences: 3, worstNs: 4_000_000, savingNs: 6_000_000 }), /at least/);
});

test('a finding of several occurrences gives their count, total and worst', () => {
  assert.equal(numbers({ costNs: 100_000_000, occurrences: 12, worstNs: 8_333_333, savingNs: 80_000_000 }),
    '12 occurrences cost 100 ms in all, the worst 8.33 ms; the fix would save about 80.0 ms.');
});

test('the pane filters by kind and by lowest severity', () => {
  const all = [
    { id: 'a', kind: 'long-body', severity: 'high' }, { id: 'b', kind: 'hitch-explained', severity: 'medium' },
    { id: 'c', kind: 'hitch-explained', severity: 'low' }, { id: 'd', kind: 'environment-churn', severity: 'low' },
  ];
  assert.deepEqual(filterFindings(all).map((f) => f.id), ['a', 'b', 'c', 'd']);
  assert.deepEqual(filterFindings(all, { kind: 'hitch-explained' }).map((f) => f.id), ['b', 'c']);
  assert.deepEqual(filterFindings(all, { minSeverity: 'medium' }).map((f) => f.id), ['a', 'b']);
  assert.deepEqual(filterFindings(all, { kind: 'hitch-explained', minSeverity: 'high' }), []);
});

test('each occurrence of a grouped hitch opens zoomed around it with it as the range', () => {
  const hitches = { ...finding({ intervals: [{ start: 1_008_000_000, end: 1_016_333_333 }, { start: 1_050_000_000, end: 1_058_333_333 }] }),
    id: 'hitch-explained:1008000000', kind: 'hitch-explained' };
  const links = evidenceLinks('t1', hitches).filter((link) => link.kind === 'occurrence');
  assert.deepEqual(links.map((link) => link.text), ['1.008 s', '1.050 s']);
  const { state } = open(links[1]);
  assert.deepEqual(state.range, [1_050_000_000, 1_058_333_333]);
  assert.ok(state.window[0] < 1_050_000_000 && state.window[1] > 1_058_333_333, 'context around it');
  assert.equal(state.finding, hitches.id);
});

test('subject chips open what they name: a view its updates, a frame the CPU of the range; a thread nothing', () => {
  const body = { ...finding({ range: { start: 10, end: 90 }, taskStates: [4] }),
    subjects: [{ role: 'view', name: 'RecipeRow', detail: 'Recipes' }, { role: 'frame', name: 'DateFormatter.init()', detail: 'Foundation' },
      { role: 'thread', name: 'Main Thread', detail: 'busy' }, { role: 'task', name: 'Task 9', detail: '' }] };
  const [view, frame, thread, task] = body.subjects.map((subject) => subjectLink('t1', body, subject));
  assert.deepEqual(open(view).state.paneView, { module: 'Recipes', view: 'RecipeRow', category: '' });
  assert.equal(open(view).state.pane, 'updates');
  const cpu = open(frame).state;
  assert.deepEqual([cpu.pane, cpu.search, cpu.range], ['cpu', 'DateFormatter.init()', [10, 90]]);
  assert.equal(thread, null);
  assert.deepEqual(open(task).state.selection, { kind: 'task-state', id: 4 });
});

test('a view\'s finding: its frame chips search the merged CPU of the view\'s long bodies, not one update\'s few samples', () => {
  const body = { ...finding({ updateCount: 10, range: { start: 10, end: 90 }, thread: 0,
    cpuView: { name: 'PriceTagView', module: 'Pantry', category: 'View Body', filter: 'long-view-body', longerThanNs: 1_000_000 } }),
  subjects: [{ role: 'frame', name: 'Decimal.FormatStyle.Currency.format(_:)', detail: 'Foundation' }] };
  const link = subjectLink('t1', body, body.subjects[0]);
  const state = open(link).state;
  assert.deepEqual([state.pane, state.cpu, state.paneView, state.filter, state.longerThan, state.search, state.range],
    ['cpu', 'view', { module: 'Pantry', view: 'PriceTagView', category: 'View Body' }, 'long-view-body', 1_000_000, 'Decimal.FormatStyle.Currency.format(_:)', null]);
  assert.match(link.title, /merged/);
});

test('the status line says what all findings cost with shared time once; an incident part says its kind and cost', () => {
  const list = (findings, extra) => Object.assign(findings, extra);
  const three = list([{ id: 'a' }, { id: 'b' }, { id: 'c' }], { total: 3, costNs: 245_000_000 });
  assert.equal(statusText(three, three), '3 findings, costliest first: 245 ms in all (time two findings share counted once). Open one for its evidence.');
  assert.equal(statusText(three, three.slice(0, 1)), '1 of 3 findings shown, costliest first.');
  const many = list([{ id: 'a' }], { total: 250, costNs: 1_200_000_000 });
  assert.equal(statusText(many, many), 'The 1 costliest of 250 findings: 1.20 s in all (time two findings share counted once). Open one for its evidence.');
  // An older server without the total says nothing of it.
  const old = list([{ id: 'a' }, { id: 'b' }], { total: 2, costNs: null });
  assert.equal(statusText(old, old), '2 findings, costliest first. Open one for its evidence.');
  assert.equal(partLabel({ kind: 'main-actor-wait', costNs: 120_000_000 }), 'Main Actor wait · 120 ms');
  assert.equal(partLabel({ kind: 'hitch-explained', costNs: 125_000_000 }), 'Hitch · 125 ms');
});

test('an incident part links what the lead does not: a hitch its occurrences, a wait its own task, each keeping the incident open', () => {
  const lead = { ...finding({ taskStates: [8, 3] }), id: 'main-actor-blocked:Decode@View.task @ Quarry/A.swift:4', kind: 'main-actor-blocked',
    subjects: [{ role: 'task', name: 'Task 11', detail: '' }] };
  const hitch = { ...finding({ taskStates: [8], intervals: [{ start: 216_000_000, end: 311_000_000 }] }), id: 'hitch-explained:216000000', kind: 'hitch-explained',
    subjects: [{ role: 'task', name: 'Task 11', detail: '' }] };
  const wait = { ...finding({ taskStates: [3, 8] }), id: 'main-actor-wait:Header', kind: 'main-actor-wait',
    subjects: [{ role: 'task', name: 'View.task @ Quarry/Header.swift:30', detail: '' }] };
  const incident = { ...lead, parts: [lead, hitch, wait] };
  assert.deepEqual(partLinks('t1', incident, lead), []);
  const [occurrence, ...more] = partLinks('t1', incident, hitch);
  assert.equal(more.length, 0, 'the hitch\'s task is the lead\'s: no second link to it');
  assert.equal(occurrence.kind, 'occurrence');
  assert.deepEqual(open(occurrence).state.range, [216_000_000, 311_000_000]);
  assert.equal(open(occurrence).state.finding, incident.id);
  const [task] = partLinks('t1', incident, wait);
  assert.equal(task.text, 'Task: View.task @ Quarry/Header.swift:30');
  assert.deepEqual(open(task).state.selection, { kind: 'task-state', id: 3 });
  assert.equal(open(task).state.finding, incident.id);
});
