// The Cause & Effect pane: fetches a laid-out graph (GET updates/{id}/graph or graph?view=...),
// draws it as SVG with pan / zoom / fit, highlights every appearance of the hovered or selected
// node's update, and shows the selected node's details (updates, backtrace of the write). The
// card is info.js, the gestures input.js, the edge labels' placement labels.js.
import { el, svg } from '../dom.js';
import { graphDefs, renderEdge, renderNode, fitTexts, maxWeight } from './render.js';
import { bundleEdges, labelCandidates, placeLabels } from './labels.js';
import { nodeInfo } from './info.js';
import { attachGraphInput } from './input.js';
import { currentRange, graphSubject, selectedUpdate } from '../state.js';
import { markNodeEdges, markSameNodes, markSelected } from './highlight.js';
import { fitTransform, foldOpening, initialTransform, neighbourhoodTransform, openedFoldTransform, readableFit, refitTransform, zoomTransform } from './viewport.js';

/** What to ask the server for the graph of `request` in `state`, and the pane's title for it. */
function graphQuery(request, state) {
  // Opened groups live in the view state (e=), so a shared link shows them opened.
  const params = state.groups?.length ? { expand: state.groups.join(',') } : {};
  if (request.update != null) return { path: `updates/${request.update}/graph`, params, title: `Cause & Effect of update #${request.update}` };
  Object.assign(params, { view: request.view, module: request.module ?? '' });
  const range = currentRange(state);
  if (range) Object.assign(params, range);
  return { path: 'graph', params, title: `Cause & Effect of ${request.view}${range ? ' in the inspection range' : ''}` };
}

/** "12 nodes, 2 folded groups, 40 weaker edges not drawn". */
function describeGraph(graph) {
  const nodes = graph.nodes.length;
  const groups = graph.nodes.filter((n) => n.collapsed).length;
  const omitted = graph.omittedEdges ?? 0;
  const farNodes = graph.omittedNodes ?? 0;
  return `${nodes} node${nodes === 1 ? '' : 's'}${groups ? `, ${groups} folded group${groups === 1 ? '' : 's'}` : ''}`
    + (farNodes ? `, ${farNodes.toLocaleString('en-US')} farther nodes not drawn` : '')
    + (omitted ? `, ${omitted.toLocaleString('en-US')} weaker edges not drawn` : '');
}

const GRAPH_HINT = 'Causes left, effects right. Hover a node to highlight every appearance of its update; click for details. Drag to pan, wheel to zoom.';
const MODIFIER = typeof navigator !== 'undefined' && navigator.platform?.startsWith('Mac') ? '⌘' : 'Ctrl';
/** The hint in a page that scrolls (`scrollingPage`): the wheel is the page's. */
const SCROLLING_GRAPH_HINT = `Causes left, effects right. Hover a node to highlight every appearance of its update; click for details. Drag to pan, ${MODIFIER} + wheel or + and − to zoom.`;

/**
 * The pane's frame: a toolbar (heading, status, legend, fold / zoom / fit / maximize buttons,
 * which call `actions`) over the stage (the SVG) and the selected node's card beside it.
 */
