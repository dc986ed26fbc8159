// The trace page /traces/{id}[/updates/{uid}]: the header, the toolbar and legend, and the parts
// of the trace view (trace-view.js), each given the one view this page builds: the timeline, the
// side panel, and the detail panes (loaded after the first draw).
import { getTrace, listTraces, setTraceTags, traceApi, ApiError } from '../api.js';
import { el } from '../dom.js';
import { copyText, navigate } from '../shell.js';
import { buildPath, buildComparePath, buildHistoryPath, buildListPath, createViewState, graphSubject, isTag, selectedUpdate, selectionPatch } from '../state.js';
import { viewOf } from '../selections/view.js';
import { createNoteStore } from '../notes.js';
import { withWriteToken } from '../write-token.js';
import { createTraceView } from '../trace-view.js';
import { rankPartners } from '../compare-partner.js';
import { createTimeline } from '../timeline/index.js';
import { mountCrumbs } from '../timeline/crumbs.js';
import { contextWindow } from '../timeline/viewport.js';
import { hasTaskData } from '../timeline/lanes.js';
import { mountSidePanel } from '../side-panel/index.js';
import { traceFindings } from '../panes/findings.js';
import { formatDuration, formatCount } from '../format.js';
import { runPicker } from './runs.js';
import { messagePage } from './message.js';

/**
 * What an update link without a window shows: the update with context around it, and the SwiftUI
 * track open when the update is not long (only the long lanes show it with the track closed).
 */
function updateContext(trace, update, state) {
  const patch = { window: contextWindow(trace, update.start, update.duration) };
  if (update.severity === 'normal' && !state.expanded?.includes('swiftui')) patch.expanded = [...(state.expanded ?? []), 'swiftui'];
  return patch;
}

/**
 * Opens the trace of `parsed` (a 'trace' route of state.js) in `shell` (app.js). Returns the page
 * ({traceId, restore(state), teardown()}), or null when it showed a message instead or
 * `isCurrent()` turned false (another route began) while it was loading.
 */
export async function openTracePage(shell, parsed, isCurrent) {
  shell.main.append(el('p', { class: 'page-loading', text: 'Loading trace…' }));
  let trace;
  try {
    trace = await getTrace(parsed.traceId);
  } catch (error) {
    if (!isCurrent()) return null;
    if (error instanceof ApiError && error.status === 404) {
      messagePage(shell, 'Trace not found',
        `There is no trace ${parsed.traceId} on this server. It may have been deleted, or the link was made on another server.`);
    } else {
      messagePage(shell, 'Could not open the trace', error.message);
    }
    return null;
  }
  if (!isCurrent()) return null;
  const api = traceApi(trace.id);
  const initial = { ...parsed.state };

  // An update link: check the update exists, then zoom to it with context unless the link has a window.
  const update = selectedUpdate(initial);
  if (update !== null) {
    try {
      const found = await api.get(`updates/${update}`);
      if (!initial.window) Object.assign(initial, updateContext(trace, found, initial));
    } catch (error) {
      if (!isCurrent()) return null;
      if (error instanceof ApiError && error.status === 404) {
        messagePage(shell, 'Update not found',
          `Trace "${trace.name}" has no update ${update}. The link may have been made for a different version of the trace.`,
          [el('a', { href: buildPath(trace.id, {}), class: 'button', text: `Open "${trace.name}"` })]);
      } else {
        messagePage(shell, 'Could not open the update', error.message);
      }
      return null;
    }
  }
  if (!isCurrent()) return null;
  shell.clear();
  return renderTracePage(shell, trace, api, initial);
}

/**
 * The trace page's view: what selecting, a range or a pane means here, all written to the URL
 * state. `timeline()`: the page's timeline once made (its window is the view's timeWindow).
 */
