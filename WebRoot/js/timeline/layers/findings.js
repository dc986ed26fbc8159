// The trace's findings along the ruler's foot (lanes.js findingMarks), coloured by severity
// (docs/findings.md); the open one outlined. Input: the marks.
export const findingsLayer = Object.freeze({
  id: 'findings',
  draw(g, { colors }, marks) {
    for (const mark of marks) {
      g.fillStyle = mark.severity === 'high' ? colors.red : mark.severity === 'medium' ? colors.orange : colors.muted;
      g.fillRect(mark.x, mark.y, mark.width, mark.height);
      if (mark.open) {
        g.strokeStyle = colors.fg;
        g.lineWidth = 1;
        g.strokeRect(mark.x - 0.5, mark.y - 0.5, mark.width + 1, mark.height + 1);
      }
    }
  },
});
