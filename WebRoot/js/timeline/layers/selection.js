// The selection, outlined where its mark is on the lanes its descriptor names (selections/), with
// guide lines through the lanes. Input: {start, duration, lanes}.
import { RULER_HEIGHT } from '../lanes.js';

export const selectionLayer = Object.freeze({
  id: 'selection',
  draw(g, { rows, width, height, xOf, colors }, selected) {
    const x0 = xOf(selected.start);
    const x1 = Math.max(xOf(selected.start + selected.duration), x0 + 1);
    if (x1 < -2 || x0 > width + 2) return;
    g.strokeStyle = colors.fg;
    g.lineWidth = 2;
    for (const row of rows) {
      if (selected.lanes.includes(row.id)) g.strokeRect(x0 - 1, row.y + 2, x1 - x0 + 2, row.height - 4);
    }
    g.globalAlpha = 0.6;
    g.setLineDash([3, 3]);
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(Math.round(x0) + 0.5, RULER_HEIGHT);
    g.lineTo(Math.round(x0) + 0.5, height);
    g.moveTo(Math.round(x1) + 0.5, RULER_HEIGHT);
    g.lineTo(Math.round(x1) + 0.5, height);
    g.stroke();
    g.setLineDash([]);
    g.globalAlpha = 1;
  },
});
