// An Instruments 27 hang risk (hr=): its row of GET /api/traces/{id}/hang-risks/{row}, an
// instant outlined on the Hang Risks lane.
import { wholeNumber } from './keys.js';

export const hangRisk = Object.freeze({
  kind: 'hang-risk',
  fromQuery: (params) => wholeNumber(params.get('hr')),
  toQuery: (row) => [`hr=${Math.round(row)}`],
  resource: (row) => `hang-risks/${row}`,
  extent: (r) => ({ start: r.time, duration: 0, lanes: ['hang-risks'] }),
});
