// The trace's notes along the ruler's top (lanes.js noteMarks): a flag over what each is about;
// the selected one outlined. Input: the marks.
import { RULER_HEIGHT } from '../lanes.js';

export const notesLayer = Object.freeze({
  id: 'notes',
  draw(g, { colors }, marks) {
    for (const mark of marks) {
      g.fillStyle = colors.accent;
      g.fillRect(mark.x, mark.y, mark.width, mark.height);
      g.fillRect(mark.x, mark.y, 2, RULER_HEIGHT - mark.y);
      if (mark.selected) {
        g.strokeStyle = colors.fg;
        g.lineWidth = 1.5;
        g.strokeRect(mark.x - 1, mark.y - 0.5, mark.width + 2, mark.height + 1);
      }
    }
  },
});
