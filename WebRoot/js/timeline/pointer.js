// The pointer over the timeline's canvas: which mark is under it (hit testing), its tooltip (with
// what the lane kind asks the API for, fetched once per path), the cursor, and what a click does
// (kinds.js: select, make the range, zoom; a note's flag on the ruler; the SwiftUI track's toggle).
import { showTooltipAt } from '../chart/tooltip.js';
import { selectedUpdate } from '../state.js';
import { eventOf, nearestEvent, noteMarkAt, RULER_HEIGHT } from './lanes.js';
import { clickOf, clickable, NOTE_MARK, tooltipDetail, tooltipOf } from './kinds.js';
import { pixelsToTime, timeAt } from './viewport.js';

const HIT_SLOP_PX = 3;                // a mark this close to the pointer counts as under it

/**
 * The pointer of one timeline. `rows()`, `size()` ({width, height}), `lanes()` (the loaded lanes),
 * `view()` and `notes()` (the drawn note marks) read the timeline's current frame; `redraw()` asks
 * for a frame; `toggleTrack()` opens or closes the SwiftUI track; `setView(window, kind)` moves the
 * window. Returns {hovered() → {row, event} | null, update(x, y), clear(), click(x, y)}.
 */
export function createPointer({ canvas, tooltip, traceView, rows, size, lanes, view, notes, redraw, toggleTrack, setView }) {
  let hover = null;         // {row, event}
  let lastPointer = null;
  const details = new Map(); // what a tooltip asks the API for (a signpost's messages), by path

  const rowAt = (y) => rows().find((row) => y >= row.y && y < row.y + row.height) ?? null;

  function eventAt(row, x) {
    const lane = lanes()?.[row.id];
    if (!lane || row.track) return null;
    const now = view();
    const { width } = size();
    const best = nearestEvent(lane, timeAt(now, width, x), pixelsToTime(now, width, HIT_SLOP_PX));
    return best < 0 ? null : eventOf(lane, best);
  }

  function showTooltip(row, e, x, y) {
    const path = tooltipDetail(row, e);
    if (path && !details.has(path)) {
      details.set(path, null);
      traceView.api.get(path).then((answer) => {
        details.set(path, answer);
        if (hover && lastPointer && tooltipDetail(hover.row, hover.event) === path) showTooltip(hover.row, hover.event, lastPointer.x, lastPointer.y);
      }).catch(() => details.delete(path));
    }
    showTooltipAt(tooltip, tooltipOf(row, e, path ? details.get(path) : null), x, y, size());
  }

  function update(x, y) {
    const note = y < RULER_HEIGHT ? noteMarkAt(notes(), x, y) : null;
    if (note) {
      if (hover) { hover = null; redraw(); }
      showTooltipAt(tooltip, NOTE_MARK.tooltip(note.note), x, y, size());
      canvas.style.cursor = 'pointer';
      return;
    }
    const row = rowAt(y);
    const e = row && x >= 0 && x <= size().width ? eventAt(row, x) : null;
    const changed = hover?.event?.index !== e?.index || hover?.row !== row;
    lastPointer = { x, y };
    hover = e ? { row, event: e } : null;
    if (e) showTooltip(row, e, x, y);
    else tooltip.hidden = true;
    canvas.style.cursor = e && clickable(row, e) ? 'pointer' : '';
    if (changed) redraw();
  }

  function clear() {
    if (!hover && tooltip.hidden) return;
    hover = null;
    tooltip.hidden = true;
    redraw();
  }

  /** A click that did not drag: open or close the SwiftUI track, do what the mark's lane kind says, or drop a selected update. */
  function click(x, y) {
    if (y < RULER_HEIGHT) {
      const note = noteMarkAt(notes(), x, y);
      if (note) traceView.select(NOTE_MARK.click(note.note).select);
      return;
    }
    const row = rowAt(y);
    const e = row ? eventAt(row, x) : null;
    if (row?.track) { toggleTrack(); return; }
    const target = e ? clickOf(row, e) : null;
    if (target?.select) traceView.select(target.select, { span: target.span });
    else if (target?.range) traceView.setRange(target.range[0], target.range[1], { zoom: false });
    else if (target?.zoom) setView(target.zoom, 'jump');
    else if (!e && row?.long && selectedUpdate(traceView.state.get()) !== null) traceView.select(null);
  }

  return { hovered: () => hover, update, clear, click };
}
