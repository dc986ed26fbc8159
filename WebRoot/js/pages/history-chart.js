// The history chart: one metric over builds (GET /api/history). The layout is pure (node tests
// check it); drawing makes SVG with svg() and leaves what a click or hover does to the page.
import { svg } from '../dom.js';
import { formatCount, formatDuration } from '../format.js';

export const MARGIN = Object.freeze({ left: 72, right: 16, top: 24, bottom: 44 });

/** A metric's value as the page says it: durations as durations, the rest as counts. */
export function formatValue(value, unit) {
  return unit === 'ns' ? formatDuration(value) : formatCount(value);
}

/** Round steps for the value axis: 1, 2 or 5 times a power of ten, about `count` of them up to `max`. */
export function niceTicks(max, count = 4) {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw);
  const ticks = [];
  for (let value = 0; value < max + step / 2; value += step) ticks.push(value);
  if (ticks[ticks.length - 1] < max) ticks.push(ticks[ticks.length - 1] + step);
  return ticks;
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
  const values = builds.flatMap((build) => build.traces.map((trace) => trace.value));
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
    changes: (answer?.changePoints ?? []).map((change) => ({ ...change, x: xOf(change.index) - step / 2 })),
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
  const changes = layout.changes.map((change) => svg('g', { class: `hc-change hc-change-${change.direction}`, 'data-index': change.index },
    svg('line', { x1: change.x, x2: change.x, y1: MARGIN.top - 10, y2: bottom }),
    svg('text', { x: change.x + 4, y: MARGIN.top - 12, text: `${change.direction === 'up' ? '▲' : '▼'} ${change.label}` })));
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
    svg('line', { class: 'hc-axis', x1: MARGIN.left, x2: width - MARGIN.right, y1: bottom, y2: bottom }),
    ...changes,
    layout.builds.length > 1 ? svg('polyline', { class: 'hc-median', points: medians }) : null,
    ...builds);
}
