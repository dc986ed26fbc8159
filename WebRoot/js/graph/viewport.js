// The cause graph's view math, free of the DOM. A transform {x, y, k} draws graph point (gx, gy)
// at stage pixel (x + gx * k, y + gy * k); `graph` and nodes carry the server layout's sizes.

export const MIN_SCALE = 0.1;        // the wheel and buttons zoom out no further...
export const MAX_SCALE = 4;          // ...and in no further
export const READABLE_SCALE = 0.7;   // below this, node titles are hard to read
const MAX_FIT_SCALE = 1.25;          // fitting never blows a small graph up past this
const MIN_FIT_SCALE = 0.005;         // fit may go below the wheel's floor: a 500-node column must still fit

/** The whole graph, centred, as large as fits the stage (an unmeasured stage counts as 800 x 400). */
export function fitTransform(graph, width, height) {
  const w = width || 800;
  const h = height || 400;
  if (!graph || !graph.width) return { x: 0, y: 0, k: 1 };
  const k = Math.max(MIN_FIT_SCALE, Math.min(MAX_FIT_SCALE, w / graph.width, h / graph.height));
  return { k, x: (w - graph.width * k) / 2, y: (h - graph.height * k) / 2 };
}

/** At this scale and above node titles (12 px) and subtitles (11 px) are at least 11 px on screen. */
export const READING_SCALE = 1;
const READABLE_PAD = 12;

/**
 * A graph fitted at reading scale into a box `width` wide (an unmeasured box counts as 800): as
 * large as the width allows, never below READING_SCALE (a wider graph pans sideways) nor above
 * the fit's ceiling; `height` is the box height that shows it whole, at most `maxHeight` (a
 * taller graph pans, as does a wider one, showing its focus nodes). Returns {transform, height}.
 */
export function readableFit(graph, width, maxHeight = 640) {
  const w = width || 800;
  if (!graph || !graph.width) return { transform: { x: 0, y: 0, k: 1 }, height: 240 };
  const k = Math.max(READING_SCALE, Math.min(MAX_FIT_SCALE, (w - 2 * READABLE_PAD) / graph.width));
  const height = Math.min(maxHeight, Math.max(160, graph.height * k + 2 * READABLE_PAD));
  // Too large for the box: the focus nodes (the view drilled into) in the middle, no farther
  // than the graph's edges, as the first view of a trace page's graph.
  const focus = (graph.nodes ?? []).filter((n) => n.focus);
  const place = (size, room, centre) => {
    if (size * k <= room - 2 * READABLE_PAD) return (room - size * k) / 2;
    const wanted = centre === null ? READABLE_PAD : room / 2 - centre * k;
    return Math.min(READABLE_PAD, Math.max(room - READABLE_PAD - size * k, wanted));
  };
  const centreOf = (start, size) => (focus.length ? focus.reduce((sum, n) => sum + n[start] + n[size] / 2, 0) / focus.length : null);
  return { transform: { k, x: place(graph.width, w, centreOf('x', 'width')), y: place(graph.height, height, centreOf('y', 'height')) }, height };
}

/**
 * The first view: everything if it stays readable; else readable and centred on the focus nodes,
 * without scrolling past the graph's edges (the causes stay in view when they fit).
 */
export function initialTransform(graph, width, height) {
  const all = fitTransform(graph, width, height);
  const focus = graph.nodes.filter((n) => n.focus);
  if (all.k >= READABLE_SCALE || focus.length === 0) return all;
  const k = READABLE_SCALE;
  const cx = focus.reduce((sum, n) => sum + n.x + n.width / 2, 0) / focus.length;
  const cy = focus.reduce((sum, n) => sum + n.y + n.height / 2, 0) / focus.length;
  const clamp = (value, size, room) => (size * k <= room ? (room - size * k) / 2 : Math.min(0, Math.max(room - size * k, value)));
  return { k, x: clamp(width / 2 - cx * k, graph.width, width), y: clamp(height / 2 - cy * k, graph.height, height) };
}

