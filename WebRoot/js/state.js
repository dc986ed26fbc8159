// The shareable view state and its URL form, specified in docs/share-links.md.
// One place reads and writes the URL; everything else subscribes. Parsing, formatting and
// upgrading are pure (no window, no history) so `node --test` checks them (Tests/Web).
import { formatAnchor, parseAnchor } from './compare-align.js';

// v2: an update path without p= opens the Cause & Effect graph (v1 opened the Summary).
// v3: m= is the CPU pane's view (tree, flame graph, stack chart); its direction is i=1 (v2: m=td / m=bu).
export const STATE_VERSION = 3;

/**
 * Upgrades of older link versions: UPGRADES[v] turns the query of a v link into the query of a
 * v+1 link, (params: URLSearchParams, update: number | null) => void. Every v below
 * STATE_VERSION needs one (a test checks), so any link ever shared still opens.
 */
export const UPGRADES = Object.freeze({
  1: (params, update) => { if (update !== null && !params.has('p')) params.set('p', 'summary'); },
  2: (params) => {
    const direction = params.get('m');
    params.delete('m');
    if (direction === 'bu') params.set('i', '1');
  },
});

/** The query of a `version` link, upgraded in place to STATE_VERSION, one version at a time. */
export function upgradeParams(params, version, update) {
  for (let v = version; v < STATE_VERSION; v += 1) UPGRADES[v](params, update);
  return params;
}

/** Every key of the view state with its empty value; a key at its empty value is left out of the URL. */
export const EMPTY_STATE = Object.freeze({
  update: null,    // selected update id (path /updates/{id}): the selection when it is an update
  window: null,    // visible window [start, end] ns (w=)
  range: null,     // inspection range [start, end] ns (r=)
  expanded: [],    // expanded tracks, e.g. ['swiftui'] (x=)
  pane: null,      // 'findings' | 'summary' | 'updates' | 'cpu' | 'graph' (p=)
  paneView: null,  // {module, view, category} (pv=Module:View, pc=Category)
  filter: null,    // 'all' | 'long-view-body' | ... (f=)
  node: null,      // selected graph node id (n=)
  graph: null,     // the graph's subject: 'u<update id>' or 'view' (the paneView's merged graph) (g=)
  groups: [],      // folded graph groups the user opened (e=)
  search: '',      // CPU search text (q=)
  cpuView: null,   // the CPU pane's view: null (the call tree) | 'flame' | 'stack' (m=)
  inverted: false, // the CPU pane bottom-up: callers below the functions on CPU (i=1)
  cpuThread: null, // the CPU pane's thread index, null for all threads (th=)
  hideSystem: false, // hide system libraries (hs=1)
  charged: [],     // symbols charged to their callers (cc=, one per line)
  flatten: false,  // flatten recursion (fr=1)
  focus: null,     // focus on subtree: a call path, e.g. 't0.f12.f40' (fo=)
  flameZoom: null, // the flame graph's zoomed frame: a call path below the focus (fz=)
  finding: null,   // id of the finding expanded in the Findings pane (fd=)
  findingKind: null,     // the Findings pane shows this kind only (fk=)
  findingSeverity: null, // the Findings pane shows this severity and above: 'medium' | 'high' (fs=)
  find: '',        // the timeline search: updates of views, modules and signposts matching it are lit (tf=)
  cpu: null,       // what the CPU pane is of: 'view' = all updates of the paneView (c=); null: the range
  longerThan: null, // with cpu 'view': only its updates longer than this many ns (cl=)
  selection: null, // the selection when it is not an update: {kind, id} (SELECTION_KINDS) (sp= / ts= / tm= / nt=)
});

