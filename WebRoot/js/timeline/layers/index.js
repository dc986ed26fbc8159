// The timeline's overlays as layers: each overlay is one module, a layer {id, draw(g, frame, input)}.
// render.js draws the ruler and the lanes' marks, and the layers below and above the marks in the
// order listed here; `frame` is {width, height, view, xOf, rows, colors, counts}, `input` what the
// timeline hands the layer's id this frame (drawTimeline's `layers`); a layer without input
// (null or undefined) is not drawn. A new overlay adds its module and its place in a list.
import { findingsLayer } from './findings.js';
import { markerLayer } from './marker.js';
import { notesLayer } from './notes.js';
import { rangeEdgesLayer, rangeShadeLayer } from './range.js';
import { matchesLayer } from './matches.js';
import { selectionLayer } from './selection.js';
import { hoverLayer } from './hover.js';

/** Drawn under the marks (their colours stay true), in this order. */
export const BELOW_MARKS = Object.freeze([findingsLayer, markerLayer, notesLayer, rangeShadeLayer]);
/** Drawn over the marks, in this order. */
export const ABOVE_MARKS = Object.freeze([matchesLayer, selectionLayer, rangeEdgesLayer, hoverLayer]);

/** Every input a layer reads, by id: what drawTimeline's `layers` may carry. */
export const LAYER_INPUTS = Object.freeze([...new Set([...BELOW_MARKS, ...ABOVE_MARKS].map((layer) => layer.id))]);

/** Draws `layers` (a list above) with their inputs (`inputs[layer.id]`). */
export function drawLayers(g, layers, frame, inputs) {
  for (const layer of layers) {
    const input = inputs[layer.id];
    if (input !== null && input !== undefined) layer.draw(g, frame, input);
  }
}
