// The cause graph's input: drag anywhere to pan, wheel to zoom, + - 0 on the stage, Esc to leave
// the maximized view or drop the selection; hover or focus a node to highlight it, click or
// Enter to activate it. The graph (index.js) owns the transform; this module only asks it to move.

/**
 * Listens on `stage` (the graph's box) and `viewport` (the <g> of nodes). `graph` is what input
 * may ask of the graph: transform() / setTransform(t) ({x, y, k}); zoomBy(factor, px, py); fit();
 * escape() → true when it did something; hover(nodeId | null); activate(nodeId); background()
 * (a click beside every node); wheelHint() (a plain wheel that scrolled the page instead).
 * `wheelZoomNeedsModifier`: the graph is part of a page that scrolls: a plain wheel scrolls it,
 * Ctrl/⌘ + wheel zooms.
 */
export function attachGraphInput(stage, viewport, graph, { wheelZoomNeedsModifier = false } = {}) {
  let drag = null;
  let suppressClick = false;

  // Pan by dragging anywhere; a drag that moved is not a click.
  stage.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    const t = graph.transform();
    drag = { id: e.pointerId, x: e.clientX, y: e.clientY, tx: t.x, ty: t.y, moved: false };
  });
  stage.addEventListener('pointermove', (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    if (!drag.moved) stage.setPointerCapture(e.pointerId);
    drag.moved = true;
    stage.classList.add('cg-panning');
    graph.setTransform({ ...graph.transform(), x: drag.tx + dx, y: drag.ty + dy });
  });
  const endDrag = (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    suppressClick = drag.moved;
    drag = null;
    stage.classList.remove('cg-panning');
  };
  stage.addEventListener('pointerup', endDrag);
  stage.addEventListener('pointercancel', endDrag);
  stage.addEventListener('wheel', (e) => {
    if (wheelZoomNeedsModifier && !e.ctrlKey && !e.metaKey) {
      graph.wheelHint?.();
      return;
    }
    e.preventDefault();
    const box = stage.getBoundingClientRect();
    const delta = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
    graph.zoomBy(Math.exp(-delta * 0.0015), e.clientX - box.left, e.clientY - box.top);
  }, { passive: false });
  stage.addEventListener('keydown', (e) => {
    if (e.key === '+' || e.key === '=') graph.zoomBy(1.25);
    else if (e.key === '-') graph.zoomBy(0.8);
    else if (e.key === '0') graph.fit();
    else if (!(e.key === 'Escape' && graph.escape())) return;
    e.preventDefault();
  });

  const nodeOf = (e) => e.target.closest?.('.cg-node')?.dataset.id ?? null;
  viewport.addEventListener('pointerover', (e) => graph.hover(nodeOf(e)));
  viewport.addEventListener('pointerleave', () => graph.hover(null));
  viewport.addEventListener('focusin', (e) => graph.hover(nodeOf(e)));
  viewport.addEventListener('click', (e) => {
    if (suppressClick) { suppressClick = false; return; }
    const id = nodeOf(e);
    if (id) graph.activate(id);
    else graph.background();
  });
  viewport.addEventListener('keydown', (e) => {
    const id = nodeOf(e);
    if (!id || (e.key !== 'Enter' && e.key !== ' ')) return;
    e.preventDefault();
    graph.activate(id);
  });

  return { dragging: () => !!drag };
}