/**
 * What can be selected, and so shown in the side panel, with the form of its `id`. There is one
 * selection at a time: `update` (an update, in the path) or `selection` (any other kind), never both.
 * - update: an update id (whole number), in the path /updates/{id};
 * - signpost: a signpost interval's or event's row (sp=);
 * - task-state: a Swift task state interval's row (ts=);
 * - task-states: the intervals of a Main Actor lane mark, {lane, start, end, row}: `row` the one
 *   shown (ts=), null for the longest (tm=lane:start,end);
 * - note: a note on the trace's evidence, its id (nt=);
 * - hang-risk: a hang risk's row (hr=, Instruments 27).
 */
export const SELECTION_KINDS = Object.freeze(['update', 'signpost', 'task-state', 'task-states', 'note', 'hang-risk']);

/** The selected update's id, or null when the selection is of another kind or there is none. */
export const selectedUpdate = (state) => state.update ?? null;

/** The one selection of a state, {kind, id}, whatever its kind; null when nothing is selected. */
export function currentSelection(state) {
  if (state.update !== null && state.update !== undefined) return { kind: 'update', id: state.update };
  return state.selection ?? null;
}

/** The state keys that select `selection` ({kind, id} or null) and drop any other selection. */
export function selectionPatch(selection) {
  return selection?.kind === 'update' ? { update: selection.id, selection: null } : { update: null, selection: selection ?? null };
}

/** Whether a change of these keys (a subscriber's `changed`) is a change of the selection. */
export const selectionChanged = (changed) => changed.includes('update') || changed.includes('selection');

const wholeNumber = (text) => (/^\d+$/.test(text ?? '') ? Number(text) : null);

/** The selection other than an update that a query names; none beside an update in the path. */
function parseSelection(params, update) {
  if (update !== null) return null;
  const mark = /^([a-z0-9-]+):(\d+),(\d+)$/.exec(params.get('tm') ?? '');
  const row = wholeNumber(params.get('ts'));
  if (mark && Number(mark[3]) > Number(mark[2])) {
    return { kind: 'task-states', id: { lane: mark[1], start: Number(mark[2]), end: Number(mark[3]), row } };
  }
  if (row !== null) return { kind: 'task-state', id: row };
  const note = params.get('nt');
  if (/^[0-9a-f]{16}$/.test(note ?? '')) return { kind: 'note', id: note };
  const hangRisk = wholeNumber(params.get('hr'));
  if (hangRisk !== null) return { kind: 'hang-risk', id: hangRisk };
  const signpost = wholeNumber(params.get('sp'));
  return signpost === null ? null : { kind: 'signpost', id: signpost };
}

/** The query keys of a selection that is not an update (those are in the path). */
function selectionQuery(selection) {
  const id = selection?.id;
  switch (selection?.kind) {
    case 'signpost': return [`sp=${Math.round(id)}`];
    case 'hang-risk': return [`hr=${Math.round(id)}`];
    case 'task-state': return [`ts=${Math.round(id)}`];
    case 'task-states': return [`tm=${id.lane}:${Math.round(id.start)},${Math.round(id.end)}`, ...(id.row != null ? [`ts=${Math.round(id.row)}`] : [])];
    case 'note': return /^[0-9a-f]{16}$/.test(id) ? [`nt=${id}`] : [];
    default: return [];
  }
}

const CPU_VIEWS = ['flame', 'stack'];
/** A call path as the API writes it (t3.f120.sys.out: docs/api.md), or null. */
const CALL_PATH = /^(t\d{1,10}|f\d{1,10}|sys|out)(\.(t\d{1,10}|f\d{1,10}|sys|out)){0,201}$/;
export const parseCallPath = (text) => (CALL_PATH.test(text ?? '') ? text : null);

function parseSpan(text) {
  if (!text) return null;
  const parts = text.split(',');
  if (parts.length !== 2 || !parts.every((p) => /^-?\d+$/.test(p))) return null;
  const [start, end] = parts.map(Number);
  return end > start ? [start, end] : null;
}

function parsePaneView(text, category) {
  if (!text) return null;
  const colon = text.indexOf(':');
  const [module, view] = colon < 0 ? ['', text] : [text.slice(0, colon), text.slice(colon + 1)];
  return { module, view, category: category ?? '' };
}

