// Fetches and decodes timeline queries off the main thread: a 1M-update trace answers with
// up to a few thousand events per lane, and parsing that JSON into objects on the main
// thread would drop frames while panning. Lanes come back as typed arrays (transferred).
// The server is asked for its binary columns (binary.js); JSON is read when that is what comes.

import { KINDS } from './lanes.js';
import { decodeTimeline, laneBuffers } from './binary.js';

const controllers = new Map();

function decodeLane(lane) {
  let events = lane.events ?? [];
  // Drawing binary-searches by start: make sure the order holds whatever the server sends.
  if (events.some((e, i) => i > 0 && e.start < events[i - 1].start)) events = [...events].sort((a, b) => a.start - b.start);
  const n = events.length;
  const start = new Float64Array(n);
  const duration = new Float64Array(n);
  const count = new Uint32Array(n);
  const severity = new Uint8Array(n);
  const alsoOrange = new Uint8Array(n);
  const update = new Int32Array(n);
  const taskState = new Int32Array(n);
  const signpost = new Int32Array(n);
  const hangRisk = new Int32Array(n);
  const kind = new Uint8Array(n);
  const label = new Int32Array(n);
  const labels = [];
  const labelIndex = new Map();
  let maxDuration = 0;
  let load = null;
  let mainLoad = null;
  if (events.some((e) => e.load !== undefined)) {
    load = new Float32Array(n);
    mainLoad = new Float32Array(n);
  }
  for (let i = 0; i < n; i++) {
    const e = events[i];
    start[i] = e.start;
    duration[i] = e.duration;
    if (e.duration > maxDuration) maxDuration = e.duration;
    count[i] = e.count ?? 1;
    severity[i] = e.severity === 'red' ? 2 : e.severity === 'orange' ? 1 : 0;
    alsoOrange[i] = e.alsoOrange ? 1 : 0;
    update[i] = e.update ?? -1;
    taskState[i] = e.taskState ?? -1;
    signpost[i] = e.signpost ?? -1;
    hangRisk[i] = e.hangRisk ?? -1;
    kind[i] = Math.max(0, KINDS.indexOf(e.kind ?? ''));
    if (e.label) {
      let index = labelIndex.get(e.label);
      if (index === undefined) { index = labels.length; labels.push(e.label); labelIndex.set(e.label, index); }
      label[i] = index;
    } else label[i] = -1;
    if (load) { load[i] = e.load ?? 0; mainLoad[i] = e.mainLoad ?? 0; }
  }
  const buffers = [start, duration, count, severity, alsoOrange, update, taskState, signpost, hangRisk, kind, label].map((a) => a.buffer);
  if (load) buffers.push(load.buffer, mainLoad.buffer);
  return { lane: { length: n, maxDuration, merged: !!lane.merged, start, duration, count, severity, alsoOrange, update, taskState, signpost, hangRisk, kind, label, labels, load, mainLoad }, buffers };
}

self.onmessage = async ({ data }) => {
  if (data.abort !== undefined) { controllers.get(data.abort)?.abort(); controllers.delete(data.abort); return; }
  const { id, url } = data;
  const controller = new AbortController();
  controllers.set(id, controller);
  const began = performance.now();
  try {
    const response = await fetch(url, { signal: controller.signal, headers: { Accept: 'application/octet-stream, application/json;q=0.5' } });
    if (response.ok && (response.headers.get('Content-Type') ?? '').startsWith('application/octet-stream')) {
      const body = await response.arrayBuffer();
      const { lanes } = decodeTimeline(body);
      const transfer = Object.values(lanes).flatMap(laneBuffers);
      self.postMessage({ id, lanes, bytes: body.byteLength, format: 'binary', ms: performance.now() - began }, transfer);
      return;
    }
    const text = await response.text();
    if (!response.ok) {
      let body;
      try { body = JSON.parse(text); } catch { body = { error: `HTTP ${response.status}` }; }
      self.postMessage({ id, status: response.status, error: body });
      return;
    }
    const json = JSON.parse(text);
    const lanes = {};
    const transfer = [];
    for (const [laneId, lane] of Object.entries(json.lanes ?? {})) {
      const decoded = decodeLane(lane);
      lanes[laneId] = decoded.lane;
      transfer.push(...decoded.buffers);
    }
    self.postMessage({ id, lanes, bytes: text.length, format: 'json', ms: performance.now() - began }, transfer);
  } catch (error) {
    if (error.name !== 'AbortError') self.postMessage({ id, status: 0, error: { error: 'Timeline query failed', detail: error.message } });
  } finally {
    controllers.delete(id);
  }
};
