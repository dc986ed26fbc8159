// A canvas of boxes on rows (the flame graph, the stack chart, the differential flame graph):
// draws the boxes of a horizontal window with their labels, the search's matches, the selected
// and hovered box, and turns pointer, wheel and keys into window changes and clicks. Ctrl/Cmd or
// Alt + wheel zooms at the pointer, Shift + wheel or a sideways wheel pans, a drag pans, W/S zoom
// and A/D pan (held keys animate), a click asks the owner what it means. The owner holds the
// data and the window; this module only draws and asks.
import { el } from '../dom.js';
import { showTooltipAt } from './tooltip.js';
import { boxAt, clampView, fitLabel, forEachVisible, interpolateView, KINDS, kindColor, ROW_HEIGHT, xAt, zoomAround } from './boxes.js';

const DRAG_SLOP_PX = 3;
const KEY_PAN_PER_S = 1.0;
const KEY_ZOOM_PER_S = 2.2;
const ANIMATION_MS = 220;
const KEYS = { w: 'in', s: 'out', a: 'left', d: 'right' };

/**
 * `owner`: label (aria), boxes() (model.js prepareBoxes, or null), bounds() and view() ({from, to}),
 * setView({from, to}, kind) ('pan' | 'zoom' | 'jump' | 'animate'), fill(i), labelOf(i),
 * tooltip(i) → {title, lines: [[k, v]]}, click(i) (-1: empty space), selected() (a box or -1),
 * matches() (a Set, or null when not searching), escape(). Returns {canvas, draw (request),
 * animateTo(view), destroy()}.
 */
