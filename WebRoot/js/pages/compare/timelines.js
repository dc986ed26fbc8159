// The comparison page's timelines: A's lanes above B's on one time axis, aligned at an anchor
// (docs/share-links.md, "Comparison pages": al=, tw=, tx=). Each is the trace page's timeline
// (timeline/index.js), given a trace view (trace-view.js) whose state maps the comparison's
// shared window onto its own trace's clock: a pan or zoom on either writes the shared window, and
// the other follows. A task interval clicked on either shows in a side panel under both.
import { traceApi } from '../../api.js';
import { anchorTimes, anchorWindow, formatAnchor, parseAnchor, sharedBounds, toShared, toTrace } from '../../compare-align.js';
import { el } from '../../dom.js';
import { formatDuration, formatTimestamp } from '../../format.js';
import { navigate } from '../../shell.js';
import { buildPath, createLocalViewState, EMPTY_STATE } from '../../state.js';
import { createTraceView } from '../../trace-view.js';
import { createTimeline } from '../../timeline/index.js';
import { mountSidePanel } from '../../side-panel/index.js';

const SIDES = [
  { name: 'A', key: 'a', range: 'rangeA', title: 'A · before' },
  { name: 'B', key: 'b', range: 'rangeB', title: 'B · after' },
];

/**
 * A trace page's view state for one side: `window` is the comparison's shared window on this
 * trace's clock, `range` its compared range, `expanded` the tracks both timelines share, and
 * `selection` what this side's panel shows (`picked`: the page's one selection, {side, selection},
 * kept in the page: the comparison's link is about the comparison).
 */
function sideState(state, side, anchor, picked, id) {
  const view = (s) => ({
    ...EMPTY_STATE, window: s.timeline ? toTrace(s.timeline, anchor) : null, range: s[side.range], expanded: s.lanes,
    selection: picked.get().side === side.key ? picked.get().selection : null,
  });
  return {
    get: () => view(state.get()),
    set(patch, options) {
      const next = {};
      if ('window' in patch) next.timeline = patch.window ? toShared(patch.window, anchor) : null;
      if ('expanded' in patch) next.lanes = patch.expanded;
      if ('range' in patch) next[side.range] = patch.range;
      state.set(next, options);
    },
    subscribe(fn) {
      const fromPage = state.subscribe((s, changed) => {
        const keys = [];
        if (changed.includes('timeline')) keys.push('window');
        if (changed.includes('lanes')) keys.push('expanded');
        if (changed.includes(side.range)) keys.push('range');
        if (keys.length) fn(view(s), keys);
      });
      const fromPick = picked.subscribe(() => fn(view(state.get()), ['selection']));
      return () => { fromPage(); fromPick(); };
    },
    /** This side's trace page with the same window, range and selection. */
    link: () => new URL(buildPath(id, view(state.get())), window.location.origin).href,
  };
}

/**
 * The trace view of one side: an update opens on its trace page; a signpost becomes the side's
 * compared range (so the "ranges" alignment can be a signpost interval); a Swift task interval
 * shows in this side's panel, under both timelines.
 */
function sideView({ id, trace, side, anchor, state, picked }) {
  const api = traceApi(id);
  const setRange = (start, end) => view.state.set({ range: start === null ? null : [Math.round(start), Math.round(end)] }, { push: true });
  const view = createTraceView({
    trace,
    api,
    state: sideState(state, side, anchor, picked, id),
    select(selection, { span } = {}) {
      if (selection?.kind === 'update') {
        navigate(buildPath(id, { update: selection.id, pane: 'graph', graph: `u${selection.id}` }));
      } else if (selection?.kind === 'signpost') {
        if (span) setRange(span[0], span[1]);
        else api.get(`signposts/${selection.id}`).then((s) => setRange(s.start, s.start + Math.max(s.duration, 1)), () => {});
      } else {
        picked.set({ side: selection ? side.key : null, selection });
      }
    },
    setRange,
  });
  return view;
}

