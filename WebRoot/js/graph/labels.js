// Where the cause graph's edge labels go, free of the DOM (node tests in Tests/Web).
// Parallel edges (same cause, same effect) are drawn as one, with one label; each label is
// placed greedily, heaviest count first, at the first point along its edge where its box
// touches no node and no label placed before it, else stacked above or below such a point
// ("creation ×12" under "update ×24"); a label with no free place at all is shown on hover,
// its place marked on the edge with a dot.

/** Edges merged by (from, to): {from, to, points, edges: [edge...], count} in first-seen order. */
export function bundleEdges(edges) {
  const byPair = new Map();
  for (const edge of edges) {
    const key = `${edge.from}\u0000${edge.to}`;
    let bundle = byPair.get(key);
    if (!bundle) {
      bundle = { from: edge.from, to: edge.to, points: edge.points, edges: [], count: 0 };
      byPair.set(key, bundle);
    }
    bundle.edges.push(edge);
    bundle.count += edge.count;
  }
  return [...byPair.values()];
}

/** A cubic hop with horizontal tangents (as edgePath draws it) evaluated at t. */
function hopPoint([x0, y0], [x1, y1], t) {
  if (y0 === y1) return [x0 + (x1 - x0) * t, y0];
  const u = 1 - t;
  const dx = (x1 - x0) / 2;
  const x = u * u * u * x0 + 3 * u * u * t * (x0 + dx) + 3 * u * t * t * (x1 - dx) + t * t * t * x1;
  const y = u * u * u * y0 + 3 * u * u * t * y0 + 3 * u * t * t * y1 + t * t * t * y1;
  return [x, y];
}

// Along a hop: close to the effect first (where a fan-out has spread apart), then towards the
// cause (where a fan-in has not converged yet).
const STEPS = [0.72, 0.6, 0.84, 0.48, 0.36, 0.24, 0.14];

/** Candidate label centres along a route: the last hop first, then the hops before it. */
export function labelCandidates(points) {
  const out = [];
  for (let hop = points.length - 1; hop >= 1; hop -= 1) {
    for (const t of STEPS) out.push(hopPoint(points[hop - 1], points[hop], t));
  }
  return out;
}

function overlaps(a, b, pad) {
  return a.x < b.x + b.width + pad && b.x < a.x + a.width + pad && a.y < b.y + b.height + pad && b.y < a.y + a.height + pad;
}

// Stacked places, in label heights from a point along the edge: just below, just above, then further.
const STACK = [1.1, -1.1, 2.2, -2.2];

/**
 * Places labels: [{id, width, height, candidates: [[cx, cy]...], weight}] avoiding `obstacles`
 * ([{x, y, width, height}], the nodes) and each other. Returns Map id -> {x, y, width, height,
 * stacked} (the box; `stacked` when it sits off its edge) or {x, y, width, height, dropped: true}
 * (no free place: the box at its first point, shown on hover only). Heavier labels choose first;
 * ties keep the input order. A grid of buckets keeps it near-linear for hundreds of labels.
 */
export function placeLabels(labels, obstacles, { pad = 2, cell = 80 } = {}) {
  const grid = new Map();
  const cellsOf = (box) => {
    const keys = [];
    for (let gx = Math.floor((box.x - pad) / cell); gx <= Math.floor((box.x + box.width + pad) / cell); gx += 1) {
      for (let gy = Math.floor((box.y - pad) / cell); gy <= Math.floor((box.y + box.height + pad) / cell); gy += 1) keys.push(`${gx},${gy}`);
    }
    return keys;
  };
  const add = (box) => {
    for (const key of cellsOf(box)) {
      if (!grid.has(key)) grid.set(key, []);
      grid.get(key).push(box);
    }
  };
  const free = (box) => cellsOf(box).every((key) => !(grid.get(key) ?? []).some((other) => overlaps(box, other, pad)));
  for (const obstacle of obstacles) add(obstacle);

  const placed = new Map();
  const order = labels.map((label, index) => ({ label, index }))
    .sort((a, b) => (b.label.weight ?? 0) - (a.label.weight ?? 0) || a.index - b.index);
  const boxAt = ([cx, cy], dy = 0) => ({ x: cx - label.width / 2, y: cy + dy - label.height / 2, width: label.width, height: label.height });
  let label = null;
  for ({ label } of order) {
    let chosen = label.candidates.map((point) => boxAt(point)).find(free) ?? null;
    if (!chosen) {
      chosen = label.candidates.slice(0, 3).flatMap((point) => STACK.map((dy) => ({ ...boxAt(point, dy * label.height), stacked: true }))).find(free) ?? null;
    }
    if (chosen) add(chosen);
    else if (label.candidates.length) chosen = { ...boxAt(label.candidates[0]), dropped: true };
    placed.set(label.id, chosen);
  }
  return placed;
}
