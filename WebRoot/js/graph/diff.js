// Two cause graphs of one view (A before, B after, as the comparison's drill-down shows them)
// edge against edge: an edge is its source and target (kind and title; a body notified that did
// not run is another target than one that ran), its label and property. Pure, for `node --test`.

/** The key of `edge` in a graph whose nodes are `nodeById`. */
export function edgeKey(edge, nodeById) {
  const node = (id) => {
    const n = nodeById.get(id);
    return n ? `${n.kind}|${n.title}${n.dimmed ? ' (did not run)' : ''}` : id;
  };
  return `${node(edge.from)} > ${node(edge.to)} | ${edge.label} | ${edge.property ?? ''}`;
}

/** Counts by key of a graph's edges ({nodes, edges}). */
export function edgeCounts(graph) {
  const nodeById = new Map(graph.nodes.map((n) => [n.id, n]));
  const counts = new Map();
  for (const edge of graph.edges) {
    const key = edgeKey(edge, nodeById);
    counts.set(key, (counts.get(key) ?? 0) + (edge.count ?? 1));
  }
  return counts;
}

/**
 * What happened to each edge key between graphs `a` and `b`: 'gone' (only in A), 'new' (only in
 * B), 'changed' (a different count); unchanged keys are left out. Returns a Map key → {change, a, b}.
 */
export function graphDiff(a, b) {
  const before = edgeCounts(a);
  const after = edgeCounts(b);
  const diff = new Map();
  for (const [key, count] of before) {
    const other = after.get(key);
    if (other === undefined) diff.set(key, { change: 'gone', a: count, b: 0 });
    else if (other !== count) diff.set(key, { change: 'changed', a: count, b: other });
  }
  for (const [key, count] of after) if (!before.has(key)) diff.set(key, { change: 'new', a: 0, b: count });
  return diff;
}

const STRENGTH = { gone: 2, new: 2, changed: 1 };

/**
 * The mark of a drawn bundle of parallel edges ({edges}) under `diff`: the strongest change of
 * its edges ('gone' / 'new' before 'changed'), or null when none changed.
 */
export function bundleMark(bundle, nodeById, diff) {
  let mark = null;
  for (const edge of bundle.edges) {
    const change = diff.get(edgeKey(edge, nodeById))?.change;
    if (change && (!mark || STRENGTH[change] > STRENGTH[mark])) mark = change;
  }
  return mark;
}
