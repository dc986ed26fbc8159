// The timeline's input: pointer, wheel and keys turned into view changes and clicks. Drag to pan,
// drag on the ruler for an inspection range, click to select, wheel to zoom (shift or sideways:
// pan), W/S zoom and A/D or the arrows pan (held keys animate), [ ] step through long updates,
// Esc clears the selection. The timeline (index.js) owns the view; this module only asks it to move.
import { RULER_HEIGHT } from './lanes.js';
import { panBy, pixelsToTime, timeAt, zoomAround } from './viewport.js';

const KEY_PAN_PER_S = 1.0;            // windows per second while A/D is held
const KEY_ZOOM_PER_S = 2.2;           // e-folds per second while W/S is held
const DRAG_SLOP_PX = 3;               // a press that moves less is a click
const KEYS = { w: 'in', s: 'out', a: 'left', d: 'right', arrowup: 'in', arrowdown: 'out', arrowleft: 'left', arrowright: 'right' };

function typingTarget(target) {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * Listens on `canvas` (and the window, for keys). `timeline` is what input may ask of the timeline:
 * - width(), view() → {start, end}; setView([start, end], kind) ('pan' | 'zoom' | 'jump');
 *   commitWindow(): write a pending pan to the URL; newZoomGesture(): the next zoom step is a new
 *   history entry;
 * - hover(x, y), clearHover(); click(x, y) (a press that did not move);
 * - rangeDrag([start, end] | null) while dragging on the ruler; range(start, end) when released;
 * - escape(); step(direction) ([ and ]).
 * `focusedKeysOnly`: keys move the timeline only while the canvas has focus (a page with two).
 * `wheelZoomNeedsModifier`: in a page that scrolls, a plain vertical wheel is the page's (it
 * scrolls on, and `timeline.wheelHint()` says how to zoom); Ctrl/⌘ + wheel zooms, as Firefox
 * Profiler and Perfetto do in scrolling layouts. Sideways and shift + wheel still pan.
 * Returns {busy() (a drag or held key: keep DOM work out of frames), destroy()}.
 */
