// The comparison page's row filters (WebRoot/js/pages/compare/sections.js): what "long only" and "app code only" keep.
import test from 'node:test';
import assert from 'node:assert/strict';
import { filterRows } from '../../WebRoot/js/pages/compare/sections.js';

const rows = [
  { view: 'Row', isAppCode: true, hasLongUpdates: true },
  { view: 'HStack', isAppCode: false, hasLongUpdates: true },
  { view: 'Label', isAppCode: true, hasLongUpdates: false },
  { view: 'Text', isAppCode: false, hasLongUpdates: false },
];

test('all keeps every row; long keeps rows with long updates on either side; app keeps the app\'s views', () => {
  assert.deepEqual(filterRows(rows, null).map((r) => r.view), ['Row', 'HStack', 'Label', 'Text']);
  assert.deepEqual(filterRows(rows, 'long').map((r) => r.view), ['Row', 'HStack']);
  assert.deepEqual(filterRows(rows, 'app').map((r) => r.view), ['Row', 'Label']);
});
