// The inspection range (or the one being dragged): shaded under the marks so their colours stay
// true, and its edges and length (on the ruler, where it fits) over them. Input: [start, end].
import { formatDuration } from '../../format.js';
import { RULER_HEIGHT } from '../lanes.js';

export const rangeShadeLayer = Object.freeze({
  id: 'range',
  draw(g, { width, height, xOf, colors }, [start, end]) {
    const x0 = Math.max(xOf(start), -1);
    const x1 = Math.min(xOf(end), width + 1);
    if (x1 < 0 || x0 > width) return;
    g.fillStyle = colors.range;
    g.fillRect(x0, 0, Math.max(x1 - x0, 1), height);
  },
});

export const rangeEdgesLayer = Object.freeze({
  id: 'range',
  draw(g, { width, height, xOf, colors }, [start, end]) {
    const x0 = xOf(start);
    const x1 = xOf(end);
    g.fillStyle = colors['range-edge'];
    if (x0 >= 0 && x0 <= width) g.fillRect(Math.round(x0), 0, 1, height);
    if (x1 >= 0 && x1 <= width) g.fillRect(Math.round(x1), 0, 1, height);
    const text = formatDuration(end - start);
    const left = Math.max(x0, 0);
    const right = Math.min(x1, width);
    g.font = '600 11px system-ui, "DejaVu Sans", sans-serif';
    const textWidth = g.measureText(text).width;
    if (right - left > textWidth + 10) {
      const x = (left + right - textWidth) / 2;
      g.fillStyle = colors['bg-alt'];
      g.fillRect(x - 4, RULER_HEIGHT - 14, textWidth + 8, 13);
      g.fillStyle = colors.fg;
      g.fillText(text, x, RULER_HEIGHT - 7);
    }
  },
});