export function attachInput(canvas, timeline, { focusedKeysOnly = false, wheelZoomNeedsModifier = false } = {}) {
  let drag = null;
  let pointerX = null;
  let rangeSpan = null;
  const held = new Set();
  let lastFrame = 0;
  let destroyed = false;

  const localPoint = (event) => {
    const rect = canvas.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  };
  const timeAtX = (x) => timeAt(timeline.view(), timeline.width(), x);

  canvas.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    canvas.focus({ preventScroll: true, focusVisible: false });
    const { x, y } = localPoint(event);
    canvas.setPointerCapture(event.pointerId);
    drag = { x0: x, y0: y, view0: { ...timeline.view() }, moved: false, onRuler: y < RULER_HEIGHT };
    timeline.clearHover();
  });
  canvas.addEventListener('pointermove', (event) => {
    const { x, y } = localPoint(event);
    pointerX = x;
    if (!drag) { timeline.hover(x, y); return; }
    if (Math.abs(x - drag.x0) > DRAG_SLOP_PX || Math.abs(y - drag.y0) > DRAG_SLOP_PX) drag.moved = true;
    if (!drag.moved) return;
    if (drag.onRuler) {
      const a = timeAtX(drag.x0);
      const b = timeAtX(Math.max(0, Math.min(timeline.width(), x)));
      rangeSpan = [Math.min(a, b), Math.max(a, b)];
      timeline.rangeDrag(rangeSpan);
    } else {
      canvas.classList.add('dragging');
      timeline.setView(panBy(drag.view0, -pixelsToTime(drag.view0, timeline.width(), x - drag.x0)), 'pan');
    }
  });
  const endDrag = (event) => {
    if (!drag) return;
    const { x, y } = localPoint(event);
    const finished = drag;
    drag = null;
    canvas.classList.remove('dragging');
    if (finished.onRuler) {
      if (finished.moved && rangeSpan && rangeSpan[1] - rangeSpan[0] > 0) timeline.range(rangeSpan[0], rangeSpan[1]);
      else if (!finished.moved && event.type === 'pointerup') timeline.click(x, y);
      rangeSpan = null;
      timeline.rangeDrag(null);
    } else if (finished.moved) {
      timeline.commitWindow();
    } else if (event.type === 'pointerup') {
      timeline.click(x, y);
    }
  };
  canvas.addEventListener('pointerup', endDrag);
  canvas.addEventListener('pointercancel', endDrag);
  canvas.addEventListener('pointerleave', () => {
    pointerX = null;
    if (!drag) timeline.clearHover();
  });

  canvas.addEventListener('wheel', (event) => {
    const width = timeline.width();
    const scale = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? width : 1;
    const dx = event.deltaX * scale;
    const dy = event.deltaY * scale;
    const sideways = event.shiftKey || Math.abs(dx) > Math.abs(dy);
    if (wheelZoomNeedsModifier && !sideways && !event.ctrlKey && !event.metaKey) {
      timeline.wheelHint?.();
      return;
    }
    event.preventDefault();
    const view = timeline.view();
    if (sideways) {
      timeline.setView(panBy(view, pixelsToTime(view, width, event.shiftKey ? dy : dx)), 'pan');
    } else {
      // Pinch gestures arrive as ctrl+wheel with small deltas: zoom faster for them (a mouse's
      // Ctrl + wheel notch is a large delta, zoomed as a plain wheel was).
      const pinch = event.ctrlKey && Math.abs(dy) < 50;
      const factor = Math.exp(dy * (pinch ? 0.01 : 0.0015));
      timeline.setView(zoomAround(view, timeAtX(localPoint(event).x), factor), 'zoom');
    }
    timeline.clearHover();
  }, { passive: false });

  function onKeyDown(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typingTarget(event.target)) return;
    if (focusedKeysOnly && event.target !== canvas) return;
    const key = event.key.toLowerCase();
    // Arrows belong to whatever has focus (trees, lists); on the timeline or the page they move it.
    if (key.startsWith('arrow') && !(event.target === canvas || event.target === document.body || event.target === document.documentElement)) return;
    if (key === 'escape') { timeline.escape(); return; }
    if (key === '[' || key === ']') { event.preventDefault(); timeline.step(key === ']' ? 1 : -1); return; }
    const action = KEYS[key];
    if (!action) return;
    event.preventDefault();
    if (held.has(action)) return;
    held.add(action);
    if (action === 'in' || action === 'out') timeline.newZoomGesture(); // a new key press is a new zoom step in history
    // Move at once, so a single tap does something even if it is shorter than a frame.
    step(1 / 30);
    if (held.size === 1) { lastFrame = performance.now(); requestAnimationFrame(animate); }
  }
  function onKeyUp(event) {
    const action = KEYS[event.key.toLowerCase()];
    if (action) held.delete(action);
    if (!held.size) timeline.commitWindow();
  }
  function step(seconds) {
    const zoomAt = (factor) => {
      const view = timeline.view();
      const anchor = pointerX !== null ? timeAtX(pointerX) : (view.start + view.end) / 2;
      timeline.setView(zoomAround(view, anchor, factor), 'zoom');
    };
    const pan = (direction) => {
      const view = timeline.view();
      timeline.setView(panBy(view, direction * (view.end - view.start) * KEY_PAN_PER_S * seconds), 'pan');
    };
    if (held.has('in')) zoomAt(Math.exp(-KEY_ZOOM_PER_S * seconds));
    if (held.has('out')) zoomAt(Math.exp(KEY_ZOOM_PER_S * seconds));
    if (held.has('left')) pan(-1);
    if (held.has('right')) pan(1);
  }
  function animate(now) {
    if (!held.size || destroyed) return;
    step(Math.min(now - lastFrame, 50) / 1000);
    lastFrame = now;
    requestAnimationFrame(animate);
  }
  const clearHeld = () => held.clear();
  window.addEventListener('keydown', onKeyDown);
  window.addEventListener('keyup', onKeyUp);
  window.addEventListener('blur', clearHeld);

  return {
    busy: () => held.size > 0 || !!drag,
    destroy() {
      destroyed = true;
      window.removeEventListener('keydown', onKeyDown);
      window.removeEventListener('keyup', onKeyUp);
      window.removeEventListener('blur', clearHeld);
    },
  };
}
