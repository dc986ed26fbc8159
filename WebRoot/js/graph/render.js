// Draws a laid-out cause & effect graph (positions come from the server, GraphLayout.swift) as SVG:
// node icons are inline <symbol>s, edges are curves through the layout's route points.

import { svg } from '../dom.js';
import { formatDuration } from '../format.js';

/** What each node kind is called in the side panel and in accessible names. */
export const KIND_LABELS = {
  'view-body': 'View body update',
  state: '@State change',
  observable: '@Observable property change',
  gesture: 'Gesture',
  'external-environment': 'External Environment',
  'environment-writer': 'EnvironmentWriter',
  'view-creation': 'View creation / reuse',
  other: 'System node',
  'swift-task': 'Swift task',
};

// 16x16 icons drawn with the node's colour (currentColor), one per kind, plus the folded group.
const ICONS = {
  'view-body': [['rect', { x: 2.5, y: 2.5, width: 11, height: 11, rx: 2 }]],
  state: [['circle', { cx: 8, cy: 8, r: 5.5 }], ['circle', { cx: 8, cy: 8, r: 2, class: 'fill' }]],
  observable: [['path', { d: 'M1.5 8 C4 3.5 12 3.5 14.5 8 C12 12.5 4 12.5 1.5 8 Z' }], ['circle', { cx: 8, cy: 8, r: 2, class: 'fill' }]],
  gesture: [['circle', { cx: 8, cy: 8, r: 2.2, class: 'fill' }], ['path', { d: 'M3.8 8 a4.2 4.2 0 0 1 8.4 0' }], ['path', { d: 'M1.6 8 a6.4 6.4 0 0 1 12.8 0' }]],
  'external-environment': [['circle', { cx: 8, cy: 8, r: 6 }], ['path', { d: 'M2 8 H14 M8 2 C5 5 5 11 8 14 M8 2 C11 5 11 11 8 14' }]],
  'environment-writer': [['path', { d: 'M3 13 L3.6 10.2 L10.8 3 L13 5.2 L5.8 12.4 Z M9.6 4.2 L11.8 6.4' }]],
  'view-creation': [['rect', { x: 2.5, y: 2.5, width: 11, height: 11, rx: 2 }], ['path', { d: 'M8 5 V11 M5 8 H11' }]],
  other: [['path', { d: 'M8 1.8 L13.4 4.9 V11.1 L8 14.2 L2.6 11.1 V4.9 Z' }], ['circle', { cx: 8, cy: 8, r: 2 }]],
  // A task: a clock-like dial with a running hand (the Swift Tasks instrument's lane, in a node).
  'swift-task': [['circle', { cx: 8, cy: 8, r: 6 }], ['path', { d: 'M8 4.5 V8 L10.8 9.6' }]],
  group: [['rect', { x: 4.5, y: 1.5, width: 9.5, height: 9.5, rx: 1.5 }], ['rect', { x: 2, y: 4, width: 9.5, height: 9.5, rx: 1.5, class: 'back' }]],
};

/** <defs> with one <symbol id="cg-icon-KIND"> per kind and the arrow head. */
export function graphDefs() {
  const symbols = Object.entries(ICONS).map(([kind, shapes]) =>
    svg('symbol', { id: `cg-icon-${kind}`, viewBox: '0 0 16 16' },
      shapes.map(([tag, attrs]) => svg(tag, attrs))));
  const arrow = svg('marker', {
    id: 'cg-arrow', viewBox: '0 0 10 10', refX: 9.5, refY: 5, markerWidth: 7, markerHeight: 7,
    orient: 'auto-start-reverse', markerUnits: 'userSpaceOnUse',
  }, svg('path', { d: 'M0 0 L10 5 L0 10 Z', class: 'cg-arrow-head' }));
  return svg('defs', {}, symbols, arrow);
}

/** A smooth path through route points: straight runs stay straight, column gaps become S-curves. */
export function edgePath(points) {
  let d = `M${points[0][0]},${points[0][1]}`;
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1];
    const [x1, y1] = points[i];
    if (y0 === y1) {
      d += ` L${x1},${y1}`;
    } else {
      const dx = (x1 - x0) / 2;
      d += ` C${x0 + dx},${y0} ${x1 - dx},${y1} ${x1},${y1}`;
    }
  }
  return d;
}

export function edgeText(edge) {
  return edge.count > 1 ? `${edge.label} \u00d7${edge.count}` : edge.label;
}

/** Blue, as Instruments draws it: the app's own code and the user's actions (gestures); gray: the system. */
export function isYours(node) {
  return node.isAppCode || node.kind === 'gesture';
}

/** "made 8 updates run, 9.60 ms": a node's weight (Instruments 27's downstream cost), or null without one. */
export function weightText(node) {
  if (node.downstreamNs == null) return null;
  const events = node.downstreamEvents ?? 0;
  return `made ${events.toLocaleString('en-US')} update${events === 1 ? '' : 's'} run, ${formatDuration(node.downstreamNs)}`;
}

/** The heaviest node's downstream cost in `nodes` (0 when none has one): the scale of the weight bars. */
export function maxWeight(nodes) {
  return nodes.reduce((max, n) => Math.max(max, n.downstreamNs ?? 0), 0);
}