/**
 * `transform` zoomed by `factor` around stage pixel (px, py), which keeps showing the same graph
 * point. The scale stays within [MIN_SCALE, MAX_SCALE], except that a view already smaller than
 * MIN_SCALE (a fitted huge graph) may stay where it is.
 */
export function zoomTransform(transform, factor, px, py) {
  const k = Math.max(Math.min(MIN_SCALE, transform.k), Math.min(MAX_SCALE, transform.k * factor));
  return { k, x: px - ((px - transform.x) * k) / transform.k, y: py - ((py - transform.y) * k) / transform.k };
}

/** `transform` moved so `node`'s centre is at the stage's centre, at the same scale. */
export function centreTransform(transform, node, width, height) {
  return { ...transform, x: width / 2 - (node.x + node.width / 2) * transform.k, y: height / 2 - (node.y + node.height / 2) * transform.k };
}

/** Whether all of `node` is on the stage. */
export function nodeInView(transform, node, width, height) {
  const left = transform.x + node.x * transform.k;
  const top = transform.y + node.y * transform.k;
  return left >= 0 && top >= 0 && left + node.width * transform.k <= width && top + node.height * transform.k <= height;
}

/**
 * `transform`, or moved so `node` and its neighbours (what its card explains) are on the stage:
 * panned there, zoomed out only as far as they need (`revealTransform`).
 */
export function neighbourhoodTransform(transform, graph, nodeById, node, width, height) {
  const near = new Set([node.id]);
  for (const edge of graph.edges) {
    if (edge.from === node.id) near.add(edge.to);
    if (edge.to === node.id) near.add(edge.from);
  }
  const nodes = [...near].map((id) => nodeById.get(id)).filter(Boolean);
  if (nodes.every((n) => nodeInView(transform, n, width, height))) return transform;
  return revealTransform(transform, nodes, width, height);
}

/**
 * The view after the stage was resized under it (the node card opened beside it, or closed): a
 * graph that was whole in view (`before`: the old stage {width, height}) is fitted to the new
 * stage, unless that would shrink it well below reading size; else the view stays as it was.
 */
export function refitTransform(transform, graph, before, after) {
  const whole = graph?.nodes?.length && graph.nodes.every((n) => nodeInView(transform, n, before.width, before.height));
  if (!whole) return transform;
  const fitted = fitTransform(graph, after.width, after.height);
  return fitted.k >= Math.min(transform.k, READABLE_SCALE) * 0.75 ? fitted : transform;
}

/**
 * `transform` moved (and zoomed out only if they do not fit) so all of `nodes` are on the stage
 * with `margin` px around them: the selected node and its neighbours beside its card.
 */
export function revealTransform(transform, nodes, width, height, margin = 16) {
  const x0 = Math.min(...nodes.map((n) => n.x));
  const y0 = Math.min(...nodes.map((n) => n.y));
  const x1 = Math.max(...nodes.map((n) => n.x + n.width));
  const y1 = Math.max(...nodes.map((n) => n.y + n.height));
  const k = Math.max(MIN_FIT_SCALE, Math.min(transform.k, (width - 2 * margin) / Math.max(x1 - x0, 1), (height - 2 * margin) / Math.max(y1 - y0, 1)));
  // Keep what was in view where it can stay: move only as far as the box needs, in each axis.
  const shift = (position, low, high, room) => {
    const start = position + low * k;
    const end = position + high * k;
    if (end - start > room - 2 * margin) return room / 2 - ((low + high) / 2) * k;
    if (start < margin) return position + margin - start;
    if (end > room - margin) return position - (end - (room - margin));
    return position;
  };
  const scaled = { x: transform.x, y: transform.y };
  if (k !== transform.k) {
    // Zoom about the box's centre first, so the shift below is small.
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    scaled.x = width / 2 - cx * k;
    scaled.y = height / 2 - cy * k;
  }
  return { k, x: shift(scaled.x, x0, x1, width), y: shift(scaled.y, y0, y1, height) };
}
