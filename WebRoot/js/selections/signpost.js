// A signpost interval or event (sp=): its row of GET /api/traces/{id}/signposts/{row}, outlined
// on its own lane.
import { wholeNumber } from './keys.js';

export const signpost = Object.freeze({
  kind: 'signpost',
  fromQuery: (params) => wholeNumber(params.get('sp')),
  toQuery: (row) => [`sp=${Math.round(row)}`],
  resource: (row) => `signposts/${row}`,
  extent: (s) => ({ start: s.start, duration: s.duration, lanes: [s.lane] }),
});
