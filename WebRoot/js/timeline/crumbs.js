// Zoom breadcrumbs above the timeline, as the Firefox Profiler's committed ranges: each zoom or
// range that settles is a crumb inside the one before it ("Whole trace › 250 ms › Range 8.33 ms"),
// and one click goes back to it (or forward again, until a new zoom replaces what followed).
// Browser back/forward still walk the history as before. The logic is pure (node tests); the
// crumbs live in the page, not in the URL.
import { el } from '../dom.js';
import { formatDuration, formatTimeRange } from '../format.js';

const SETTLE_MS = 600;   // a window unchanged this long is committed
const SAME = 0.005;      // ends within this share of the span: the same window

const span = (w) => w.end - w.start;
const sameWindow = (a, b) => Math.abs(a.start - b.start) <= SAME * span(a) && Math.abs(a.end - b.end) <= SAME * span(a);
const contains = (outer, inner) => inner.start >= outer.start - SAME * span(outer) && inner.end <= outer.end + SAME * span(outer);

/**
 * The crumbs after `window` settled: {crumbs: [{start, end, range}], index} (crumb 0 is the whole
 * trace). A window that is a crumb makes it current; one inside the current crumb (or an
 * ancestor) at most 80 % as wide is a new crumb after it, dropping those that followed; a pan at
 * about the same width changes nothing. `range`: the inspection range {start, end} the window
 * frames, or null.
 */
export function commitCrumb({ crumbs, index }, window, { range = null } = {}) {
  const existing = crumbs.findIndex((crumb) => sameWindow(crumb, window));
  if (existing >= 0) return { crumbs, index: existing };
  const ratio = span(window) / span(crumbs[index]);
  if (index > 0 && ratio >= 0.8 && ratio <= 1.25) return { crumbs, index };
  let parent = Math.min(index, crumbs.length - 1);
  while (parent > 0 && !contains(crumbs[parent], window)) parent -= 1;
  if (span(window) > 0.8 * span(crumbs[parent])) return { crumbs, index };
  return { crumbs: [...crumbs.slice(0, parent + 1), { start: window.start, end: window.end, range }], index: parent + 1 };
}

/** What a crumb says: "Whole trace", "250 ms", "Range 8.33 ms". */
export function crumbLabel(crumb, i) {
  if (i === 0) return `Whole trace (${formatDuration(span(crumb))})`;
  return crumb.range ? `Range ${formatDuration(span(crumb.range))}` : formatDuration(span(crumb));
}

/** The crumbs of `traceView` in `container` (a <nav>); `bounds`: the whole trace {start, end}. Returns {destroy()}. */
export function mountCrumbs(container, traceView, bounds) {
  const { state } = traceView;
  let trail = { crumbs: [{ start: bounds.start, end: bounds.end, range: null }], index: 0 };
  let timer = 0;

  function settled() {
    const s = state.get();
    const window = s.window ? { start: s.window[0], end: s.window[1] } : { ...bounds };
    const range = s.range ? { start: s.range[0], end: s.range[1] } : null;
    // A window that frames the inspection range (Set Inspection Range and Zoom, Zoom to range) is the range's crumb.
    const onRange = !!range && contains(window, range) && span(window) <= 3.5 * span(range);
    trail = commitCrumb(trail, window, { range: onRange ? range : null });
    render();
  }

  function render() {
    const items = trail.crumbs.map((crumb, i) => el('li', {},
      el('button', { type: 'button', class: 'link-like tl-crumb', 'aria-current': i === trail.index ? 'step' : null,
        title: `Show ${formatTimeRange(crumb.start, crumb.end)}`, text: crumbLabel(crumb, i),
        onclick: () => state.set({ window: [crumb.start, crumb.end] }, { push: true }) })));
    container.hidden = trail.crumbs.length < 2;
    container.replaceChildren(el('ol', {}, ...items));
  }

  const unsubscribe = state.subscribe((_, changed) => {
    if (!changed.includes('window') && !changed.includes('range')) return;
    clearTimeout(timer);
    timer = setTimeout(settled, SETTLE_MS);
  });
  container.setAttribute('aria-label', 'Zoom history');
  settled();
  return { destroy() { clearTimeout(timer); unsubscribe(); } };
}
