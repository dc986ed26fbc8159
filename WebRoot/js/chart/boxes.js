// Boxes on rows under a horizontal window, free of the DOM (node tests in Tests/Web): the layout
// math of the flame graph (x = weight) and the stack chart (x = time). A set of boxes is columns
// (depth, x, width, name, kind) with each row's boxes sorted by x, so drawing a window and finding
// the box under the pointer cost a binary search per row, not a walk over every box.

export const ROW_HEIGHT = 18;
/** Boxes narrower than this many pixels are not drawn (the server merged narrower ones already). */
export const MIN_BOX_PX = 0.35;
/** A label needs this many pixels before it is drawn at all. */
export const MIN_LABEL_PX = 28;
/** The narrowest window a zoom reaches, as a share of the whole span. */
export const MIN_WINDOW_SHARE = 1e-9;

/**
 * Boxes from columns: `depth`, `x`, `width` (arrays of numbers), `name` (strings, or indices into
 * `names`), `kind` (strings). Returns {count, depth, x, width, name, kind, rows, maxDepth}: `rows[d]`
 * the indices of depth d sorted by x.
 */
export function prepareBoxes({ depth, x, width, name, kind, names = null }) {
  const count = depth.length;
  const rows = [];
  let maxDepth = -1;
  for (let i = 0; i < count; i += 1) {
    const d = depth[i];
    if (d > maxDepth) maxDepth = d;
    (rows[d] ??= []).push(i);
  }
  for (let d = 0; d <= maxDepth; d += 1) {
    rows[d] ??= [];
    rows[d].sort((a, b) => x[a] - x[b]);
  }
  return {
    count,
    depth: Int32Array.from(depth),
    x: Float64Array.from(x),
    width: Float64Array.from(width),
    name: names ? name.map((i) => names[i] ?? '') : [...name],
    kind: [...kind],
    rows,
    maxDepth,
  };
}

/** The index in `row` (sorted by x) of the first box that ends after `from`. */
function firstEndingAfter(boxes, row, from) {
  // Boxes of a row do not overlap, so their ends are sorted too.
  let low = 0;
  let high = row.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    const i = row[mid];
    if (boxes.x[i] + boxes.width[i] <= from) low = mid + 1; else high = mid;
  }
  return low;
}

/**
 * Calls `visit(i, left, right)` (CSS pixels) for every box of `boxes` inside `view` ({from, to})
 * drawn `px` pixels wide, at least MIN_BOX_PX wide; rows from `firstRow` to `lastRow`.
 */
export function forEachVisible(boxes, view, px, visit, firstRow = 0, lastRow = boxes.maxDepth) {
  const scale = px / (view.to - view.from);
  for (let d = Math.max(0, firstRow); d <= Math.min(lastRow, boxes.maxDepth); d += 1) {
    const row = boxes.rows[d];
    for (let k = firstEndingAfter(boxes, row, view.from); k < row.length; k += 1) {
      const i = row[k];
      if (boxes.x[i] >= view.to) break;
      const left = (boxes.x[i] - view.from) * scale;
      const right = (boxes.x[i] + boxes.width[i] - view.from) * scale;
      if (right - left < MIN_BOX_PX) continue;
      visit(i, left, right);
    }
  }
}

/** The box under (x, y) in CSS pixels (rows of ROW_HEIGHT from `top`), or -1. */
export function boxAt(boxes, view, px, x, y, top = 0) {
  const d = Math.floor((y - top) / ROW_HEIGHT);
  if (d < 0 || d > boxes.maxDepth || x < 0 || x > px) return -1;
  const at = view.from + (x / px) * (view.to - view.from);
  const row = boxes.rows[d];
  const k = firstEndingAfter(boxes, row, at);
  const i = row[k];
  return i !== undefined && boxes.x[i] <= at ? i : -1;
}

/** `[from, to]` made a window inside `bounds` ({from, to}): at least MIN_WINDOW_SHARE of it, shifted back inside. */
export function clampView([from, to], bounds) {
  const whole = bounds.to - bounds.from;
  const span = Math.min(Math.max(to - from, whole * MIN_WINDOW_SHARE, 1e-6), whole);
  const start = Math.min(Math.max(from, bounds.from), bounds.to - span);
  return { from: start, to: start + span };
}