/**
 * Reads a location into a route:
 * {route:'home', list} (LIST_EMPTY) | {route:'history', history} (HISTORY_EMPTY) | {route:'audit'} | {route:'trace', traceId, state} | {route:'bad-version', version, traceId} |
 * {route:'bad-update', traceId, updateText} | {route:'not-found', path} |
 * {route:'compare', a, b, state} (a and b: the ids of each side's recordings, one or more; state a
 * COMPARE_EMPTY_STATE); a bad-version route carries `plainPath`, the page without the view.
 */
export function parseLocation(location = window.location) {
  const path = location.pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return { route: 'home', list: parseListQuery(location.search) };
  if (path === '/history') return { route: 'history', history: parseHistoryQuery(location.search) };
  if (path === '/audit') return { route: 'audit' };
  if (path === '/compare' || path.startsWith('/compare/')) return parseCompareLocation(path, location.search);
  const match = path.match(/^\/traces\/([^/]+)(?:\/updates\/([^/]+))?$/);
  if (!match) return { route: 'not-found', path };
  const traceId = decodeURIComponent(match[1]);
  const params = new URLSearchParams(location.search);
  let update = null;
  if (match[2] !== undefined) {
    if (!/^\d+$/.test(match[2])) return { route: 'bad-update', traceId, updateText: decodeURIComponent(match[2]) };
    update = Number(match[2]);
  }
  // No v= (a hand-typed link) reads as the current version.
  const version = params.get('v') ?? String(STATE_VERSION);
  if (!/^[1-9]\d*$/.test(version) || Number(version) > STATE_VERSION) return { route: 'bad-version', version, traceId };
  upgradeParams(params, Number(version), update);
  const state = {
    ...EMPTY_STATE,
    update,
    window: parseSpan(params.get('w')),
    range: parseSpan(params.get('r')),
    expanded: (params.get('x') ?? '').split(',').filter(Boolean),
    pane: params.get('p') || (update !== null ? 'graph' : null),
    paneView: parsePaneView(params.get('pv'), params.get('pc')),
    filter: params.get('f') || null,
    node: params.get('n') || null,
    graph: /^(u\d+|view)$/.test(params.get('g') ?? '') ? params.get('g') : null,
    groups: (params.get('e') ?? '').split(',').filter(Boolean),
    search: params.get('q') ?? '',
    cpuView: CPU_VIEWS.includes(params.get('m')) ? params.get('m') : null,
    inverted: params.get('i') === '1',
    cpuThread: wholeNumber(params.get('th')),
    hideSystem: params.get('hs') === '1',
    charged: (params.get('cc') ?? '').split('\n').filter(Boolean),
    flatten: params.get('fr') === '1',
    focus: parseCallPath(params.get('fo')),
    flameZoom: parseCallPath(params.get('fz')),
    finding: params.get('fd') || null,
    findingKind: /^[a-z-]+$/.test(params.get('fk') ?? '') ? params.get('fk') : null,
    findingSeverity: ['medium', 'high'].includes(params.get('fs')) ? params.get('fs') : null,
    find: params.get('tf') ?? '',
    cpu: params.get('c') === 'view' ? 'view' : null,
    longerThan: wholeNumber(params.get('cl')),
    selection: parseSelection(params, update),
  };
  return { route: 'trace', traceId, state };
}

/**
 * The state of a comparison page /compare/{a}/{b}, or /compare?a=ID,ID&b=ID,ID for several
 * recordings a side (same v= and upgrade rules as trace pages; its keys are in
 * docs/share-links.md, "Comparison pages").
 */
