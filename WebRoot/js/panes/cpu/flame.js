// The CPU pane's flame graph (icicle: callers above callees, the roots on top), of the samples and
// transforms the call tree has: width = weight, siblings heaviest first. Click a frame to zoom
// into it (its path is fz= in the URL; the breadcrumb leads back), Escape zooms out one level;
// Ctrl/Cmd + wheel and W/S zoom, drag and A/D pan. The server draws at most what the width can
// show (narrower frames merged), so zooming past that asks again for the part in view.
import { el } from '../../dom.js';
import { message, paneLoader } from '../common.js';
import { kindColor, clampView, matchingBoxes } from '../../chart/boxes.js';
import { kindLegendItems, mountBoxCanvas } from '../../chart/box-canvas.js';
import { ancestry, flameTooltip, frameAtPath, frameDetails, framePath, frameWindow, needsFinerAnswer, prepareFlame } from '../../chart/flame-model.js';
import { cpuChanged, cpuParams } from './settings.js';

const REFETCH_MS = 120;

/** Mounts the flame graph in `container`; `pane` (index.js) shows its totals and notes. */
export function mountFlameView(container, traceView, pane) {
  const { state } = traceView;
  let flame = null;          // prepareFlame(answer)
  let view = { from: 0, to: 1 };
  let selected = -1;
  let searchText = state.get().search ?? '';
  let matches = null;
  let refetchTimer = 0;
  const loader = paneLoader(pane.status);

  const breadcrumb = el('nav', { class: 'cpu-breadcrumb', 'aria-label': 'Zoomed frame' });
  const legend = el('div', { class: 'cpu-legend', role: 'group', 'aria-label': 'Flame graph colours' });
  const area = el('div', { class: 'cpu-flame' });
  container.replaceChildren(el('div', { class: 'cpu-view-tools' }, breadcrumb, legend), area);
  const chart = mountBoxCanvas(area, {
    label: 'Flame graph of the CPU samples. Click a frame to zoom into it; Ctrl or Cmd and the wheel zoom, drag pans, Escape zooms out.',
    boxes: () => flame?.boxes ?? null,
    bounds: () => ({ from: 0, to: Math.max(1, flame?.answer.totalWeight ?? 1) }),
    view: () => view,
    setView(next, kind) {
      view = next;
      chart.draw();
      if (kind !== 'animate') scheduleRefetch();
    },
    fill: (i, dim) => kindColor(flame.boxes.kind[i], flame.boxes.name[i], dim),
    labelOf: (i) => flame.boxes.name[i],
    tooltip: (i) => flameTooltip(flame, i),
    click,
    selected: () => selected,
    matches: () => matches,
    escape: zoomOut,
  });
  chart.canvas.id = 'cpu-flame-canvas';

  function params(extra = {}) {
    const s = state.get();
    const p = { ...cpuParams(s), width: Math.max(100, Math.round(chart.canvas.clientWidth || 1000)), ...extra };
    if (s.flameZoom) p.zoom = s.flameZoom;
    if (searchText.trim() && (s.hideSystem || s.charged?.length || s.focus)) p.search = searchText.trim();
    return p;
  }

  /** Asks for the graph; `keepView`: a finer answer for the window shown (not a new graph). */
  function refresh({ keepView = false } = {}) {
    clearTimeout(refetchTimer);
    const windowed = keepView && flame ? { from: Math.floor(view.from), to: Math.ceil(view.to) } : {};
    loader.run('flame graph', () => traceView.api.get('flamegraph', params(windowed)), (answer) => show(answer, keepView));
  }

  function show(answer, keepView) {
    // From here to the first draw is the graph's cost in the browser (scripts/bench-flamegraph.py).
    performance.mark('cpu-flame-answer');
    const previous = flame;
    flame = prepareFlame(answer);
    chart.canvas.dataset.frames = String(flame.boxes.count);
    if (!keepView || !previous) view = { from: answer.window[0], to: answer.window[1] };
    selected = state.get().flameZoom ? frameAtPath(flame, state.get().flameZoom) : -1;
    report();
    pane.showAnswer(answer, state.get().focus ? flame.boxes.name[flame.boxes.rows[0]?.[0]] : null);
    if (state.get().flameZoom && !answer.zoomFound) pane.status.replaceChildren(message('The zoomed frame has no samples here: showing the whole graph.'));
    applySearch();
    renderBreadcrumb();
    renderLegend();
    chart.resize();
    if (answer.frames.depth.length === 0) pane.status.replaceChildren(message(answer.sampleCount ? 'Nothing to draw.' : 'No CPU samples here.'));
  }

  function scheduleRefetch() {
    clearTimeout(refetchTimer);
    if (!flame || !needsFinerAnswer(flame.answer, view, chart.canvas.clientWidth || 1000)) return;
    refetchTimer = setTimeout(() => refresh({ keepView: true }), REFETCH_MS);
  }

  function click(i) {
    if (i < 0 || !flame) { selected = -1; report(); chart.draw(); return; }
    if (flame.answer.frames.kind[i] === 'merged') {
      // A merged block: zoom into its extent; the finer answer shows its frames.
      chart.animateTo(clampView([flame.boxes.x[i], flame.boxes.x[i] + flame.boxes.width[i]], { from: 0, to: flame.answer.totalWeight }));
      return;
    }
    selected = i;
    report();
    chart.animateTo(frameWindow(flame, i));
    const path = framePath(flame, i);
    if (path !== state.get().flameZoom) {
      writingZoom = true;
      state.set({ flameZoom: path }, { push: true });
      writingZoom = false;
    }
    renderBreadcrumb();
  }
  let writingZoom = false;

  function zoomOut() {
    const zoomed = flame ? frameAtPath(flame, state.get().flameZoom) : -1;
    if (zoomed < 0) { chart.animateTo({ from: 0, to: flame?.answer.totalWeight ?? 1 }); return; }
    const parent = flame.parent[zoomed];
    if (parent >= 0) click(parent);
    else { state.set({ flameZoom: null }, { push: true }); }
  }

  function report() {
    if (selected < 0 || !flame) { pane.select(null); return; }
    const path = framePath(flame, selected);
    const base = state.get().focus;
    // Below a focus the graph's root is the focused frame: paths go on from the focus.
    pane.select(frameDetails(flame.answer, flame.answer.frames, flame.boxes.name[selected], selected, path && (base ? [base, ...path.split('.').slice(1)].join('.') : path)));
  }

  function renderBreadcrumb() {
    const zoomed = flame ? frameAtPath(flame, state.get().flameZoom) : -1;
    const item = (text, onclick, current) => el('button', { type: 'button', class: 'cpu-crumb', 'aria-current': current ? 'true' : null, onclick }, text);
    const chain = zoomed >= 0 ? ancestry(flame, zoomed) : [];
    breadcrumb.replaceChildren(
      item('All frames', () => state.set({ flameZoom: null }, { push: true }), chain.length === 0),
      ...chain.flatMap((k, n) => [el('span', { class: 'cpu-crumb-sep', 'aria-hidden': 'true' }, '›'),
        item(flame.boxes.name[k], () => click(k), n === chain.length - 1)]));
  }

  function renderLegend() {
    legend.replaceChildren(...kindLegendItems(flame?.boxes.kind ?? []),
      matches ? el('span', { class: 'cpu-legend-item' }, `Search: ${matches.size} matching frame${matches.size === 1 ? '' : 's'} in colour, the others grey`) : '');
  }

  function applySearch() {
    const q = searchText.trim().toLowerCase();
    matches = q && flame ? matchingBoxes(flame.boxes, q) : null;
    pane.showSearch(searchText.trim(), !!matches?.size, flame?.answer.hiddenMatches);
    chart.canvas.dataset.matches = String(matches?.size ?? 0);
    renderLegend();
    chart.draw();
  }

  refresh();
  return {
    search(text) { searchText = text; applySearch(); },
    update(s, changed) {
      if (cpuChanged(s, changed)) { searchText = s.search ?? ''; refresh(); return; }
      if (changed.has('flameZoom') && !writingZoom) refresh();
      if (changed.has('search') && (s.search ?? '') !== searchText) { searchText = s.search ?? ''; applySearch(); }
      if (changed.has('search') && (s.hideSystem || s.charged?.length || s.focus)) refresh({ keepView: true });
    },
    focus() { chart.canvas.focus(); },
    destroy() {
      clearTimeout(refetchTimer);
      loader.stop();
      chart.destroy();
      container.replaceChildren();
    },
  };
}
