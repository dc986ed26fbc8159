// The mark under the pointer, framed in the accent colour (not on the CPU lane). Input: {row, event}.
export const hoverLayer = Object.freeze({
  id: 'hover',
  draw(g, { xOf, colors }, { row, event }) {
    if (!event || row.cpu) return;
    const x0 = xOf(event.start);
    const x1 = Math.max(xOf(event.start + event.duration), x0 + 1);
    g.strokeStyle = colors.accent;
    g.lineWidth = 1.5;
    g.strokeRect(x0 - 1.5, row.y + 2.5, x1 - x0 + 3, row.height - 5);
  },
});
