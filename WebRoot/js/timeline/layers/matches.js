// The find box's matches (search.js): a band in the match colour under each matching span and a
// frame around it, so a lit mark reads at any zoom (a 1-pixel match is widened to 3). A collapsed
// SwiftUI track shows its lanes' matches on its own row. Input: {laneId: [start, end, start, end…]};
// it adds `matches` to the lane counts (the headers' descriptions).

/** The lanes a collapsed track stands for. */
export const TRACK_LANES = Object.freeze({ swiftui: ['view-body', 'representable', 'other'] });

/** Whether `row` (a collapsed track) shows matches of its lanes: its "click to expand" note gives way. */
export const trackLit = (row, matches) => (TRACK_LANES[row.id] ?? []).some((lane) => matches?.[lane]?.length);

export const matchesLayer = Object.freeze({
  id: 'matches',
  draw(g, { rows, counts, xOf, width, colors }, matches) {
    for (const row of rows) {
      const lanes = row.track && !row.expanded ? TRACK_LANES[row.id] ?? [] : [row.id];
      const spans = lanes.flatMap((lane) => {
        const list = matches[lane] ?? [];
        return Array.from({ length: list.length / 2 }, (_, j) => [list[2 * j], list[2 * j + 1]]);
      });
      if (counts[row.id]) counts[row.id].matches = spans.length;
      else if (spans.length) counts[row.id] = { marks: 0, orange: 0, red: 0, merged: false, matches: spans.length };
      g.fillStyle = colors.match;
      g.strokeStyle = colors.match;
      g.lineWidth = 2;
      for (const [start, end] of spans) {
        let x0 = xOf(start);
        let x1 = xOf(end);
        if (x1 < -3 || x0 > width + 3) continue;
        if (x1 - x0 < 3) { const mid = (x0 + x1) / 2; x0 = mid - 1.5; x1 = mid + 1.5; }
        g.fillRect(x0, row.y + row.height - 4, x1 - x0, 3);
        g.strokeRect(x0 - 1, row.y + 1, x1 - x0 + 2, row.height - 6);
      }
    }
  },
});