function graphFrame(actions) {
  const heading = el('h2', { class: 'cg-heading' }, 'Cause & Effect');
  const status = el('span', { class: 'cg-status', role: 'status' });
  const button = (label, text, onclick) => el('button', { type: 'button', class: 'pane-button cg-button', 'aria-label': label, title: label, onclick }, text);
  const maximizeButton = button('Show the graph over the whole window', 'Maximize', actions.maximize);
  const collapseButton = button('Fold expanded groups again', 'Fold groups', actions.fold);
  collapseButton.hidden = true;
  // A key, not controls: plain text with small node-shaped swatches (nothing to click).
  const legend = el('span', { class: 'cg-legend', role: 'note', 'aria-label': 'Legend' },
    el('span', { class: 'cg-legend-app', title: "Blue: your app's code and your own actions (gestures)" }, 'App & user'),
    el('span', { class: 'cg-legend-system' }, 'System'),
    el('span', { class: 'cg-legend-dimmed' }, 'Notified, did not run'));
  const toolbar = el('div', { class: 'pane-toolbar cg-toolbar', role: 'toolbar', 'aria-label': 'Cause & Effect graph' },
    heading, status, el('span', { class: 'cg-spacer' }), legend, collapseButton,
    button('Zoom out', '\u2212', () => actions.zoomBy(0.8)), button('Zoom in', '+', () => actions.zoomBy(1.25)),
    button('Fit graph to pane', 'Fit', actions.fit), maximizeButton);

  const viewport = svg('g', { class: 'cg-viewport', 'aria-label': 'Nodes and edges' }); // Chromium counts it focusable: it needs a name
  const canvas = svg('svg', { class: 'cg-canvas', role: 'group', 'aria-label': 'Cause and effect graph, causes left, effects right' },
    graphDefs(), viewport);
  // Under the stage, not over it: at any width it never covers a node.
  const hint = el('p', { class: 'cg-hint cg-stage-hint' }, GRAPH_HINT);
  const wheelHint = el('div', { class: 'cg-wheel-hint', hidden: true, text: `${MODIFIER} + wheel to zoom` });
  const stage = el('div', { class: 'cg-stage' }, canvas, wheelHint);
  // Details of the selected node sit beside the stage (never over its nodes); hidden, the graph has the full width.
  const info = el('aside', { class: 'cg-info', 'aria-label': 'Selected graph node', 'aria-live': 'polite', hidden: true });
  // The card scrolls and is clicked like a page: no panning or zooming from inside it.
  for (const type of ['pointerdown', 'wheel', 'keydown']) info.addEventListener(type, (e) => e.stopPropagation());
  const root = el('div', { class: 'cg-root' }, toolbar, el('div', { class: 'cg-body' }, stage, info), hint);
  return { root, toolbar, heading, status, collapseButton, maximizeButton, viewport, canvas, stage, info, hint, wheelHint };
}

/**
 * Mounts the graph of `request` ({update: id} or {view, module}) into `container`.
 * Options for a graph that is one part of a scrolling page (the comparison's drill-down):
 * `scrollingPage`: a plain wheel scrolls the page, Ctrl/⌘ + wheel zooms; `readable`: the graph
 * is fitted at reading scale (its own width, never smaller than scale 1: titles 12 px,
 * subtitles 11 px) and `container` grows to its height, up to `maxHeight` (then it pans);
 * `onRender(graph)` after each drawing.
 * Returns {fit(), update(state, changed), graph(), markEdges(markOf), destroy()} for the pane shell;
 * `markEdges(markOf)` sets `data-diff` on each drawn edge bundle to `markOf(bundle, nodeById)`.
 */
