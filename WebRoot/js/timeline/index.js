// The timeline: ruler + lanes on one devicePixelRatio-aware canvas, lane headers in the DOM.
// Draws only what the server's level-of-detail query returns for the visible window.
import { el } from '../dom.js';
import { toast } from '../shell.js';
import { formatDuration, formatTimestamp, kindLabel, severityLabel as updateSeverityLabel, waitSeverityLabel } from '../format.js';
import { countLabel, eventOf, findingMarks, hasTaskData, layoutRows, nearestEvent, queriedLanes, RULER_HEIGHT, signpostRows } from './lanes.js';
import { TimelineLoader } from './loader.js';
import { drawTimeline, readColors } from './render.js';
import { clampWindow, historyStep, markWindow, panBy, pixelsToTime, timeAt, traceBounds, zoomAround } from './viewport.js';

const URL_WRITE_MS = 250;             // continuous pans write the URL at most this often
const KEY_PAN_PER_S = 1.0;            // windows per second while A/D is held
const KEY_ZOOM_PER_S = 2.2;           // e-folds per second while W/S is held
const HIT_SLOP_PX = 3;                // a mark this close to the pointer counts as under it

const SELECTED_LANES = {
  'view-body': ['view-body', 'long-view-body'],
  representable: ['representable', 'long-representable'],
  layout: ['other', 'long-other'],
  other: ['other', 'long-other'],
};

/**
 * `findings`: a promise of the trace's findings, marked on the ruler when it resolves.
 * `focusedKeysOnly`: keys move this timeline only while its canvas has focus (a page with two).
 */