export function mountBoxCanvas(container, owner) {
  const canvas = el('canvas', { tabindex: '0', role: 'img', class: 'cpu-boxes', 'aria-label': owner.label });
  const tooltip = el('div', { class: 'tl-tooltip cpu-box-tooltip', role: 'tooltip', hidden: true });
  const wrap = el('div', { class: 'cpu-boxes-wrap' }, canvas, tooltip);
  container.append(wrap);
  const g = canvas.getContext('2d');
  let width = 0;
  let height = 0;
  let dpr = 1;
  let hover = -1;
  let scheduled = false;
  let destroyed = false;
  let animation = null;
  const held = new Set();
  let lastKeyFrame = 0;
  const fills = { boxes: null, plain: [], dim: [] };

  function resize() {
    width = Math.max(1, Math.floor(wrap.clientWidth));
    const rows = (owner.boxes()?.maxDepth ?? 0) + 1;
    height = Math.max(ROW_HEIGHT * 4, rows * ROW_HEIGHT + 2);
    dpr = window.devicePixelRatio || 1;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    draw();
  }

  function draw() {
    if (scheduled || destroyed) return;
    scheduled = true;
    requestAnimationFrame(paint);
  }

  function paint(now) {
    scheduled = false;
    if (destroyed) return;
    stepAnimation(now);
    stepKeys(now);
    const boxes = owner.boxes();
    const rows = (boxes?.maxDepth ?? 0) + 1;
    if (boxes && rows * ROW_HEIGHT + 2 > height) { resize(); return; }
    const began = performance.now();
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    if (!boxes) return;
    const view = owner.view();
    const matches = owner.matches();
    const selected = owner.selected();
    // Only the rows the page shows: a deep graph in a short pane draws what is on screen.
    const rect = canvas.getBoundingClientRect();
    const shownRows = [Math.max(0, Math.floor(-rect.top / ROW_HEIGHT) - 1), Math.ceil((window.innerHeight - rect.top) / ROW_HEIGHT) + 1];
    // A box's fill is the same on every frame of one answer: asked once (a colour is a string built from a hash of the name).
    if (fills.boxes !== boxes) Object.assign(fills, { boxes, plain: [], dim: [] });
    paintBoxes(g, boxes, view, width, shownRows, { matches, fills, owner });
    for (const [i, color, lineWidth] of [[selected, '#0a84ff', 2], [hover, '#1d1d1f', 1]]) outlineBox(g, boxes, view, width, i, color, lineWidth);
    performance.measure('cpu-boxes-draw', { start: began, end: performance.now() });
    if (performance.getEntriesByName('cpu-boxes-draw').length > 5000) performance.clearMeasures('cpu-boxes-draw');
    if (animation || held.size) draw();
  }

  // ----- window changes -----
  function stepAnimation(now) {
    if (!animation) return;
    const t = Math.max(0, Math.min(1, (now - animation.start) / ANIMATION_MS));
    const eased = 1 - (1 - t) ** 3;
    owner.setView(t >= 1 ? animation.to : interpolateView(animation.from, animation.to, eased), t >= 1 ? 'jump' : 'animate');
    if (t >= 1) animation = null;
  }

  function stepKeys(now) {
    if (!held.size) { lastKeyFrame = 0; return; }
    const dt = lastKeyFrame ? Math.min(0.05, (now - lastKeyFrame) / 1000) : 1 / 60;
    lastKeyFrame = now;
    owner.setView(heldKeysView(owner.view(), held, dt, owner.bounds()), 'zoom');
  }

  // ----- pointer -----
  let drag = null;
  const local = (e) => {
    const rect = canvas.getBoundingClientRect();
    return { x: e.clientX - rect.left, y: e.clientY - rect.top };
  };
  const onDown = (e) => {
    if (e.button !== 0) return;
    canvas.focus({ preventScroll: true });
    const { x, y } = local(e);
    canvas.setPointerCapture(e.pointerId);
    drag = { x0: x, y0: y, view0: owner.view(), moved: false };
    animation = null;
  };
  const onMove = (e) => {
    const { x, y } = local(e);
    if (!drag) { showHover(x, y); return; }
    if (Math.abs(x - drag.x0) > DRAG_SLOP_PX || Math.abs(y - drag.y0) > DRAG_SLOP_PX) drag.moved = true;
    if (!drag.moved) return;
    const shift = ((x - drag.x0) / width) * (drag.view0.to - drag.view0.from);
    owner.setView(clampView([drag.view0.from - shift, drag.view0.to - shift], owner.bounds()), 'pan');
  };
  const onUp = (e) => {
    if (!drag) return;
    const { x, y } = local(e);
    const wasClick = !drag.moved;
    drag = null;
    if (wasClick) owner.click(boxes() ? boxAt(boxes(), owner.view(), width, x, y) : -1);
    else owner.setView(owner.view(), 'jump');
  };
  const boxes = () => owner.boxes();
  const onWheel = (e) => {
    const sideways = Math.abs(e.deltaX) > Math.abs(e.deltaY);
    if (!(e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || sideways)) return;
    e.preventDefault();
    animation = null;
    const view = owner.view();
    if (e.shiftKey || sideways) {
      const delta = sideways ? e.deltaX : e.deltaY;
      const shift = (delta / width) * (view.to - view.from);
      owner.setView(clampView([view.from + shift, view.to + shift], owner.bounds()), 'pan');
      return;
    }
    const { x } = local(e);
    const factor = Math.exp(Math.max(-1, Math.min(1, e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.002))));
    owner.setView(clampView(zoomAround(view, xAt(view, width, x), factor), owner.bounds()), 'zoom');
  };
  const onLeave = () => { hover = -1; tooltip.hidden = true; draw(); };

  function showHover(x, y) {
    const b = boxes();
    const i = b ? boxAt(b, owner.view(), width, x, y) : -1;
    if (i !== hover) { hover = i; draw(); }
    canvas.style.cursor = i >= 0 ? 'pointer' : '';
    if (i < 0) { tooltip.hidden = true; return; }
    showTooltipAt(tooltip, owner.tooltip(i), x, y, { width, height });
  }

  // ----- keys -----
  const onKeyDown = (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const action = KEYS[e.key.toLowerCase()];
    if (action) {
      e.preventDefault();
      e.stopPropagation();
      animation = null;
      held.add(action);
      draw();
    } else if (e.key === 'Escape') {
      e.stopPropagation();
      owner.escape();
    }
  };
  const onKeyUp = (e) => {
    const action = KEYS[e.key.toLowerCase()];
    if (action && held.delete(action) && !held.size) owner.setView(owner.view(), 'jump');
  };
  const onBlur = () => { if (held.size) { held.clear(); owner.setView(owner.view(), 'jump'); } };

  canvas.addEventListener('pointerdown', onDown);
  canvas.addEventListener('pointermove', onMove);
  canvas.addEventListener('pointerup', onUp);
  canvas.addEventListener('pointerleave', onLeave);
  canvas.addEventListener('wheel', onWheel, { passive: false });
  canvas.addEventListener('keydown', onKeyDown);
  canvas.addEventListener('keyup', onKeyUp);
  canvas.addEventListener('blur', onBlur);
  const observer = new ResizeObserver(() => resize());
  observer.observe(wrap);
  const onScroll = () => draw();
  window.addEventListener('scroll', onScroll, { passive: true, capture: true });
  resize();

  return {
    canvas,
    draw,
    resize,
    /** Draws again with fills asked afresh (the owner's colouring changed). */
    recolour() {
      fills.boxes = null;
      draw();
    },
    /** Moves the window to `view` over a short animation (a click zoom). */
    animateTo(view) {
      animation = { from: owner.view(), to: view, start: performance.now() };
      draw();
    },
    destroy() {
      destroyed = true;
      observer.disconnect();
      window.removeEventListener('scroll', onScroll, { capture: true });
      wrap.remove();
    },
  };
}

