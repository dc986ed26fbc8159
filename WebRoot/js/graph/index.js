// The Cause & Effect pane: fetches a laid-out graph (GET updates/{id}/graph or graph?view=...),
// draws it as SVG with pan / zoom / fit, highlights every appearance of the hovered or selected
// node's update, and shows the selected node's details (updates, backtrace of the write).
import { el, svg } from '../dom.js';
import { graphDefs, renderEdge, renderNode, fitTexts, KIND_LABELS, edgeText } from './render.js';
import { currentRange, graphSubject } from '../state.js';
import { centreTransform, fitTransform, initialTransform, nodeInView, zoomTransform } from './viewport.js';

/**
 * Mounts the graph of `request` ({update: id} or {view, module}) into `container`.
 * Returns {update(state, changed), destroy()} for the pane shell.
 */
export async function mountCauseGraph(container, ctx, request) {
  const heading = el('h2', { class: 'cg-heading' }, 'Cause & Effect');
  const status = el('span', { class: 'cg-status', role: 'status' });
  const button = (label, text, onclick) => el('button', { type: 'button', class: 'pane-button cg-button', 'aria-label': label, title: label, onclick }, text);
  const fitButton = button('Fit graph to pane', 'Fit', () => fit());
  const zoomIn = button('Zoom in', '+', () => zoomBy(1.25));
  const zoomOut = button('Zoom out', '\u2212', () => zoomBy(0.8));
  const maximizeButton = button('Show the graph over the whole window', 'Maximize', () => setMaximized(!root.classList.contains('cg-maximized')));
  const collapseButton = button('Fold expanded groups again', 'Fold groups', () => ctx.state.set({ groups: [] }, { push: true }));
  collapseButton.hidden = true;
  const legend = el('span', { class: 'cg-legend', role: 'group', 'aria-label': 'Legend' },
    el('span', { class: 'cg-legend-app' }, 'App code'), el('span', { class: 'cg-legend-system' }, 'System'),
    el('span', { class: 'cg-legend-dimmed' }, 'Notified, did not run'));
  const toolbar = el('div', { class: 'pane-toolbar cg-toolbar', role: 'toolbar', 'aria-label': 'Cause & Effect graph' },
    heading, status, el('span', { class: 'cg-spacer' }), legend, collapseButton, zoomOut, zoomIn, fitButton, maximizeButton);

  const viewport = svg('g', { class: 'cg-viewport', 'aria-label': 'Nodes and edges' }); // Chromium counts it focusable: it needs a name
  const canvas = svg('svg', { class: 'cg-canvas', role: 'group', 'aria-label': 'Cause and effect graph, causes left, effects right' },
    graphDefs(), viewport);
  const stage = el('div', { class: 'cg-stage' }, canvas);
  // Details of the selected node sit beside the stage (never over its nodes); hidden, the graph has the full width.
  const info = el('aside', { class: 'cg-info', 'aria-label': 'Selected graph node', 'aria-live': 'polite', hidden: true });
  const HINT = 'Causes left, effects right. Hover a node to highlight every appearance of its update; click for details. Drag to pan, wheel to zoom.';
  const hint = el('p', { class: 'cg-hint cg-stage-hint' }, HINT);
  stage.append(hint);
  // The card scrolls and is clicked like a page: no panning or zooming from inside it.
  for (const type of ['pointerdown', 'wheel', 'keydown']) info.addEventListener(type, (e) => e.stopPropagation());
  const root = el('div', { class: 'cg-root' }, toolbar, el('div', { class: 'cg-body' }, stage, info));
  container.replaceChildren(root);

  let graph = null;
  let nodeById = new Map();
  let elementById = new Map();
  let selectedId = null;
  let transform = { x: 0, y: 0, k: 1 };
  let destroyed = false;
  let loadToken = 0;
  // Opened groups live in the view state (e=), so a shared link shows them opened.
  const expandedGroups = () => ctx.state.get().groups ?? [];
  let pendingCentre = null;

  function applyTransform() {
    viewport.setAttribute('transform', `translate(${transform.x},${transform.y}) scale(${transform.k})`);
    canvas.dataset.scale = transform.k.toFixed(3);
    // Edge labels below ~7 px are noise; the counts stay in tooltips and the side panel.
    canvas.classList.toggle('cg-small', transform.k < 0.6);
  }

  function setMaximized(on) {
    root.classList.toggle('cg-maximized', on);
    maximizeButton.textContent = on ? 'Restore' : 'Maximize';
    maximizeButton.setAttribute('aria-label', on ? 'Put the graph back in its pane' : 'Show the graph over the whole window');
    maximizeButton.setAttribute('aria-pressed', String(on));
    requestAnimationFrame(() => fit());
  }

  function setTransform(next) {
    transform = next;
    applyTransform();
  }

  const fit = () => setTransform(fitTransform(graph, stage.clientWidth, stage.clientHeight));
  const zoomBy = (factor, px = stage.clientWidth / 2, py = stage.clientHeight / 2) => setTransform(zoomTransform(transform, factor, px, py));
  const centreOn = (node) => setTransform(centreTransform(transform, node, stage.clientWidth, stage.clientHeight));

  /** Brings a node into view without changing the zoom. */
  function reveal(node) {
    if (!nodeInView(transform, node, stage.clientWidth, stage.clientHeight)) centreOn(node);
  }

  // Pan by dragging anywhere; a drag that moved is not a click.
  let drag = null;
  let suppressClick = false;
  stage.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    drag = { id: e.pointerId, x: e.clientX, y: e.clientY, tx: transform.x, ty: transform.y, moved: false };
  });
  stage.addEventListener('pointermove', (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    if (!drag.moved) stage.setPointerCapture(e.pointerId);
    drag.moved = true;
    stage.classList.add('cg-panning');
    transform = { ...transform, x: drag.tx + dx, y: drag.ty + dy };
    applyTransform();
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
    e.preventDefault();
    const box = stage.getBoundingClientRect();
    const delta = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
    zoomBy(Math.exp(-delta * 0.0015), e.clientX - box.left, e.clientY - box.top);
  }, { passive: false });
  stage.addEventListener('keydown', (e) => {
    if (e.key === '+' || e.key === '=') zoomBy(1.25);
    else if (e.key === '-') zoomBy(0.8);
    else if (e.key === '0') fit();
    else if (e.key === 'Escape' && root.classList.contains('cg-maximized')) setMaximized(false);
    else if (e.key === 'Escape' && selectedId) select(null, { push: true });
    else return;
    e.preventDefault();
  });

  // Hover and selection highlight every appearance of the same update.
  function sameNodes(node) {
    if (!node) return [];
    if (!node.sameUpdateKey) return [node.id];
    return graph.nodes.filter((n) => n.sameUpdateKey === node.sameUpdateKey).map((n) => n.id);
  }

  function mark(className, node) {
    for (const e of viewport.querySelectorAll(`.${className}`)) e.classList.remove(className);
    for (const id of sameNodes(node)) elementById.get(id)?.classList.add(className);
  }

  function markEdges(node) {
    for (const e of viewport.querySelectorAll('.cg-edge-active')) e.classList.remove('cg-edge-active');
    if (!node) return;
    for (const e of viewport.querySelectorAll('.cg-edge')) {
      if (e.dataset.from === node.id || e.dataset.to === node.id) e.classList.add('cg-edge-active');
    }
  }

  viewport.addEventListener('pointerover', (e) => {
    const target = e.target.closest?.('.cg-node');
    mark('cg-hover', target ? nodeById.get(target.dataset.id) : null);
  });
  viewport.addEventListener('pointerleave', () => mark('cg-hover', null));
  viewport.addEventListener('focusin', (e) => {
    const target = e.target.closest?.('.cg-node');
    mark('cg-hover', target ? nodeById.get(target.dataset.id) : null);
  });
  viewport.addEventListener('click', (e) => {
    if (suppressClick) { suppressClick = false; return; }
    const target = e.target.closest?.('.cg-node');
    if (target) activate(nodeById.get(target.dataset.id));
    else if (selectedId) select(null, { push: true });
  });
  viewport.addEventListener('keydown', (e) => {
    const target = e.target.closest?.('.cg-node');
    if (!target || (e.key !== 'Enter' && e.key !== ' ')) return;
    e.preventDefault();
    activate(nodeById.get(target.dataset.id));
  });

  /** Click / Enter on a node: open a folded group, or select the node (and its update). */
  function activate(node) {
    if (!node) return;
    if (node.collapsed) {
      pendingCentre = graph.edges.find((e) => e.to === node.id)?.from ?? null;
      ctx.state.set({ groups: [...expandedGroups(), node.collapsed.key] }, { push: true });
      return;
    }
    const update = bodyUpdate(node);
    select(node.id, { push: update == null });
    if (update != null && update !== Number(ctx.state.get().update)) ctx.selectUpdate(update, { graph: graphSubject(request) });
  }

  /** The one update a body node stands for (selecting it selects that update on the timeline). */
  function bodyUpdate(node) {
    return node.kind === 'view-body' && node.updates.length === 1 && !node.dimmed ? node.updates[0] : null;
  }

  function select(id, { push = false, fromState = false } = {}) {
    const node = id ? nodeById.get(id) : null;
    selectedId = node ? node.id : null;
    for (const e of viewport.querySelectorAll('.cg-selected')) {
      e.classList.remove('cg-selected');
      e.setAttribute('aria-pressed', 'false');
    }
    mark('cg-same', node);
    markEdges(node);
    showInfo(node); // first: the card narrows the stage the node is revealed in
    if (node) {
      const element = elementById.get(node.id);
      element.classList.add('cg-selected');
      element.setAttribute('aria-pressed', 'true');
      reveal(node);
    }
    if (!fromState && (ctx.state.get().node ?? null) !== selectedId) ctx.state.set({ node: selectedId }, { push });
  }

  function showInfo(node) {
    info.hidden = !node;
    hint.hidden = !!node;
    if (!node) {
      info.replaceChildren();
      return;
    }
    const close = el('button', { type: 'button', class: 'cg-info-close', 'aria-label': 'Close node details', onclick: () => select(null, { push: true }) }, '\u00d7');
    const copy = el('button', { type: 'button', class: 'pane-button cg-info-copy', 'aria-label': 'Copy a link to this node',
      onclick: () => ctx.copyLink(ctx.state.link(), 'Link to this node') }, 'Copy link');
    const parts = [
      close, copy,
      el('div', { class: 'cg-info-kind' }, KIND_LABELS[node.kind] ?? node.kind, ' \u00b7 ', node.isAppCode ? 'app code' : 'system'),
      el('h3', { class: 'cg-info-title' }, node.title),
    ];
    if (node.subtitle) parts.push(el('div', { class: 'cg-info-subtitle' }, node.subtitle));
    if (node.dimmed) parts.push(el('p', { class: 'cg-info-note' }, 'This body was notified of a change but did not run.'));
    if (node.count > 1) parts.push(el('p', {}, `Merged from ${node.count} appearances.`));
    const causes = graph.edges.filter((e) => e.to === node.id);
    const effects = graph.edges.filter((e) => e.from === node.id);
    // Look-alike neighbours (twelve rows updated by one change) are listed once, with a count.
    const edgeList = (title, edges, other) => {
      if (edges.length === 0) return null;
      const rows = new Map();
      for (const e of edges) {
        const neighbour = nodeById.get(e[other]);
        const key = JSON.stringify([neighbour?.title, neighbour?.kind, e.label, e.property]);
        const row = rows.get(key) ?? { first: e[other], title: neighbour?.title ?? e[other], edge: e, nodes: 0 };
        row.nodes += 1;
        rows.set(key, row);
      }
      return el('div', { class: 'cg-info-section' },
        el('h4', {}, title),
        el('ul', { class: 'cg-info-list' }, [...rows.values()].map((row) => el('li', {},
          el('button', { type: 'button', class: 'pane-link', onclick: () => select(row.first, { push: true }) }, row.title),
          row.nodes > 1 ? ` \u00d7${row.nodes}` : '',
          ` (${row.nodes > 1 ? row.edge.label : edgeText(row.edge)}${row.edge.property ? `: ${row.edge.property}` : ''})`))));
    };
    if (node.kind === 'state' || node.kind === 'observable') {
      parts.push(el('div', { class: 'cg-info-section cg-backtrace' },
        el('h4', {}, 'Where the value was written'),
        node.backtrace?.length
          ? el('ol', { class: 'cg-frames' }, node.backtrace.map((f) =>
            el('li', { class: f.isAppCode ? 'cg-frame-app' : 'cg-frame-system' },
              el('span', { class: 'cg-frame-name' }, f.name), ' ', el('span', { class: 'cg-frame-binary' }, f.binary))))
          : el('p', { class: 'cg-hint' }, 'No backtrace was recorded for this change.')));
    }
    parts.push(edgeList('Caused by', causes, 'from'), edgeList('Caused', effects, 'to'));
    if (node.updates.length > 0) {
      const shown = node.updates.slice(0, 50);
      parts.push(el('div', { class: 'cg-info-section' },
        el('h4', {}, node.updates.length === 1 ? 'Update' : `Updates (${node.updates.length})`),
        el('ul', { class: 'cg-info-list cg-info-updates' }, shown.map((id) => el('li', {},
          el('button', { type: 'button', class: 'pane-link', 'aria-label': `Select update ${id} on the timeline`, onclick: () => ctx.selectUpdate(id) }, `#${id}`)))),
        node.updates.length > shown.length ? el('p', { class: 'cg-hint' }, `and ${node.updates.length - shown.length} more`) : null));
    }
    if (node.collapsed) {
      parts.push(el('div', { class: 'cg-info-section' },
        el('button', { type: 'button', class: 'pane-button', onclick: () => activate(node) }, `Show all ${node.collapsed.more}`),
        el('ul', { class: 'cg-info-list' }, node.collapsed.members.slice(0, 50).map((m) =>
          el('li', { class: m.dimmed ? 'cg-info-dimmed' : '' }, m.title, m.updates.length ? ` #${m.updates.join(', #')}` : ' (did not run)')))));
    }
    info.replaceChildren(...parts.filter(Boolean));
  }

  function render({ keepView, centre }) {
    nodeById = new Map(graph.nodes.map((n) => [n.id, n]));
    elementById = new Map();
    const edgeLayer = svg('g', { class: 'cg-edges' }, graph.edges.map((e) => renderEdge(e, nodeById)));
    const nodeLayer = svg('g', { class: 'cg-nodes' });
    for (const node of graph.nodes) {
      const element = renderNode(node);
      elementById.set(node.id, element);
      nodeLayer.append(element);
    }
    viewport.replaceChildren(edgeLayer, nodeLayer);
    hint.textContent = HINT;
    for (const node of graph.nodes) fitTexts(elementById.get(node.id), node);
    collapseButton.hidden = expandedGroups().length === 0;
    if (!keepView) setTransform(initialTransform(graph, stage.clientWidth, stage.clientHeight)); else applyTransform();
    // An opened group's members are laid out around its parent: look there.
    if (centre && nodeById.has(centre)) centreOn(nodeById.get(centre));
    const wanted = ctx.state.get().node;
    const initial = nodeById.has(wanted) ? wanted : (nodeById.has(selectedId) ? selectedId : null);
    select(initial, { fromState: true });
  }

  function describe() {
    const nodes = graph.nodes.length;
    const groups = graph.nodes.filter((n) => n.collapsed).length;
    const omitted = graph.omittedEdges ?? 0;
    return `${nodes} node${nodes === 1 ? '' : 's'}${groups ? `, ${groups} folded group${groups === 1 ? '' : 's'}` : ''}`
      + (omitted ? `, ${omitted.toLocaleString('en-US')} weaker edges not drawn` : '');
  }

  async function load({ keepView = false, centre = null } = {}) {
    const token = ++loadToken;
    status.textContent = 'Loading\u2026';
    root.setAttribute('aria-busy', 'true');
    const params = {};
    if (expandedGroups().length) params.expand = expandedGroups().join(',');
    let path;
    if (request.update != null) {
      path = `updates/${request.update}/graph`;
      heading.textContent = `Cause & Effect of update #${request.update}`;
    } else {
      path = 'graph';
      Object.assign(params, { view: request.view, module: request.module ?? '' });
      const range = currentRange(ctx.state.get());
      if (range) Object.assign(params, range);
      heading.textContent = `Cause & Effect of ${request.view}${range ? ' in the inspection range' : ''}`;
    }
    try {
      const result = await ctx.api.get(path, params);
      if (destroyed || token !== loadToken) return;
      graph = result;
      root.removeAttribute('aria-busy');
      if (graph.nodes.length === 0) {
        viewport.replaceChildren();
        status.textContent = '';
        showInfo(null);
        hint.replaceChildren(el('span', { class: 'cg-empty', role: 'status' }, request.update != null
          ? 'No cause & effect data was recorded for this update.'
          : 'No cause & effect data was recorded for this view in the range.'));
        return;
      }
      status.textContent = describe();
      render({ keepView, centre });
    } catch (error) {
      if (destroyed || token !== loadToken) return;
      root.removeAttribute('aria-busy');
      status.textContent = '';
      hint.hidden = false;
      hint.replaceChildren(el('span', { class: 'pane-message-error', role: 'alert' }, `Could not load the graph: ${error.message}`));
    }
  }

  const resize = new ResizeObserver(() => { if (graph && !drag) applyTransform(); });
  resize.observe(stage);
  await load();

  return {
    update(state, changed) {
      if (!graph) return;
      if (changed.has('node') && (state.node ?? null) !== selectedId) {
        select(state.node, { fromState: true });
      } else if (changed.has('update') && state.update != null) {
        // An update selected elsewhere (timeline, lists) that this graph shows: select its node.
        const node = graph.nodes.find((n) => n.kind === 'view-body' && n.updates.length === 1 && n.updates[0] === Number(state.update));
        if (node && node.id !== selectedId) select(node.id);
      }
      if (changed.has('groups')) {
        // An opened group's members are laid out around its parent: look there.
        load({ keepView: true, centre: pendingCentre });
        pendingCentre = null;
      } else if (changed.has('range') && request.update == null) load({ keepView: true });
    },
    destroy() {
      destroyed = true;
      resize.disconnect();
      container.replaceChildren();
    },
  };
}