export const COMPARE_EMPTY_STATE = Object.freeze({
  rangeA: null,    // compared range of trace A [start, end] ns (ra=)
  rangeB: null,    // compared range of trace B [start, end] ns (rb=)
  rows: null,      // views table filter: 'long' | 'app' (vf=); null: all rows
  row: null,       // the view row drilled into: {module, view, category} (pv=Module:View, pc=Category)
  anchor: null,    // where the timelines align: null (both starts) | 'ranges' | {group: label} (al=)
  timeline: null,  // the timelines' window [start, end] on the shared axis, ns from the anchors (tw=)
  lanes: [],       // expanded timeline tracks of both timelines, e.g. ['swiftui'] (tx=)
  ruler: null,     // what the timelines' rulers read: null (each trace's own clock) | 'anchor' (time from the anchor) (ru=)
});

const ROW_FILTERS = ['long', 'app'];

/**
 * The ids of a side in the pooled form, `key=ID,ID` of the raw `search` (each id percent-encoded,
 * so an id may hold a comma: split before decoding); null when missing, empty or damaged.
 */
function parseIDs(search, key) {
  const raw = search.replace(/^\?/, '').split('&').find((part) => part.startsWith(`${key}=`))?.slice(key.length + 1);
  if (!raw) return null;
  try {
    const ids = raw.split(',').map((id) => decodeURIComponent(id.replace(/\+/g, ' ')));
    return ids.every(Boolean) ? ids : null;
  } catch {
    return null;
  }
}

function parseCompareLocation(path, search) {
  const params = new URLSearchParams(search);
  let a;
  let b;
  if (path === '/compare') {
    [a, b] = [parseIDs(search, 'a'), parseIDs(search, 'b')];
    if (!a || !b) return { route: 'not-found', path: `${path}${search}` };
  } else {
    const match = path.match(/^\/compare\/([^/]+)\/([^/]+)$/);
    if (!match) return { route: 'not-found', path };
    [a, b] = [[decodeURIComponent(match[1])], [decodeURIComponent(match[2])]];
  }
  const version = params.get('v') ?? String(STATE_VERSION);
  if (!/^[1-9]\d*$/.test(version) || Number(version) > STATE_VERSION) {
    return { route: 'bad-version', version, traceId: a[0], plainPath: buildComparePath(a, b, {}) };
  }
  // Upgrades so far only touch trace-page keys; running them keeps one chain for every page.
  upgradeParams(params, Number(version), null);
  const state = {
    ...COMPARE_EMPTY_STATE,
    rangeA: parseSpan(params.get('ra')),
    rangeB: parseSpan(params.get('rb')),
    rows: ROW_FILTERS.includes(params.get('vf')) ? params.get('vf') : null,
    row: parsePaneView(params.get('pv'), params.get('pc')),
    anchor: parseAnchor(params.get('al')),
    timeline: parseSpan(params.get('tw')),
    lanes: (params.get('tx') ?? '').split(',').filter(Boolean),
    ruler: params.get('ru') === 'anchor' ? 'anchor' : null,
  };
  return { route: 'compare', a, b, state };
}

/**
 * The path + query of a comparison page (relative URL). `a` and `b`: a trace id, or the ids of
 * a side's recordings; one each is /compare/{a}/{b}, more is /compare?v=N&a=ID,ID&b=ID.
 */