export async function mountCauseGraph(container, traceView, request, { scrollingPage = false, readable = false, maxHeight = 640, onRender = null } = {}) {
  const { root, toolbar, heading, status, collapseButton, maximizeButton, viewport, canvas, stage, info, hint, wheelHint } = graphFrame({
    fit: () => fit(),
    zoomBy: (factor) => zoomBy(factor),
    maximize: () => setMaximized(!root.classList.contains('cg-maximized')),
    fold: () => traceView.state.set({ groups: [] }, { push: true }),
  });
  container.replaceChildren(root);

  let graph = null;
  let nodeById = new Map();
  let elementById = new Map();
  let selectedId = null;
  let transform = { x: 0, y: 0, k: 1 };
  let destroyed = false;
  let loadToken = 0;
  // Opened groups live in the view state (e=), so a shared link shows them opened.
  const expandedGroups = () => traceView.state.get().groups ?? [];
  // The fold being opened: the node it hangs from and its members' ids (where to look once drawn).
  let pendingOpen = null;

  const labels = edgeLabels(canvas);
  function applyTransform() {
    viewport.setAttribute('transform', `translate(${transform.x},${transform.y}) scale(${transform.k})`);
    canvas.dataset.scale = transform.k.toFixed(3);
    labels.schedule(graph, transform.k);
  }

  function setMaximized(on) {
    showMaximized(root, maximizeButton, on);
    requestAnimationFrame(() => fit());
  }

  function setTransform(next) {
    transform = next;
    applyTransform();
  }
  const moveTo = (next) => { if (next !== transform) setTransform(next); };

  const fit = () => setTransform(readable ? readableTransform(graph, { container, toolbar, stage }, maxHeight)
    : fitTransform(graph, stage.clientWidth, stage.clientHeight));
  const zoomBy = (factor, px = stage.clientWidth / 2, py = stage.clientHeight / 2) => setTransform(zoomTransform(transform, factor, px, py));

  const mark = (className, node) => markSameNodes(viewport, graph, elementById, className, node);

  const input = attachGraphInput(stage, viewport, {
    transform: () => transform,
    setTransform,
    zoomBy,
    fit,
    escape() {
      if (root.classList.contains('cg-maximized')) setMaximized(false);
      else if (selectedId) select(null, { push: true });
      else return false;
      return true;
    },
    hover: (id) => mark('cg-hover', id ? nodeById.get(id) : null),
    activate: (id) => activate(nodeById.get(id)),
    background: () => { if (selectedId) select(null, { push: true }); },
    wheelHint: flasher(wheelHint),
  }, { wheelZoomNeedsModifier: scrollingPage });

  /** Click / Enter on a node: open a folded group, or select the node (and its update). */
  function activate(node) {
    if (!node) return;
    if (node.collapsed) {
      pendingOpen = foldOpening(graph, node);
      traceView.state.set({ groups: [...expandedGroups(), node.collapsed.key] }, { push: true });
      return;
    }
    if (node.task && traceView.offers('select')) {
      openTask(node);
      return;
    }
    const update = bodyUpdate(node);
    select(node.id, { push: update == null });
    if (update != null && update !== selectedUpdate(traceView.state.get())) traceView.select({ kind: 'update', id: update }, { graph: graphSubject(request) });
  }

  /** A Swift task node: select it and show its task in the side panel (the graph stays pinned). */
  function openTask(node) {
    select(node.id);
    traceView.select({ kind: 'task-state', id: node.task.taskState }, { graph: graphSubject(request) });
  }

  function select(id, { push = false, fromState = false } = {}) {
    const node = id ? nodeById.get(id) : null;
    selectedId = node ? node.id : null;
    mark('cg-same', node);
    markNodeEdges(viewport, node);
    // First: the card narrows the stage the node is revealed in. A graph seen whole is fitted
    // again to what the card leaves (and when the card closes, to the whole stage).
    const before = { width: stage.clientWidth, height: stage.clientHeight };
    showInfo(node);
    const after = { width: stage.clientWidth, height: stage.clientHeight };
    if (!readable && graph && (before.width !== after.width || before.height !== after.height)) {
      moveTo(refitTransform(transform, graph, before, after));
    }
    markSelected(viewport, node ? elementById.get(node.id) : null);
    // The node and its neighbours (what its card explains) in the stage the card leaves.
    if (node) moveTo(neighbourhoodTransform(transform, graph, nodeById, node, after.width, after.height));
    if (!fromState && (traceView.state.get().node ?? null) !== selectedId) traceView.state.set({ node: selectedId }, { push });
  }

  function showInfo(node) {
    info.hidden = !node;
    hint.hidden = !!node;
    info.replaceChildren(...(node ? nodeInfo(node, graph, nodeById, {
      close: () => select(null, { push: true }),
      copyLink: () => traceView.copyLink(traceView.state.link(), 'Link to this node'),
      select: (id) => select(id, { push: true }),
      selectUpdate: (id) => traceView.select({ kind: 'update', id }),
      open: activate,
      // A page without a side panel (the comparison's drill-down) cannot show a task.
      openTask: traceView.offers('select') ? openTask : null,
    }) : []));
  }

  function render({ keepView, opened }) {
    nodeById = new Map(graph.nodes.map((n) => [n.id, n]));
    const drawn = drawGraph(viewport, graph, nodeById);
    elementById = drawn.elementById;
    hint.textContent = scrollingPage ? SCROLLING_GRAPH_HINT : GRAPH_HINT;
    labels.measure(drawn.bundles, drawn.edgeElements);
    collapseButton.hidden = expandedGroups().length === 0;
    if (keepView) applyTransform();
    else if (readable) fit();
    else setTransform(initialTransform(graph, stage.clientWidth, stage.clientHeight));
    labels.layout(graph, transform.k, true);
    // An opened group's members are laid out around its parent: look there.
    if (opened) moveTo(openedFoldTransform(transform, nodeById, opened, stage.clientWidth, stage.clientHeight));
    const wanted = traceView.state.get().node;
    const initial = nodeById.has(wanted) ? wanted : (nodeById.has(selectedId) ? selectedId : null);
    select(initial, { fromState: true });
    onRender?.(graph);
  }

  async function load({ keepView = false, opened = null } = {}) {
    const token = ++loadToken;
    status.textContent = 'Loading\u2026';
    root.setAttribute('aria-busy', 'true');
    const { path, params, title } = graphQuery(request, traceView.state.get());
    heading.textContent = title;
    try {
      const result = await traceView.api.get(path, params);
      if (destroyed || token !== loadToken) return;
      graph = result;
      root.removeAttribute('aria-busy');
      if (graph.nodes.length === 0) {
        viewport.replaceChildren();
        status.textContent = '';
        showInfo(null);
        hint.replaceChildren(el('span', { class: 'cg-empty', role: 'status' }, `No cause & effect data was recorded for this ${request.update != null ? 'update' : 'view in the range'}.`));
        return;
      }
      status.textContent = describeGraph(graph);
      render({ keepView, opened });
    } catch (error) {
      if (destroyed || token !== loadToken) return;
      root.removeAttribute('aria-busy');
      status.textContent = '';
      hint.hidden = false;
      hint.replaceChildren(el('span', { class: 'pane-message-error', role: 'alert' }, `Could not load the graph: ${error.message}`));
    }
  }

  const resize = new ResizeObserver(() => { if (graph && !input.dragging()) applyTransform(); });
  resize.observe(stage);
  await load();

  return {
    /** Shows the whole graph (the Fit button). */
    fit: () => { if (graph) fit(); },
    graph: () => graph,
    markEdges: (markOf) => { if (graph) markEdgeBundles(viewport, graph, nodeById, markOf); },
    update(state, changed) {
      if (!graph) return;
      if (changed.has('node') && (state.node ?? null) !== selectedId) {
        select(state.node, { fromState: true });
      } else if (changed.has('update') && selectedUpdate(state) != null) {
        // An update selected elsewhere (timeline, lists) that this graph shows: select its node.
        const node = graph.nodes.find((n) => n.kind === 'view-body' && n.updates.length === 1 && n.updates[0] === selectedUpdate(state));
        if (node && node.id !== selectedId) select(node.id);
      }
      if (changed.has('groups')) {
        // An opened group's members are laid out around its parent: look there.
        load({ keepView: true, opened: pendingOpen });
        pendingOpen = null;
      } else if (changed.has('range') && request.update == null) load({ keepView: true });
    },
    destroy() {
      destroyed = true;
      labels.destroy();
      resize.disconnect();
      container.replaceChildren();
    },
  };
}

