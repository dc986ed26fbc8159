// A Main Actor lane mark that holds several intervals (tm=lane:start,end): its id is
// {lane, start, end, row}, `row` the interval picked from its list (ts=), null for the longest.
// Outlined as the picked interval, else as the mark itself (nothing to ask).
import { wholeNumber } from './keys.js';
import { taskStateExtent } from './task-state.js';

export const taskStates = Object.freeze({
  kind: 'task-states',
  fromQuery(params) {
    const mark = /^([a-z0-9-]+):(\d+),(\d+)$/.exec(params.get('tm') ?? '');
    if (!mark || Number(mark[3]) <= Number(mark[2])) return null;
    return { lane: mark[1], start: Number(mark[2]), end: Number(mark[3]), row: wholeNumber(params.get('ts')) };
  },
  toQuery: (id) => [`tm=${id.lane}:${Math.round(id.start)},${Math.round(id.end)}`, ...(id.row != null ? [`ts=${Math.round(id.row)}`] : [])],
  resource: (id) => (id.row != null ? `task-states/${id.row}` : null),
  extent: (answer, id) => (answer ? taskStateExtent(answer) : { start: id.start, duration: id.end - id.start, lanes: [id.lane] }),
});
