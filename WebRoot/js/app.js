// The router: mounts the home page, the trace view, or a page for a link that leads nowhere.
import { getTrace, listTraces, traceApi, ApiError } from './api.js';
import { el } from './dom.js';
import { copyText, navigate, startNavigation } from './shell.js';
import { parseLocation, createViewState, buildPath, buildComparePath, graphSubject, STATE_VERSION } from './state.js';
import { renderHome } from './home.js';
import { mountCompare } from './compare.js';
import { createTimeline } from './timeline/index.js';
import { contextWindow } from './timeline/viewport.js';
import { hasTaskData } from './timeline/lanes.js';
import { runPicker } from './runs.js';
import { createDetails } from './details.js';
import { createTaskDetails } from './task-details.js';
import { createSignpostDetails } from './signpost-details.js';
import { traceFindings } from './panes/findings.js';
import { formatDuration, formatCount } from './format.js';

const app = document.getElementById('app');
const headerTrace = document.getElementById('header-trace');
const headerActions = document.getElementById('header-actions');

let current = null; // {traceId, state, teardown, upload?}
let routeToken = 0;
let droppedFile = null; // dropped on another page, uploaded once the list page is up

function clearShell() {
  current?.teardown?.();
  current = null;
  headerTrace.replaceChildren();
  headerActions.replaceChildren();
  app.replaceChildren();
  app.className = '';
}

/** A page for links that lead nowhere, with a way back to the list. */
function messagePage(title, text, extraLinks = []) {
  clearShell();
  document.title = `${title} – tracesvc`;
  app.append(el('div', { class: 'message-page', role: 'alert' },
    el('h1', { text: title }),
    el('p', { text }),
    el('p', {}, el('a', { href: '/', class: 'button primary', text: 'Back to all traces' }), ' ', ...extraLinks)));
}

async function route() {
  const token = ++routeToken;
  const parsed = parseLocation();
  if (parsed.route === 'trace' && current?.traceId === parsed.traceId) {
    await current.restore(parsed.state);
    return;
  }
  if (parsed.route === 'compare' && current?.compareKey === `${parsed.a}/${parsed.b}`) {
    current.restore(parsed.state);
    return;
  }
  clearShell();
  switch (parsed.route) {
    case 'home': {
      document.title = 'tracesvc';
      const home = renderHome(app);
      current = { traceId: null, teardown: home.teardown, upload: home.upload };
      if (droppedFile) home.upload(droppedFile);
      droppedFile = null;
      return;
    }
    case 'bad-version': {
      const withoutView = [el('a', { href: parsed.plainPath ?? buildPath(parsed.traceId, {}), class: 'button',
        text: parsed.plainPath ? 'Open the comparison without the view' : 'Open the trace without the view' })];
      if (/^\d+$/.test(parsed.version) && Number(parsed.version) > STATE_VERSION) {
        messagePage('This link needs a newer tracesvc',
          `This link was made by a newer tracesvc (v=${parsed.version}); this server understands links up to v=${STATE_VERSION}. ` +
          'Update the server, or open the trace from the list.', withoutView);
      } else {
        messagePage('This link is damaged',
          `"v=${parsed.version}" is not a link version (links carry v=1 to v=${STATE_VERSION}). The link may have been cut or edited.`, withoutView);
      }
      return;
    }
    case 'bad-update':
      messagePage('No such update', `"${parsed.updateText}" is not an update id; update ids are whole numbers.`,
        [el('a', { href: buildPath(parsed.traceId, {}), class: 'button', text: 'Open the trace' })]);
      return;
    case 'not-found':
      messagePage('Page not found', `There is nothing at ${parsed.path}.`);
      return;
    case 'trace':
      await openTrace(parsed, token);
      return;
    case 'compare': {
      const page = mountCompare(app, { trace: headerTrace, actions: headerActions }, parsed);
      current = { traceId: null, compareKey: page.key, restore: page.restore, teardown: page.teardown };
      return;
    }
  }
}

/**
 * What an update link without a window shows: the update with context around it, and the SwiftUI
 * track open when the update is not long (only the long lanes show it with the track closed).
 */