/** The one update a body node stands for (selecting it selects that update on the timeline). */
function bodyUpdate(node) {
  return node.kind === 'view-body' && node.updates.length === 1 && !node.dimmed ? node.updates[0] : null;
}

function showMaximized(root, button, on) {
  root.classList.toggle('cg-maximized', on);
  button.textContent = on ? 'Restore' : 'Maximize';
  button.setAttribute('aria-label', on ? 'Put the graph back in its pane' : 'Show the graph over the whole window');
  button.setAttribute('aria-pressed', String(on));
}

/** Draws `graph`'s edges under its nodes in `viewport`; returns {bundles, edgeElements, elementById}. */
function drawGraph(viewport, graph, nodeById) {
  const elementById = new Map();
  const bundles = bundleEdges(graph.edges);
  const edgeElements = bundles.map((b) => renderEdge(b, nodeById));
  const nodeLayer = svg('g', { class: 'cg-nodes' }), heaviest = maxWeight(graph.nodes);
  for (const node of graph.nodes) {
    const element = renderNode(node, heaviest);
    elementById.set(node.id, element);
    nodeLayer.append(element);
  }
  viewport.replaceChildren(svg('g', { class: 'cg-edges' }, edgeElements), nodeLayer);
  for (const node of graph.nodes) fitTexts(elementById.get(node.id), node);
  return { bundles, edgeElements, elementById };
}

