// Text the panes show for counts and durations: "1 sample", not "1 samples"; long CPU totals in
// seconds, not "202262 ms".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plural, formatDuration } from '../../WebRoot/js/format.js';

test('a count of one takes the singular noun, others the plural with separators', () => {
  assert.equal(plural(1, 'sample'), '1 sample');
  assert.equal(plural(0, 'sample'), '0 samples');
  assert.equal(plural(1204, 'update'), '1,204 updates');
});

test('durations pick their unit, so a long CPU total reads in seconds', () => {
  assert.equal(formatDuration(202_262_000_000), '202 s');
  assert.equal(formatDuration(2_430_000), '2.43 ms');
  assert.equal(formatDuration(480_000), '480 us');
});
