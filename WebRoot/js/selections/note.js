// A note on the trace's evidence (nt=): its id, 16 hex digits, from the view's note store (no
// request of its own). The timeline flags it on the ruler rather than outlining a lane.
const NOTE_ID = /^[0-9a-f]{16}$/;

export const note = Object.freeze({
  kind: 'note',
  fromQuery: (params) => (NOTE_ID.test(params.get('nt') ?? '') ? params.get('nt') : null),
  toQuery: (id) => (NOTE_ID.test(id) ? [`nt=${id}`] : []),
  resource: () => null,
  extent: null,
});