/** The graph at reading scale (`readableFit`), its `container` made as tall as it needs. */
function readableTransform(graph, { container, toolbar, stage }, maxHeight) {
  const { transform, height } = readableFit(graph, stage.clientWidth, maxHeight);
  container.style.height = `${Math.ceil(toolbar.offsetHeight + height + 2)}px`;
  return transform;
}

/** Shows `element` for a moment each time the returned function is called. */
function flasher(element) {
  let timer = 0;
  return () => {
    element.hidden = false;
    clearTimeout(timer);
    timer = setTimeout(() => { element.hidden = true; }, 1500);
  };
}

/** Sets `data-diff` of each drawn edge bundle (its `from`, `to` and `edges`) to `markOf(bundle, nodeById)`. */
function markEdgeBundles(viewport, graph, nodeById, markOf) {
  for (const element of viewport.querySelectorAll('.cg-edge')) {
    const { from, to } = element.dataset;
    const mark = markOf({ from, to, edges: graph.edges.filter((e) => e.from === from && e.to === to) }, nodeById);
    if (mark) element.dataset.diff = mark; else delete element.dataset.diff;
  }
}

// Edge labels keep at least LABEL_PX on screen whatever the zoom; zoomed out they grow in graph
// units, so fewer fit between the nodes: those stack, and those with no room at all show on hover (labels.js).
const LABEL_PX = 11.5;
const LABEL_FONT = 12;        // graph units at scale 1 (graph.css)

/** The edge labels of the graph drawn in `canvas`: measured once per render, placed per zoom. */
function edgeLabels(canvas) {
  let items = [];             // {id, element, width (at LABEL_FONT), weight, candidates}
  let placedAt = 0;           // the label scale they were last placed for
  let frame = 0;
  let pending = null;

  function layout(graph, k, force = false) {
    if (!graph) return;
    const s = Math.max(1, LABEL_PX / (LABEL_FONT * k));
    if (!force && placedAt && Math.abs(s / placedAt - 1) < 0.04) return;
    placedAt = s;
    const size = LABEL_FONT * s;
    const boxes = placeLabels(
      items.map((l) => ({ id: l.id, width: l.width * s + 4, height: size * 1.25, weight: l.weight, candidates: l.candidates })),
      graph.nodes.map((n) => ({ x: n.x, y: n.y, width: n.width, height: n.height })),
    );
    let dropped = 0;
    let stacked = 0;
    for (const l of items) {
      const box = boxes.get(l.id);
      l.element.style.fontSize = `${size}px`;
      // No free place: the label waits for a hover on its edge; a dot marks where it would be.
      l.element.classList.toggle('cg-label-dropped', !!box?.dropped);
      l.marker.classList.toggle('cg-label-hidden', !box?.dropped);
      if (!box) continue;
      if (box.dropped) dropped += 1;
      if (box.stacked) stacked += 1;
      l.element.setAttribute('x', box.x + box.width / 2);
      l.element.setAttribute('y', box.y + box.height / 2);
      l.marker.setAttribute('cx', l.candidates[0][0]);
      l.marker.setAttribute('cy', l.candidates[0][1]);
      l.marker.setAttribute('r', 3.5 * s);
    }
    canvas.dataset.hiddenLabels = String(dropped);
    canvas.dataset.stackedLabels = String(stacked);
  }

  return {
    /** Reads each bundle's label (its text width at LABEL_FONT) from the edges just drawn. */
    measure(bundles, edgeElements) {
      items = bundles.map((b, i) => {
        const element = edgeElements[i].querySelector('.cg-edge-label');
        const marker = edgeElements[i].querySelector('.cg-label-marker');
        element.style.fontSize = `${LABEL_FONT}px`;
        return { id: i, element, marker, width: element.getComputedTextLength(), weight: b.count, candidates: labelCandidates(b.points) };
      });
      placedAt = 0;
    },
    layout,
    /** Places the labels for zoom `k` in the next frame (once per frame). */
    schedule(graph, k) {
      pending = { graph, k };
      if (!frame) frame = requestAnimationFrame(() => { frame = 0; layout(pending.graph, pending.k); });
    },
    destroy() { cancelAnimationFrame(frame); },
  };
}
