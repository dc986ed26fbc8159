// The timeline's binary answer (docs/api.md "Binary timeline") read into typed arrays
// (WebRoot/js/timeline/binary.js). The bytes are written here by hand as the docs describe
// them; Tests/Browser/test_timeline.py checks the server's own bytes against its JSON.
import test from 'node:test';
import assert from 'node:assert/strict';
import { decodeTimeline } from '../../WebRoot/js/timeline/binary.js';

/** Little-endian bytes, as the docs lay them out. */
class Writer {
  constructor() { this.bytes = []; }
  u8(v) { this.bytes.push(v & 0xff); }
  uint(v, width) { for (let i = 0; i < width; i++) this.u8(Number((BigInt(v) >> BigInt(8 * i)) & 0xffn)); }
  i64(v) { this.uint(BigInt.asUintN(64, BigInt(v)), 8); }
  text(s, lengthWidth) { const b = new TextEncoder().encode(s); this.uint(b.length, lengthWidth); this.bytes.push(...b); }
  buffer() { return new Uint8Array(this.bytes).buffer; }
}

const COLUMNS = ['startGap', 'duration', 'count', 'update', 'label', 'code', 'load', 'mainLoad'];

/** A lane: `columns` maps a column name to [width, base, values stored (value - base)]. */
function writeLane(w, { id, flags, n, firstStart, updateBase, labels, columns }) {
  w.text(id, 1);
  w.u8(flags);
  w.uint(n, 4);
  w.i64(firstStart);
  w.i64(updateBase);
  w.uint(labels.length, 4);
  for (const label of labels) w.text(label, 2);
  for (const name of COLUMNS) { const [width, base] = columns[name] ?? [0, 0]; w.u8(width); w.i64(base); }
  for (const name of COLUMNS) {
    const [width, , values] = columns[name] ?? [0, 0, []];
    if (width > 0) for (const v of values) w.uint(v, width);
  }
}

function header(w, laneCount) {
  w.bytes.push(...new TextEncoder().encode('TLB1'));
  w.i64(1_000_000_000);
  w.i64(1_050_000_000_000);
  w.uint(1920, 4);
  w.uint(laneCount, 4);
}

test('an update lane decodes to exact starts, durations, ids, labels, severities and kinds', () => {
  const w = new Writer();
  header(w, 1);
  writeLane(w, {
    id: 'view-body', flags: 1, n: 3, firstStart: 1_000_000_123, updateBase: 999_999, labels: ['LandmarkList', 'Détail “é”'],
    columns: {
      // Gaps 0, 70,000, 5,000,000,000 (8 bytes); durations 800..3,000,000,800 (base 800, 4 bytes).
      startGap: [8, 0, [0, 70_000, 5_000_000_000]],
      duration: [4, 800, [0, 1_200_000, 3_000_000_000]],
      count: [2, 1, [0, 0, 299]],
      update: [3, 0, [1, 2, 0]],       // update base + v; 0 = none (a merged event)
      label: [1, 0, [1, 2, 0]],        // index + 1; 0 = none
      code: [1, 0, [0 | 1 << 2, 2 | 1 << 2, 1]],
    },
  });
  const { start, end, width, lanes } = decodeTimeline(w.buffer());
  assert.deepEqual([start, end, width], [1_000_000_000, 1_050_000_000_000, 1920]);
  const lane = lanes['view-body'];
  assert.equal(lane.length, 3);
  assert.equal(lane.merged, true);
  assert.deepEqual([...lane.start], [1_000_000_123, 1_000_070_123, 6_000_070_123]);
  assert.deepEqual([...lane.duration], [800, 1_200_800, 3_000_000_800]);
  assert.equal(lane.maxDuration, 3_000_000_800);
  assert.deepEqual([...lane.count], [1, 1, 300]);
  assert.deepEqual([...lane.update], [1_000_000, 1_000_001, -1]);
  assert.deepEqual([...lane.label].map((i) => lane.labels[i] ?? null), ['LandmarkList', 'Détail “é”', null]);
  assert.deepEqual([...lane.severity], [0, 2, 1]);
  assert.deepEqual([...lane.kind], [1, 1, 0]);
  assert.equal(lane.load, null);
});

test('a main-actor lane carries task-state rows (flags bit 2), so its lone events open their task state', () => {
  const w = new Writer();
  header(w, 1);
  writeLane(w, {
    id: 'main-actor', flags: 1 | 4, n: 2, firstStart: 2_000_000, updateBase: 41, labels: ['CartStore.refresh()'],
    columns: {
      startGap: [4, 0, [0, 9_000_000]],
      duration: [4, 0, [300_000, 8_000_000]],
      count: [1, 1, [0, 11]],
      update: [1, 0, [1, 0]],          // task-state row 42; 0 = none (the merged event)
      label: [1, 0, [1, 0]],
      code: [1, 0, [0, 2]],
    },
  });
  const lane = decodeTimeline(w.buffer()).lanes['main-actor'];
  assert.deepEqual([...lane.taskState], [42, -1]);
  assert.deepEqual([...lane.update], [-1, -1]);
  assert.deepEqual([...lane.label].map((i) => lane.labels[i] ?? null), ['CartStore.refresh()', null]);
});

