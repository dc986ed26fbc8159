// Canvas drawing of the ruler and lanes, and of the overlays through their layers (layers/).
// Pure: takes the view, the rows, the loaded data and each layer's input.
import { tickLabel } from '../format.js';
import { niceStep } from '../chart/axis.js';
import { countLabel, RULER_HEIGHT, SEVERITIES, visibleSpan } from './lanes.js';
import { ABOVE_MARKS, BELOW_MARKS, drawLayers } from './layers/index.js';
import { trackLit } from './layers/matches.js';

const COLOR_NAMES = ['bg', 'bg-alt', 'fg', 'muted', 'border', 'accent', 'orange', 'red', 'gray-event', 'hitch', 'hang', 'signpost', 'cpu', 'cpu-main', 'range', 'range-edge', 'lane-alt', 'match'];

export function readColors(element) {
  const style = getComputedStyle(element);
  const colors = {};
  for (const name of COLOR_NAMES) colors[name] = style.getPropertyValue(`--${name}`).trim() || '#888';
  return colors;
}

/** A 1-2-5 step giving ticks at least `minPx` apart. */
export function tickStep(nsPerPx, minPx = 90) {
  return niceStep(Math.max(nsPerPx * minPx, 1));
}

function eventColor(row, severity, colors) {
  if (row.long) return severity === 'red' ? colors.red : severity === 'orange' ? colors.orange : colors['gray-event'];
  return colors[row.color] ?? colors['gray-event'];
}

/**
 * Draws the ruler, the lanes' marks and the overlays (layers/: `layers` is their input by id:
 * {findings, notes, marker, range, matches, selection, hover}); returns per-lane counts of drawn
 * marks (for the lane headers' accessible descriptions): {laneId: {marks, orange, red, merged, matches}}.
 */
export function drawTimeline(g, { width, height, dpr = 1, view, rows, data, colors, layers = {} }) {
  const k = width / (view.end - view.start);
  const xOf = (t) => (t - view.start) * k;
  g.clearRect(0, 0, width, height);
  g.fillStyle = colors.bg;
  g.fillRect(0, 0, width, height);
  drawBands(g, rows, width, colors);
  drawRuler(g, { width, height, view, k, xOf, colors, origin: layers.marker?.rulerFromMarker ? layers.marker.time : 0 });
  const counts = {};
  const frame = { width, height, view, xOf, rows, colors, counts };
  drawLayers(g, BELOW_MARKS, frame, layers);
  const lanes = data?.lanes ?? {};
  for (const row of rows) {
    if (row.track) {
      // The note gives way to the find box's matches drawn on the collapsed row.
      if (!row.expanded && !trackLit(row, layers.matches)) drawNote(g, row, 'Click to expand: every update in View Body, Representable and Other Updates', colors);
      continue;
    }
    const lane = lanes[row.id];
    const stats = { marks: 0, orange: 0, red: 0, merged: !!lane?.merged, loaded: !!lane };
    counts[row.id] = stats;
    if (!lane) continue;
    if (!row.cpu) drawEventLane(g, row, lane, stats, { view, k, width, dpr, colors });
    else if (lane.length) drawCPU(g, lane, row, view, k, width, dpr, colors);
    else drawNote(g, row, 'No CPU samples in this window', colors);
  }
  drawLayers(g, ABOVE_MARKS, frame, layers);
  return counts;
}

/** Lane backgrounds and separators; the stacked rows of a signpost group share its band. */
function drawBands(g, rows, width, colors) {
  let band = -1;
  for (const row of rows) {
    if (!row.stacked) band += 1;
    if (band % 2) { g.fillStyle = colors['lane-alt']; g.fillRect(0, row.y, width, row.height); }
  }
  g.fillStyle = colors.border;
  rows.forEach((row, i) => { if (!rows[i + 1]?.stacked) g.fillRect(0, row.y + row.height - 1, width, 1); });
}

