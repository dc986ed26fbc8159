// Where findings are marked on the timeline's ruler (WebRoot/js/timeline/lanes.js findingMarks).
import test from 'node:test';
import assert from 'node:assert/strict';
import { findingMarks, FINDING_MARK_HEIGHT, RULER_HEIGHT } from '../../WebRoot/js/timeline/lanes.js';

const finding = (id, start, end, severity = 'medium') => ({ id, severity, evidence: { range: start === null ? null : { start, end } } });
const view = { start: 1000, end: 2000 };

test('a finding spans its evidence range at the foot of the ruler', () => {
  const [mark] = findingMarks([finding('a', 1250, 1500)], view, 1000);
  assert.deepEqual([mark.x, mark.width], [250, 250]);
  assert.equal(mark.y + mark.height, RULER_HEIGHT - 1);
  assert.equal(mark.height, FINDING_MARK_HEIGHT);
});

test('findings outside the window or without a range are not marked; edges are clipped', () => {
  const marks = findingMarks([finding('out', 3000, 4000), finding('none', null), finding('edge', 500, 1100)], view, 1000);
  assert.deepEqual(marks.map((m) => [m.id, m.x, m.width]), [['edge', 0, 100]]);
});

test('a short finding stays visible, and the open one is drawn last (on top)', () => {
  const marks = findingMarks([finding('open', 1500, 1500, 'high'), finding('other', 1400, 1600)], view, 1000, 'open');
  assert.deepEqual(marks.map((m) => [m.id, m.open]), [['other', false], ['open', true]]);
  assert.equal(marks[1].width, 3);
});