test('a column of one repeated value takes no bytes, and the cpu lane carries its loads', () => {
  const w = new Writer();
  header(w, 2);
  writeLane(w, { id: 'hangs', flags: 0, n: 0, firstStart: 0, updateBase: 0, labels: [], columns: {} });
  writeLane(w, {
    id: 'cpu', flags: 3, n: 2, firstStart: 0, updateBase: 0, labels: [],
    columns: {
      startGap: [0, 0, []],              // gap 0 for the first...
      duration: [0, 525_000_000, []],    // every column as wide
      count: [1, 7, [0, 5]],
      code: [0, 0, []],
      load: [2, 0, [65535, 874]],
      mainLoad: [2, 0, [0, 874]],
    },
  });
  const { lanes } = decodeTimeline(w.buffer());
  assert.equal(lanes.hangs.length, 0);
  const cpu = lanes.cpu;
  assert.deepEqual([...cpu.start], [0, 0]);
  assert.deepEqual([...cpu.duration], [525_000_000, 525_000_000]);
  assert.deepEqual([...cpu.count], [7, 12]);
  assert.deepEqual([...cpu.update], [-1, -1]);
  assert.deepEqual([...cpu.label], [-1, -1]);
  assert.equal(cpu.load[0], 1);
  assert.ok(Math.abs(cpu.load[1] - 0.0133) < 1e-4 && Math.abs(cpu.mainLoad[1] - 0.0133) < 1e-4);
});

test('a cut or foreign answer is an error naming what is wrong, not a half-drawn timeline', () => {
  const w = new Writer();
  header(w, 1);
  writeLane(w, { id: 'hitches', flags: 0, n: 2, firstStart: 5, updateBase: 0, labels: [], columns: { startGap: [4, 0, [0, 9]] } });
  const whole = w.buffer();
  assert.throws(() => decodeTimeline(whole.slice(0, whole.byteLength - 3)), /ends early/);
  assert.throws(() => decodeTimeline(new TextEncoder().encode('{"lanes":{}}').buffer), /TLB1/);
  const badWidth = new Writer();
  header(badWidth, 1);
  writeLane(badWidth, { id: 'hitches', flags: 0, n: 1, firstStart: 5, updateBase: 0, labels: [], columns: { startGap: [5, 0, [0]] } });
  assert.throws(() => decodeTimeline(badWidth.buffer()), /width 5/);
});

test('a signpost lane carries signpost rows, never update ids, so a click opens the signpost', async () => {
  const w = new Writer();
  header(w, 1);
  writeLane(w, {
    // flags bit 3: the row column holds signpost rows.
    id: 'signposts-0', flags: 8, n: 2, firstStart: 150_000_000, updateBase: 4, labels: ['Load Landmarks: 12 of 15 landmarks visible', 'Scroll Began'],
    columns: {
      startGap: [4, 0, [0, 850_000_000]],
      duration: [4, 0, [50_000_000, 0]],
      update: [1, 0, [1, 3]],
      label: [1, 0, [1, 2]],
    },
  });
  const lane = decodeTimeline(w.buffer()).lanes['signposts-0'];
  assert.deepEqual([...lane.signpost], [5, 7]);
  assert.deepEqual([...lane.update], [-1, -1]);
  const { eventOf } = await import('../../WebRoot/js/timeline/lanes.js');
  const event = eventOf(lane, 1);
  assert.equal(event.signpost, 7);
  assert.equal(event.update, undefined);
  assert.equal(event.label, 'Scroll Began');
  assert.equal(event.duration, 0);
});

test('the hang-risk lane carries hang-risk rows (flags bit 4), so a click opens the hang risk', async () => {
  const w = new Writer();
  header(w, 1);
  writeLane(w, {
    id: 'hang-risks', flags: 16, n: 2, firstStart: 500_000_000, updateBase: -1, labels: ['Main thread waited on a semaphore', 'Main thread performed file I/O'],
    columns: {
      startGap: [4, 0, [0, 2_550_000_000]],
      count: [0, 1, []],
      update: [1, 0, [1, 2]],
      label: [1, 0, [1, 2]],
      code: [0, 1, []],
    },
  });
  const lane = decodeTimeline(w.buffer()).lanes['hang-risks'];
  assert.deepEqual([...lane.hangRisk], [0, 1]);
  assert.deepEqual([...lane.update], [-1, -1]);
  const { eventOf } = await import('../../WebRoot/js/timeline/lanes.js');
  const event = eventOf(lane, 1);
  assert.equal(event.hangRisk, 1);
  assert.equal(event.update, undefined);
  assert.equal(event.label, 'Main thread performed file I/O');
  assert.equal(event.severity, 'orange');
});