/** The ruler and the grid: ticks at whole steps from `origin` (the trace's clock, or the marker's time: "+20 ms"). */
function drawRuler(g, { width, height, view, k, xOf, colors, origin }) {
  const step = tickStep(1 / k);
  g.fillStyle = colors['bg-alt'];
  g.fillRect(0, 0, width, RULER_HEIGHT);
  g.fillStyle = colors.border;
  g.fillRect(0, RULER_HEIGHT - 1, width, 1);
  g.font = '11px system-ui, "DejaVu Sans", sans-serif';
  g.textBaseline = 'middle';
  const firstTick = origin + Math.ceil((view.start - origin) / step) * step;
  for (let t = firstTick; t <= view.end; t += step) {
    const x = Math.round(xOf(t)) + 0.5;
    g.fillStyle = colors.border;
    g.fillRect(x - 0.5, RULER_HEIGHT - 8, 1, 8);
    g.globalAlpha = 0.45;
    g.fillRect(x - 0.5, RULER_HEIGHT, 1, height - RULER_HEIGHT);
    g.globalAlpha = 1;
    g.fillStyle = colors.muted;
    const label = tickLabel(t - origin, step, firstTick - origin);
    g.fillText(origin && t > origin && !label.startsWith('+') ? `+${label}` : label, x + 3, 10);
  }
  // Minor ticks (fifths of a step).
  g.fillStyle = colors.border;
  for (let t = firstTick - step; t <= view.end; t += step / 5) {
    const x = Math.round(xOf(t));
    if (x >= 0 && x <= width) g.fillRect(x, RULER_HEIGHT - 4, 1, 4);
  }
}

/**
 * The marks of an update or interval lane, counted into `stats`. Marks of one severity that touch
 * on screen are drawn as one rectangle, and each severity is filled in one go: at a 1M-update
 * zoom-out most of a lane is runs of 1-pixel marks, and the canvas is rasterized on the CPU, so
 * fewer rectangles means faster frames.
 */
function drawEventLane(g, row, lane, stats, { view, k, width, dpr, colors }) {
  const top = row.y + 4;
  const h = row.height - 8;
  const rects = [[], [], []];
  const runStart = [NaN, NaN, NaN];
  const runEnd = [NaN, NaN, NaN];
  const labelled = [];
  const mixed = [];   // red marks that merge orange updates too: [x0, x1, ...]
  const { start, duration, severity, label, count, alsoOrange } = lane;
  const [first, last] = visibleSpan(lane, view.start, view.end);
  for (let i = first; i < last; i++) {
    const x0 = (start[i] - view.start) * k;
    const x1 = (start[i] + duration[i] - view.start) * k;
    if (x1 < 0 || x0 > width) continue;
    const sev = severity[i];
    stats.marks++;
    if (sev === 1) stats.orange++;
    else if (sev === 2) stats.red++;
    // Snap to device pixels: crisp edges, and a 1-pixel mark keeps its full colour.
    const left = Math.round(x0 * dpr) / dpr;
    const right = Math.max(Math.round(x1 * dpr) / dpr, left + 1);
    if (left <= runEnd[sev]) {
      if (right > runEnd[sev]) runEnd[sev] = right;
    } else {
      if (runEnd[sev] === runEnd[sev]) rects[sev].push(runStart[sev], runEnd[sev]);
      runStart[sev] = left;
      runEnd[sev] = right;
    }
    if (alsoOrange?.[i]) mixed.push(left, right);
    if (right - left > 36 && (label[i] >= 0 || count[i] > 1)) labelled.push(i);
  }
  for (let sev = 0; sev < 3; sev++) {
    if (runEnd[sev] === runEnd[sev]) rects[sev].push(runStart[sev], runEnd[sev]);
    const list = rects[sev];
    if (!list.length) continue;
    g.fillStyle = eventColor(row, SEVERITIES[sev], colors);
    for (let j = 0; j < list.length; j += 2) g.fillRect(list[j], top, list[j + 1] - list[j], h);
  }
  // Red is drawn over orange; where they share pixels (a zoom-out), or a red mark merges orange
  // updates too, orange stays visible as a strip along the bottom of the red (as Instruments
  // shows both), so long updates next to very long ones are not lost.
  if (row.long) {
    g.fillStyle = colors.orange;
    const strip = Math.max(3, Math.round(h / 3));
    for (const [x0, x1] of overlaps(rects[1], rects[2])) g.fillRect(x0, top + h - strip, x1 - x0, strip);
    for (let j = 0; j < mixed.length; j += 2) g.fillRect(mixed[j], top + h - strip, mixed[j + 1] - mixed[j], strip);
    stats.alsoOrange = mixed.length / 2;
  }
  // Hangs are striped: their red differs from a very long update's red by more than hue.
  if (row.color === 'hang') {
    for (let sev = 0; sev < 3; sev++) stripe(g, rects[sev], top, h, colors.bg);
  }
  if (labelled.length) drawLabels(g, row, lane, labelled, { view, k, width, colors });
}

