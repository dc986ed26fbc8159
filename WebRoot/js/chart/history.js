// The history chart: one metric over builds (GET /api/history). The layout is pure (node tests
// check it); drawing makes SVG with svg() and leaves what a click or hover does to the page.
import { svg } from '../dom.js';
import { formatCount, formatDuration } from '../format.js';
import { niceStep } from './axis.js';

export const MARGIN = Object.freeze({ left: 72, right: 16, top: 24, bottom: 44 });

/** A metric's value as the page says it: durations as durations, the rest as counts. */
export function formatValue(value, unit) {
  return unit === 'ns' ? formatDuration(value) : formatCount(value);
}

/** Round steps for the value axis: 1, 2 or 5 times a power of ten, about `count` of them up to `max`. */
export function niceTicks(max, count = 4) {
  if (!(max > 0)) return [0];
  const step = niceStep(max / count);
  const ticks = [];
  for (let value = 0; value < max + step / 2; value += step) ticks.push(value);
  if (ticks[ticks.length - 1] < max) ticks.push(ticks[ticks.length - 1] + step);
  return ticks;
}

/** How far either side of a segment's level the band reaches, in recordings' standard deviations:
 * about 95 % of the recordings of an unchanged build fall inside it. */
export const BAND_SIGMAS = 2;

/**
 * The noise band: for each stretch of builds between change points, its level (the geometric mean
 * of its recordings, on the log(value + 1) scale the step detection uses) and the values within
 * `BAND_SIGMAS` of the series' run-to-run spread (`answer.noise.sigma`) around it.
 */
export function noiseBands(answer) {
  const builds = answer?.builds ?? [];
  const sigma = answer?.noise?.sigma ?? 0;
  const cuts = [...new Set((answer?.changePoints ?? []).map((change) => change.index))].filter((i) => i > 0 && i < builds.length).sort((a, b) => a - b);
  const bands = [];
  let from = 0;
  for (const to of [...cuts, builds.length]) {
    const logs = builds.slice(from, to).flatMap((build) => build.traces.map((trace) => Math.log(Math.max(0, trace.value) + 1)));
    if (logs.length) {
      const mean = logs.reduce((sum, value) => sum + value, 0) / logs.length;
      const back = (log) => Math.max(0, Math.exp(log) - 1);
      bands.push({ from, to: to - 1, level: back(mean), low: back(mean - BAND_SIGMAS * sigma), high: back(mean + BAND_SIGMAS * sigma) });
    }
    from = to;
  }
  return bands;
}

/** A p-value in a chart label: "p<0.001", "p=0.004", "p=0.03". */
export function shortP(p) {
  if (!(p >= 0.001)) return 'p<0.001';
  return `p=${p >= 0.01 ? Number(p.toPrecision(1)) : Number(p.toFixed(3))}`;
}

/** A change point's strength in words: "1.34x, p<0.001", "0.50x, p=0.004, suspect", "0 → 10, exact". */
export function stepLabel(change, unit) {
  const step = change.step ?? {};
  const suspect = step.status === 'suspect' ? ', suspect' : '';
  if (step.exact) return `${formatValue(change.before, unit)} → ${formatValue(change.after, unit)}, exact${suspect}`;
  const ratio = 1 + (step.percent ?? 0) / 100;
  return `${ratio.toFixed(2)}x${step.pValue != null ? `, ${shortP(step.pValue)}` : ''}${suspect}`;
}

/** 0 (a step just at the threshold) … 1 (four times the threshold or more, or an exact count): how bold its marker is. */
export function stepWeight(step) {
  if (!step || step.exact) return 1;
  const ratio = (step.strength ?? 0) / (step.threshold || 1);
  return Math.min(1, Math.max(0, Math.log(Math.max(ratio, 1)) / Math.log(4)));
}

/**
 * Where everything sits in a chart `width` × `height`: each build (its x, the spread of its
 * traces, its median, its points), the value ticks, the change points (between a build and the
 * one before) and which build labels fit under the axis.
 */
