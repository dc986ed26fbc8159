// Decoder of the timeline's binary answer (`Accept: application/octet-stream`, docs/api.md
// "Binary timeline"): per lane, columns of fixed-width little-endian integers, read straight
// into the typed arrays the renderer draws from. Pure (no DOM), so node tests run it.

export const MAGIC = 'TLB1';
/** Column order within a lane (Sources/TraceModel/Queries/TimelineBinary.swift). */
const COLUMNS = ['startGap', 'duration', 'count', 'update', 'label', 'code', 'load', 'mainLoad'];
const TWO_32 = 4294967296;

class Reader {
  constructor(buffer) {
    this.view = new DataView(buffer);
    this.bytes = new Uint8Array(buffer);
    this.offset = 0;
  }

  need(n) {
    if (this.offset + n > this.view.byteLength) throw new Error(`binary timeline ends early (byte ${this.offset}, wanted ${n} more)`);
  }

  u8() { this.need(1); return this.view.getUint8(this.offset++); }
  u16() { this.need(2); const v = this.view.getUint16(this.offset, true); this.offset += 2; return v; }
  u32() { this.need(4); const v = this.view.getUint32(this.offset, true); this.offset += 4; return v; }
  i64() { this.need(8); const v = Number(this.view.getBigInt64(this.offset, true)); this.offset += 8; return v; }

  text(n) {
    this.need(n);
    const s = new TextDecoder().decode(this.bytes.subarray(this.offset, this.offset + n));
    this.offset += n;
    return s;
  }

  /** `n` values of `width` bytes, each plus `base`, into `out` (any typed array). */
  column(out, n, width, base) {
    this.need(n * width);
    const { bytes } = this;
    let o = this.offset;
    if (width === 0) {
      out.fill(base);
    } else if (width === 1) {
      for (let i = 0; i < n; i++) out[i] = base + bytes[o + i];
    } else if (width === 2) {
      for (let i = 0; i < n; i++, o += 2) out[i] = base + (bytes[o] | bytes[o + 1] << 8);
    } else if (width === 3) {
      for (let i = 0; i < n; i++, o += 3) out[i] = base + (bytes[o] | bytes[o + 1] << 8 | bytes[o + 2] << 16);
    } else if (width === 4) {
      for (let i = 0; i < n; i++, o += 4) out[i] = base + this.view.getUint32(o, true);
    } else if (width === 8) {
      for (let i = 0; i < n; i++, o += 8) out[i] = base + this.view.getUint32(o, true) + this.view.getUint32(o + 4, true) * TWO_32;
    } else {
      throw new Error(`binary timeline: column width ${width} is not 0, 1, 2, 3, 4 or 8`);
    }
    this.offset += n * width;
    return out;
  }
}

function decodeLane(r) {
  const id = r.text(r.u8());
  const flags = r.u8();
  const merged = (flags & 1) !== 0;
  const hasLoad = (flags & 2) !== 0;
  // Main-actor lanes: the row column holds task-state rows, not update rows.
  const rowsAreTaskStates = (flags & 4) !== 0;
  // Signpost lanes: it holds signpost rows.
  const rowsAreSignposts = (flags & 8) !== 0;
  // The hang-risk lane: it holds hang-risk rows.
  const rowsAreHangRisks = (flags & 16) !== 0;
  const n = r.u32();
  const firstStart = r.i64();
  const updateBase = r.i64();
  const labels = [];
  for (let count = r.u32(), i = 0; i < count; i++) labels.push(r.text(r.u16()));
  const layout = {};
  for (const name of COLUMNS) layout[name] = { width: r.u8(), base: r.i64() };
  const read = (name, out) => r.column(out, n, layout[name].width, layout[name].base);

  const start = read('startGap', new Float64Array(n));
  let at = firstStart;
  for (let i = 0; i < n; i++) { at += start[i]; start[i] = at; }
  const duration = read('duration', new Float64Array(n));
  let maxDuration = 0;
  for (let i = 0; i < n; i++) if (duration[i] > maxDuration) maxDuration = duration[i];
  const count = read('count', new Uint32Array(n));
  const rowValues = read('update', new Float64Array(n));
  const rows = new Int32Array(n);
  for (let i = 0; i < n; i++) rows[i] = rowValues[i] === 0 ? -1 : updateBase + rowValues[i];
  const label = read('label', new Int32Array(n));
  for (let i = 0; i < n; i++) label[i] -= 1;
  const code = read('code', new Uint8Array(n));
  const severity = new Uint8Array(n);
  const kind = new Uint8Array(n);
  const alsoOrange = new Uint8Array(n);
  for (let i = 0; i < n; i++) { severity[i] = code[i] & 3; kind[i] = (code[i] >> 2) & 7; alsoOrange[i] = (code[i] >> 5) & 1; }
  let load = null;
  let mainLoad = null;
  if (hasLoad) {
    load = read('load', new Float32Array(n));
    mainLoad = read('mainLoad', new Float32Array(n));
    for (let i = 0; i < n; i++) { load[i] /= 65535; mainLoad[i] /= 65535; }
  }
  const taskState = rowsAreTaskStates ? rows : null;
  const signpost = rowsAreSignposts ? rows : null;
  const hangRisk = rowsAreHangRisks ? rows : null;
  const update = rowsAreTaskStates || rowsAreSignposts || rowsAreHangRisks ? new Int32Array(n).fill(-1) : rows;
  return { id, lane: { length: n, maxDuration, merged, start, duration, count, severity, alsoOrange, update, taskState, signpost, hangRisk, kind, label, labels, load, mainLoad } };
}

/**
 * Decodes a binary timeline answer into `{start, end, width, lanes: {id: lane}}`, each lane the
 * typed arrays the renderer uses (the same shape worker.js makes from JSON).
 */
export function decodeTimeline(buffer) {
  const r = new Reader(buffer);
  if (r.text(4) !== MAGIC) throw new Error('not a binary timeline (no TLB1 magic)');
  const start = r.i64();
  const end = r.i64();
  const width = r.u32();
  const lanes = {};
  for (let count = r.u32(), i = 0; i < count; i++) {
    const { id, lane } = decodeLane(r);
    lanes[id] = lane;
  }
  return { start, end, width, lanes };
}

/** The transferable buffers of a decoded lane. */
export function laneBuffers(lane) {
  const arrays = [lane.start, lane.duration, lane.count, lane.severity, lane.alsoOrange, lane.update, lane.kind, lane.label];
  if (lane.taskState) arrays.push(lane.taskState);
  if (lane.signpost) arrays.push(lane.signpost);
  if (lane.hangRisk) arrays.push(lane.hangRisk);
  if (lane.load) arrays.push(lane.load, lane.mainLoad);
  return arrays.map((a) => a.buffer);
}