export function buildComparePath(a, b, state) {
  const [idsA, idsB] = [[a].flat(), [b].flat()];
  const s = { ...COMPARE_EMPTY_STATE, ...state };
  const query = [`v=${STATE_VERSION}`];
  const pooled = idsA.length > 1 || idsB.length > 1;
  if (pooled) query.push(`a=${idsA.map(encodeURIComponent).join(',')}`, `b=${idsB.map(encodeURIComponent).join(',')}`);
  if (s.rangeA) query.push(`ra=${Math.round(s.rangeA[0])},${Math.round(s.rangeA[1])}`);
  if (s.rangeB) query.push(`rb=${Math.round(s.rangeB[0])},${Math.round(s.rangeB[1])}`);
  if (s.rows && ROW_FILTERS.includes(s.rows)) query.push(`vf=${s.rows}`);
  if (s.row) query.push(`pv=${encodeURIComponent(`${s.row.module ?? ''}:${s.row.view ?? ''}`)}`);
  if (s.row?.category) query.push(`pc=${encodeURIComponent(s.row.category)}`);
  const anchor = formatAnchor(s.anchor);
  if (anchor) query.push(`al=${anchor.startsWith('g:') ? `g:${encodeURIComponent(anchor.slice(2))}` : anchor}`);
  if (s.timeline) query.push(`tw=${Math.round(s.timeline[0])},${Math.round(s.timeline[1])}`);
  if (s.lanes?.length) query.push(`tx=${s.lanes.map(encodeURIComponent).join(',')}`);
  if (s.ruler === 'anchor') query.push('ru=anchor');
  if (pooled) return `/compare?${query.join('&')}`;
  return `/compare/${encodeURIComponent(idsA[0])}/${encodeURIComponent(idsB[0])}?${query.join('&')}`;
}

/** The path + query of a view state (relative URL). */
export function buildPath(traceId, state) {
  const s = { ...EMPTY_STATE, ...state };
  const update = s.update ?? null;
  let path = `/traces/${encodeURIComponent(traceId)}`;
  if (update !== null) path += `/updates/${update}`;
  // Built by hand, not URLSearchParams, to keep "," and ":" readable in shared links.
  const enc = (text) => encodeURIComponent(text).replace(/%2C/g, ',').replace(/%3A/g, ':');
  const query = [`v=${STATE_VERSION}`];
  if (s.window) query.push(`w=${Math.round(s.window[0])},${Math.round(s.window[1])}`);
  if (s.range) query.push(`r=${Math.round(s.range[0])},${Math.round(s.range[1])}`);
  if (s.expanded?.length) query.push(`x=${s.expanded.map(enc).join(',')}`);
  // With an update in the path, a missing p= means the graph: the Summary must be explicit.
  const pane = s.pane ?? (update !== null ? 'summary' : null);
  if (pane) query.push(`p=${enc(pane)}`);
  if (s.paneView) query.push(`pv=${encodeURIComponent(`${s.paneView.module ?? ''}:${s.paneView.view ?? ''}`)}`);
  if (s.paneView?.category) query.push(`pc=${encodeURIComponent(s.paneView.category)}`);
  if (s.filter) query.push(`f=${enc(s.filter)}`);
  if (s.node) query.push(`n=${enc(s.node)}`);
  if (s.graph) query.push(`g=${enc(s.graph)}`);
  if (s.groups?.length) query.push(`e=${s.groups.map(enc).join(',')}`);
  if (s.search) query.push(`q=${encodeURIComponent(s.search)}`);
  if (CPU_VIEWS.includes(s.cpuView)) query.push(`m=${s.cpuView}`);
  if (s.inverted) query.push('i=1');
  if (s.cpuThread != null) query.push(`th=${Math.round(s.cpuThread)}`);
  if (s.hideSystem) query.push('hs=1');
  if (s.charged?.length) query.push(`cc=${encodeURIComponent(s.charged.join('\n'))}`);
  if (s.flatten) query.push('fr=1');
  if (parseCallPath(s.focus)) query.push(`fo=${s.focus}`);
  if (parseCallPath(s.flameZoom)) query.push(`fz=${s.flameZoom}`);
  if (s.finding) query.push(`fd=${encodeURIComponent(s.finding)}`);
  if (s.findingKind) query.push(`fk=${enc(s.findingKind)}`);
  if (s.findingSeverity) query.push(`fs=${enc(s.findingSeverity)}`);
  if (s.find) query.push(`tf=${encodeURIComponent(s.find)}`);
  if (s.cpu === 'view') query.push('c=view');
  if (s.longerThan != null) query.push(`cl=${Math.round(s.longerThan)}`);
  if (update === null) query.push(...selectionQuery(s.selection));
  return `${path}?${query.join('&')}`;
}

