// The timeline: ruler + lanes on one devicePixelRatio-aware canvas, lane headers in the DOM.
// Draws only what the server's level-of-detail query returns for the visible window. This module
// holds the canvas, the view window and its URL form, draw scheduling and the subscription to the
// view state; what lanes mean is in kinds.js, gestures in input.js, the pointer (hover, tooltip,
// click) in pointer.js, the headers in headers.js, the overlays in layers/.
import { el } from '../dom.js';
import { toast } from '../shell.js';
import { formatDuration, formatTimestamp } from '../format.js';
import { currentSelection, selectedUpdate, selectionChanged } from '../state.js';
import { findingMarks, hasHangRiskLane, hasTaskData, layoutRows, noteMarks, queriedLanes, signpostRows } from './lanes.js';
import { selectionDescriptor } from '../selections/index.js';
import { attachInput } from './input.js';
import { createPointer } from './pointer.js';
import { buildHeaders, describeLanes } from './headers.js';
import { TimelineLoader } from './loader.js';
import { createTimelineSearch } from './search.js';
import { drawTimeline, readColors } from './render.js';
import { clampWindow, contextWindow, historyStep, traceBounds } from './viewport.js';

const URL_WRITE_MS = 250;             // continuous pans write the URL at most this often

/** The timeline's elements in `section`: lane headers beside the canvas, its tooltip and status. */
function timelineElements(section, idSuffix) {
  const headers = el('div', { class: 'tl-headers', role: 'list', 'aria-label': 'Lanes' });
  const canvas = el('canvas', {
    tabindex: '0', role: 'img', id: `timeline-canvas${idSuffix}`,
    'aria-label': 'Timeline of the trace. W and S zoom, A and D or the arrow keys pan.',
    'aria-describedby': 'timeline-help',
  });
  const tooltip = el('div', { class: 'tl-tooltip', role: 'tooltip', id: `timeline-tooltip${idSuffix}`, hidden: true });
  const status = el('div', { class: 'tl-status', 'aria-live': 'polite' });
  const wheelHint = el('div', { class: 'tl-wheel-hint', hidden: true, text: `${navigator.platform?.startsWith('Mac') ? '⌘' : 'Ctrl'} + wheel to zoom, or W/S on the focused timeline` });
  const wrap = el('div', { class: 'tl-canvas-wrap' }, canvas, tooltip, status, wheelHint);
  section.replaceChildren(el('div', { class: 'tl-grid' }, headers, wrap));
  return { headers, canvas, tooltip, status, wrap, wheelHint };
}

function setData(node, key, value) {
  if (node.dataset[key] !== value) node.dataset[key] = value;
}

function setText(node, text) {
  if (node && node.textContent !== text) node.textContent = text;
}

/** What a frame drew, on the canvas for the browser tests: how many findings and notes are marked in this window, the lanes the selection is outlined on, and the marker. */
function describeFrame(canvas, { findings, notes, outline, marker }) {
  setData(canvas, 'findings', String(findings.length));
  setData(canvas, 'notes', String(notes.length));
  setData(canvas, 'outlined', outline ? `${outline.lanes.join(',')}@${outline.start},${outline.duration}` : '');
  setData(canvas, 'marker', marker?.label ? `${marker.label}@${Math.round(marker.time)}` : '');
  setData(canvas, 'rulerOrigin', marker?.rulerFromMarker ? String(Math.round(marker.time)) : '');
}

/** "0:01.200 – 0:01.450 (250 ms visible)": the window label's text. */
function windowText(view) {
  const span = view.end - view.start;
  return `${formatTimestamp(view.start, span / 1000)} – ${formatTimestamp(view.end, span / 1000)} (${formatDuration(span)} visible)`;
}

/**
 * The timeline of `traceView` (trace-view.js) in `section`. `findings`: a promise of the trace's
 * findings, marked on the ruler when it resolves. `focusedKeysOnly`: keys move this timeline only
 * while its canvas has focus (a page with two). `idSuffix`: appended to the ids of its canvas and
 * tooltip, for a page with two. `findSlot`: where the find box goes (search.js), none without it.
 * `scrollingPage`: the timeline is one part of a page that scrolls, so a plain wheel scrolls the
 * page and Ctrl/⌘ + wheel zooms (a plain wheel shows that hint).
 * Returns {zoomToFit(), getView(), axis() (where the window's time runs on screen: the canvas's
 * {left, right}, viewport px), setView(), setMarker(marker), watchView(), flush(), destroy()};
 * `setMarker({time, label, rulerFromMarker})` draws a line at `time` and, with `rulerFromMarker`,
 * makes the ruler read time from it (null: neither).
 */