function traceView(trace, api, state, timeline) {
  let view = null;
  const notes = createNoteStore(trace.id, api, () => traceFindings(view));
  view = createTraceView({
    trace,
    api,
    state,
    notes,
    timeWindow: {
      get: () => timeline().getView(),
      set: (window, kind) => timeline().setView(window, kind),
      subscribe: (fn) => timeline().watchView(fn),
    },
    /** `graph` pins the graph's subject (a selection made inside the graph must not re-root it);
     *  otherwise an update's graph follows the selection. `zoom`: to the update, with context. */
    async select(selection, { zoom = false, graph = null } = {}) {
      const patch = selectionPatch(selection);
      const update = selection?.kind === 'update' ? selection.id : null;
      if (graph) patch.graph = graph;
      else if (update !== null && /^u\d+$/.test(state.get().graph ?? '') && state.get().graph !== `u${update}`) {
        patch.graph = `u${update}`;
        patch.groups = [];
      }
      if (zoom && update !== null) Object.assign(patch, updateContext(trace, await api.get(`updates/${update}`), state.get()));
      state.set(patch, { push: true });
    },
    setRange(start, end, { zoom = true } = {}) {
      const patch = { range: start === null ? null : [Math.round(start), Math.round(end)] };
      if (zoom && start !== null) {
        patch.window = zoom === 'context' ? contextWindow(trace, start, end - start) : [Math.round(start), Math.round(end)];
      }
      state.set(patch, { push: true });
    },
    openPane(name, arg = {}) {
      const patch = { pane: name };
      if (arg && 'view' in arg) patch.paneView = viewOf(arg);
      // {update: id} selects it; {update: null} drops a selected update (another kind of selection stays).
      if (arg && 'update' in arg) {
        if (arg.update != null) Object.assign(patch, selectionPatch({ kind: 'update', id: arg.update }));
        else patch.update = null;
      }
      // The CPU pane is of the range unless asked for all updates of the view ({cpu: 'view'}).
      if (name === 'cpu') patch.cpu = arg?.cpu === 'view' ? 'view' : null;
      if (name === 'graph') {
        // The graph of what was asked for (an update or a view), else of the selected update.
        patch.graph = graphSubject(arg?.update != null || arg?.view ? arg : { update: selectedUpdate(state.get()) });
        patch.groups = [];
      }
      state.set(patch, { push: true });
    },
    copyLink: (text, what) => copyText(text, what),
  });
  return view;
}

/**
 * The trace's tags under its name: each links to the list of traces with it; uploads can have
 * them edited (a write: the token may be asked for). Samples have none.
 */
function tagLine(trace) {
  const line = el('div', { class: 'trace-tags', id: 'trace-tags' });
  const status = el('span', { class: 'note-status', role: 'status' });
  let tags = trace.tags ?? [];
  function show() {
    const parts = tags.map((tag) => el('a', { class: 'tag-chip', href: buildListPath({ tags: [tag] }), title: `Every trace tagged ${tag}` }, el('bdi', { text: tag })));
    if (tags.length) parts.push(el('a', { href: buildHistoryPath({ tags: tags.filter((tag) => /^(branch|scenario|device|os):/.test(tag)) }), id: 'trace-history-link', class: 'link-like', text: 'History' }));
    // A sample is read-only: the server refuses its tags.
    if (!trace.isSample) parts.push(el('button', { type: 'button', class: 'link-like', id: 'edit-tags', text: tags.length ? 'Edit tags' : 'Add tags', onclick: edit }));
    // Who uploaded it, as the audit trail names them (docs/api.md, "Audit").
    if (trace.uploadedBy) parts.push(el('span', { class: 'muted', id: 'trace-uploader' }, 'uploaded by ', el('bdi', { text: trace.uploadedBy })));
    line.replaceChildren(...parts, status);
  }
  function edit() {
    const field = el('input', { type: 'text', id: 'tags-input', value: tags.join(' '), 'aria-label': 'Tags, separated by spaces (key:value or a label)', spellcheck: 'false' });
    const form = el('form', { class: 'tags-form' }, field,
      el('button', { type: 'submit', class: 'primary', text: 'Save tags' }),
      el('button', { type: 'button', text: 'Cancel', onclick: show }));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const next = field.value.split(/[\s,]+/).filter(Boolean).map((text) => text.replace(/^([a-z0-9][a-z0-9._-]*)=/, '$1:'));
      const bad = next.find((text) => !isTag(text));
      if (bad) { status.textContent = `“${bad}” is not a tag (key:value, or a label)`; return; }
      const save = async () => {
        const record = await setTraceTags(trace.id, next);
        tags = record.tags;
        status.textContent = '';
        show();
      };
      withWriteToken(status, 'Editing tags', save, (error) => { status.textContent = error.message; });
    });
    line.replaceChildren(form, status);
    field.focus();
  }
  show();
  return line;
}

