// The timeline's overlays as layers (WebRoot/js/timeline/layers/): each overlay one module, drawn
// by render.js through one interface, under or over the lanes' marks, only when it has input.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { ABOVE_MARKS, BELOW_MARKS, LAYER_INPUTS, drawLayers } from '../../WebRoot/js/timeline/layers/index.js';
import { drawTimeline } from '../../WebRoot/js/timeline/render.js';
import { layoutRows } from '../../WebRoot/js/timeline/lanes.js';

/** A 2D context that records what is drawn: fill rectangles with their colour, stroked rectangles, text. */
function recordingContext() {
  const calls = [];
  const g = {
    fillStyle: '', strokeStyle: '', lineWidth: 1, globalAlpha: 1, font: '', textBaseline: '',
    fillRect: (x, y, w, h) => calls.push(['fill', g.fillStyle, x, y, w, h]),
    strokeRect: (x, y, w, h) => calls.push(['stroke', g.strokeStyle, x, y, w, h]),
    fillText: (text) => calls.push(['text', g.fillStyle, text]),
    measureText: (text) => ({ width: text.length * 6 }),
  };
  for (const name of ['clearRect', 'save', 'restore', 'beginPath', 'rect', 'clip', 'moveTo', 'lineTo', 'stroke', 'setLineDash']) g[name] = () => {};
  return { g, calls };
}

const COLORS = new Proxy({}, { get: (_, name) => `c:${String(name)}` });
const VIEW = { start: 0, end: 1_000 };
const lane = (events) => ({
  length: events.length,
  start: Float64Array.from(events.map(([s]) => s)), duration: Float64Array.from(events.map(([, d]) => d)),
  severity: Uint8Array.from(events.map(([, , sev]) => sev)), label: Int32Array.from(events.map(() => -1)),
  count: Uint32Array.from(events.map(() => 1)), labels: [],
});

test('every overlay module is a layer, listed once, below or above the marks', () => {
  const folder = new URL('../../WebRoot/js/timeline/layers/', import.meta.url);
  const modules = readdirSync(folder).filter((name) => name !== 'index.js').sort();
  assert.deepEqual(modules, ['findings.js', 'hover.js', 'marker.js', 'matches.js', 'notes.js', 'range.js', 'selection.js']);
  for (const layer of [...BELOW_MARKS, ...ABOVE_MARKS]) assert.equal(typeof layer.draw, 'function', layer.id);
  assert.deepEqual([...LAYER_INPUTS].sort(), ['findings', 'hover', 'marker', 'matches', 'notes', 'range', 'selection']);
});

test('a layer without input is not drawn', () => {
  const { g, calls } = recordingContext();
  drawLayers(g, [...BELOW_MARKS, ...ABOVE_MARKS], { width: 100, height: 100, view: VIEW, xOf: (t) => t / 10, rows: [], colors: COLORS, counts: {} }, {});
  assert.deepEqual(calls, []);
});

test('the range shades under the marks and edges over them; the selection outlines its lanes over the marks', () => {
  const { rows, height } = layoutRows([], { hasTasks: false });
  const body = rows.find((row) => row.id === 'long-view-body');
  const { g, calls } = recordingContext();
  drawTimeline(g, {
    width: 1_000, height, view: VIEW, rows, colors: COLORS,
    data: { lanes: { 'long-view-body': lane([[100, 50, 2]]) } },
    layers: { range: [50, 400], selection: { start: 100, duration: 50, lanes: ['long-view-body'] } },
  });
  const index = (predicate) => calls.findIndex(predicate);
  const shade = index(([op, colour]) => op === 'fill' && colour === 'c:range');
  const mark = index(([op, colour, , y]) => op === 'fill' && colour === 'c:red' && y === body.y + 4);
  const edge = index(([op, colour]) => op === 'fill' && colour === 'c:range-edge');
  const outline = index(([op, colour, , y]) => op === 'stroke' && colour === 'c:fg' && y === body.y + 2);
  assert.ok(shade >= 0 && mark >= 0 && edge >= 0 && outline >= 0, JSON.stringify({ shade, mark, edge, outline }));
  assert.ok(shade < mark && mark < edge && mark < outline, 'shade, then the marks, then the edges and the outline');
  assert.ok(calls.some(([op, , text]) => op === 'text' && text === '350 ns'), 'the range says its length on the ruler');
});

test('find matches light a collapsed track instead of its note, and are counted for the lane headers', () => {
  const { rows, height } = layoutRows([], { hasTasks: false });
  const draw = (matches) => {
    const { g, calls } = recordingContext();
    const counts = drawTimeline(g, { width: 1_000, height, view: VIEW, rows, colors: COLORS, data: { lanes: {} }, layers: { matches } });
    return { calls, counts };
  };
  const note = ([op, , text]) => op === 'text' && String(text).startsWith('Click to expand');
  assert.ok(draw(null).calls.some(note));
  const lit = draw({ 'view-body': [100, 200, 300, 301] });
  assert.ok(!lit.calls.some(note));
  assert.equal(lit.counts.swiftui.matches, 2);
  assert.ok(lit.calls.some(([op, colour]) => op === 'stroke' && colour === 'c:match'));
});