function updateContext(trace, update, state) {
  const patch = { window: contextWindow(trace, update.start, update.duration) };
  if (update.severity === 'normal' && !state.expanded?.includes('swiftui')) patch.expanded = [...(state.expanded ?? []), 'swiftui'];
  return patch;
}

async function openTrace(parsed, token) {
  app.append(el('p', { class: 'page-loading', text: 'Loading trace…' }));
  let trace;
  try {
    trace = await getTrace(parsed.traceId);
  } catch (error) {
    if (token !== routeToken) return;
    if (error instanceof ApiError && error.status === 404) {
      messagePage('Trace not found',
        `There is no trace ${parsed.traceId} on this server. It may have been deleted, or the link was made on another server.`);
    } else {
      messagePage('Could not open the trace', error.message);
    }
    return;
  }
  if (token !== routeToken) return;
  const api = traceApi(trace.id);
  const initial = { ...parsed.state };

  // An update link: check the update exists, then zoom to it with context unless the link has a window.
  if (initial.update !== null) {
    try {
      const update = await api.get(`updates/${initial.update}`);
      if (!initial.window) Object.assign(initial, updateContext(trace, update, initial));
    } catch (error) {
      if (token !== routeToken) return;
      if (error instanceof ApiError && error.status === 404) {
        messagePage('Update not found',
          `Trace "${trace.name}" has no update ${initial.update}. The link may have been made for a different version of the trace.`,
          [el('a', { href: buildPath(trace.id, {}), class: 'button', text: `Open "${trace.name}"` })]);
      } else {
        messagePage('Could not open the update', error.message);
      }
      return;
    }
  }
  if (token !== routeToken) return;
  clearShell();
  renderTraceView(trace, api, initial);
}