function renderHeader(shell, trace, state) {
  shell.trace.append(
    el('h1', { text: trace.name, title: trace.name }),
    // Each fact in its own <bdi>: a right-to-left override in an app or device name (they come
    // from the uploaded file) cannot reorder the facts after it.
    el('span', { class: 'meta' }, [trace.app, trace.device, trace.osVersion,
      formatDuration(trace.end - trace.start), `${formatCount(trace.counts?.updates)} updates`].filter(Boolean)
      .flatMap((fact, i) => [i ? ' · ' : null, el('bdi', { text: fact })])),
    tagLine(trace));
  const copyLink = el('button', { type: 'button', id: 'copy-link', 'aria-label': 'Copy link to this view',
    title: 'Copy a link to exactly this view: selection, zoom, inspection range, open pane and its search' },
    el('span', { class: 'icon icon-link', 'aria-hidden': 'true' }), 'Link to this view');
  shell.actions.append(compareWith(trace, state), copyLink);
  return copyLink;
}

function legend(trace) {
  return el('div', { class: 'legend', role: 'group', 'aria-label': 'Legend' },
    ...[['--orange', 'Long update (> 500 µs)'], ['--red', 'Very long update (> 1 ms)'], ['--gray-event', 'Update'],
      ['--accent', 'Update group'], ['--hitch', 'Hitch'], ['--hang', 'Hang (striped)'], ['--cpu', 'CPU, other threads'], ['--cpu-main', 'CPU, main thread']]
      .map(([color, label]) => el('span', {}, el('span', { class: `swatch swatch${color}`, style: { 'background-color': `var(${color})` }, 'aria-hidden': 'true' }), label)),
    el('span', {}, el('span', { class: 'swatch swatch-finding', 'aria-hidden': 'true' }), 'Finding (bar under the ruler, by severity)'),
    hasTaskData(trace) ? el('span', { id: 'legend-main-actor-waits' }, 'Main Actor Waits: orange > 16 ms, red > 100 ms') : null,
    (trace.lanes ?? []).some((lane) => lane.signposts)
      ? el('span', { id: 'legend-signposts', title: 'One lane per category of signposts; hover a lane’s title for its subsystem' },
        el('span', { class: 'swatch swatch--signpost', style: { 'background-color': 'var(--signpost)' }, 'aria-hidden': 'true' }), 'Signpost')
      : null);
}

/** The toolbar above the timeline: zoom buttons, range buttons, import notes, the window label. */
function toolbar(trace) {
  const zoomFit = el('button', { type: 'button', id: 'zoom-fit', 'aria-label': 'Zoom to fit', title: 'Zoom to fit (show the whole trace)' },
    el('span', { class: 'icon icon-fit', 'aria-hidden': 'true' }), 'Zoom to fit');
  const zoomRange = el('button', { type: 'button', id: 'zoom-range', 'aria-label': 'Zoom to inspection range', title: 'Zoom to the inspection range (drag on the ruler to set one)' },
    el('span', { class: 'icon icon-range', 'aria-hidden': 'true' }), 'Zoom to range');
  const clearRange = el('button', { type: 'button', id: 'clear-range', 'aria-label': 'Clear inspection range', text: 'Clear range' });
  const windowLabel = el('span', { class: 'window-label', 'aria-live': 'off', id: 'window-label' });
  const notes = trace.importNotes?.length ? el('details', { class: 'import-notes' },
    el('summary', { text: `${trace.importNotes.length} import note${trace.importNotes.length > 1 ? 's' : ''}` }),
    el('ul', {}, ...trace.importNotes.map((note) => el('li', { text: note })))) : null;
  const findSlot = el('div', { class: 'find-slot' });
  const bar = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Timeline' },
    zoomFit, zoomRange, clearRange, findSlot, notes, el('span', { class: 'spacer' }), windowLabel);
  return { bar, zoomFit, zoomRange, clearRange, findSlot, windowLabel };
}

