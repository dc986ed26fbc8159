// Two traces on one time axis (the comparison page's timelines): a time on the shared axis is a
// time on a trace's clock minus that trace's anchor. Pure, for `node --test` (Tests/Web).

/**
 * Where each trace is anchored on its own clock, for an anchor of the URL (state.js `anchor`):
 * null = both starts; 'ranges' = the start of each compared range (rangeA / rangeB);
 * {group: label} = the start of the first update group with that label (the comparison's
 * `interactions[].firstA/firstB`). A side without what the anchor names falls back to its start
 * and is listed in `fellBack` ('A', 'B').
 * `traces`: {a: {start}, b: {start}}; `ranges`: {a, b} ([start, end] or null); `interactions`: as the API gives them.
 */
export function anchorTimes(anchor, { traces, ranges = {}, interactions = [] }) {
  let wanted = { a: null, b: null };
  if (anchor === 'ranges') wanted = { a: ranges.a?.[0] ?? null, b: ranges.b?.[0] ?? null };
  else if (anchor?.group !== undefined) {
    const found = interactions.find((i) => i.label === anchor.group);
    wanted = { a: found?.firstA ?? null, b: found?.firstB ?? null };
  }
  const fellBack = [];
  if (anchor && wanted.a === null) fellBack.push('A');
  if (anchor && wanted.b === null) fellBack.push('B');
  return { a: wanted.a ?? traces.a.start, b: wanted.b ?? traces.b.start, fellBack };
}

/** The span of the shared axis: both traces, each moved by its anchor, from the first start to the last end. */
export function sharedBounds(traces, anchors) {
  return {
    start: Math.min(traces.a.start - anchors.a, traces.b.start - anchors.b),
    end: Math.max(traces.a.end - anchors.a, traces.b.end - anchors.b),
  };
}

/** A window on the shared axis as a window on the clock of the trace anchored at `anchor`. */
export const toTrace = ([start, end], anchor) => [start + anchor, end + anchor];

/** A window on a trace's clock (anchored at `anchor`) as a window on the shared axis. */
export const toShared = ([start, end], anchor) => [start - anchor, end - anchor];

/** The anchor of the URL's al= value: '' / missing → null (both starts), 'ranges', 'g:Label' → {group: 'Label'}. */
export function parseAnchor(text) {
  if (text === 'ranges') return 'ranges';
  if (text?.startsWith('g:') && text.length > 2) return { group: text.slice(2) };
  return null;
}

/** The al= value of an anchor (null: none, the default). */
export function formatAnchor(anchor) {
  if (anchor === 'ranges') return 'ranges';
  if (anchor?.group) return `g:${anchor.group}`;
  return null;
}

/** Around an anchor the timelines show this much before it and after it (ns on the shared axis). */
export const ANCHOR_BEFORE_NS = 50_000_000;
export const ANCHOR_AFTER_NS = 250_000_000;

/**
 * The shared window "Align at" zooms both timelines to: around the anchor (time 0 on the shared
 * axis), or for 'ranges' the longer compared range and a margin; null (both whole traces) for
 * both starts. `ranges`: {a, b} ([start, end] or null).
 */
export function anchorWindow(anchor, ranges = {}) {
  if (!anchor) return null;
  if (anchor === 'ranges') {
    const longest = Math.max(...[ranges.a, ranges.b].map((r) => (r ? r[1] - r[0] : 0)));
    if (longest > 0) return [-Math.round(longest * 0.1), Math.round(longest * 1.1)];
  }
  return [-ANCHOR_BEFORE_NS, ANCHOR_AFTER_NS];
}