function renderTraceView(trace, api, initial) {
  document.title = `${trace.name} – tracesvc`;
  const state = createViewState(trace.id, initial);
  history.replaceState({ tracesvc: true }, '', buildPath(trace.id, state.get()));

  headerTrace.append(
    el('h1', { text: trace.name, title: trace.name }),
    // Each fact in its own <bdi>: a right-to-left override in an app or device name (they come
    // from the uploaded file) cannot reorder the facts after it.
    el('span', { class: 'meta' }, [trace.app, trace.device, trace.osVersion,
      formatDuration(trace.end - trace.start), `${formatCount(trace.counts?.updates)} updates`].filter(Boolean)
      .flatMap((fact, i) => [i ? ' · ' : null, el('bdi', { text: fact })])));

  const zoomFit = el('button', { type: 'button', id: 'zoom-fit', 'aria-label': 'Zoom to fit', title: 'Zoom to fit (show the whole trace)' },
    el('span', { class: 'icon icon-fit', 'aria-hidden': 'true' }), 'Zoom to fit');
  const zoomRange = el('button', { type: 'button', id: 'zoom-range', 'aria-label': 'Zoom to inspection range', title: 'Zoom to the inspection range (drag on the ruler to set one)' },
    el('span', { class: 'icon icon-range', 'aria-hidden': 'true' }), 'Zoom to range');
  const clearRange = el('button', { type: 'button', id: 'clear-range', 'aria-label': 'Clear inspection range', text: 'Clear range' });
  const copyLink = el('button', { type: 'button', id: 'copy-link', 'aria-label': 'Copy link to this view',
    title: 'Copy a link to exactly this view: selection, zoom, inspection range, open pane and its search' },
    el('span', { class: 'icon icon-link', 'aria-hidden': 'true' }), 'Link to this view');
  headerActions.append(compareWith(trace, state), copyLink);

  const windowLabel = el('span', { class: 'window-label', 'aria-live': 'off', id: 'window-label' });
  const notes = trace.importNotes?.length ? el('details', { class: 'import-notes' },
    el('summary', { text: `${trace.importNotes.length} import note${trace.importNotes.length > 1 ? 's' : ''}` }),
    el('ul', {}, ...trace.importNotes.map((note) => el('li', { text: note })))) : null;
  const toolbar = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Timeline' },
    zoomFit, zoomRange, clearRange, notes, el('span', { class: 'spacer' }), windowLabel);
  const legend = el('div', { class: 'legend', role: 'group', 'aria-label': 'Legend' },
    ...[['--orange', 'Long update (> 500 us)'], ['--red', 'Very long update (> 1 ms)'], ['--gray-event', 'Update'],
      ['--accent', 'Update group'], ['--hitch', 'Hitch'], ['--hang', 'Hang (striped)'], ['--cpu', 'CPU, other threads'], ['--cpu-main', 'CPU, main thread']]
      .map(([color, label]) => el('span', {}, el('span', { class: `swatch swatch${color}`, style: { 'background-color': `var(${color})` }, 'aria-hidden': 'true' }), label)),
    el('span', {}, el('span', { class: 'swatch swatch-finding', 'aria-hidden': 'true' }), 'Finding (bar under the ruler, by severity)'),
    hasTaskData(trace) ? el('span', { id: 'legend-main-actor-waits' }, 'Main Actor Waits: orange > 16 ms, red > 100 ms') : null,
    (trace.lanes ?? []).some((lane) => lane.signposts)
      ? el('span', { id: 'legend-signposts' }, el('span', { class: 'swatch swatch--signpost', style: { 'background-color': 'var(--signpost)' }, 'aria-hidden': 'true' }),
        'Signposts: one lane per subsystem · category, at most 12 (the rest share “Other signposts”); overlapping ones stack in rows')
      : null);
  const timelineSection = el('section', { id: 'timeline', 'aria-label': 'Timeline lanes' });
  const help = el('div', { class: 'tl-help', id: 'timeline-help',
    text: 'Wheel: zoom · drag: pan · W/S zoom, A/D or ←/→ pan · drag on the ruler: inspection range · click an update or press [ ] to select long updates · Esc clears the selection' });
  const detailPane = el('div', { id: 'detail-pane' }, el('p', { class: 'pane-placeholder', role: 'status', text: 'Loading detail panes…' }));
  const updateDetails = el('aside', { id: 'update-details', 'aria-label': 'Selected update' });
  const view = el('div', { class: 'trace-view' }, toolbar, runPicker(trace), legend, timelineSection, help,
    el('section', { id: 'detail-area', 'aria-label': 'Details' }, detailPane, updateDetails));
  app.append(view);

  const clearSignpost = () => { if (state.get().signpost !== null) state.set({ signpost: null }); };
  const ctx = {
    traceId: trace.id,
    trace,
    api,
    state,
    /** `graph` pins the graph's subject (a selection made inside the graph must not re-root it);
     *  otherwise an update's graph follows the selection. */
    async selectUpdate(id, { zoom = false, graph = null } = {}) {
      const patch = { update: id };
      if (id !== null) patch.signpost = null;
      if (graph) patch.graph = graph;
      else if (id !== null && /^u\d+$/.test(state.get().graph ?? '') && state.get().graph !== `u${id}`) {
        patch.graph = `u${id}`;
        patch.groups = [];
      }
      if (zoom && id !== null) {
        const update = await api.get(`updates/${id}`);
        Object.assign(patch, updateContext(trace, update, state.get()));
      }
      state.set(patch, { push: true });
    },
    /** `zoom`: true zooms to the range; 'context' (one update's range) shows context around it too. */
    setRange(start, end, { zoom = true } = {}) {
      const patch = { range: start === null ? null : [Math.round(start), Math.round(end)] };
      if (zoom && start !== null) {
        patch.window = zoom === 'context' ? contextWindow(trace, start, end - start) : [Math.round(start), Math.round(end)];
      }
      state.set(patch, { push: true });
    },
    openPane(name, arg = {}) {
      const patch = { pane: name };
      if (arg && 'view' in arg) patch.paneView = { module: arg.module ?? '', view: arg.view, category: arg.category ?? '' };
      if (arg && 'update' in arg) patch.update = arg.update;
      // The CPU pane is of the range unless asked for all updates of the view ({cpu: 'view'}).
      if (name === 'cpu') patch.cpu = arg?.cpu === 'view' ? 'view' : null;
      if (name === 'graph') {
        // The graph of what was asked for (an update or a view), else of the selected update.
        patch.graph = graphSubject(arg?.update != null || arg?.view ? arg : { update: state.get().update });
        patch.groups = [];
      }
      state.set(patch, { push: true });
    },
    copyLink: (text, what) => copyText(text, what),
    /** A Swift task's state interval (Main Actor lanes) in the side panel, in place of an update. */
    selectTaskState: (row) => { clearSignpost(); taskDetails.show(row); },
    /** A signpost (signpost lanes) in the side panel: `sp=` in the URL, so links keep it. */
    selectSignpost: (row) => state.set({ signpost: row, update: null }, { push: true }),
    /** A merged Main Actor lane mark: the longest interval in it, with the others listed. */
    selectTaskStates: (lane, start, end) => { clearSignpost(); taskDetails.showSpan(lane, start, end); },
    zoomToUpdate: (id) => ctx.selectUpdate(id, { zoom: true }),
  };

  const timeline = createTimeline(timelineSection, ctx, { windowLabel, findings: traceFindings(ctx) });
  const details = createDetails(updateDetails, ctx);
  const taskDetails = createTaskDetails(updateDetails, ctx);
  // After the update panel: selecting a signpost clears the update, then this panel fills the space.
  const signpostDetails = createSignpostDetails(updateDetails, ctx);
  zoomFit.addEventListener('click', () => timeline.zoomToFit());
  zoomRange.addEventListener('click', () => { const r = state.get().range; if (r) state.set({ window: [...r] }, { push: true }); });
  clearRange.addEventListener('click', () => ctx.setRange(null, null, { zoom: false }));
  copyLink.addEventListener('click', () => { timeline.flush(); copyText(state.link(), 'Link to this view'); });
  const syncButtons = () => {
    const hasRange = !!state.get().range;
    zoomRange.disabled = !hasRange;
    clearRange.disabled = !hasRange;
  };
  syncButtons();
  const unsubscribe = state.subscribe((_, changed) => { if (changed.includes('range')) syncButtons(); });

  let panes = null;
  let alive = true;
  import('./panes/index.js')
    .then((module) => { if (alive) panes = module.mountDetailPanes(detailPane, ctx) ?? null; })
    .catch((error) => {
      if (!alive) return;
      detailPane.replaceChildren(el('p', { class: 'pane-placeholder', role: 'status', text: `Detail panes are not available: ${error.message}` }));
    });

  current = {
    traceId: trace.id,
    state,
    restore: async (next) => {
      // Back/forward, or a pasted link to the same trace: an update without a window gets context.
      if (next.update !== null && !next.window) {
        try {
          const update = await api.get(`updates/${next.update}`);
          next = { ...next, ...updateContext(trace, update, next) };
        } catch { /* the details panel reports the missing update */ }
      }
      state.restore(next);
    },
    teardown() {
      alive = false;
      unsubscribe();
      timeline.destroy();
      details.destroy();
      taskDetails.destroy();
      signpostDetails.destroy();
      if (typeof panes === 'function') panes();
      else panes?.destroy?.();
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
        picker.replaceChildren(...traces.filter((t) => t.id !== trace.id).map((t) => el('option', { value: t.id, text: t.name })));
        go.disabled = !picker.options.length;
      } catch (error) {
        popup.append(el('span', { class: 'error-box', text: error.message }));
      }
    } }, 'Compare with…');
  return el('span', { class: 'compare-with' }, open, popup);
}

// A trace file dropped anywhere, on any page, is uploaded: from the list page, which shows the
// progress and any error. (Without this, the browser would leave the app to show the file.)
const dropOverlay = el('div', { id: 'drop-overlay', hidden: true, 'aria-hidden': 'true' },
  el('span', { class: 'drop-message', text: 'Drop a trace file to upload it' }));
document.body.append(dropOverlay);
let dragDepth = 0;
const carriesFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes('Files');
window.addEventListener('dragenter', (event) => {
  if (!carriesFiles(event)) return;
  event.preventDefault();
  dragDepth += 1;
  dropOverlay.hidden = false;
});
window.addEventListener('dragover', (event) => { if (carriesFiles(event)) event.preventDefault(); });
window.addEventListener('dragleave', () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) dropOverlay.hidden = true;
});
window.addEventListener('drop', (event) => {
  if (!carriesFiles(event)) return;
  event.preventDefault();
  dragDepth = 0;
  dropOverlay.hidden = true;
  const file = event.dataTransfer.files[0];
  if (!file) return;
  if (current?.upload) current.upload(file);
  else { droppedFile = file; navigate('/'); }
});

startNavigation(route);
route();
