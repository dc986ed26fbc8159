// Updates pane: every update of one view (in the inspection range, with the summary's filter),
// as a virtualised list: fixed row height, only the rows in sight are in the DOM, and pages of
// rows are fetched from the server when they scroll into sight, so 100k updates scroll smoothly.
import {
  currentFilter, currentRange, currentPaneView, rangeParams, filterSelect, formatDuration, formatTime,
  formatCount, plural, loadingSoon, message, severityLabel,
} from './common.js';
import { el } from '../dom.js';
import { menuButton, showMenu } from './menu.js';
import { selectedUpdate } from '../state.js';
import { update } from '../selections/update.js';

export const ROW_HEIGHT = 24;
const PAGE_SIZE = 200;
const OVERSCAN = 8;

const COLUMNS = [
  { key: 'start', title: 'Start', sort: 'start' },
  { key: 'duration', title: 'Duration', sort: 'duration' },
  { key: 'severity', title: 'Severity', sort: 'duration' },
  { key: 'group', title: 'Group' },
  { key: 'cause', title: 'Cause' },
];

export function mountUpdates(root, traceView) {
  let query = null;         // {key, params}: what the list shows now
  let total = null;         // row count of the current query, once the first page arrived
  let pages = new Map();    // page index -> rows array, or a Promise while loading
  let sort = { by: 'start', order: 'asc' };
  let focusIndex = -1;      // keyboard cursor (row index)
  let frame = 0;
  let stopLoading = null;     // cancels the pending "Loading…" of the last request

  const { title, select, scope, count, clearRange, cpuButton, header, spacer, body, viewport, status } = updatesFrame(root, traceView);

  viewport.addEventListener('scroll', schedule, { passive: true });
  const resize = new ResizeObserver(schedule);
  resize.observe(viewport);
  viewport.addEventListener('keydown', onKey);

  function schedule() {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; renderRows(); });
  }

  function refresh() {
    const state = traceView.state.get();
    const pv = currentPaneView(state);
    const range = currentRange(state);
    const filter = currentFilter(state);
    select.value = filter;
    clearRange.hidden = !range;
    scope.textContent = range ? `in ${formatTime(range.start)} – ${formatTime(range.end)}` : 'whole trace';
    cpuButton.hidden = !pv;
    if (!pv) {
      title.textContent = 'Updates';
      query = null; total = 0; pages = new Map();
      status.replaceChildren(message('Choose a view in the Summary (⋯ → Show Updates) to list its updates.'));
      count.textContent = '';
      renderHeader(); renderRows();
      return;
    }
    title.replaceChildren(el('span', { class: 'updates-view' }, pv.view), pv.module ? el('span', { class: 'updates-module' }, ` — ${pv.module}`) : '',
      pv.category ? el('span', { class: 'summary-category' }, pv.category) : '');
    const params = { view: pv.view, module: pv.module, filter, ...rangeParams(range), sort: sort.by, order: sort.order };
    if (pv.category) params.category = pv.category;
    const key = JSON.stringify(params);
    if (query?.key === key) return;
    query = { key, params };
    total = null; pages = new Map(); focusIndex = -1;
    viewport.scrollTop = 0;
    status.replaceChildren();
    stopLoading?.();
    const loaded = stopLoading = loadingSoon(status, 'Loading updates…');
    renderHeader();
    fetchPage(0)?.finally(loaded);
    renderRows();
    revealSelectedUpdate();
  }

  // Scrolls the selected update (chosen on the timeline, or in a shared link) into sight. Its
  // position in a start-sorted list is the number of listed updates that start before it: the
  // updates overlapping [range start, its start). Ties at the same start land within a row or two.
  async function revealSelectedUpdate() {
    const id = selectedUpdate(traceView.state.get());
    const mine = query;
    if (id == null || !mine || sort.by !== 'start') return;
    try {
      const { u, before } = await startsBefore(traceView, mine.params, id);
      if (query !== mine || !u) return;
      await pages.get(0);
      if (query !== mine || total == null || selectedUpdate(traceView.state.get()) !== u.id) return;
      const index = Math.min(total - 1, sort.order === 'asc' ? before : total - 1 - before);
      // Size the list to its total first: the browser clamps scrollTop to the content's height,
      // and the render that would size it may still be waiting for the next frame.
      renderRows();
      const top = index * ROW_HEIGHT;
      if (top < viewport.scrollTop || top + ROW_HEIGHT > viewport.scrollTop + viewport.clientHeight) {
        viewport.scrollTop = Math.max(0, top - viewport.clientHeight / 3);
      }
      renderRows();
      await pages.get(Math.floor(index / PAGE_SIZE));
      if (query !== mine) return;
      for (let i = Math.max(0, index - 5); i <= Math.min(total - 1, index + 5); i++) {
        if (rowAt(i)?.id === u.id) focusIndex = i;
      }
      renderRows();
    } catch {
      // Not this view's update, or gone: nothing to reveal.
    }
  }

  function fetchPage(index) {
    if (pages.has(index) || !query) return;
    const mine = query;
    const promise = traceView.api.get('updates', { ...mine.params, offset: index * PAGE_SIZE, limit: PAGE_SIZE })
      .then((result) => {
        if (query !== mine) return;
        pages.set(index, result.updates ?? []);
        if (total !== result.total) {
          total = result.total ?? 0;
          count.textContent = plural(total, 'update');
          status.replaceChildren(total === 0 ? message(currentRange(traceView.state.get())
            ? 'No updates of this view in the inspection range.' : 'No updates of this view match the filter.') : '');
        }
        schedule();
      })
      .catch((error) => {
        if (query !== mine) return;
        pages.delete(index);
        status.replaceChildren(message(`Could not load updates: ${error.message}`, 'error'));
      });
    pages.set(index, promise);
    return promise;
  }

  function rowAt(i) {
    const page = pages.get(Math.floor(i / PAGE_SIZE));
    return Array.isArray(page) ? page[i % PAGE_SIZE] ?? null : null;
  }

  function renderHeader() {
    header.replaceChildren(...headerCells(sort, (next) => { sort = next; refresh(); }));
  }

  function renderRows() {
    const n = total ?? 0;
    spacer.style.height = `${n * ROW_HEIGHT}px`;
    viewport.setAttribute('aria-rowcount', String(n));
    // Never trust an unbounded viewport: render at most a window's worth of rows.
    const height = Math.min(viewport.clientHeight || 400, window.innerHeight);
    const first = Math.max(0, Math.floor(viewport.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(n, Math.ceil((viewport.scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
    const selected = selectedUpdate(traceView.state.get());
    const nodes = [];
    for (let i = first; i < last; i++) {
      const u = rowAt(i);
      if (!u) fetchPage(Math.floor(i / PAGE_SIZE));
      nodes.push(renderRow(i, u, selected));
    }
    body.replaceChildren(...nodes);
    // Fetch the neighbouring pages before they scroll into sight, so scrolling never shows "…".
    if (n) for (const i of [first - PAGE_SIZE / 2, last + PAGE_SIZE / 2]) {
      if (i >= 0 && i < n) fetchPage(Math.floor(i / PAGE_SIZE));
    }
  }

  function renderRow(i, u, selected) {
    return updateRow(i, u, { selected: selected != null && Number(selected) === u?.id, focused: i === focusIndex }, {
      select() {
        focusIndex = i;
        // Bring the update into view only when it is not already: the user's zoom stays otherwise.
        const w = traceView.state.get().window;
        const visible = w && u.start < w[1] && u.start + u.duration > w[0];
        traceView.select({ kind: 'update', id: u.id }, { zoom: !visible });
      },
      menu: (at) => showMenu(at, rowActions(traceView, u)),
      actions: () => rowActions(traceView, u),
    });
  }

  function onKey(e) {
    const n = total ?? 0;
    if (!n || e.altKey || e.ctrlKey || e.metaKey) return;
    const visible = Math.max(1, Math.floor(viewport.clientHeight / ROW_HEIGHT) - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: visible, PageUp: -visible, Home: -Infinity, End: Infinity };
    if (e.key in moves) {
      e.preventDefault();
      e.stopPropagation(); // the timeline pans on arrows at the document
      focusIndex = Math.max(0, Math.min(n - 1, (focusIndex < 0 ? -1 : focusIndex) + moves[e.key]));
      scrollRowIntoView(viewport, focusIndex);
      const u = rowAt(focusIndex);
      if (u) traceView.select({ kind: 'update', id: u.id }, { zoom: false });
      renderRows();
    } else if (e.key === 'Enter' || e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) {
      const u = rowAt(focusIndex);
      const node = body.querySelector(`[data-index="${focusIndex}"]`);
      if (!u || !node) return;
      e.preventDefault();
      if (e.key === 'Enter') traceView.select({ kind: 'update', id: u.id }, { zoom: true });
      else showMenu({ anchor: node.querySelector('.pane-row-menu'), label: `Actions for update ${u.id}` }, rowActions(traceView, u));
    }
  }

  refresh();
  return {
    update(state, changed) {
      if (changed.has('paneView') || changed.has('range') || changed.has('filter')) refresh();
      else if (changed.has('update')) {
        renderRows();
        if (!body.querySelector('.updates-row.selected')) revealSelectedUpdate();
      }
    },
    focus() { viewport.focus(); },
    destroy() {
      stopLoading?.();
      resize.disconnect();
      if (frame) cancelAnimationFrame(frame);
      query = null;
      root.replaceChildren();
    },
  };
}

/** The pane's elements in `root`: its toolbar (title, filter, scope, buttons, count), the status line, and the list's header and scrolled rows. */
function updatesFrame(root, traceView) {
  const title = el('h2', { class: 'updates-title' });
  const select = filterSelect(currentFilter(traceView.state.get()), (filter) => traceView.state.set({ filter }, { push: true }));
  const scope = el('span', { class: 'pane-scope' });
  const count = el('span', { class: 'pane-totals', 'data-testid': 'updates-total' });
  const back = el('button', { type: 'button', class: 'pane-link', 'aria-label': 'Back to the Summary', onclick: () => traceView.openPane('summary') }, '‹ Summary');
  const clearRange = el('button', { type: 'button', class: 'pane-link', hidden: true,
    onclick: () => traceView.setRange(null, null, { zoom: false }) }, 'Clear inspection range');
  const cpuButton = el('button', { type: 'button', class: 'pane-button', hidden: true, onclick: () => showViewCPU(traceView),
    title: 'The CPU samples inside every update of this view, merged and rooted at its body' }, 'CPU of All Updates');
  const toolbar = el('div', { class: 'pane-toolbar' }, back, title, select, scope, clearRange, cpuButton, count);
  const header = el('div', { class: 'updates-header', role: 'row' });
  const spacer = el('div', { class: 'updates-spacer' });
  const body = el('div', { class: 'updates-rows', role: 'rowgroup' });
  const viewport = el('div', {
    class: 'updates-viewport', tabindex: '0', role: 'grid', 'aria-label': 'Updates of the view',
    'aria-rowcount': '0',
  }, spacer, body);
  const status = el('div', { class: 'pane-status' });
  root.replaceChildren(toolbar, status, el('div', { class: 'updates-list' }, header, viewport));
  return { title, select, scope, count, clearRange, cpuButton, header, spacer, body, viewport, status };
}

/**
 * Update `id` ({u}) and how many updates of the list's query (`params`) start before it (`before`):
 * the updates overlapping [the range's start, its start). {u: null} when it is not this view's.
 */
async function startsBefore(traceView, params, id) {
  const u = await traceView.api.get(update.resource(id));
  if (u.view !== params.view || (params.module && u.module !== params.module) || (params.category && u.category !== params.category)) return { u: null };
  const from = params.start ?? traceView.trace?.start ?? 0;
  const before = u.start > from ? (await traceView.api.get('updates', { ...params, start: from, end: u.start, offset: 0, limit: 1 })).total : 0;
  return { u, before };
}

/** Scrolls `viewport` the least that shows row `index` whole. */
function scrollRowIntoView(viewport, index) {
  if (index * ROW_HEIGHT < viewport.scrollTop) viewport.scrollTop = index * ROW_HEIGHT;
  else if ((index + 1) * ROW_HEIGHT > viewport.scrollTop + viewport.clientHeight) viewport.scrollTop = (index + 1) * ROW_HEIGHT - viewport.clientHeight;
}

function rowActions(traceView, u) {
  return [
    // A zero-length update still gets a range (of 1 ns): an empty one would not be a range.
    { label: 'Set Inspection Range and Zoom', action: () => traceView.setRange(u.start, u.start + Math.max(u.duration, 1), { zoom: 'context' }) },
    { label: 'Select on Timeline', action: () => traceView.select({ kind: 'update', id: u.id }, { zoom: true }) },
    { label: 'Show Cause & Effect Graph', action: () => traceView.openPane('graph', { update: u.id }) },
    { label: 'CPU of All Updates of This View', action: () => showViewCPU(traceView) },
  ];
}

function showViewCPU(traceView) {
  const pv = currentPaneView(traceView.state.get());
  if (pv) traceView.openPane('cpu', { ...pv, cpu: 'view' });
}

function groupText(group) {
  if (group == null || group === '') return '';
  if (typeof group === 'object') return group.label || (group.id != null ? `#${group.id}` : '');
  return typeof group === 'number' ? `#${group}` : String(group);
}

/** The column headers; a sortable column's button calls `onSort({by, order})` (a second click flips the order). */
function headerCells(sort, onSort) {
  return COLUMNS.map((c) => {
    const active = c.key === sort.by;
    const cell = el('div', {
      class: `updates-cell col-${c.key}`, role: 'columnheader',
      'aria-sort': active ? (sort.order === 'asc' ? 'ascending' : 'descending') : (c.sort ? 'none' : null),
    });
    if (!c.sort) { cell.textContent = c.title; return cell; }
    cell.append(el('button', {
      type: 'button', class: 'pane-sort', 'aria-label': `Sort by ${c.title}`,
      onclick: () => onSort(sort.by === c.sort ? { by: c.sort, order: sort.order === 'asc' ? 'desc' : 'asc' }
        : { by: c.sort, order: c.sort === 'duration' ? 'desc' : 'asc' }),
    }, c.title, active ? el('span', { class: 'sort-arrow', 'aria-hidden': 'true' }, sort.order === 'asc' ? '▲' : '▼') : null));
    return cell;
  });
}

/**
 * Row `i` of the virtualised list: update `u`, or a placeholder while its page loads. `shows`:
 * {selected, focused}; `row`: select(), menu({x, y, label} | {anchor, label}), actions() (its menu's items).
 */
function updateRow(i, u, shows, row) {
  const style = { top: `${i * ROW_HEIGHT}px`, height: `${ROW_HEIGHT}px` };
  if (!u) {
    return el('div', { class: 'updates-row loading', role: 'row', 'aria-rowindex': i + 1, style },
      el('div', { role: 'gridcell', class: 'updates-cell col-start' }, '…'));
  }
  return el('div', {
    class: `updates-row${i % 2 ? ' odd' : ''}${shows.selected ? ' selected' : ''}${shows.focused ? ' focused' : ''}`,
    role: 'row', 'aria-rowindex': i + 1, 'aria-selected': String(shows.selected), style,
    dataset: { id: u.id, index: i },
    onclick: row.select,
    oncontextmenu: (e) => {
      e.preventDefault();
      row.menu({ x: e.clientX, y: e.clientY, label: `Actions for update ${u.id}` });
    },
  },
  el('div', { role: 'gridcell', class: 'updates-cell col-start num' }, formatTime(u.start)),
  el('div', { role: 'gridcell', class: 'updates-cell col-duration num' }, formatDuration(u.duration)),
  el('div', { role: 'gridcell', class: 'updates-cell col-severity' },
    el('span', { class: `severity-dot severity-${u.severity}`, 'aria-hidden': 'true' }), severityLabel[u.severity] ?? u.severity),
  el('div', { role: 'gridcell', class: 'updates-cell col-group', title: u.group != null ? `Update group ${groupText(u.group)}` : '' }, groupText(u.group)),
  el('div', { role: 'gridcell', class: 'updates-cell col-cause', title: u.cause || '' }, u.cause || el('span', { class: 'muted' }, 'unknown'),
    menuButton(`Actions for update at ${formatTime(u.start)}`, row.actions)));
}
