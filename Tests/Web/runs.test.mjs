// The run picker's choices (WebRoot/js/pages/runs.js): the runs a trace did not read, labelled "Run N of M".
import test from 'node:test';
import assert from 'node:assert/strict';
import { otherRuns } from '../../WebRoot/js/pages/runs.js';

test('a several-run export offers every run but the one read', () => {
  assert.deepEqual(otherRuns({ runs: [1, 2, 3], run: 1 }), [{ run: 2, label: 'Run 2 of 3' }, { run: 3, label: 'Run 3 of 3' }]);
  assert.deepEqual(otherRuns({ runs: [1, 2, 3], run: 2 }).map((c) => c.run), [1, 3]);
});

test('a source of one run offers nothing', () => {
  assert.deepEqual(otherRuns({ runs: [], run: null }), []);
  assert.deepEqual(otherRuns({}), []);
  assert.deepEqual(otherRuns(null), []);
});

test('runs not numbered 1…N are labelled by their number alone', () => {
  assert.deepEqual(otherRuns({ runs: [2, 5], run: 2 }), [{ run: 5, label: 'Run 5' }]);
});