/** The window `factor` times as wide as `view` keeping `anchor` (an x) under the same pixel. Unclamped. */
export function zoomAround(view, anchor, factor) {
  const span = (view.to - view.from) * factor;
  const from = anchor - ((anchor - view.from) / (view.to - view.from)) * span;
  return [from, from + span];
}

/** The x under pixel `px` of a drawing `width` pixels wide. */
export function xAt(view, width, px) {
  return view.from + (px / width) * (view.to - view.from);
}

/** The window part `t` (0..1) of the way from `a` to `b`, zooming evenly (geometric in the span). */
export function interpolateView(a, b, t) {
  const spanA = a.to - a.from;
  const spanB = b.to - b.from;
  const span = spanA * (spanB / spanA) ** t;
  // The point that keeps its pixel through the whole zoom (a fixed point of the two windows).
  const denominator = spanA - spanB;
  if (Math.abs(denominator) < 1e-9 * spanA) {
    const from = a.from + (b.from - a.from) * t;
    return { from, to: from + span };
  }
  const fixed = (a.from * spanB - b.from * spanA) / (spanB - spanA);
  const share = (fixed - a.from) / spanA;
  const from = fixed - share * span;
  return { from, to: from + span };
}

/** The text of a label `px` pixels wide at about `charPx` per character: whole, cut with "…", or '' when nothing fits. */
export function fitLabel(text, px, charPx = 6.6) {
  if (px < MIN_LABEL_PX) return '';
  const room = Math.floor((px - 6) / charPx);
  if (room >= text.length) return text;
  if (room < 3) return '';
  return `${text.slice(0, room - 1)}…`;
}

/** The boxes whose name holds `q` (lower case; '' matches none). */
export function matchingBoxes(boxes, q) {
  const found = new Set();
  if (!q) return found;
  for (let i = 0; i < boxes.count; i += 1) if (boxes.name[i].toLowerCase().includes(q)) found.add(i);
  return found;
}

/** Hue variation per name (the same function keeps its shade between draws and views). */
export function nameShade(name) {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i += 1) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619);
  return ((hash >>> 0) % 1000) / 1000;
}

/** The kinds of frames, their colours (HSL: hue, saturation, lightness ranges) and legend labels. */
export const KINDS = Object.freeze({
  app: { label: 'The app’s code', hue: 28, sat: 85, light: [58, 70] },
  swiftui: { label: 'SwiftUI', hue: 210, sat: 70, light: [60, 74] },
  system: { label: 'System libraries', hue: 0, sat: 0, light: [70, 82] },
  thread: { label: 'Thread', hue: 265, sat: 35, light: [70, 74] },
  other: { label: 'Not a frame (outside the body, system only)', hue: 45, sat: 15, light: [80, 84] },
  merged: { label: 'Frames narrower than a pixel, merged', hue: 0, sat: 0, light: [88, 90] },
});

/** The fill of a box of `kind` named `name` (CSS colour); `dim` for boxes a search did not match. */
export function kindColor(kind, name, dim = false) {
  const k = KINDS[kind] ?? KINDS.system;
  const light = k.light[0] + (k.light[1] - k.light[0]) * nameShade(name);
  return dim ? `hsl(${k.hue} ${Math.round(k.sat * 0.25)}% ${Math.min(94, Math.round(light + 12))}%)` : `hsl(${k.hue} ${k.sat}% ${Math.round(light)}%)`;
}

/**
 * The fill of a differential frame: red where its self share grew, blue where it shrank, white
 * when unchanged; `delta` a share change (-1..1), saturating at `full` (default 5 points).
 */
export function diffColor(delta, full = 0.05) {
  const t = Math.max(-1, Math.min(1, delta / full));
  if (Math.abs(t) < 0.02) return 'hsl(0 0% 92%)';
  const strength = Math.sqrt(Math.abs(t));
  return t > 0 ? `hsl(4 ${Math.round(40 + 45 * strength)}% ${Math.round(90 - 32 * strength)}%)`
    : `hsl(214 ${Math.round(40 + 45 * strength)}% ${Math.round(90 - 32 * strength)}%)`;
}
