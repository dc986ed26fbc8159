// The comparison's differential flame graph (GET /api/compare/flamegraph): B's flame graph, each
// frame coloured by the change of its self time per run (red: grew, blue: shrank; saturating at 5%
// of the larger side's CPU), or, toggled, by the change of its self share of its side's CPU, the functions A ran and B no longer does listed beside it. Of the compared ranges, or
// (drilled into a view row) of that view's bodies only. Click a frame to zoom into it; the zoom
// stays in the page. Several recordings a side are pooled (weights per run), zoomed by names.
import { getJSON } from '../../api.js';
import { el } from '../../dom.js';
import { formatPercent, formatWeight } from '../../format.js';
import { clampView, diffColor } from '../../chart/boxes.js';
import { mountBoxCanvas } from '../../chart/box-canvas.js';
import { ancestry, flameTooltip, frameAtPath, framePath, frameWindow, needsFinerAnswer, prepareFlame } from '../../chart/flame-model.js';

/**
 * Mounts the graph into `container`: `a`, `b` (each side's trace ids: one, or several pooled),
 * `rangeA`, `rangeB` ([start, end] or null; of a side of one recording), `view` ({view, module}
 * to compare that view's bodies, or null). Returns {destroy()}.
 */
export function mountDiffFlame(container, { a, b, rangeA, rangeB, view = null }) {
  let flame = null;
  let diff = null;
  let zoom = null;          // the zoomed frame's path (in B; its names when pooled)
  const pooled = a.length > 1 || b.length > 1;
  let shown = { from: 0, to: 1 };
  let refetchTimer = 0;
  let generation = 0;
  let destroyed = false;

  const caption = el('p', { class: 'meta diff-caption' });
  const breadcrumb = el('nav', { class: 'cpu-breadcrumb', 'aria-label': 'Zoomed frame' });
  let byShare = false;
  const scaleText = el('span', { class: 'diff-scale-text' });
  const colourBy = el('select', { class: 'diff-colour-by', 'aria-label': 'Colour frames by',
    onchange: () => { byShare = colourBy.value === 'share'; renderScale(); chart.recolour(); } },
  el('option', { value: 'time', text: 'Self time, B against A' }), el('option', { value: 'share', text: 'Self share of CPU, B against A' }));
  const scale = el('span', { class: 'diff-scale' }, colourBy,
    el('span', { class: 'diff-scale-bar', 'aria-hidden': 'true',
      style: { background: `linear-gradient(to right, ${diffColor(-0.05)}, ${diffColor(0)}, ${diffColor(0.05)})` } }),
    scaleText);
  const area = el('div', { class: 'cpu-flame diff-flame-graph' });
  const removed = el('aside', { class: 'diff-removed', 'aria-label': 'Functions that went away' });
  container.replaceChildren(caption, el('div', { class: 'cpu-view-tools' }, breadcrumb, scale),
    el('div', { class: 'diff-flame' }, area, removed));

  const chart = mountBoxCanvas(area, {
    label: 'Differential flame graph: B’s frames, red where their self time grew against A, blue where it shrank. Click a frame to zoom into it.',
    boxes: () => flame?.boxes ?? null,
    bounds: () => ({ from: 0, to: Math.max(1, flame?.answer.totalWeight ?? 1) }),
    view: () => shown,
    setView(next, kind) {
      shown = next;
      chart.draw();
      clearTimeout(refetchTimer);
      if (kind !== 'animate' && flame && needsFinerAnswer(flame.answer, shown, width())) refetchTimer = setTimeout(() => load(true), 120);
    },
    fill: (i) => (flame.boxes.kind[i] === 'merged' ? 'hsl(0 0% 86%)' : diffColor(byShare ? diff.selfDelta[i] : diff.selfTimeDelta[i])),
    labelOf: (i) => flame.boxes.name[i],
    tooltip: (i) => flameTooltip(flame, i, { diff }),
    click(i) {
      if (i < 0 || !flame) return;
      if (flame.boxes.kind[i] === 'merged') {
        chart.animateTo(clampView([flame.boxes.x[i], flame.boxes.x[i] + flame.boxes.width[i]], { from: 0, to: flame.answer.totalWeight }));
        return;
      }
      zoom = framePath(flame, i);
      chart.animateTo(frameWindow(flame, i));
      renderBreadcrumb();
    },
    selected: () => (flame && zoom ? frameAtPath(flame, zoom) : -1),
    matches: () => null,
    escape: () => {
      const zoomed = flame && zoom ? frameAtPath(flame, zoom) : -1;
      if (zoomed < 0) return;
      const parent = flame.parent[zoomed];
      zoom = parent >= 0 ? framePath(flame, parent) : null;
      chart.animateTo(parent >= 0 ? frameWindow(flame, parent) : { from: 0, to: flame.answer.totalWeight });
      renderBreadcrumb();
    },
  });
  chart.canvas.id = view ? 'diff-flame-canvas-view' : 'diff-flame-canvas';

  const width = () => Math.max(100, Math.round(chart.canvas.clientWidth || 1000));

  async function load(keepView = false) {
    const mine = ++generation;
    const params = { a: a.join(','), b: b.join(','), width: width() };
    if (rangeA && a.length === 1) Object.assign(params, { aStart: rangeA[0], aEnd: rangeA[1] });
    if (rangeB && b.length === 1) Object.assign(params, { bStart: rangeB[0], bEnd: rangeB[1] });
    if (view) Object.assign(params, { view: view.view, module: view.module });
    if (zoom) params[pooled ? 'zoomNames' : 'zoom'] = zoom;
    if (keepView) Object.assign(params, { from: Math.floor(shown.from), to: Math.ceil(shown.to) });
    container.setAttribute('aria-busy', 'true');
    try {
      const answer = await getJSON('/api/compare/flamegraph', params);
      if (destroyed || mine !== generation) return;
      flame = prepareFlame(answer);
      diff = { before: answer.before, selfDelta: answer.selfDelta, selfTimeDelta: answer.selfTimeDelta, runs: answer.runs };
      if (!keepView) shown = { from: answer.window[0], to: answer.window[1] };
      chart.canvas.dataset.frames = String(flame.boxes.count);
      render(answer);
      renderScale();
      chart.resize();
    } catch (error) {
      if (!destroyed && mine === generation) caption.replaceChildren(el('span', { class: 'error-box', text: `Could not draw the differential flame graph: ${error.message}` }));
    }
    container.setAttribute('aria-busy', 'false');
  }

  function render(answer) {
    const before = answer.before;
    const what = view ? `${view.view}’s bodies` : pooled ? 'the recordings' : 'the compared ranges';
    const perRun = (runs) => (runs > 1 ? ` a run (the mean of ${runs} recordings)` : '');
    caption.textContent = `B (after) drawn, ${formatWeight(answer.totalWeight, answer.unit)} of CPU${perRun(answer.runs?.b)} in ${answer.sampleCount} samples; `
      + `A (before) had ${formatWeight(before.totalWeight, before.unit)}${perRun(answer.runs?.a)} in ${before.sampleCount}. Of ${what}; width is B’s weight.`
      + (before.unit !== answer.unit ? ' The two traces weigh samples in different units: shares are compared, not weights.' : '');
    removed.replaceChildren(el('h3', { text: `Gone in B (${answer.removedCount})` }),
      answer.removed.length ? el('ol', { id: view ? 'diff-removed-view' : 'diff-removed-list' }, ...answer.removed.map((f) => el('li', { dataset: { name: f.name } },
        el('span', { class: f.kind === 'app' ? 'app-code' : null, text: f.name }),
        el('span', { class: 'meta', text: ` ${f.binary} · ${formatPercent(f.share, 1)} of A${f.caller ? ` · called by ${f.caller}` : ''}` }))))
        : el('p', { class: 'meta', text: 'Every function A ran, B runs too.' }),
      answer.removedCount > answer.removed.length ? el('p', { class: 'meta', text: `and ${answer.removedCount - answer.removed.length} lighter ones` }) : '');
    renderBreadcrumb();
  }

  /** The legend's words: where the colour saturates, in ms (a run) or in points of share. */
  function renderScale() {
    const answer = flame?.answer;
    if (byShare || !answer) {
      scaleText.textContent = 'shrank 5 points · unchanged · grew 5 points';
    } else {
      const full = formatWeight(Math.round(0.05 * Math.max(answer.totalWeight, answer.before.totalWeight)), answer.unit);
      scaleText.textContent = `shrank ${full}${pooled ? ' a run' : ''} · unchanged · grew ${full}`;
    }
    area.dataset.colourBy = byShare ? 'share' : 'time';
  }

  function renderBreadcrumb() {
    const zoomed = flame && zoom ? frameAtPath(flame, zoom) : -1;
    const chain = zoomed >= 0 ? ancestry(flame, zoomed) : [];
    const item = (text, onclick, current) => el('button', { type: 'button', class: 'cpu-crumb', 'aria-current': current ? 'true' : null, onclick }, text);
    breadcrumb.replaceChildren(
      item('All frames', () => { zoom = null; chart.animateTo({ from: 0, to: flame?.answer.totalWeight ?? 1 }); renderBreadcrumb(); }, !chain.length),
      ...chain.flatMap((k, n) => [el('span', { class: 'cpu-crumb-sep', 'aria-hidden': 'true' }, '›'),
        item(flame.boxes.name[k], () => { zoom = framePath(flame, k); chart.animateTo(frameWindow(flame, k)); renderBreadcrumb(); }, n === chain.length - 1)]));
  }

  // After the first layout, so the answer is drawn for the width the graph has.
  requestAnimationFrame(() => { if (!destroyed) load(); });
  return {
    destroy() {
      destroyed = true;
      clearTimeout(refetchTimer);
      chart.destroy();
    },
  };
}

/** The section of the whole comparison's graph (`graphs` collects what to destroy on a rebuild). */
export function diffFlameSection(c, s, { a, b, graphs }) {
  const section = el('section', { class: 'compare-section', id: 'compare-flame', 'aria-label': 'Differential flame graph' },
    el('h2', { text: 'CPU: differential flame graph' }), pooledFlameNote(c));
  const body = el('div');
  section.append(body);
  graphs.push(mountDiffFlame(body, { a, b, rangeA: s.rangeA, rangeB: s.rangeB }));
  return section;
}

/**
 * `c`: GET compare's answer. With several recordings a side, the line that names the recordings
 * each side's flame graph pools (weights per run); null for one recording a side.
 */
export function pooledFlameNote(c) {
  if (c.a.runs <= 1 && c.b.runs <= 1) return null;
  const side = (name, s) => `${name}: ${s.runs > 1 ? `${s.runs} recordings pooled (${(s.runNames ?? []).join(', ')})` : s.name}`;
  return el('p', { class: 'meta diff-pooled-note', text: `${side('A', c.a)}; ${side('B', c.b)}. Weights are per run: the mean over a side’s recordings.` });
}