export function nodeLabel(node) {
  const parts = [KIND_LABELS[node.kind] ?? node.kind, node.title];
  if (node.subtitle && node.subtitle !== node.title) parts.push(node.subtitle);
  if (node.count > 1) parts.push(`${node.count} times`);
  if (weightText(node)) parts.push(weightText(node));
  if (node.dimmed) parts.push('notified, body did not run');
  parts.push(node.isAppCode ? 'app code' : node.kind === 'gesture' ? 'your action' : 'system');
  if (node.collapsed) parts.push('activate to show them');
  return parts.join(', ');
}

/**
 * One drawn edge for a bundle of parallel edges (bundleEdges in labels.js): the curve and one
 * label, "update ×24" or "update ×3 · creation" when labels differ. The label is positioned
 * later (placeLabels), so it can avoid nodes and other labels.
 */
export function renderEdge(bundle, nodeById) {
  const names = `${nodeById.get(bundle.from)?.title ?? bundle.from} \u2192 ${nodeById.get(bundle.to)?.title ?? bundle.to}`;
  const creation = bundle.edges.every((e) => e.label === 'creation');
  // A task that waited for the Main Actor hangs off the run that held it: not a cause, a delay.
  const waited = bundle.edges.every((e) => e.label === 'waited');
  const label = svg('text', { class: 'cg-edge-label', 'text-anchor': 'middle', 'dominant-baseline': 'central' });
  bundle.edges.forEach((edge, i) => {
    if (i > 0) label.append(' \u00b7 ');
    label.append(edge.label);
    if (edge.count > 1) label.append(svg('tspan', { class: 'cg-edge-count' }, ` \u00d7${edge.count}`));
  });
  const details = bundle.edges.map((e) => `${edgeText(e)}${e.property ? ` (${e.property})` : ''}`).join(', ');
  return svg('g', { class: `cg-edge cg-edge-${creation ? 'creation' : waited ? 'waited' : 'update'}`, 'data-from': bundle.from, 'data-to': bundle.to, 'data-count': bundle.count },
    svg('path', { d: edgePath(bundle.points), 'marker-end': 'url(#cg-arrow)' }),
    svg('circle', { class: 'cg-label-marker cg-label-hidden', r: 3.5 }),
    label,
    svg('title', {}, `${names}: ${details}`));
}

/**
 * One node: a rounded box with the kind icon, title, subtitle and a count badge when merged.
 * With a downstream cost, a bar along its foot as long as the cost is against the heaviest
 * node's (`heaviest`), so the costly causes stand out.
 */
export function renderNode(node, heaviest = 0) {
  const classes = ['cg-node', `cg-kind-${node.kind}`, isYours(node) ? 'cg-app' : 'cg-system'];
  if (node.dimmed) classes.push('cg-dimmed');
  if (node.focus) classes.push('cg-focus');
  if (node.collapsed) classes.push('cg-group');
  const icon = node.collapsed ? 'group' : (ICONS[node.kind] ? node.kind : 'other');
  const g = svg('g', {
    class: classes.join(' '), transform: `translate(${node.x},${node.y})`, tabindex: 0, role: 'button',
    'aria-label': nodeLabel(node), 'aria-pressed': 'false',
    'data-id': node.id, 'data-kind': node.kind, 'data-same-key': node.sameUpdateKey ?? '',
  },
  svg('rect', { class: 'cg-box', width: node.width, height: node.height, rx: 7 }),
  svg('use', { href: `#cg-icon-${icon}`, x: 10, y: node.height / 2 - 8, width: 16, height: 16, class: 'cg-icon' }),
  svg('text', { class: 'cg-title', x: 34, y: node.height / 2 - 3 }, node.title),
  svg('text', { class: 'cg-subtitle', x: 34, y: node.height / 2 + 11 }, node.subtitle));
  if (node.downstreamNs > 0 && heaviest > 0) {
    const width = Math.max(3, (node.width - 14) * Math.min(1, node.downstreamNs / heaviest));
    g.append(svg('rect', { class: 'cg-weight', x: 7, y: node.height - 5, width, height: 3, rx: 1.5, 'data-weight': node.downstreamNs },
      svg('title', {}, weightText(node))));
  }
  if (node.count > 1 && !node.collapsed) {
    const text = `\u00d7${node.count}`;
    const w = 8 + 6.5 * text.length;
    g.append(svg('g', { class: 'cg-badge', transform: `translate(${node.width - w - 6},${node.height / 2 - 8})` },
      svg('rect', { width: w, height: 16, rx: 8 }),
      svg('text', { x: w / 2, y: 12, 'text-anchor': 'middle' }, text)));
  }
  return g;
}

/**
 * Shortens texts that do not fit their box (the server sizes boxes from character counts); the
 * focal node's title is never cut: it is narrowed to fit instead.
 */
export function fitTexts(nodeElement, node) {
  const badge = nodeElement.querySelector('.cg-badge rect');
  const room = node.width - 34 - 8 - (badge ? Number(badge.getAttribute('width')) + 8 : 0);
  for (const text of nodeElement.querySelectorAll('.cg-title, .cg-subtitle')) {
    const full = text.textContent;
    if (text.getComputedTextLength() <= room) continue;
    if (node.focus && text.classList.contains('cg-title')) {
      text.setAttribute('textLength', room);
      text.setAttribute('lengthAdjust', 'spacingAndGlyphs');
      text.append(svg('title', {}, full));
      continue;
    }
    let lo = 0;
    let hi = full.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      text.textContent = `${full.slice(0, mid)}\u2026`;
      if (text.getComputedTextLength() <= room) lo = mid; else hi = mid - 1;
    }
    text.textContent = `${full.slice(0, lo)}\u2026`;
    text.append(svg('title', {}, full));
  }
}
