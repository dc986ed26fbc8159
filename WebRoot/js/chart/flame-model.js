// The flame graph's answer as data, free of the DOM (node tests): GET flamegraph's columns made
// boxes, a frame's call path (its zoom and focus), the breadcrumb of a zoom, the tooltip, and
// when the window needs a finer answer than the one drawn.
import { formatPercent, formatWeight } from '../format.js';
import { prepareBoxes } from './boxes.js';
import { sourceText } from '../source-link.js';

/** GET flamegraph (or compare/flamegraph) made drawable: {answer, boxes, parent, step}. */
export function prepareFlame(answer) {
  const f = answer.frames;
  const boxes = prepareBoxes({ depth: f.depth, x: f.x, width: f.total, name: f.name, kind: f.kind, names: answer.names });
  return { answer, boxes, parent: f.parent, step: f.step };
}

/**
 * The call path of frame `i`: its ancestors' steps and its own joined by "." or, in a pooled
 * differential answer (`runs`: no rows of any one recording), their names joined by newlines
 * (compare/flamegraph's `zoomNames`); null for a merged block.
 */
export function framePath(flame, i) {
  const pooled = Boolean(flame.answer.runs);
  const parts = [];
  for (let k = i; k >= 0; k = flame.parent[k]) {
    if (flame.boxes.kind[k] === 'merged' || (!pooled && !flame.step[k])) return null;
    parts.push(pooled ? flame.boxes.name[k] : flame.step[k]);
  }
  return parts.reverse().join(pooled ? '\n' : '.');
}

/** The frame whose path (`framePath`) is `path`, or -1. */
export function frameAtPath(flame, path) {
  if (!path) return -1;
  const pooled = Boolean(flame.answer.runs);
  for (let i = 0; i < flame.boxes.count; i += 1) {
    const last = pooled ? flame.boxes.name[i] : flame.step[i];
    if (last && path.endsWith(last) && framePath(flame, i) === path) return i;
  }
  return -1;
}

/** The frames from the root down to `i` (the breadcrumb of a zoom into it). */
export function ancestry(flame, i) {
  const chain = [];
  for (let k = i; k >= 0; k = flame.parent[k]) chain.push(k);
  return chain.reverse();
}

/** {from, to}: the window that shows frame `i` across the whole width. */
export function frameWindow(flame, i) {
  return { from: flame.boxes.x[i], to: flame.boxes.x[i] + flame.boxes.width[i] };
}

/**
 * Whether a window drawn `width` pixels wide needs a new answer: it reaches outside the part the
 * answer covers, or zooms in past the answer's resolution (its narrowest frame over 2 pixels).
 */
export function needsFinerAnswer(answer, view, width) {
  const [from, to] = answer.window;
  const outside = view.from < from - 1e-6 * (to - from) || view.to > to + 1e-6 * (to - from);
  const coveredOutside = outside && (from > 0 || to < answer.totalWeight);
  const perPixel = (view.to - view.from) / Math.max(1, width);
  return coveredOutside || answer.minWeight > 2 * Math.max(1, perPixel) * 1.0001;
}

/** The hover card of frame `i`: {title, lines}. `total`: the graph's weight the shares are of. */
export function flameTooltip(flame, i, { diff = null } = {}) {
  const a = flame.answer;
  const f = a.frames;
  const unit = a.unit;
  const weight = (value) => `${formatWeight(value, unit)} (${formatPercent(value, a.totalWeight)})`;
  if (f.kind[i] === 'merged') {
    return {
      title: `${f.merged[i]} frames, each narrower than a pixel`,
      lines: [['Together', weight(f.total[i])], ['Samples', String(f.samples[i])], ['', 'Click to zoom in and see them']],
    };
  }
  const lines = [
    [unit === 'cycles' ? 'Total cycles' : 'Total', weight(f.total[i])],
    [unit === 'cycles' ? 'Self cycles' : 'Self', weight(f.self[i])],
    ['Samples', String(f.samples[i])],
  ];
  const binary = a.binaries[f.binary[i]];
  if (binary) lines.unshift(['Binary', binary]);
  const source = frameSource(a, f, i);
  if (source) lines.unshift(['Source', sourceText(source)]);
  if (diff) {
    const before = diff.before;
    const beforeTotal = before.total[i];
    lines.push(['In A', beforeTotal == null ? 'not at this call path (new in B)'
      : `${formatWeight(beforeTotal, before.unit)} (${formatPercent(beforeTotal, before.totalWeight)}), self ${formatPercent(before.self[i], before.totalWeight)}`]);
    if (before.unit === unit) {
      const was = before.self[i] ?? 0;
      const change = f.self[i] - was;
      const perRun = diff.runs && (diff.runs.a > 1 || diff.runs.b > 1) ? ' a run' : '';
      lines.push(['Self time', `${formatWeight(was, unit)} before, ${formatWeight(f.self[i], unit)} after, ${change < 0 ? '−' : '+'}${formatWeight(Math.abs(change), unit)}${perRun}`]);
    }
    const delta = diff.selfDelta[i];
    lines.push(['Self share change', `${delta > 0 ? '+' : ''}${(delta * 100).toFixed(2)} points`]);
  }
  if (a.frames.foldedDepth?.includes(i)) lines.push(['', `Frames deeper than ${a.maxDepth} are charged here`]);
  return { title: a.names[f.name[i]], lines };
}

/** Frame `i` of `answer`'s `columns` (a flame graph's frames, a stack chart's boxes) as the CPU pane shows the selected one: {name, binary, path, source}. */
export function frameDetails(answer, columns, name, i, path = null) {
  return { name, binary: answer.binaries[columns.binary[i]] ?? '', path, source: frameSource(answer, columns, i) };
}

/** Frame (or box) `i`'s {path, line} in an answer with `sources` (Instruments 27 records them), or null. */
export function frameSource(answer, columns, i) {
  const index = columns.source?.[i] ?? -1;
  return index >= 0 ? answer.sources?.[index] ?? null : null;
}