/** The legend of the frame kinds present in `kinds` (a column of box kinds): a swatch and a label each. */
export function kindLegendItems(kinds) {
  const present = new Set(kinds);
  return Object.entries(KINDS).filter(([kind]) => present.has(kind)).map(([kind, k]) =>
    el('span', { class: 'cpu-legend-item' }, el('span', { class: 'swatch', style: { 'background-color': kindColor(kind, 'legend') }, 'aria-hidden': 'true' }), k.label));
}

/** The window after `dt` seconds of the held keys (`held`: 'in' | 'out' | 'left' | 'right'). */
function heldKeysView(view, held, dt, bounds) {
  for (const action of held) {
    const span = view.to - view.from;
    if (action === 'in' || action === 'out') {
      const factor = Math.exp((action === 'in' ? -1 : 1) * KEY_ZOOM_PER_S * dt);
      view = clampView(zoomAround(view, view.from + span / 2, factor), bounds);
    } else {
      const shift = (action === 'left' ? -1 : 1) * KEY_PAN_PER_S * dt * span;
      view = clampView([view.from + shift, view.to + shift], bounds);
    }
  }
  return view;
}

/** The boxes of rows [first, last] under `view`, filled (dimmed when a search does not match them) and labelled where a label fits. */
function paintBoxes(g, boxes, view, width, [firstRow, lastRow], { matches, fills, owner }) {
  g.font = '11px system-ui, -apple-system, sans-serif';
  g.textBaseline = 'middle';
  forEachVisible(boxes, view, width, (i, left, right) => {
    const y = boxes.depth[i] * ROW_HEIGHT;
    const x0 = Math.max(0, left);
    const w = Math.min(width, right) - x0;
    const dim = !!matches && !matches.has(i);
    const cache = dim ? fills.dim : fills.plain;
    g.fillStyle = cache[i] ??= owner.fill(i, dim);
    g.fillRect(x0, y, Math.max(0.5, w - (w > 3 ? 1 : 0)), ROW_HEIGHT - 1);
    const text = fitLabel(owner.labelOf(i), w);
    if (text) {
      g.fillStyle = dim ? '#8a8a8e' : '#1d1d1f';
      g.fillText(text, x0 + 3, y + ROW_HEIGHT / 2);
    }
  }, firstRow, lastRow);
}

/** Box `i` outlined in `color` (the selected box, the hovered one); nothing for -1 or a box out of view. */
function outlineBox(g, boxes, view, width, i, color, lineWidth) {
  if (i < 0 || i >= boxes.count) return;
  const scale = width / (view.to - view.from);
  const left = Math.max(-2, (boxes.x[i] - view.from) * scale);
  const right = Math.min(width + 2, (boxes.x[i] + boxes.width[i] - view.from) * scale);
  if (right <= 0 || left >= width) return;
  g.strokeStyle = color;
  g.lineWidth = lineWidth;
  g.strokeRect(left + lineWidth / 2, boxes.depth[i] * ROW_HEIGHT + lineWidth / 2, Math.max(1, right - left - lineWidth), ROW_HEIGHT - 1 - lineWidth);
}
