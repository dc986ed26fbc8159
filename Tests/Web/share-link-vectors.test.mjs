// The share links both writers write (Tests/Fixtures/share-link-vectors.json): the browser here,
// tracesvc check's report in Tests/TraceCLITests/ShareLinkTests.swift. Each link is written byte
// for byte from its state, and reads back to that state.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { STATE_VERSION, parseLocation, buildPath, buildComparePath } from '../../WebRoot/js/state.js';

const vectors = JSON.parse(readFileSync(new URL('../Fixtures/share-link-vectors.json', import.meta.url), 'utf8'));
const at = (path) => parseLocation(new URL(path, 'http://tracesvc.test'));
const current = (path) => path.replaceAll('{v}', String(STATE_VERSION));

test('every trace link is written as the vectors say, and reads back to its state', () => {
  assert.ok(vectors.trace.length >= 5);
  for (const { about, trace, state, path } of vectors.trace) {
    assert.equal(buildPath(trace, state), current(path), about);
    const read = at(current(path));
    assert.equal(read.route, 'trace', about);
    assert.equal(read.traceId, trace, about);
    for (const [key, value] of Object.entries(state)) assert.deepEqual(read.state[key], value, `${about}: ${key}`);
  }
});

test('every comparison link is written as the vectors say, and reads back to its traces', () => {
  assert.ok(vectors.compare.length >= 1);
  for (const { about, a, b, state, path } of vectors.compare) {
    assert.equal(buildComparePath(a, b, state), current(path), about);
    const read = at(current(path));
    // One id or several: the page reads each side as a list.
    assert.deepEqual([read.route, read.a, read.b], ['compare', [a].flat(), [b].flat()], about);
  }
});