/** The labels of the marks wide enough for one (`labelled`: their indices), clipped to the lane. */
function drawLabels(g, row, lane, labelled, { view, k, width, colors }) {
  const { start, duration, severity, label, count } = lane;
  g.save();
  g.beginPath();
  g.rect(0, row.y, width, row.height);
  g.clip();
  g.font = '11px system-ui, "DejaVu Sans", sans-serif';
  for (const i of labelled) {
    const x0 = Math.max((start[i] - view.start) * k, 0);
    const x1 = Math.min((start[i] + duration[i] - view.start) * k, width);
    const sev = severity[i];
    const light = row.color === 'accent' || row.color === 'hitch' || row.color === 'signpost' || sev === 2;
    // The hang colour is dark in light mode and light in dark mode: the page background reads on it.
    g.fillStyle = row.color === 'hang' ? colors.bg : light ? '#ffffff' : row.long && sev === 0 ? colors.fg : '#1d1f23';
    // A merged mark says how many it holds ("5 updates"), or just the number where that does not fit.
    let text = label[i] >= 0 ? lane.labels[label[i]] : countLabel(row, count[i]);
    const room = x1 - x0 - 8;
    // A signpost's label is "Name: message": the message only where it fits, else the name alone.
    if (row.signposts && label[i] >= 0 && text.includes(': ') && g.measureText(text).width > room) text = text.slice(0, text.indexOf(': '));
    const fitted = label[i] >= 0 || g.measureText(text).width <= room ? fitText(g, text, room) : fitText(g, String(count[i]), room);
    if (fitted) g.fillText(fitted, x0 + 4, row.y + row.height / 2);
  }
  g.restore();
}

function drawCPU(g, lane, row, view, k, width, dpr, colors) {
  // A stacked load graph: the main thread's share (dark) under the other threads' (light).
  // Rectangles only: a stroked line over thousands of columns costs more to rasterize than all lanes.
  const bottom = row.y + row.height - 2;
  const h = row.height - 6;
  const { start, duration, load, mainLoad } = lane;
  if (!load) return;
  const total = [];
  const main = [];
  const [first, last] = visibleSpan(lane, view.start, view.end);
  for (let i = first; i < last; i++) {
    const x0 = (start[i] - view.start) * k;
    const x1 = (start[i] + duration[i] - view.start) * k;
    if (x1 < 0 || x0 > width) continue;
    const left = Math.round(x0 * dpr) / dpr;
    const w = Math.max(Math.round(x1 * dpr) / dpr - left, 1 / dpr);
    const all = Math.max(0, Math.min(1, load[i])) * h;
    const mine = Math.min(all, Math.max(0, Math.min(1, mainLoad[i])) * h);
    if (all > mine) total.push(left, bottom - all, w, all - mine);
    if (mine > 0) main.push(left, bottom - mine, w, mine);
  }
  for (const [list, color] of [[total, colors.cpu], [main, colors['cpu-main']]]) {
    g.fillStyle = color;
    for (let j = 0; j < list.length; j += 4) g.fillRect(list[j], list[j + 1], list[j + 2], list[j + 3]);
  }
}

function drawNote(g, row, text, colors) {
  g.font = '11px system-ui, "DejaVu Sans", sans-serif';
  g.fillStyle = colors.muted;
  g.fillText(text, 8, row.y + row.height / 2);
}

/** `text` cut with an ellipsis to fit `maxWidth` pixels, or '' when not even a few letters fit. */
function fitText(g, text, maxWidth) {
  if (maxWidth < 14) return '';
  const full = g.measureText(text).width;
  if (full <= maxWidth) return text;
  let length = Math.floor(text.length * maxWidth / full);
  while (length > 1 && g.measureText(`${text.slice(0, length)}…`).width > maxWidth) length--;
  return length > 1 ? `${text.slice(0, length)}…` : '';
}

/** Where two sorted lists of [x0, x1, x0, x1, ...] runs overlap, as [x0, x1] pairs. */
export function overlaps(a, b) {
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x0 = Math.max(a[i], b[j]);
    const x1 = Math.min(a[i + 1], b[j + 1]);
    if (x1 > x0) out.push([x0, x1]);
    if (a[i + 1] < b[j + 1]) i += 2; else j += 2;
  }
  return out;
}

/** Diagonal stripes in `color` over the runs [x0, x1, ...] of one lane. */
function stripe(g, runs, top, h, color) {
  if (!runs.length) return;
  g.save();
  g.beginPath();
  for (let j = 0; j < runs.length; j += 2) g.rect(runs[j], top, runs[j + 1] - runs[j], h);
  g.clip();
  g.strokeStyle = color;
  g.globalAlpha = 0.45;
  g.lineWidth = 2;
  g.beginPath();
  for (let j = 0; j < runs.length; j += 2) {
    for (let x = runs[j] - h; x < runs[j + 1]; x += 6) { g.moveTo(x, top + h); g.lineTo(x + h, top); }
  }
  g.stroke();
  g.restore();
}