/** A link that opens `updateId` zoomed with context, selected, with its cause graph (no window: the opener picks it). */
export function updateLink(traceId, updateId) {
  return new URL(buildPath(traceId, { update: updateId, pane: 'graph', graph: `u${updateId}` }), window.location.origin).href;
}

/** The inspection range as {start, end}, or null when there is none (the whole trace). */
export function currentRange(state) {
  const r = state.range;
  if (!Array.isArray(r) || r.length !== 2 || r[0] == null) return null;
  const [start, end] = r.map(Number);
  return Number.isFinite(start) && Number.isFinite(end) && end >= start ? { start, end } : null;
}

/** The `graph` state value of a graph request ({update} or {view, module}). */
export function graphSubject(request) {
  if (request?.update != null) return `u${request.update}`;
  return request?.view ? 'view' : null;
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A patch that selects something drops the other selection: one selection at a time. */
function oneSelection(patch) {
  if (patch.update !== null && patch.update !== undefined && !('selection' in patch)) return { ...patch, selection: null };
  if (patch.selection && !('update' in patch)) return { ...patch, update: null };
  return patch;
}

/**
 * The view state of one open trace. `set(patch, {push})` writes the URL (push adds a history
 * entry: selection and zoom changes; continuous pans replace); subscribers get (state, changedKeys).
 * A comparison page passes its own empty state and path builder.
 */
export function createViewState(traceId, initial, { empty = EMPTY_STATE, path = (state) => buildPath(traceId, state) } = {}) {
  let current = { ...empty, ...initial };
  const listeners = new Set();
  const normalize = 'update' in empty ? oneSelection : (patch) => patch;

  function notify(changed) {
    if (!changed.length) return;
    for (const fn of [...listeners]) fn(current, changed);
  }

  function diff(next) {
    return Object.keys(empty).filter((key) => !same(current[key], next[key]));
  }

  return {
    traceId,
    get: () => current,
    set(patch, { push = false } = {}) {
      const next = { ...current, ...normalize(patch) };
      const changed = diff(next);
      if (!changed.length) return;
      current = next;
      const url = path(current);
      if (push) history.pushState({ tracesvc: true }, '', url);
      else history.replaceState({ tracesvc: true }, '', url);
      notify(changed);
    },
    /** Back/forward: adopt a state parsed from the URL without writing history. */
    restore(next) {
      const full = { ...empty, ...next };
      const changed = diff(full);
      current = full;
      notify(changed);
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    /** Absolute link to the current view. */
    link: () => new URL(path(current), window.location.origin).href,
  };
}

/**
 * A view state that lives in the page only, not in the URL (a graph in the comparison's
 * drill-down): the interface of createViewState; `link(state)` makes its links.
 */
export function createLocalViewState(initial, { empty = EMPTY_STATE, link = () => '' } = {}) {
  let current = { ...empty, ...initial };
  const listeners = new Set();
  const normalize = 'update' in empty ? oneSelection : (patch) => patch;
  return {
    get: () => current,
    set(patch) {
      const next = { ...current, ...normalize(patch) };
      const changed = Object.keys(next).filter((key) => !same(current[key], next[key]));
      if (!changed.length) return;
      current = next;
      for (const fn of [...listeners]) fn(current, changed);
    },
    restore(next) { this.set({ ...empty, ...next }); },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    link: () => link(current),
  };
}

// ----- The trace list and the history page (docs/share-links.md, "List and history pages") -----

/** The list's orders (GET /api/traces ?sort=). */
export const LIST_SORTS = Object.freeze(['uploaded', 'name', 'duration', 'updates', 'size']);

/** The list page's filters; a key at its empty value is left out of the URL. */
export const LIST_EMPTY = Object.freeze({
  tags: [],     // key:value tags the traces must all have (tag=, repeated)
  q: '',        // words each in the name, app, device or a tag (q=)
  from: '',     // uploaded on or after this day, YYYY-MM-DD (from=)
  to: '',       // uploaded on or before this day (to=)
  sort: 'uploaded', // LIST_SORTS (sort=)
  order: null,  // 'asc' | 'desc'; null: the sort's own (newest, longest, largest first; names from A) (order=)
});

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TAG = /^[a-z0-9][a-z0-9._-]{0,31}(:[A-Za-z0-9._:/+@#-]{1,128})?$/;

/** Whether text is a tag as the server takes it (docs/api.md, "Tags"). */
export const isTag = (text) => TAG.test(text ?? '');

export function parseListQuery(search) {
  const params = new URLSearchParams(search);
  return {
    ...LIST_EMPTY,
    tags: [...new Set(params.getAll('tag').filter(isTag))],
    q: (params.get('q') ?? '').trim(),
    from: DAY.test(params.get('from') ?? '') ? params.get('from') : '',
    to: DAY.test(params.get('to') ?? '') ? params.get('to') : '',
    sort: LIST_SORTS.includes(params.get('sort')) ? params.get('sort') : 'uploaded',
    order: ['asc', 'desc'].includes(params.get('order')) ? params.get('order') : null,
  };
}

/** The query of the list's filters, for its page (`/?…`) and for GET /api/traces alike. */
export function listQuery(list) {
  const s = { ...LIST_EMPTY, ...list };
  const query = s.tags.map((tag) => `tag=${encodeTag(tag)}`);
  if (s.q) query.push(`q=${encodeURIComponent(s.q)}`);
  if (s.from) query.push(`from=${s.from}`);
  if (s.to) query.push(`to=${s.to}`);
  if (s.sort && s.sort !== 'uploaded') query.push(`sort=${s.sort}`);
  if (s.order) query.push(`order=${s.order}`);
  return query.join('&');
}

export function buildListPath(list) {
  const query = listQuery(list);
  return query ? `/?${query}` : '/';
}

/** The history page's question; a key at its empty value is left out of the URL. */
export const HISTORY_EMPTY = Object.freeze({
  tags: [],       // tag=, repeated
  view: '',       // the view (view=); empty: the one with the most body time
  module: '',     // its module (module=)
  metric: '',     // a metric name (metric=); empty: body-time-total
  finding: '',    // the finding of metric=finding-cost (finding=)
  order: 'upload', // 'upload' | 'commit' (order=)
});

export function parseHistoryQuery(search) {
  const params = new URLSearchParams(search);
  return {
    ...HISTORY_EMPTY,
    tags: [...new Set(params.getAll('tag').filter(isTag))],
    view: params.get('view') ?? '',
    module: params.get('module') ?? '',
    metric: /^[a-z0-9-]{1,40}$/.test(params.get('metric') ?? '') ? params.get('metric') : '',
    finding: params.get('finding') ?? '',
    order: params.get('order') === 'commit' ? 'commit' : 'upload',
  };
}

/** The query of a history question, for its page (`/history?…`) and GET /api/history alike. */
export function historyQuery(history) {
  const s = { ...HISTORY_EMPTY, ...history };
  const query = s.tags.map((tag) => `tag=${encodeTag(tag)}`);
  if (s.view) query.push(`view=${encodeURIComponent(s.view)}`);
  if (s.module) query.push(`module=${encodeURIComponent(s.module)}`);
  if (s.metric) query.push(`metric=${s.metric}`);
  if (s.finding) query.push(`finding=${encodeURIComponent(s.finding)}`);
  if (s.order === 'commit') query.push('order=commit');
  return query.join('&');
}

export function buildHistoryPath(history) {
  const query = historyQuery(history);
  return query ? `/history?${query}` : '/history';
}

/** A tag in a query: ":" and "/" stay readable (`tag=branch:feature/x`). */
const encodeTag = (tag) => encodeURIComponent(tag).replace(/%3A/g, ':').replace(/%2F/g, '/');
