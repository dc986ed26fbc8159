// A time range: the inspection range (r=) and the other spans a link carries (the window w=, the
// comparison's ra= / rb= / tw=). The state holds a span [start, end] (integer ns, end > start);
// the panes read it as {start, end} and ask the API with start= and end=.

/** A span `start,end` of a link (integers, end > start), or null. */
export function parseSpan(text) {
  if (!text) return null;
  const parts = text.split(',');
  if (parts.length !== 2 || !parts.every((p) => /^-?\d+$/.test(p))) return null;
  const [start, end] = parts.map(Number);
  return end > start ? [start, end] : null;
}

/** A span [start, end] as {start, end}, or null when it is not one. */
export function rangeOf(span) {
  if (!Array.isArray(span) || span.length !== 2 || span[0] == null) return null;
  const [start, end] = span.map(Number);
  return Number.isFinite(start) && Number.isFinite(end) && end >= start ? { start, end } : null;
}

/** The inspection range of a view state as {start, end}, or null when there is none (the whole trace). */
export const currentRange = (state) => rangeOf(state.range);

/** The API parameters of a range ({start, end} or null): start= and end=, none for the whole trace. */
export const rangeParams = (range) => (range ? { start: range.start, end: range.end } : {});
