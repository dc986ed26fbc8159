// The tooltip of a canvas (the timeline's marks, the boxes of a flame graph or stack chart):
// {title, lines} beside the pointer, kept inside the canvas.
import { el } from '../dom.js';

/** Fills `tooltip` with {title, lines: [[name, value]]} beside the pointer at (x, y), inside `bounds` ({width, height}). */
export function showTooltipAt(tooltip, { title, lines }, x, y, bounds) {
  tooltip.replaceChildren(el('div', { class: 'tt-title', text: title }),
    el('dl', {}, ...lines.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })])));
  tooltip.hidden = false;
  const box = tooltip.getBoundingClientRect();
  const left = Math.min(x + 14, bounds.width - box.width - 4);
  const top = y + 16 + box.height > bounds.height ? Math.max(0, y - box.height - 8) : y + 16;
  tooltip.style.left = `${Math.max(0, left)}px`;
  tooltip.style.top = `${top}px`;
}
