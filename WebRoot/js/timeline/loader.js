// Level-of-detail data for the visible window: one timeline query at a time, covering the
// window plus half a window on each side at the current resolution, so small pans need no
// request. Queries run in a worker (fetch + decode of the binary columns off the main thread); stale ones are
// aborted; until a new answer arrives the previous one is drawn, shifted and scaled.
import { ApiError } from '../api.js';

const MARGIN = 0.5;          // extra window fraction fetched on each side
const THROTTLE_MS = 40;      // at most one new request per this interval while moving
// The server answers at most 10,000 columns per request (QueryRoutes).
const MAX_WIDTH_PX = 10000;

export class TimelineLoader {
  constructor(traceId, traceStart, traceEnd, onData) {
    this.base = `/api/traces/${encodeURIComponent(traceId)}/timeline`;
    this.traceStart = traceStart;
    this.traceEnd = traceEnd;
    this.onData = onData;
    this.current = null;   // {start, end, width, nsPerPx, key, query, lanes: {id: decoded lane}}
    this.inflight = null;  // {id, start, end, width, nsPerPx, key, query, began}
    this.timer = 0;
    this.pending = null;
    this.error = null;
    this.destroyed = false;
    this.nextId = 1;
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = ({ data }) => this.received(data);
    this.worker.onerror = (event) => {
      this.inflight = null;
      this.error = new Error(`timeline worker failed: ${event.message ?? 'unknown error'}`);
      this.onData();
    };
  }

  covers(buffer, start, end, nsPerPx, key) {
    if (!buffer || buffer.key !== key) return false;
    const needStart = Math.max(start, this.traceStart);
    const needEnd = Math.min(end, this.traceEnd);
    // Coarser data would show merged blocks where there should be detail; much finer data is
    // fine to draw but too much to keep, so refetch outside [1/1.6, 1.25] of the wanted scale.
    return buffer.start <= needStart && buffer.end >= needEnd &&
      buffer.nsPerPx <= nsPerPx * 1.25 && buffer.nsPerPx >= nsPerPx / 1.6;
  }

  /** A request that will still show most of the view at a similar scale is worth finishing. */
  useful(buffer, start, end, nsPerPx, key) {
    if (!buffer || buffer.key !== key) return false;
    const overlap = Math.min(buffer.end, end) - Math.max(buffer.start, start);
    return overlap > (end - start) * 0.5 && buffer.nsPerPx < nsPerPx * 4 && buffer.nsPerPx > nsPerPx / 4;
  }

  /** Makes sure data for [start, end] at `widthPx` pixels for `lanes` is loaded or on its way. */
  ensure(start, end, widthPx, lanes) {
    if (this.destroyed || widthPx <= 0 || end <= start) return;
    const key = lanes.join(',');
    const nsPerPx = (end - start) / widthPx;
    this.pending = { start, end, nsPerPx, key };
    if (this.covers(this.current, start, end, nsPerPx, key) || this.covers(this.inflight, start, end, nsPerPx, key)) return;
    if (!this.timer) this.timer = setTimeout(() => { this.timer = 0; this.fetchPending(); }, this.inflight ? THROTTLE_MS : 0);
  }

  fetchPending() {
    const want = this.pending;
    if (!want || this.destroyed) return;
    const { start, end, nsPerPx, key } = want;
    if (this.covers(this.current, start, end, nsPerPx, key) || this.covers(this.inflight, start, end, nsPerPx, key)) return;
    // Aborting a nearly-right request on every frame of a long zoom would leave nothing new
    // until the zoom stops; its answer asks again for whatever is still missing.
    if (this.useful(this.inflight, start, end, nsPerPx, key)) return;
    if (this.inflight) this.worker.postMessage({ abort: this.inflight.id });
    const span = end - start;
    const fetchStart = Math.max(this.traceStart, Math.floor(start - span * MARGIN));
    const fetchEnd = Math.min(this.traceEnd, Math.ceil(end + span * MARGIN));
    if (fetchEnd <= fetchStart) return;
    const width = Math.max(1, Math.min(MAX_WIDTH_PX, Math.round((fetchEnd - fetchStart) / nsPerPx)));
    const query = `start=${fetchStart}&end=${fetchEnd}&width=${width}&lanes=${key}`;
    const request = { id: this.nextId++, start: fetchStart, end: fetchEnd, width, nsPerPx: (fetchEnd - fetchStart) / width, key, query, began: performance.now() };
    this.inflight = request;
    this.worker.postMessage({ id: request.id, url: `${this.base}?${query}` });
  }

  received(message) {
    const request = this.inflight;
    if (this.destroyed || !request || message.id !== request.id) return;
    this.inflight = null;
    if (message.error) {
      this.error = new ApiError(message.status, message.error);
    } else {
      this.error = null;
      // Visible in the Performance panel, and read by scripts/bench-browser.py.
      performance.measure('timeline-fetch', { start: request.began, end: performance.now(), detail: { bytes: message.bytes, format: message.format } });
      const { id, began, ...rest } = request;
      this.current = { ...rest, lanes: message.lanes };
    }
    this.onData();
    // The view may have moved on while this request was running.
    const p = this.pending;
    if (p && !message.error) this.ensure(p.start, p.end, (p.end - p.start) / p.nsPerPx, p.key.split(','));
  }

  get loading() {
    return !!this.inflight || !!this.timer;
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.timer);
    this.worker.terminate();
  }
}
