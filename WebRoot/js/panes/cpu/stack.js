// The CPU pane's stack chart: one thread's samples in time order under the timeline's window
// (x = time; the chart and the timeline pan and zoom together), each stack a column of frames,
// callers above callees, consecutive samples sharing a frame drawn as one box. The server draws
// at most what the width can show (shorter boxes merged), so a zoom asks again.
import { el } from '../../dom.js';
import { formatDuration, message, paneLoader } from '../common.js';
import { formatTimestamp } from '../../format.js';
import { kindColor, matchingBoxes, prepareBoxes } from '../../chart/boxes.js';
import { kindLegendItems, mountBoxCanvas } from '../../chart/box-canvas.js';
import { cpuChanged, cpuParams } from './settings.js';
import { frameDetails, frameSource } from '../../chart/flame-model.js';
import { sourceText } from '../../source-link.js';

const REFETCH_MS = 120;

/** Mounts the stack chart in `container`; `pane` (index.js) shows its totals and notes. */
export function mountStackView(container, traceView, pane) {
  const { state, trace } = traceView;
  const time = traceView.timeWindow;
  let chart = null;          // {answer, boxes}
  let view = toView(time.get());
  let selected = -1;
  let searchText = state.get().search ?? '';
  let matches = null;
  let refetchTimer = 0;
  const loader = paneLoader(pane.status);

  const about = el('span', { class: 'cpu-stack-about' });
  const legend = el('div', { class: 'cpu-legend', role: 'group', 'aria-label': 'Stack chart colours' });
  const area = el('div', { class: 'cpu-stack' });
  container.replaceChildren(el('div', { class: 'cpu-view-tools' }, about, legend), area);
  const canvas = mountBoxCanvas(area, {
    label: 'Stack chart: the samples of one thread in time order. Ctrl or Cmd and the wheel zoom, drag pans, as on the timeline.',
    boxes: () => chart?.boxes ?? null,
    bounds: () => ({ from: trace.start, to: Math.max(trace.end, trace.start + 1000) }),
    view: () => view,
    setView(next, kind) {
      view = next;
      canvas.draw();
      time.set([next.from, next.to], kind === 'animate' ? 'pan' : kind);
    },
    fill: (i, dim) => kindColor(chart.boxes.kind[i], chart.boxes.name[i], dim),
    labelOf: (i) => chart.boxes.name[i],
    tooltip,
    click(i) {
      selected = i;
      const b = chart?.answer.boxes;
      pane.select(i >= 0 && b.kind[i] !== 'merged' ? frameDetails(chart.answer, b, chart.boxes.name[i], i) : null);
      canvas.draw();
    },
    selected: () => selected,
    matches: () => matches,
    escape: () => { selected = -1; pane.select(null); canvas.draw(); },
  });
  canvas.canvas.id = 'cpu-stack-canvas';

  function toView(w) {
    return { from: w.start, to: w.end };
  }

  function thread(s) {
    return s.cpuThread ?? (trace.threads ?? []).find((t) => t.isMain)?.index ?? null;
  }

  function refresh() {
    clearTimeout(refetchTimer);
    const s = state.get();
    const span = view.to - view.from;
    // A window and a half on each side, so a pan draws from what is here while the next answer comes.
    const params = { ...cpuParams(s, { forStack: true }), start: Math.floor(view.from - span), end: Math.ceil(view.to + span),
      width: Math.max(100, Math.round(3 * (canvas.canvas.clientWidth || 1000))) };
    const t = thread(s);
    if (t != null) params.thread = t;
    loader.run('stack chart', () => traceView.api.get('stackchart', params), show);
  }

  function show(answer) {
    const b = answer.boxes;
    chart = { answer, boxes: prepareBoxes({ depth: b.depth, x: b.start, width: b.end.map((end, i) => end - b.start[i]), name: b.name, kind: b.kind, names: answer.names }) };
    canvas.canvas.dataset.boxes = String(chart.boxes.count);
    selected = -1;
    pane.select(null);
    const name = (trace.threads ?? []).find((t) => t.index === answer.thread)?.name ?? 'no thread';
    about.textContent = `${name}: ${answer.sampleCount} samples, about one every ${formatDuration(answer.sampleInterval)}`;
    pane.showAnswer({ sampleCount: answer.sampleCount, totalWeight: answer.sampleCount * answer.sampleInterval, unit: answer.unit }, null, { ranked: false });
    applySearch();
    legend.replaceChildren(...kindLegendItems(chart.boxes.kind));
    canvas.resize();
    if (!b.depth.length) pane.status.replaceChildren(message('No samples of this thread in the window.'));
  }

  function tooltip(i) {
    const b = chart.answer.boxes;
    const duration = b.end[i] - b.start[i];
    const lines = [['Start', formatTimestamp(b.start[i], duration / 100)], ['Duration', formatDuration(duration)], ['Samples', String(b.samples[i])]];
    const binary = chart.answer.binaries[b.binary[i]];
    if (binary) lines.unshift(['Binary', binary]);
    const source = frameSource(chart.answer, b, i);
    if (source) lines.unshift(['Source', sourceText(source)]);
    return { title: b.kind[i] === 'merged' ? 'Frames narrower than a pixel, merged' : chart.boxes.name[i], lines };
  }

  /** Whether the answer drawn covers the window at its resolution. */
  function stale() {
    if (!chart) return true;
    const a = chart.answer;
    const perPixel = (view.to - view.from) / Math.max(1, canvas.canvas.clientWidth || 1000);
    return view.from < a.start || view.to > a.end || a.minDuration > 2 * perPixel;
  }

  function applySearch() {
    const q = searchText.trim().toLowerCase();
    matches = q && chart ? matchingBoxes(chart.boxes, q) : null;
    pane.showSearch(searchText.trim(), !!matches?.size, null);
    canvas.draw();
  }

  const unsubscribe = time.subscribe((w) => {
    view = toView(w);
    canvas.draw();
    clearTimeout(refetchTimer);
    if (stale()) refetchTimer = setTimeout(refresh, REFETCH_MS);
  });
  refresh();
  return {
    search(text) { searchText = text; applySearch(); },
    update(s, changed) {
      if (cpuChanged(s, changed)) refresh();
      if (changed.has('search') && (s.search ?? '') !== searchText) { searchText = s.search ?? ''; applySearch(); }
    },
    focus() { canvas.canvas.focus(); },
    destroy() {
      clearTimeout(refetchTimer);
      loader.stop();
      unsubscribe();
      canvas.destroy();
      container.replaceChildren();
    },
  };
}