export function createTimeline(section, traceView, { windowLabel, findings, findSlot = null, focusedKeysOnly = false, idSuffix = '', scrollingPage = false } = {}) {
  const { trace, state } = traceView;
  const bounds = traceBounds(trace);
  const wholeTrace = [bounds.start, bounds.end];
  const laneInfo = Object.fromEntries((trace.lanes ?? []).map((lane) => [lane.id, lane]));

  const { headers, canvas, tooltip, status, wrap, wheelHint } = timelineElements(section, idSuffix);
  const g = canvas.getContext('2d');

  let colors = readColors(document.documentElement);
  // The trace's own lanes (signposts by subsystem and category) go before CPU; the Main Actor
  // lanes only when it has Swift task data.
  const laneOptions = { hasTasks: hasTaskData(trace), hasHangRisks: hasHangRiskLane(trace), extra: signpostRows(trace.lanes) };
  let layout = layoutRows(state.get().expanded ?? [], laneOptions);
  let width = 0;
  let dpr = window.devicePixelRatio || 1;
  let outline = null;       // the selection outlined on its lanes: {key, start, duration, lanes}
  let rangeDrag = null;     // [start, end] while dragging on the ruler
  let drawScheduled = false;
  let describeTimer = 0;
  let destroyed = false;
  let findingList = [];
  let marker = null;        // {time, label, rulerFromMarker}: a line across the lanes (setMarker)
  findings?.then((list) => { findingList = list; requestDraw(); }).catch(() => {});
  // The trace's notes, flagged on the ruler (the view's note store; none on a comparison).
  let noteList = traceView.notes.list();
  let drawnNotes = [];
  const unsubscribeNotes = traceView.notes.subscribe((list) => { noteList = list; requestDraw(); });
  traceView.notes.ready.then(() => requestDraw());
  const selectedNote = () => { const s = currentSelection(state.get()); return s?.kind === 'note' ? s.id : null; };

  const loader = new TimelineLoader(trace.id, bounds.start, bounds.end, () => requestDraw());
  const search = findSlot ? createTimelineSearch(traceView, { onMarks: () => requestDraw(), onStep: (direction) => step(direction) }) : null;
  findSlot?.replaceChildren(search.box);

  // ----- layout -----
  const expandedTracks = () => state.get().expanded ?? [];
  function toggleSwiftUI() {
    const current = expandedTracks();
    const next = current.includes('swiftui') ? current.filter((x) => x !== 'swiftui') : [...current, 'swiftui'];
    state.set({ expanded: next }, { push: true });
  }
  const showHeaders = () => buildHeaders(headers, layout.rows, { laneInfo, expanded: expandedTracks().includes('swiftui'), toggleTrack: toggleSwiftUI });

  function resize() {
    width = Math.max(1, Math.floor(wrap.clientWidth));
    dpr = window.devicePixelRatio || 1;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${layout.height}px`;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(layout.height * dpr);
    requestDraw();
  }

  // ----- view window -----
  const viewListeners = new Set();
  const visible = visibleWindow(state, bounds, () => {
    requestDraw();
    for (const fn of [...viewListeners]) fn({ ...visible.get() });
  });
  const setView = visible.set;

  // ----- drawing -----
  function requestDraw() {
    if (drawScheduled || destroyed) return;
    drawScheduled = true;
    requestAnimationFrame(draw);
  }

  function draw() {
    drawScheduled = false;
    if (destroyed || !width) return;
    const began = performance.now();
    const view = visible.get();
    loader.ensure(view.start, view.end, width, queriedLanes(layout.rows));
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const marks = findingMarks(findingList, view, width, state.get().finding);
    drawnNotes = noteMarks(noteList, traceView.notes.spanOf, view, width, selectedNote());
    const matches = search?.marks(view, width);
    const counts = drawTimeline(g, {
      width, height: layout.height, dpr, view, rows: layout.rows, data: loader.current, colors,
      layers: { findings: marks, notes: drawnNotes, marker, range: rangeDrag ?? state.get().range, matches: matches?.lanes, selection: outline, hover: pointer.hovered() },
    });
    describeFrame(canvas, { findings: marks, notes: drawnNotes, outline, marker });
    performance.measure('timeline-draw', { start: began, end: performance.now() });
    if (performance.getEntriesByName('timeline-draw').length > 5000) performance.clearMeasures('timeline-draw');
    // Lane descriptions and the status line change the DOM: keep that out of frames while moving.
    if (!loader.loading && !input.busy()) describeLanes(headers, counts);
    else { clearTimeout(describeTimer); describeTimer = setTimeout(() => requestDraw(), 300); }
    setText(windowLabel, windowText(view));
    setText(status, loader.error ? `Timeline query failed: ${loader.error.message}` : loader.loading ? 'Loading…' : '');
    setData(canvas, 'loading', String(loader.loading));
    // Which query the drawn marks come from (the browser tests ask the API the same).
    if (loader.current && canvas.dataset.query !== loader.current.query) canvas.dataset.query = loader.current.query;
  }

  // ----- the pointer: hover, tooltip, click -----
  const pointer = createPointer({
    canvas, tooltip, traceView,
    rows: () => layout.rows,
    size: () => ({ width, height: layout.height }),
    lanes: () => loader.current?.lanes,
    view: visible.get,
    notes: () => drawnNotes,
    redraw: requestDraw,
    toggleTrack: toggleSwiftUI,
    setView,
  });

  const input = attachInput(canvas, {
    width: () => width,
    view: visible.get,
    setView,
    commitWindow: visible.flush,
    newZoomGesture: visible.newGesture,
    hover: pointer.update,
    clearHover: pointer.clear,
    click: pointer.click,
    rangeDrag: (span) => { rangeDrag = span; requestDraw(); },
    range: (start, end) => traceView.setRange(start, end, { zoom: false }),
    escape: () => { if (currentSelection(state.get()) !== null) traceView.select(null); },
    step: (direction) => step(direction),
    wheelHint: showWheelHint(wheelHint),
  }, { focusedKeysOnly, wheelZoomNeedsModifier: scrollingPage });
  // [ and ]: through the find box's matches while it has a query, else through the long updates.
  const stepLong = longUpdateStepper(traceView, visible.get, () => destroyed);
  const stepMatch = search ? matchStepper(traceView, search, visible.get, (span) => setView(contextWindow(bounds, span[0], span[1] - span[0]), 'jump')) : null;
  function step(direction) { return search?.active() ? stepMatch(direction) : stepLong(direction); }


  // ----- state -----
  const outlineSelection = selectionOutliner(traceView, (next) => { outline = next; requestDraw(); });
  const unsubscribe = state.subscribe((next, changed) => {
    if (changed.includes('window')) visible.follow(next.window);
    if (changed.includes('expanded')) {
      layout = layoutRows(next.expanded ?? [], laneOptions);
      showHeaders();
      resize();
    }
    if (selectionChanged(changed)) {
      outlineSelection(currentSelection(next));
      requestDraw();
    }
    if (changed.includes('range') || changed.includes('finding')) requestDraw();
  });

  const scheme = window.matchMedia('(prefers-color-scheme: dark)');
  const onScheme = () => { colors = readColors(document.documentElement); requestDraw(); };
  scheme.addEventListener('change', onScheme);
  const observer = new ResizeObserver(() => resize());
  observer.observe(wrap);
  const onDprChange = () => resize();
  window.addEventListener('resize', onDprChange);

  showHeaders();
  resize();
  outlineSelection(currentSelection(state.get()));
  if (!state.get().window) visible.flush(true);

  return {
    zoomToFit: () => setView(wholeTrace, 'jump'),
    getView: () => ({ ...visible.get() }),
    axis: () => ({ left: canvas.getBoundingClientRect().left, right: canvas.getBoundingClientRect().right }),
    /** Moves the window (kind as input's: 'pan' | 'zoom' | 'jump'): another part's pan or zoom. */
    setView: (window, kind = 'jump') => setView(window, kind),
    setMarker(next) { marker = next; requestDraw(); },
    /** Calls fn({start, end}) after every move of the window, live; returns an unsubscribe. */
    watchView(fn) {
      viewListeners.add(fn);
      return () => viewListeners.delete(fn);
    },
    /** Writes a pending pan to the URL now (before a link is copied). */
    flush: () => visible.flush(),
    destroy() {
      destroyed = true;
      visible.destroy();
      search?.destroy();
      clearTimeout(describeTimer);
      loader.destroy();
      input.destroy();
      unsubscribe();
      unsubscribeNotes();
      observer.disconnect();
      scheme.removeEventListener('change', onScheme);
      window.removeEventListener('resize', onDprChange);
    },
  };
}

/** Shows `hint` for a moment (a plain wheel over a timeline that does not zoom with it). */
function showWheelHint(hint) {
  let timer = 0;
  return () => {
    hint.hidden = false;
    clearTimeout(timer);
    timer = setTimeout(() => { hint.hidden = true; }, 1500);
  };
}

/**
 * Keyboard selection ([ and ]): the next / previous long update after the selected one (from the
 * window's edge without one). The server finds it in the model, so one hidden in a merged mark is
 * visited too; presses queue, so fast repeats step one update each.
 */
function longUpdateStepper(traceView, visible, destroyed) {
  let stepping = Promise.resolve();
  return (direction) => {
    stepping = stepping.then(async () => {
      const current = selectedUpdate(traceView.state.get());
      const view = visible();
      const params = { direction: direction > 0 ? 'next' : 'previous' };
      if (current !== null) params.after = current;
      else params.at = Math.round(direction > 0 ? view.start : view.end);
      const { update } = await traceView.api.get('long-update', params);
      if (destroyed()) return;
      if (!update) {
        toast(`No ${direction > 0 ? 'later' : 'earlier'} long update in this trace`);
        return;
      }
      const now = visible();
      const inView = update.start >= now.start && update.start + update.duration <= now.end;
      await traceView.select({ kind: 'update', id: update.id }, { zoom: !inView });
    }).catch((error) => toast(`Could not step to the long update: ${error.message}`));
  };
}

/**
 * ] and [ while the find box has a query: select the next / previous match (an update, zoomed to
 * with context when out of view; a signpost, the window moved to it with `reveal(span)`). Presses queue.
 */
function matchStepper(traceView, search, visible, reveal) {
  let stepping = Promise.resolve();
  return (direction) => {
    stepping = stepping.then(() => search.step(direction, {
      visible,
      async show(match) {
        const now = visible();
        const inView = match.start >= now.start && match.start + match.duration <= now.end;
        if (match.kind === 'update') { await traceView.select({ kind: 'update', id: match.id }, { zoom: !inView }); return; }
        await traceView.select({ kind: 'signpost', id: match.id });
        if (!inView) reveal([match.start, match.start + Math.max(match.duration, 1)]);
      },
    }).then((answer) => {
      if (answer && !answer.match) toast(`No ${direction > 0 ? 'later' : 'earlier'} match of “${traceView.state.get().find}”`);
    })).catch((error) => toast(`Could not step to the match: ${error.message}`));
    return stepping;
  };
}

/**
 * Outlines the selection on its lanes (its descriptor's `extent`, selections/) once its extent is known:
 * returns outline(selection), which hands `show` {key, start, duration, lanes} or null.
 */
function selectionOutliner(traceView, show) {
  let current = null;
  return async (selection) => {
    const how = selection ? selectionDescriptor(selection.kind) : null;
    if (!how?.extent) { current = null; show(null); return; }
    const key = JSON.stringify(selection);
    if (current?.key === key) return;
    try {
      const path = how.resource(selection.id);
      const answer = path ? await traceView.api.get(path) : null;
      if (JSON.stringify(currentSelection(traceView.state.get())) !== key) return;
      current = { key, ...how.extent(answer, selection.id) };
    } catch {
      current = null;
    }
    show(current);
  };
}

/**
 * The visible window ({start, end}, inside `bounds`) and its URL form (w=). A move writes the URL:
 * kind 'pan' replaces the entry (throttled), 'zoom' adds one entry per gesture, 'jump' pushes one.
 * A window the state gets from elsewhere (back/forward, a link) moves it: `follow(window)`.
 * `onMove()` runs after every move.
 */
function visibleWindow(state, bounds, onMove) {
  let view = clampWindow(state.get().window ?? [bounds.start, bounds.end], bounds);
  let urlTimer = 0;
  let lastZoomAt = 0;
  let writing = false;

  function write(push) {
    clearTimeout(urlTimer);
    urlTimer = 0;
    writing = true;
    state.set({ window: [Math.round(view.start), Math.round(view.end)] }, { push });
    writing = false;
  }

  return {
    get: () => view,
    set(next, kind) {
      const before = view;
      view = clampWindow(next, bounds);
      if (view.start === before.start && view.end === before.end) return;
      let push;
      ({ push, lastZoomAt } = historyStep(kind, performance.now(), lastZoomAt));
      if (push) {
        // Keep the window before the move on the current entry (a pan may not be written yet), then push.
        const target = view;
        view = before;
        write(false);
        view = target;
        write(true);
      } else if (!urlTimer) urlTimer = setTimeout(() => write(false), URL_WRITE_MS);
      onMove();
    },
    /** Writes a pending pan to the URL now; `always`: even with none pending. */
    flush(always = false) { if (urlTimer || always) write(false); },
    /** The next zoom step is a new gesture, a new history entry (a key pressed again). */
    newGesture() { lastZoomAt = 0; },
    follow(window) {
      if (writing) return;
      view = clampWindow(window ?? [bounds.start, bounds.end], bounds);
      onMove();
    },
    destroy() { clearTimeout(urlTimer); },
  };
}