export function chartLayout(answer, width, height) {
  const builds = answer?.builds ?? [];
  const plotWidth = Math.max(1, width - MARGIN.left - MARGIN.right);
  const plotHeight = Math.max(1, height - MARGIN.top - MARGIN.bottom);
  const bands = noiseBands(answer);
  const values = [...builds.flatMap((build) => build.traces.map((trace) => trace.value)), ...bands.map((band) => band.high)];
  const ticks = niceTicks(Math.max(0, ...values));
  const top = ticks[ticks.length - 1] || 1;
  const step = builds.length > 1 ? plotWidth / (builds.length - 1) : 0;
  const xOf = (index) => MARGIN.left + (builds.length > 1 ? index * step : plotWidth / 2);
  const yOf = (value) => MARGIN.top + plotHeight - (value / top) * plotHeight;
  // Labels at least 56 px apart; the change points' builds always get theirs.
  const every = Math.max(1, Math.ceil(56 / Math.max(step, 1)));
  const changed = new Set((answer?.changePoints ?? []).map((change) => change.index));
  return {
    width, height, plotWidth, plotHeight, top,
    ticks: ticks.map((value) => ({ value, y: yOf(value) })),
    builds: builds.map((build) => ({
      index: build.index, label: build.label, x: xOf(build.index),
      median: yOf(build.median), min: yOf(build.min), max: yOf(build.max),
      labelled: build.index % every === 0 || changed.has(build.index) || build.index === builds.length - 1,
      checks: build.traces.map((trace) => trace.check).filter(Boolean),
      points: build.traces.map((trace) => ({ id: trace.id, name: trace.name, value: trace.value, check: trace.check, x: xOf(build.index), y: yOf(trace.value) })),
    })),
    changes: (answer?.changePoints ?? []).map((change) => ({ ...change, x: xOf(change.index) - step / 2, weight: stepWeight(change.step) })),
    // A band reaches half a build beyond its first and last (to the change point's line), within the plot.
    bands: bands.map((band) => ({
      ...band,
      x1: Math.max(MARGIN.left, xOf(band.from) - step / 2), x2: Math.min(width - MARGIN.right, xOf(band.to) + step / 2),
      yLevel: yOf(band.level), yLow: yOf(band.low), yHigh: yOf(band.high),
    })),
  };
}

/**
 * The chart as SVG. `point(p, build)` gives each point's props (its role, label, handlers);
 * `selected` holds the ids of the points picked for a comparison.
 */
export function drawChart(layout, unit, { point, selected = new Set() }) {
  const { width, height } = layout;
  const bottom = height - MARGIN.bottom;
  const grid = layout.ticks.map((tick) => svg('g', { class: 'hc-tick' },
    svg('line', { x1: MARGIN.left, x2: width - MARGIN.right, y1: tick.y, y2: tick.y }),
    svg('text', { x: MARGIN.left - 6, y: tick.y + 4, 'text-anchor': 'end', text: formatValue(tick.value, unit) })));
  const medians = layout.builds.map((build) => `${build.x},${build.median}`).join(' ');
  const bands = layout.bands.map((band) => svg('g', { class: 'hc-band', 'data-from': band.from, 'data-to': band.to },
    svg('rect', { x: band.x1, y: band.yHigh, width: Math.max(1, band.x2 - band.x1), height: Math.max(1, band.yLow - band.yHigh) }),
    svg('line', { class: 'hc-level', x1: band.x1, x2: band.x2, y1: band.yLevel, y2: band.yLevel })));
  // A stronger step draws a bolder line and a larger marker; a suspect one is dashed.
  const changes = layout.changes.map((change) => svg('g', {
    class: `hc-change hc-change-${change.direction}${change.step?.status === 'suspect' ? ' hc-suspect' : ''}`, 'data-index': change.index,
    'data-strength': change.step?.exact ? 'exact' : (change.step?.strength ?? 0).toFixed(2), opacity: (0.45 + 0.55 * change.weight).toFixed(2),
  },
    svg('line', { x1: change.x, x2: change.x, y1: MARGIN.top - 10, y2: bottom, 'stroke-width': (1.5 + 2.5 * change.weight).toFixed(2) }),
    svg('circle', { class: 'hc-strength', cx: change.x, cy: MARGIN.top - 10, r: (3 + 4 * change.weight).toFixed(1) }),
    svg('text', { class: 'hc-step-label', x: change.x + 9, y: MARGIN.top - 6,
      text: `${change.direction === 'up' ? '▲' : '▼'} ${change.label} · ${stepLabel(change, unit)}` })));
  const builds = layout.builds.map((build) => svg('g', { class: 'hc-build', 'data-build': build.label },
    build.points.length > 1 ? svg('line', { class: 'hc-spread', x1: build.x, x2: build.x, y1: build.min, y2: build.max }) : null,
    ...build.points.map((p) => svg('circle', {
      cx: p.x, cy: p.y, r: selected.has(p.id) ? 6 : 4.5,
      class: ['hc-point', p.check ? (p.check.passed ? 'hc-pass' : 'hc-fail') : '', selected.has(p.id) ? 'hc-selected' : ''].filter(Boolean).join(' '),
      'data-trace-id': p.id, ...point(p, build),
    })),
    build.checks.length ? svg('rect', { class: build.checks.every((c) => c.passed) ? 'hc-verdict hc-pass' : 'hc-verdict hc-fail',
      x: build.x - 4, y: bottom + 4, width: 8, height: 6 }) : null,
    build.labelled ? svg('text', { class: 'hc-label', x: build.x, y: bottom + 24, 'text-anchor': 'middle', text: build.label }) : null));
  return svg('svg', { class: 'history-chart', width, height, viewBox: `0 0 ${width} ${height}`, role: 'group', 'aria-label': 'History chart' },
    ...grid,
    ...bands,
    svg('line', { class: 'hc-axis', x1: MARGIN.left, x2: width - MARGIN.right, y1: bottom, y2: bottom }),
    ...changes,
    layout.builds.length > 1 ? svg('polyline', { class: 'hc-median', points: medians }) : null,
    ...builds);
}
