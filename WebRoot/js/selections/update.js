// An update (GET /api/traces/{id}/updates/{uid}): its id is in the link's path (/updates/{id}),
// not the query; it is outlined on its kind's lanes, the long lane too when it is long.
const UPDATE_LANES = {
  'view-body': ['view-body', 'long-view-body'],
  representable: ['representable', 'long-representable'],
  layout: ['other', 'long-other'],
  other: ['other', 'long-other'],
};

export const update = Object.freeze({
  kind: 'update',
  inPath: true,
  fromQuery: () => null,
  toQuery: () => [],
  resource: (id) => `updates/${id}`,
  extent: (u) => ({ start: u.start, duration: u.duration, lanes: (UPDATE_LANES[u.kind] ?? []).filter((lane) => !lane.startsWith('long-') || u.severity !== 'normal') }),
});