function renderTracePage(shell, trace, api, initial) {
  document.title = `${trace.name} – tracesvc`;
  const state = createViewState(trace.id, initial);
  history.replaceState({ tracesvc: true }, '', buildPath(trace.id, state.get()));
  const copyLink = renderHeader(shell, trace, state);
  const tools = toolbar(trace);
  const timelineSection = el('section', { id: 'timeline', 'aria-label': 'Timeline lanes' });
  const crumbsNav = el('nav', { class: 'tl-crumbs', id: 'zoom-crumbs', hidden: true });
  const help = el('div', { class: 'tl-help', id: 'timeline-help',
    text: 'Wheel: zoom · drag: pan · W/S zoom, A/D or ←/→ pan · drag on the ruler: inspection range · click an update or press [ ] to select long updates (or the find box’s matches) · Esc clears the selection' });
  const detailPane = el('div', { id: 'detail-pane' }, el('p', { class: 'pane-placeholder', role: 'status', text: 'Loading detail panes…' }));
  const sidePanel = el('aside', { id: 'update-details', class: 'side-panel', 'aria-label': 'Selected update' });
  shell.main.append(el('div', { class: 'trace-view' }, tools.bar, runPicker(trace), legend(trace), crumbsNav, timelineSection, help,
    el('section', { id: 'detail-area', 'aria-label': 'Details' }, detailPane, sidePanel)));

  const view = traceView(trace, api, state, () => timeline);
  const timeline = createTimeline(timelineSection, view, { windowLabel: tools.windowLabel, findings: traceFindings(view), findSlot: tools.findSlot });
  const panel = mountSidePanel(sidePanel, view);
  const crumbs = mountCrumbs(crumbsNav, view, { start: trace.start, end: Math.max(trace.end, trace.start + 1) });
  tools.zoomFit.addEventListener('click', () => timeline.zoomToFit());
  tools.zoomRange.addEventListener('click', () => { const r = state.get().range; if (r) state.set({ window: [...r] }, { push: true }); });
  tools.clearRange.addEventListener('click', () => view.setRange(null, null, { zoom: false }));
  copyLink.addEventListener('click', () => { timeline.flush(); copyText(state.link(), 'Link to this view'); });
  const syncButtons = () => {
    const hasRange = !!state.get().range;
    tools.zoomRange.disabled = !hasRange;
    tools.clearRange.disabled = !hasRange;
  };
  syncButtons();
  const unsubscribe = state.subscribe((_, changed) => { if (changed.includes('range')) syncButtons(); });

  let panes = null;
  let alive = true;
  import('../panes/index.js')
    .then((module) => { if (alive) panes = module.mountDetailPanes(detailPane, view) ?? null; })
    .catch((error) => {
      if (!alive) return;
      detailPane.replaceChildren(el('p', { class: 'pane-placeholder', role: 'status', text: `Detail panes are not available: ${error.message}` }));
    });

  return {
    traceId: trace.id,
    restore: async (next) => {
      // Back/forward, or a pasted link to the same trace: an update without a window gets context.
      const update = selectedUpdate(next);
      if (update !== null && !next.window) {
        try {
          next = { ...next, ...updateContext(trace, await api.get(`updates/${update}`), next) };
        } catch { /* the side panel reports the missing update */ }
      }
      state.restore(next);
    },
    teardown() {
      alive = false;
      unsubscribe();
      timeline.destroy();
      crumbs.destroy();
      panel.destroy();
      panes?.destroy?.();
    },
  };
}

/** "Compare with…": pick another trace; this one is A (before), with its inspection range. */
function compareWith(trace, state) {
  const picker = el('select', { id: 'compare-with-select', 'aria-label': 'Trace to compare with' });
  const go = el('button', { type: 'button', class: 'primary', id: 'compare-with-go', text: 'Compare', disabled: true,
    onclick: () => navigate(buildComparePath(trace.id, picker.value, { rangeA: state.get().range })) });
  const popup = el('div', { class: 'compare-with-popup', id: 'compare-with-popup', hidden: true, role: 'group', 'aria-label': 'Compare with' },
    el('label', { for: 'compare-with-select', text: `Compare ${trace.name} (A, before) with` }), picker, go);
  const open = el('button', { type: 'button', id: 'compare-with', 'aria-expanded': 'false', title: 'Compare this trace with another one',
    onclick: async () => {
      popup.hidden = !popup.hidden;
      open.setAttribute('aria-expanded', String(!popup.hidden));
      if (popup.hidden || picker.options.length) return;
      try {
        const { traces } = await listTraces();
        // The likely partner first (the other recording of the scenario), selected.
        picker.replaceChildren(...rankPartners(trace, traces).map((t) => el('option', { value: t.id, text: t.why ? `${t.name} (${t.why})` : t.name })));
        go.disabled = !picker.options.length;
      } catch (error) {
        popup.append(el('span', { class: 'error-box', text: error.message }));
      }
    } }, 'Compare with…');
  return el('span', { class: 'compare-with' }, open, popup);
}
