// A Swift task state interval (ts=): its row of GET /api/traces/{id}/task-states/{row}. A wait for
// the Main Actor is outlined on the waits lane, anything else on the Main Actor lane.
import { wholeNumber } from './keys.js';

/** Where a task state interval is drawn (also the picked interval of a task-states selection). */
export function taskStateExtent(s) {
  return { start: s.start, duration: s.duration, lanes: [s.state === 'enqueued' && s.isMainActor ? 'main-actor-waits' : 'main-actor'] };
}

export const taskState = Object.freeze({
  kind: 'task-state',
  fromQuery: (params) => wholeNumber(params.get('ts')),
  toQuery: (row) => [`ts=${Math.round(row)}`],
  resource: (row) => `task-states/${row}`,
  extent: taskStateExtent,
});
