// The trace view: the one contract between a page that shows a trace (the trace page, each side
// of the comparison page, a graph in the comparison's drill-down) and the parts it mounts:
// timeline/, side-panel/, panes/, graph/. A part receives a view and uses only what is written
// here; a page builds its views with createTraceView and nothing else.
import { SELECTION_KINDS } from './selections/index.js';
import { NO_NOTES } from './notes.js';

export { SELECTION_KINDS };

/** What a capability does on a page that does not offer it: nothing, said out loud. */
export const notOffered = () => {};

/**
 * The view of one trace, for its parts:
 * - `traceId`, `trace` (GET /api/traces/{id}), `api` (traceApi(id));
 * - `state`: the view state (state.js, EMPTY_STATE's keys): get(), set(patch, {push}),
 *   subscribe(fn(state, changedKeys)) → unsubscribe, link() → an absolute link to this view; its
 *   one selection, of any kind, is currentSelection(state);
 * - `select(selection, options)`: show `selection` ({kind, id} of SELECTION_KINDS, or null for
 *   none) in the side panel. Options a host may use: `zoom` (update: zoom to it with context),
 *   `graph` (update: the graph subject to pin), `span` ([start, end]: where the mark is);
 * - `setRange(start, end, {zoom})`: the inspection range (null, null: none); zoom true zooms to
 *   it, 'context' zooms with context around it;
 * - `openPane(name, arg)`: a detail pane (panes/index.js), with its arguments;
 * - `copyLink(text, what)`: copies a link and says so;
 * - `timeWindow`: the visible window of the page's timeline, live while it pans (the URL's w= is
 *   written at most every 250 ms): get() → {start, end}, set([start, end], kind) (kind as the
 *   timeline's: 'pan' | 'zoom' | 'jump'), subscribe(fn({start, end})) → unsubscribe. A page without a
 *   timeline gets the state's w= (or the whole trace).
 * - `notes`: the trace's notes (notes.js createNoteStore); NO_NOTES where the page keeps none.
 * A capability the host leaves out is `notOffered`, never undefined; `offers(name)` says which.
 */
export function createTraceView({ trace, api, state, select, setRange, openPane, copyLink, timeWindow, notes }) {
  if (!trace?.id || !api || !state) throw new TypeError('a trace view needs trace, api and state');
  const capabilities = { select, setRange, openPane, copyLink };
  const offered = new Set(Object.keys(capabilities).filter((name) => typeof capabilities[name] === 'function'));
  if (timeWindow) offered.add('timeWindow');
  const hostSelect = select ?? notOffered;
  return Object.freeze({
    traceId: trace.id,
    trace,
    api,
    state,
    select(selection, options = {}) {
      if (selection !== null && !SELECTION_KINDS.includes(selection?.kind)) {
        throw new TypeError(`unknown selection kind ${JSON.stringify(selection?.kind)}: one of ${SELECTION_KINDS.join(', ')}`);
      }
      return hostSelect(selection, options);
    },
    setRange: setRange ?? notOffered,
    openPane: openPane ?? notOffered,
    copyLink: copyLink ?? notOffered,
    timeWindow: timeWindow ?? stateWindow(trace, state),
    notes: notes ?? NO_NOTES,
    offers: (name) => (name === 'notes' ? !!notes?.offered : offered.has(name)),
  });
}

/** The timeWindow of a page without a timeline: the state's w=, else the whole trace. */
function stateWindow(trace, state) {
  const get = () => {
    const w = state.get().window;
    return w ? { start: w[0], end: w[1] } : { start: trace.start, end: Math.max(trace.end, trace.start + 1000) };
  };
  return {
    get,
    set: ([start, end], kind) => state.set({ window: [Math.round(start), Math.round(end)] }, { push: kind !== 'pan' }),
    subscribe: (fn) => state.subscribe((_, changed) => { if (changed.includes('window')) fn(get()); }),
  };
}
