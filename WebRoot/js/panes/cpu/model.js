// The call tree as data, free of the DOM (node tests in Tests/Web): the server's answer given ids
// and parents, the search filter, the heaviest path, and the rows a set of expanded nodes shows.

/**
 * The heaviest child of `children` ({total, name}[], non-empty) and the ones tied with it: the
 * server sorts ties by name, so the pick is the first by name, which the pane says.
 */
export function heaviestChild(children) {
  const best = children.reduce((a, c) => (c.total > a.total ? c : a));
  return { best, tied: children.filter((c) => c !== best && c.total === best.total) };
}

/**
 * The answer of GET calltree with ids (numbered as created: a path of indexes would grow with
 * the depth, squared over a deep stack), parents and depths, children
 * by weight, roots by weight with the main threads (`mainThreads`: their names) first top-down.
 * Returns {data: {totalWeight, sampleCount, unit, updateCount, roots}, byId}.
 */
export function prepareTree(result, mainThreads = new Set()) {
  const byId = new Map();
  const roots = [...(result.roots ?? [])].sort((a, b) => b.total - a.total);
  if (result.mode !== 'bottom-up') roots.sort((a, b) => mainThreads.has(b.name) - mainThreads.has(a.name));
  // Iterative, so a deep stack cannot overflow ours.
  let next = 0;
  const prepared = roots.map((r) => ({ ...r, id: String(next++), parent: null, depth: 0, children: r.children ?? [] }));
  const queue = [...prepared];
  while (queue.length) {
    const n = queue.pop();
    byId.set(n.id, n);
    n.children = [...n.children].sort((a, b) => b.total - a.total)
      .map((child) => ({ ...child, id: String(next++), parent: n, depth: n.depth + 1, children: child.children ?? [] }));
    queue.push(...n.children);
  }
  return {
    data: {
      totalWeight: result.totalWeight ?? roots.reduce((s, r) => s + r.total, 0),
      sampleCount: result.sampleCount ?? 0,
      unit: result.unit ?? 'ns',
      updateCount: result.updateCount ?? null,
      omittedNodes: result.omittedNodes ?? 0,
      roots: prepared,
    },
    byId,
  };
}

/** Every node below and including `roots`, parents before children. */
function* walk(roots) {
  const stack = [...roots].reverse();
  while (stack.length) {
    const node = stack.pop();
    yield node;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
}

/**
 * The search `q` (lower case, non-empty) over the tree: a node is shown when its name matches,
 * something below it does, or it is inside a match (a matched function can still be opened).
 * Returns {shown, opened (the nodes to expand: those with a match below), firstMatch (or null)}.
 */
export function searchTree(roots, q) {
  const shown = new Set();
  const opened = new Set();
  const matches = (node) => node.name.toLowerCase().includes(q);
  // Children before parents: a node knows whether a match is below it.
  const order = [...walk(roots)];
  const matchBelow = new Set();
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i];
    if (node.children.some((c) => matches(c) || matchBelow.has(c.id))) { matchBelow.add(node.id); opened.add(node.id); }
  }
  // Parents before children: a node knows whether it is inside a match.
  const insideMatch = new Set();
  let firstMatch = null;
  for (const node of order) {
    if (node.parent && (insideMatch.has(node.parent.id) || matches(node.parent))) insideMatch.add(node.id);
    if (matches(node) || matchBelow.has(node.id) || insideMatch.has(node.id)) shown.add(node.id);
    if (!firstMatch && matches(node)) firstMatch = node;
  }
  return { shown, opened, firstMatch };
}

/**
 * The chain of heaviest children below `node` (its visible children: `childrenOf(node)`): the
 * ids to expand, the node it ends at, and the ties it broke on the way ({parent, best, tied}).
 */
export function heaviestPath(node, childrenOf) {
  const open = [];
  const ties = [];
  for (;;) {
    const kids = childrenOf(node);
    if (!kids.length) break;
    open.push(node.id);
    const { best, tied } = heaviestChild(kids);
    if (tied.length) ties.push({ parent: node, best, tied });
    node = best;
  }
  return { open, end: node, ties };
}

/** The rows shown: {id, node, depth, hasChildren, expanded} of every root and open node's children. */
export function flattenTree(roots, expanded, childrenOf) {
  const out = [];
  const stack = [...roots].reverse();
  while (stack.length) {
    const node = stack.pop();
    const kids = childrenOf(node);
    const open = expanded.has(node.id) && kids.length > 0;
    out.push({ id: node.id, node, depth: node.depth, hasChildren: kids.length > 0, expanded: open });
    if (open) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return out;
}
