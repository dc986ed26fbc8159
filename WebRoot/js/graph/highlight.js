// The cause graph's highlights, drawn as classes on its SVG: every appearance of a node's update
// (hover, selection), the selected node and its edges.

/** The ids of every node that stands for the same update as `node` (itself when it has no key). */
function sameNodes(graph, node) {
  if (!node) return [];
  if (!node.sameUpdateKey) return [node.id];
  return graph.nodes.filter((n) => n.sameUpdateKey === node.sameUpdateKey).map((n) => n.id);
}

/** Moves `className` to every appearance of `node`'s update (none: `node` null). */
export function markSameNodes(viewport, graph, elementById, className, node) {
  for (const e of viewport.querySelectorAll(`.${className}`)) e.classList.remove(className);
  for (const id of sameNodes(graph, node)) elementById.get(id)?.classList.add(className);
}

/** Marks the edges into and out of `node` active (none: `node` null). */
export function markNodeEdges(viewport, node) {
  for (const e of viewport.querySelectorAll('.cg-edge-active')) e.classList.remove('cg-edge-active');
  if (!node) return;
  for (const e of viewport.querySelectorAll('.cg-edge')) {
    if (e.dataset.from === node.id || e.dataset.to === node.id) e.classList.add('cg-edge-active');
  }
}

/** Marks `element` (the selected node's; none: null) selected and pressed, and every other node not. */
export function markSelected(viewport, element) {
  for (const e of viewport.querySelectorAll('.cg-selected')) {
    e.classList.remove('cg-selected');
    e.setAttribute('aria-pressed', 'false');
  }
  element?.classList.add('cg-selected');
  element?.setAttribute('aria-pressed', 'true');
}