export function createTimeline(section, ctx, { windowLabel, findings, focusedKeysOnly = false } = {}) {
  const { trace, state } = ctx;
  const bounds = traceBounds(trace);
  const wholeTrace = [bounds.start, bounds.end];
  const laneInfo = Object.fromEntries((trace.lanes ?? []).map((lane) => [lane.id, lane]));

  const headers = el('div', { class: 'tl-headers', role: 'list', 'aria-label': 'Lanes' });
  const canvas = el('canvas', {
    tabindex: '0', role: 'img', id: 'timeline-canvas',
    'aria-label': 'Timeline of the trace. W and S zoom, A and D or the arrow keys pan.',
    'aria-describedby': 'timeline-help',
  });
  const tooltip = el('div', { class: 'tl-tooltip', role: 'tooltip', id: 'timeline-tooltip', hidden: true });
  const status = el('div', { class: 'tl-status', 'aria-live': 'polite' });
  const wrap = el('div', { class: 'tl-canvas-wrap' }, canvas, tooltip, status);
  section.replaceChildren(el('div', { class: 'tl-grid' }, headers, wrap));
  const g = canvas.getContext('2d');

  let colors = readColors(document.documentElement);
  let view = clampWindow(state.get().window ?? wholeTrace, bounds);
  // The trace's own lanes (signposts by subsystem and category) go before CPU; the Main Actor
  // lanes only when it has Swift task data.
  const laneOptions = { hasTasks: hasTaskData(trace), extra: signpostRows(trace.lanes) };
  let layout = layoutRows(state.get().expanded ?? [], laneOptions);
  let width = 0;
  let dpr = window.devicePixelRatio || 1;
  let selected = null;      // {id, start, duration, lanes}
  let hover = null;         // {row, event, x, y}
  let rangeDrag = null;     // [start, end] while dragging on the ruler
  let drawScheduled = false;
  let describeTimer = 0;
  let destroyed = false;
  let findingList = [];
  findings?.then((list) => { findingList = list; requestDraw(); }).catch(() => {});

  const loader = new TimelineLoader(trace.id, bounds.start, bounds.end, () => requestDraw());

  // ----- layout -----
  function buildHeaders() {
    const expanded = (state.get().expanded ?? []).includes('swiftui');
    const items = [el('div', { class: 'tl-header ruler', style: { height: `${RULER_HEIGHT}px` }, role: 'listitem' },
      el('span', { class: 'title', text: 'Time' }))];
    for (const row of layout.rows) {
      const info = laneInfo[row.id];
      const title = info?.title ?? row.title;
      const children = [];
      if (row.track) {
        children.push(el('button', {
          type: 'button', class: 'disclosure', id: 'toggle-swiftui', 'aria-expanded': String(expanded),
          'aria-label': `${expanded ? 'Collapse' : 'Expand'} the SwiftUI track`,
          onclick: toggleSwiftUI,
        }, expanded ? '▾' : '▸'));
      }
      // A stacked signpost row continues the group above it: the title and count are there.
      children.push(el('span', { class: 'title', text: row.stacked ? '' : title }));
      if (row.signposts) {
        if (!row.stacked) children.push(el('span', { class: 'count', title: `${row.groupSignposts} signposts: ${info.title}`, text: row.groupSignposts.toLocaleString('en-US') }));
      } else if (info && !row.cpu) {
        const long = info.orange + info.red;
        children.push(el('span', { class: 'count', title: `${info.count} in the trace${long ? `, ${info.orange} orange, ${info.red} red` : ''}`, text: info.count.toLocaleString('en-US') }));
      }
      items.push(el('div', {
        class: `tl-header${row.parent ? ' sub' : ''}${row.track ? ' track' : ''}${row.signposts ? ' signposts' : ''}${row.stacked ? ' stacked' : ''}`, role: 'listitem',
        style: { height: `${row.height}px` }, 'data-lane': row.id, 'aria-label': row.stacked ? `${title}, row ${row.level + 1}` : title,
        title: row.signposts ? (row.stacked ? `${title}: overlapping signposts, row ${row.level + 1}` : title) : null,
      }, ...children));
    }
    headers.replaceChildren(...items);
  }

  function toggleSwiftUI() {
    const current = state.get().expanded ?? [];
    const next = current.includes('swiftui') ? current.filter((x) => x !== 'swiftui') : [...current, 'swiftui'];
    state.set({ expanded: next }, { push: true });
  }

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
  let urlTimer = 0;
  let lastZoomAt = 0;
  let writingState = false;

  function writeWindow(push) {
    clearTimeout(urlTimer);
    urlTimer = 0;
    writingState = true;
    state.set({ window: [Math.round(view.start), Math.round(view.end)] }, { push });
    writingState = false;
  }

  /** Moves the view. kind: 'pan' (replaces the URL, throttled), 'zoom' (one history entry per gesture), 'jump' (push). */
  function setView(next, kind) {
    const before = view;
    view = clampWindow(next, bounds);
    if (view.start === before.start && view.end === before.end) return;
    let push;
    ({ push, lastZoomAt } = historyStep(kind, performance.now(), lastZoomAt));
    if (push) {
      // Keep the window before the move on the current entry (a pan may not be written yet), then push.
      const target = view;
      view = before;
      writeWindow(false);
      view = target;
      writeWindow(true);
    } else if (!urlTimer) urlTimer = setTimeout(() => writeWindow(false), URL_WRITE_MS);
    requestDraw();
  }

  const zoomAt = (anchorTime, factor) => setView(zoomAround(view, anchorTime, factor), 'zoom');
  const timeAtX = (x) => timeAt(view, width, x);

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
    loader.ensure(view.start, view.end, width, queriedLanes(layout.rows));
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const marks = findingMarks(findingList, view, width, state.get().finding);
    const counts = drawTimeline(g, {
      width, height: layout.height, dpr, view, rows: layout.rows, data: loader.current, colors,
      range: state.get().range, selected: selected ?? selectedSignpost, hover, rangeDrag, findingMarks: marks,
    });
    // How many findings are marked in this window (the browser tests and the ruler's header read it).
    if (canvas.dataset.findings !== String(marks.length)) canvas.dataset.findings = String(marks.length);
    performance.measure('timeline-draw', { start: began, end: performance.now() });
    if (performance.getEntriesByName('timeline-draw').length > 5000) performance.clearMeasures('timeline-draw');
    // Lane descriptions and the status line change the DOM: keep that out of frames while moving.
    if (!loader.loading && !held.size && !drag) describeLanes(counts);
    else { clearTimeout(describeTimer); describeTimer = setTimeout(() => requestDraw(), 300); }
    setText(windowLabel, `${formatTimestamp(view.start, (view.end - view.start) / 1000)} – ${formatTimestamp(view.end, (view.end - view.start) / 1000)} (${formatDuration(view.end - view.start)} visible)`);
    setText(status, loader.error ? `Timeline query failed: ${loader.error.message}` : loader.loading ? 'Loading…' : '');
    const loading = String(loader.loading);
    if (canvas.dataset.loading !== loading) canvas.dataset.loading = loading;
    // Which query the drawn marks come from (the browser tests ask the API the same).
    if (loader.current && canvas.dataset.query !== loader.current.query) canvas.dataset.query = loader.current.query;
  }

  function setText(node, text) {
    if (node && node.textContent !== text) node.textContent = text;
  }

  // Lane headers tell what is drawn (for screen readers, and the browser tests read the same).
  function describeLanes(counts) {
    for (const header of headers.querySelectorAll('[data-lane]')) {
      const stats = counts[header.dataset.lane];
      if (!stats) continue;
      const text = `${stats.marks} marks in view` + (stats.orange || stats.red ? `, ${stats.orange} orange, ${stats.red} red` : '') + (stats.merged ? ', some merged' : '');
      if (header.dataset.drawn === text) continue;
      header.dataset.drawn = text;
      header.dataset.marks = stats.marks;
      header.dataset.orange = stats.orange;
      header.dataset.red = stats.red;
      header.dataset.merged = stats.merged;
      header.setAttribute('aria-description', text);
    }
  }

  // ----- hit testing and tooltip -----
  function rowAt(y) {
    return layout.rows.find((row) => y >= row.y && y < row.y + row.height) ?? null;
  }

  function eventAt(row, x) {
    const lane = loader.current?.lanes?.[row.id];
    if (!lane || row.track) return null;
    const best = nearestEvent(lane, timeAtX(x), pixelsToTime(view, width, HIT_SLOP_PX));
    return best < 0 ? null : eventOf(lane, best);
  }

  function showTooltip(row, e, x, y) {
    const rows = [];
    const severityLabel = row.id === 'main-actor-waits' ? waitSeverityLabel : updateSeverityLabel;
    let title;
    if (row.cpu) {
      title = 'CPU';
      rows.push(['Load', `${Math.round((e.load ?? 0) * 100)} %`], ['Main thread', `${Math.round((e.mainLoad ?? 0) * 100)} %`], ['At', formatTimestamp(e.start)]);
    } else if (row.signposts && e.count <= 1) {
      title = e.label || row.title;
      const detail = e.signpost !== undefined ? signpostCache.get(e.signpost) : null;
      if (detail) {
        rows.push(['Subsystem', detail.subsystem || '—'], ['Category', detail.category || '—'], ['Name', detail.name]);
        rows.push(['Duration', detail.kind === 'event' ? 'event (instant)' : `${formatDuration(detail.duration)}${detail.kind === 'unended' ? ' (never ended)' : ''}`]);
        if (detail.beginMessage) rows.push([detail.kind === 'event' ? 'Message' : 'Begin message', detail.beginMessage]);
        if (detail.endMessage) rows.push(['End message', detail.endMessage]);
      } else {
        rows.push(['Lane', row.title], ['Duration', formatDuration(e.duration)]);
        if (e.signpost !== undefined) loadSignpost(e.signpost);
      }
      rows.push(['Start', formatTimestamp(e.start)]);
    } else if (e.count > 1) {
      title = `${countLabel(row, e.count)} (click or zoom in to separate them)`;
      rows.push(['Lane', row.title], ['Span', formatDuration(e.duration)]);
      if (row.long) rows.push(['Worst', severityLabel[e.severity] ?? e.severity]);
      rows.push(['Start', formatTimestamp(e.start)]);
    } else {
      title = e.label || row.title;
      if (e.kind) rows.push(['Kind', kindLabel[e.kind] ?? e.kind]);
      else rows.push(['Lane', row.title]);
      rows.push(['Duration', formatDuration(e.duration)]);
      // Update severities are duration classes of updates: a hitch or hang has its own kind (the label).
      if (row.long) rows.push(['Severity', severityLabel[e.severity] ?? e.severity]);
      rows.push(['Start', formatTimestamp(e.start)]);
      if (e.update !== undefined) rows.push(['Update', String(e.update)]);
    }
    tooltip.replaceChildren(el('div', { class: 'tt-title', text: title }),
      el('dl', {}, ...rows.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })])));
    tooltip.hidden = false;
    const box = tooltip.getBoundingClientRect();
    const left = Math.min(x + 14, width - box.width - 4);
    const top = y + 16 + box.height > layout.height ? Math.max(0, y - box.height - 8) : y + 16;
    tooltip.style.left = `${Math.max(0, left)}px`;
    tooltip.style.top = `${top}px`;
  }

  function updateHover(x, y) {
    const row = rowAt(y);
    const e = row && x >= 0 && x <= width ? eventAt(row, x) : null;
    const changed = hover?.event?.index !== e?.index || hover?.row !== row;
    lastPointer = { x, y };
    hover = e ? { row, event: e } : null;
    if (e) showTooltip(row, e, x, y);
    else tooltip.hidden = true;
    canvas.style.cursor = e && (e.update !== undefined || e.taskState !== undefined || e.signpost !== undefined || e.count > 1 || row.tasks) ? 'pointer' : '';
    if (changed) requestDraw();
  }

  // Signpost details for the tooltip (subsystem, category, messages), fetched once per row on hover.
  const signpostCache = new Map();
  const signpostLoading = new Set();
  function loadSignpost(row) {
    if (signpostLoading.has(row)) return;
    signpostLoading.add(row);
    ctx.api.get(`signposts/${row}`).then((detail) => {
      signpostCache.set(row, detail);
      if (hover?.event?.signpost === row && lastPointer) showTooltip(hover.row, hover.event, lastPointer.x, lastPointer.y);
    }).catch(() => {});
  }
  let lastPointer = null;

  function clearHover() {
    if (!hover && tooltip.hidden) return;
    hover = null;
    tooltip.hidden = true;
    requestDraw();
  }

  function activate(row, e) {
    if (!e || row.cpu) return;
    if (e.update !== undefined && e.count <= 1) { ctx.selectUpdate(e.update); return; }
    if (e.taskState !== undefined && e.count <= 1) { ctx.selectTaskState(e.taskState); return; }
    if (e.signpost !== undefined && e.count <= 1) {
      // The trace page shows the signpost with its "Set Inspection Range"; a page without a
      // details panel (the comparison's timelines) makes it the range at once, so each trace's
      // compared range, and the "ranges" alignment, can be a signpost interval.
      if (ctx.selectSignpost) ctx.selectSignpost(e.signpost);
      else ctx.setRange(e.start, e.start + Math.max(e.duration, 1), { zoom: false });
      return;
    }
    // Task intervals overlap (several tasks wait for the main actor at once): list what the mark holds.
    if (row.tasks) { ctx.selectTaskStates(row.id, e.start, e.start + Math.max(e.duration, 1)); return; }
    if (e.count > 1) {
      // A merged mark: zoom into it so its events separate.
      setView(markWindow(e), 'jump');
      return;
    }
    // A group, hitch or hang: make it the inspection range.
    ctx.setRange(e.start, e.start + Math.max(e.duration, 1), { zoom: false });
  }

  // ----- pointer: drag to pan, drag on the ruler for a range, click to select -----
  let drag = null;
  const localPoint = (event) => {
    const rect = canvas.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  };

  canvas.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    canvas.focus({ preventScroll: true, focusVisible: false });
    const { x, y } = localPoint(event);
    canvas.setPointerCapture(event.pointerId);
    drag = { x0: x, y0: y, view0: { ...view }, moved: false, onRuler: y < RULER_HEIGHT };
    clearHover();
  });
  canvas.addEventListener('pointermove', (event) => {
    const { x, y } = localPoint(event);
    if (!drag) { updateHover(x, y); return; }
    if (Math.abs(x - drag.x0) > 3 || Math.abs(y - drag.y0) > 3) drag.moved = true;
    if (!drag.moved) return;
    if (drag.onRuler) {
      const a = timeAtX(drag.x0);
      const b = timeAtX(Math.max(0, Math.min(width, x)));
      rangeDrag = [Math.min(a, b), Math.max(a, b)];
      requestDraw();
    } else {
      canvas.classList.add('dragging');
      setView(panBy(drag.view0, -pixelsToTime(drag.view0, width, x - drag.x0)), 'pan');
    }
  });
  const endDrag = (event) => {
    if (!drag) return;
    const { x, y } = localPoint(event);
    const finished = drag;
    drag = null;
    canvas.classList.remove('dragging');
    if (finished.onRuler) {
      if (finished.moved && rangeDrag && rangeDrag[1] - rangeDrag[0] > 0) ctx.setRange(rangeDrag[0], rangeDrag[1], { zoom: false });
      rangeDrag = null;
      requestDraw();
    } else if (finished.moved) {
      writeWindow(false);
    } else if (event.type === 'pointerup') {
      const row = rowAt(y);
      const e = row ? eventAt(row, x) : null;
      if (row?.track) toggleSwiftUI();
      else if (e) activate(row, e);
      else if (row && !row.cpu && state.get().update !== null && row.long) ctx.selectUpdate(null);
    }
  };
  canvas.addEventListener('pointerup', endDrag);
  canvas.addEventListener('pointercancel', endDrag);
  canvas.addEventListener('pointerleave', () => { if (!drag) clearHover(); });

  let pointerX = null;
  canvas.addEventListener('pointermove', (event) => { pointerX = localPoint(event).x; });
  canvas.addEventListener('pointerleave', () => { pointerX = null; });

  canvas.addEventListener('wheel', (event) => {
    event.preventDefault();
    const scale = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? width : 1;
    const dx = event.deltaX * scale;
    const dy = event.deltaY * scale;
    const { x } = localPoint(event);
    if (event.shiftKey || Math.abs(dx) > Math.abs(dy)) {
      setView(panBy(view, pixelsToTime(view, width, event.shiftKey ? dy : dx)), 'pan');
    } else {
      // Pinch gestures arrive as ctrl+wheel with small deltas: zoom faster for them.
      const factor = Math.exp(dy * (event.ctrlKey ? 0.01 : 0.0015));
      zoomAt(timeAtX(x), factor);
    }
    clearHover();
  }, { passive: false });

  // ----- keyboard: W/S zoom, A/D and arrows pan, held keys animate smoothly -----
  const held = new Set();
  let lastFrame = 0;
  const KEYS = { w: 'in', s: 'out', a: 'left', d: 'right', arrowup: 'in', arrowdown: 'out', arrowleft: 'left', arrowright: 'right' };

  function typingTarget(target) {
    return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
  }
  function onKeyDown(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typingTarget(event.target)) return;
    if (focusedKeysOnly && event.target !== canvas) return;
    const key = event.key.toLowerCase();
    // Arrows belong to whatever has focus (trees, lists); on the timeline or the page they move it.
    if (key.startsWith('arrow') && !(event.target === canvas || event.target === document.body || event.target === document.documentElement)) return;
    if (key === 'escape' && state.get().update !== null) { ctx.selectUpdate(null); return; }
    if (key === '[' || key === ']') { event.preventDefault(); stepLongUpdate(key === ']' ? 1 : -1); return; }
    const action = KEYS[key];
    if (!action) return;
    event.preventDefault();
    if (!held.has(action)) {
      held.add(action);
      if (action === 'in' || action === 'out') lastZoomAt = 0; // a new key press is a new zoom step in history
      // Move at once, so a single tap does something even if it is shorter than a frame.
      step(1 / 30);
      if (held.size === 1) { lastFrame = performance.now(); requestAnimationFrame(animate); }
    }
  }
  function onKeyUp(event) {
    const action = KEYS[event.key.toLowerCase()];
    if (action) held.delete(action);
    if (!held.size && urlTimer) writeWindow(false);
  }
  function step(seconds) {
    const anchor = pointerX !== null ? timeAtX(pointerX) : (view.start + view.end) / 2;
    const span = view.end - view.start;
    if (held.has('in')) zoomAt(anchor, Math.exp(-KEY_ZOOM_PER_S * seconds));
    if (held.has('out')) zoomAt(anchor, Math.exp(KEY_ZOOM_PER_S * seconds));
    if (held.has('left')) setView(panBy(view, -span * KEY_PAN_PER_S * seconds), 'pan');
    if (held.has('right')) setView(panBy(view, span * KEY_PAN_PER_S * seconds), 'pan');
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

  /**
   * Keyboard selection: the next / previous long update after the selection (from the window's edge
   * without one). The server finds it in the model, so one hidden in a merged mark is visited too;
   * presses queue, so fast repeats step one update each.
   */
  let stepping = Promise.resolve();
  function stepLongUpdate(direction) {
    stepping = stepping.then(async () => {
      const current = state.get().update;
      const params = { direction: direction > 0 ? 'next' : 'previous' };
      if (current !== null && current !== undefined) params.after = current;
      else params.at = Math.round(direction > 0 ? view.start : view.end);
      const { update } = await ctx.api.get('long-update', params);
      if (destroyed) return;
      if (!update) {
        toast(`No ${direction > 0 ? 'later' : 'earlier'} long update in this trace`);
        return;
      }
      const inView = update.start >= view.start && update.start + update.duration <= view.end;
      await ctx.selectUpdate(update.id, { zoom: !inView });
    }).catch((error) => toast(`Could not step to the long update: ${error.message}`));
  }

  // ----- state -----
  async function loadSelected(id) {
    if (id === null || id === undefined) { selected = null; requestDraw(); return; }
    if (selected?.id === id) return;
    try {
      const u = await ctx.api.get(`updates/${id}`);
      if (state.get().update !== id) return;
      const lanes = [...(SELECTED_LANES[u.kind] ?? [])].filter((lane) => !lane.startsWith('long-') || u.severity !== 'normal');
      selected = { id, start: u.start, duration: u.duration, lanes };
    } catch {
      selected = null;
    }
    requestDraw();
  }

  // The selected signpost is outlined on its lane like a selected update.
  let selectedSignpost = null;
  async function loadSelectedSignpost(row) {
    if (row === null || row === undefined) { selectedSignpost = null; requestDraw(); return; }
    try {
      const s = await ctx.api.get(`signposts/${row}`);
      if (state.get().signpost !== row) return;
      selectedSignpost = { id: `signpost-${row}`, start: s.start, duration: s.duration, lanes: [s.lane] };
    } catch {
      selectedSignpost = null;
    }
    requestDraw();
  }

  const unsubscribe = state.subscribe((next, changed) => {
    if (changed.includes('window') && !writingState && next.window) {
      view = clampWindow(next.window, bounds);
      requestDraw();
    }
    if (changed.includes('window') && !next.window) { view = clampWindow(wholeTrace, bounds); requestDraw(); }
    if (changed.includes('expanded')) {
      layout = layoutRows(next.expanded ?? [], laneOptions);
      buildHeaders();
      resize();
    }
    if (changed.includes('update')) loadSelected(next.update);
    if (changed.includes('signpost')) loadSelectedSignpost(next.signpost);
    if (changed.includes('range') || changed.includes('finding')) requestDraw();
  });

  const scheme = window.matchMedia('(prefers-color-scheme: dark)');
  const onScheme = () => { colors = readColors(document.documentElement); requestDraw(); };
  scheme.addEventListener('change', onScheme);
  const observer = new ResizeObserver(() => resize());
  observer.observe(wrap);
  const onDprChange = () => resize();
  window.addEventListener('resize', onDprChange);

  buildHeaders();
  resize();
  loadSelected(state.get().update);
  loadSelectedSignpost(state.get().signpost);
  if (!state.get().window) writeWindow(false);

  return {
    zoomToFit: () => setView(wholeTrace, 'jump'),
    getView: () => ({ ...view }),
    /** Writes a pending pan to the URL now (before a link is copied). */
    flush: () => { if (urlTimer) writeWindow(false); },
    destroy() {
      destroyed = true;
      clearTimeout(urlTimer);
      clearTimeout(describeTimer);
      loader.destroy();
      unsubscribe();
      observer.disconnect();
      scheme.removeEventListener('change', onScheme);
      window.removeEventListener('keydown', onKeyDown);
      window.removeEventListener('keyup', onKeyUp);
      window.removeEventListener('blur', clearHeld);
      window.removeEventListener('resize', onDprChange);
    },
  };
}
