// The marker (the comparison's anchor): a line across ruler and lanes under the marks (they keep
// their colour), its label on the ruler; none without a label. Input: {time, label}.
import { RULER_HEIGHT } from '../lanes.js';

export const markerLayer = Object.freeze({
  id: 'marker',
  draw(g, { width, height, xOf, colors }, marker) {
    const x = xOf(marker.time);
    if (x < -1 || x > width + 1 || !marker.label) return;
    g.fillStyle = colors.fg;
    g.globalAlpha = 0.75;
    g.fillRect(Math.round(x) - 1, 0, 2, height);
    g.globalAlpha = 1;
    g.font = '600 11px system-ui, "DejaVu Sans", sans-serif';
    const textWidth = g.measureText(marker.label).width;
    const left = x + 4 + textWidth + 6 <= width ? x + 4 : x - textWidth - 10;
    g.fillRect(left, RULER_HEIGHT - 15, textWidth + 6, 14);
    g.fillStyle = colors.bg;
    g.fillText(marker.label, left + 3, RULER_HEIGHT - 8);
  },
});
