// Zoom breadcrumbs (WebRoot/js/timeline/crumbs.js): each settled zoom is a crumb inside the one
// before it; going back to a crumb keeps those after it until a new zoom replaces them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { commitCrumb, crumbLabel } from '../../WebRoot/js/timeline/crumbs.js';

const whole = { crumbs: [{ start: 0, end: 4_000_000_000, range: null }], index: 0 };
const w = (start, end) => ({ start, end });

test('zooming in adds a crumb; going back to one keeps those after it', () => {
  let trail = commitCrumb(whole, w(1_000_000_000, 2_000_000_000));
  trail = commitCrumb(trail, w(1_200_000_000, 1_300_000_000));
  assert.deepEqual(trail.crumbs.map((c) => [c.start, c.end]), [[0, 4e9], [1e9, 2e9], [1.2e9, 1.3e9]]);
  assert.equal(trail.index, 2);
  trail = commitCrumb(trail, w(0, 4_000_000_000));
  assert.equal(trail.index, 0);
  assert.equal(trail.crumbs.length, 3, 'forward crumbs stay');
  trail = commitCrumb(trail, w(3_000_000_000, 3_500_000_000));
  assert.deepEqual(trail.crumbs.map((c) => [c.start, c.end]), [[0, 4e9], [3e9, 3.5e9]], 'a new zoom replaces what followed');
});

test('a pan at the same width is not a crumb; a zoom inside an ancestor branches from it', () => {
  let trail = commitCrumb(whole, w(1_000_000_000, 2_000_000_000));
  const panned = commitCrumb(trail, w(1_050_000_000, 2_050_000_000));
  assert.deepEqual(panned, trail);
  trail = commitCrumb(trail, w(2_500_000_000, 2_600_000_000));
  assert.deepEqual(trail.crumbs.map((c) => [c.start, c.end]), [[0, 4e9], [2.5e9, 2.6e9]]);
});

test('crumbs say the whole trace, a zoom by its span, a range by the range', () => {
  assert.equal(crumbLabel(whole.crumbs[0], 0), 'Whole trace (4.00 s)');
  assert.equal(crumbLabel({ start: 0, end: 250_000_000, range: null }, 1), '250 ms');
  assert.equal(crumbLabel({ start: 0, end: 25_000_000, range: { start: 8_000_000, end: 16_333_333 } }, 2), 'Range 8.33 ms');
});