/**
 * Mounts the timelines section into `section`; returns {update(comparison), destroy()}. `update`
 * (after each comparison load, and when the anchor changes) rebuilds the timelines when the
 * anchors moved, since the shared axis then spans something else.
 */
export function mountAlignedTimelines(section, { a, b, state, infos }) {
  let traces = null;
  let timelines = [];
  let builtFor = null;
  let comparison = null;
  let destroyed = false;
  // The page's one selection (a task interval on either timeline), shown under both timelines.
  const picked = createLocalViewState({}, { empty: { side: null, selection: null } });

  const picker = el('select', { id: 'align-anchor', 'aria-label': 'Align the timelines at' });
  picker.addEventListener('change', () => {
    // The shared window means another moment under another anchor: zoom both to the new anchor
    // (both whole traces for "Both starts").
    const anchor = parseAnchor(picker.value);
    const s = state.get();
    state.set({ anchor, timeline: anchorWindow(anchor, { a: s.rangeA, b: s.rangeB }) }, { push: true });
  });
  const fit = el('button', { type: 'button', id: 'timelines-fit', text: 'Zoom to fit', onclick: () => timelines[0]?.timeline.zoomToFit() });
  const ruler = el('button', { type: 'button', id: 'timelines-ruler', 'aria-pressed': 'false', title: 'The rulers read time from the anchor, or each trace\'s own clock',
    onclick: () => state.set({ ruler: state.get().ruler === 'anchor' ? null : 'anchor' }, { push: true }) }, 'Time from anchor');
  const note = el('p', { class: 'meta', id: 'align-note', 'aria-live': 'polite' });
  const lanes = el('div', { class: 'compare-timelines', id: 'compare-timelines' });
  // Under both timelines (A and B stay side by side): the panel of the side that holds the selection.
  const panels = el('div', { class: 'compare-side-panels' });
  section.replaceChildren(
    el('div', { class: 'compare-section-head' }, el('h2', { text: 'Timelines' }),
      el('label', { for: 'align-anchor', text: 'Align at' }), picker, fit, ruler),
    note, lanes,
    el('div', { class: 'tl-help', id: 'timeline-help',
      text: `${navigator.platform?.startsWith('Mac') ? '⌘' : 'Ctrl'} + wheel or W/S on the focused timeline: zoom · the wheel scrolls the page · `
        + 'drag, A/D or ←/→: pan (both timelines move) · drag on a ruler: that trace\'s compared range' }),
    panels);

  function fillPicker() {
    const labels = comparison.interactions.filter((i) => i.firstA !== null || i.firstB !== null).map((i) => i.label);
    const current = formatAnchor(state.get().anchor) ?? 'start';
    const options = [['start', 'Both starts'], ...labels.map((label) => [`g:${label}`, `First “${label}”`]),
      ['ranges', 'Compared ranges (drag on a ruler)']];
    // A link may name a label this comparison lacks: keep it selectable, the note says what happened.
    if (!options.some(([value]) => value === current)) options.push([current, `First “${state.get().anchor.group}”`]);
    picker.replaceChildren(...options.map(([value, text]) => el('option', { value, text, selected: value === current })));
    picker.value = current;
  }

  /** What the anchor is called on the marker: "first Tap Gesture", "compared range"; null for both starts. */
  function markerLabel() {
    const anchor = state.get().anchor;
    return anchor === 'ranges' ? 'compared range' : anchor?.group ? `first ${anchor.group}` : null;
  }

  /** Draws the anchor on both timelines; with "Time from anchor", their rulers read time from it. */
  function mark(anchors) {
    const label = markerLabel();
    const fromAnchor = state.get().ruler === 'anchor';
    ruler.setAttribute('aria-pressed', String(fromAnchor));
    for (const { side, timeline } of timelines) {
      // Both starts: no line, but the rulers may still read time from each start.
      timeline.setMarker(label || fromAnchor ? { time: anchors[side.key], label: label ? `${side.name}: ${label}` : null, rulerFromMarker: fromAnchor } : null);
    }
  }

  function describe(anchors) {
    const anchor = state.get().anchor;
    const where = anchor === 'ranges' ? 'the start of each compared range'
      : anchor?.group ? `the first “${anchor.group}”` : 'both starts';
    const missing = anchors.fellBack.length
      ? ` Trace ${anchors.fellBack.join(' and ')} has ${anchor === 'ranges' ? 'no compared range' : 'no such group'}: aligned at its start.` : '';
    // A time of 0 reads as "its start" and equal anchors need no distance, so the line never sets
    // "0 µs" beside "0 ms apart".
    const at = (ns) => (ns === 0 ? 'its start' : formatTimestamp(ns));
    const position = anchors.a === anchors.b
      ? (anchors.a === 0 ? '' : `: both at ${formatTimestamp(anchors.a)} on their own clocks`)
      : `: A at ${at(anchors.a)}, B at ${at(anchors.b)} on their own clocks (${formatDuration(Math.abs(anchors.b - anchors.a))} apart)`;
    note.textContent = `Aligned at ${where}${position}.${missing}`;
  }

  function destroyTimelines() {
    for (const { timeline, panel } of timelines) { timeline.destroy(); panel.destroy(); }
    timelines = [];
  }

  function build(anchors) {
    destroyTimelines();
    picked.set({ side: null, selection: null });
    lanes.replaceChildren();
    panels.replaceChildren();
    const bounds = sharedBounds(traces, anchors);
    timelines = SIDES.map((side) => {
      const id = side.key === 'a' ? a : b;
      const anchor = anchors[side.key];
      const windowLabel = el('span', { class: 'window-label' });
      const host = el('section', { class: 'tl-compare-lanes', 'aria-label': `Timeline of ${side.title}` });
      const aside = el('aside', { class: 'side-panel compare-side-panel', id: `side-panel-${side.key}`, 'data-caption': `Selected in ${side.title}`,
        'aria-label': `Selected in ${side.title}`, hidden: true });
      const block = el('div', { class: `compare-timeline side-${side.key}`, 'data-side': side.name },
        el('div', { class: 'compare-timeline-head' }, el('strong', { text: side.title }),
          el('span', { class: 'meta', text: ` ${traces[side.key].name}` }), el('span', { class: 'spacer' }), windowLabel),
        host);
      lanes.append(block);
      panels.append(aside);
      // The shared axis on this trace's clock: the timeline may show time before or after the
      // recording, so both sides cover the same span.
      const trace = { ...traces[side.key], start: bounds.start + anchor, end: bounds.end + anchor };
      const view = sideView({ id, trace, side, anchor, state, picked });
      // Two timelines on one page: ids of their own (the trace page's stay as they are).
      const timeline = createTimeline(host, view, { windowLabel, focusedKeysOnly: true, idSuffix: `-${side.key}`, scrollingPage: true });
      return { side, timeline, panel: mountSidePanel(aside, view) };
    });
  }

  return {
    async update(next) {
      comparison = next;
      try {
        traces ??= await infos.then(([infoA, infoB]) => ({ a: infoA, b: infoB }));
      } catch (error) {
        note.textContent = `The timelines are not available: ${error.message}`;
        return;
      }
      if (destroyed || comparison !== next) return;
      fillPicker();
      const s = state.get();
      const anchors = anchorTimes(s.anchor, { traces, ranges: { a: s.rangeA, b: s.rangeB }, interactions: comparison.interactions });
      describe(anchors);
      if (builtFor?.a !== anchors.a || builtFor?.b !== anchors.b) {
        builtFor = anchors;
        build(anchors);
      }
      mark(anchors);
    },
    flush: () => { for (const { timeline } of timelines) timeline.flush(); },
    destroy() {
      destroyed = true;
      destroyTimelines();
    },
  };
}
