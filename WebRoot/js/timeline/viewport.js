// The timeline's view math, free of the DOM: a window is {start, end} in trace nanoseconds,
// drawn across `width` CSS pixels. createTimeline (index.js) wires events to these functions.

export const MIN_WINDOW_NS = 1_000;   // 1 us: the narrowest window a zoom reaches
export const GESTURE_GAP_MS = 700;    // zoom steps closer than this are one gesture, one history entry

/** The span a trace's windows live in; an empty trace still gets the minimum window. */
export function traceBounds(trace) {
  return { start: trace.start, end: Math.max(trace.end, trace.start + MIN_WINDOW_NS) };
}

/**
 * `[start, end]` made a window that fits: at least MIN_WINDOW_NS (at most the whole trace) wide,
 * shifted (not shrunk) back inside the trace when it runs past an end.
 */
export function clampWindow([start, end], bounds) {
  const span = Math.min(Math.max(end - start, MIN_WINDOW_NS), bounds.end - bounds.start);
  const clampedStart = Math.min(Math.max(start, bounds.start), bounds.end - span);
  return { start: clampedStart, end: clampedStart + span };
}

/** The time under pixel `x` of a `width`-pixel-wide drawing of `view`. */
export function timeAt(view, width, x) {
  return view.start + (x / width) * (view.end - view.start);
}

/**
 * The window `factor` times as wide as `view` (below 1 zooms in) that keeps `anchor` (a time) at the
 * same fraction of the width, so the point under the cursor stays under it. Unclamped.
 */
export function zoomAround(view, anchor, factor) {
  const span = Math.max((view.end - view.start) * factor, MIN_WINDOW_NS);
  const start = anchor - ((anchor - view.start) / (view.end - view.start)) * span;
  return [start, start + span];
}

/** `view` moved later by `shift` ns (earlier when negative). Unclamped. */
export function panBy(view, shift) {
  return [view.start + shift, view.end + shift];
}

/** The time a drag (or horizontal wheel) of `dx` pixels moves `view` by: content follows the pointer. */
export function pixelsToTime(view, width, dx) {
  return (dx / width) * (view.end - view.start);
}

/**
 * Whether a view move adds a history entry. kind: 'jump' (always), 'pan' (never: pans replace the
 * entry, throttled), 'zoom' (when the previous zoom step is more than GESTURE_GAP_MS old: one entry
 * per wheel or key gesture). Returns {push, lastZoomAt} with the time to remember for the next call.
 */
export function historyStep(kind, now, lastZoomAt) {
  if (kind === 'zoom') return { push: now - lastZoomAt > GESTURE_GAP_MS, lastZoomAt: now };
  return { push: kind === 'jump', lastZoomAt };
}

/** A window around an update: the update in the middle third, at least 2 ms wide, inside the trace. */
export function contextWindow(bounds, start, duration) {
  const span = Math.max(duration * 3, 2_000_000);
  const center = start + duration / 2;
  let windowStart = Math.round(center - span / 2);
  let windowEnd = Math.round(center + span / 2);
  if (windowStart < bounds.start) { windowEnd += bounds.start - windowStart; windowStart = bounds.start; }
  if (windowEnd > bounds.end) { windowStart = Math.max(bounds.start, windowStart - (windowEnd - bounds.end)); windowEnd = bounds.end; }
  return [windowStart, windowEnd];
}

/** The window that opens a merged mark so its events separate: the mark with a quarter of it on each side. */
export function markWindow(mark) {
  const pad = Math.max(mark.duration * 0.25, MIN_WINDOW_NS);
  return [mark.start - pad, mark.start + mark.duration + pad];
}
