// CPU pane (Time Profiler, or the CPU Profiler in cycles): the call tree of the samples in the
// inspection range, main thread first, with total and self weight in the unit the trace has; or
// (c=view) of the samples inside every update of one view, rooted at its body frame. Opens with
// the heaviest path expanded (a tie on the way is said, not hidden); warns when too few samples
// hold the tree; "Invert call tree" shows it bottom-up; "Hide system libraries" and "Charge to
// caller" work as in Instruments' call tree; the search box (Ctrl/Cmd+F) keeps and highlights
// frames whose name matches.
// Keyboard: arrows move/expand/collapse, `h` expands the heaviest path below the selected row,
// `*` expands everything below it.
import {
  currentRange, currentPaneView, rangeParams, formatDuration, formatTime, plural, latestOnly, loadingSoon, message,
} from '../common.js';
import { el } from '../../dom.js';
import { markSelectedRow, scrollRowIntoView } from '../tree.js';
import { flattenTree, formatWeight, heaviestPath, isBottomUp, MIN_TRUSTED_SAMPLES, prepareTree, searchTree } from './model.js';
import { treeRows } from './rows.js';
import { attachTreeInput } from './input.js';

export function mountCallTree(root, traceView) {
  let data = null;            // {totalWeight, sampleCount, roots: [Node]} with ids/parents added
  let byId = new Map();
  let expanded = new Set();
  let selectedId = null;
  let searchText = traceView.state.get().search ?? '';
  let searchTimer = 0;
  let thread = '';            // '' = all threads, else a thread index
  let rows = [];
  let shown = null;           // while searching: ids of the rows kept, else null
  const load = latestOnly();
  let stopLoading = null;     // cancels the pending "Loading…" of the last request

  let hideSystem = false;
  let charged = [];           // frame names charged to their callers
  const {
    search, invert, chargedList, scope, scopeReset, totals, unitLabel, weightHeader, selfHeader, notes, tbody, table, viewport, status, parts,
  } = callTreeFrame(traceView.trace, { searchText, bottomUp: isBottomUp(traceView.state.get().mode) }, {
    search(text) {
      searchText = text;
      applySearch();
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => traceView.state.set({ search: searchText }, { push: false }), 250);
    },
    focusTree: () => focusTree(),
    invert: (on) => traceView.state.set({ mode: on ? 'bottom-up' : 'top-down' }, { push: true }),
    thread: (index) => { thread = index; refresh(); },
    heaviest: () => { expandHeaviest(selectedId ?? data?.roots[0]?.id); focusTree(); },
    hideSystem: (on) => { hideSystem = on; refresh(); },
    charge: () => chargeSelected(),
    showRange: () => traceView.state.set({ cpu: null }, { push: true }),
  });
  root.replaceChildren(...parts);

  const input = attachTreeInput(table, search, {
    rows: () => rows,
    index: () => rows.findIndex((r) => r.id === selectedId),
    select: (i) => select(rows[i].id, true),
    setExpanded: (i, open, deep) => setExpanded(rows[i].id, open, deep),
    heaviest: () => expandHeaviest(selectedId ?? data?.roots[0]?.id),
    charge: () => chargeSelected(),
  });

  /** The view whose updates the tree is of (c=view with a pv=), else null. */
  function scopeView(state) {
    return state.cpu === 'view' ? currentPaneView(state) : null;
  }

  function chargeSelected() {
    const node = selectedId != null ? byId.get(selectedId) : null;
    if (!node || !node.binary || charged.includes(node.name)) return;
    charged = [...charged, node.name];
    refresh();
  }

  function renderCharged() {
    chargedList.replaceChildren(...charged.map((name) => el('span', { class: 'cpu-charged-item', title: `${name}: its time is charged to its callers` },
      el('span', { class: 'cpu-charged-name' }, name),
      el('button', { type: 'button', class: 'pane-link', 'aria-label': `Show ${name} again`,
        onclick: () => { charged = charged.filter((c) => c !== name); refresh(); } }, '×'))));
  }

  function refresh() {
    const state = traceView.state.get();
    const range = currentRange(state);
    const mode = isBottomUp(state.mode) ? 'bottom-up' : 'top-down';
    const view = scopeView(state);
    invert.checked = mode === 'bottom-up';
    const rangeText = range
      ? `Inspection range ${formatTime(range.start)} – ${formatTime(range.end)} (${formatDuration(range.end - range.start)})`
      : 'Whole trace';
    scope.textContent = view ? `Every update of ${view.view}${range ? ' in the inspection range' : ''}, from its body` : rangeText;
    scopeReset.hidden = !view;
    renderCharged();
    stopLoading?.();
    const loaded = stopLoading = loadingSoon(status, 'Loading call tree…');
    const params = { ...rangeParams(range), mode };
    if (thread !== '') params.thread = thread;
    if (view) Object.assign(params, { view: view.view, module: view.module });
    if (hideSystem) params.hideSystem = 'true';
    if (charged.length) params.charge = charged.join('\n');
    load(
      () => traceView.api.get('calltree', params).finally(loaded),
      (result) => { status.replaceChildren(); setData(result); },
      (error) => { setData(null); status.replaceChildren(message(`Could not load the call tree: ${error.message}`, 'error')); },
    );
  }

  function setData(result) {
    const mainThreads = new Set((traceView.trace?.threads ?? []).filter((t) => t.isMain).map((t) => t.name));
    ({ data, byId } = result ? prepareTree(result, mainThreads) : { data: null, byId: new Map() });
    expanded = new Set();
    selectedId = null;
    const cycles = data?.unit === 'cycles';
    unitLabel.textContent = !data ? '' : cycles ? 'Weights: CPU cycles (CPU Profiler), not time' : 'Weights: CPU time';
    weightHeader.textContent = cycles ? 'Cycles' : 'Weight';
    selfHeader.textContent = cycles ? 'Self Cycles' : 'Self Weight';
    totals.textContent = data
      ? `${data.updateCount != null ? `${plural(data.updateCount, 'update')} · ` : ''}`
        + `${plural(data.sampleCount, 'sample')} · ${cycles ? formatWeight(data.totalWeight, data.unit) : `${formatDuration(data.totalWeight)} of CPU`}` : '';
    notes.replaceChildren();
    if (data && data.sampleCount > 0 && data.sampleCount < MIN_TRUSTED_SAMPLES) {
      const interval = data.totalWeight / data.sampleCount;
      const hint = scopeView(traceView.state.get()) ? 'Widen the inspection range, or clear it.'
        : 'Use “CPU of All Updates of This View” (Summary or Updates ⋯ menu) to merge every update of a view, or widen the range.';
      notes.append(el('p', { class: 'cpu-warning', role: 'note' },
        `Only ${plural(data.sampleCount, 'sample')} (one every ${formatDuration(interval)}): `
        + `too few to trust which frame is heaviest. ${hint}`));
    }
    if (data && searchText) applySearch();
    else if (data?.roots.length) expandHeaviest(data.roots[0].id, false);
    else render();
  }

  // While searching, a node is shown when its name matches or something below it does; matches
  // keep their subtree (collapsed) so a matched function can still be opened.
  function applySearch() {
    if (!data) return;
    const q = searchText.trim().toLowerCase();
    if (!q) {
      shown = null;
      expanded = new Set();
      if (data.roots.length) expandHeaviest(data.roots[0].id, false); else render();
      return;
    }
    const found = searchTree(data.roots, q);
    shown = found.shown;
    expanded = found.opened;
    selectedId = found.firstMatch?.id ?? null;
    render();
    if (selectedId) revealSelected(false);
    if (!found.firstMatch) status.replaceChildren(message(`No frame matches “${searchText.trim()}”.`));
    else status.replaceChildren();
  }

  function visibleChildren(node) {
    return shown ? node.children.filter((c) => shown.has(c.id)) : node.children;
  }

  let tiedIds = new Set();     // rows as heavy as the one the heaviest path followed

  /** Opens the chain of heaviest children below `id` and selects its end; says where it broke a tie. */
  function expandHeaviest(id, focus = true) {
    const node = id != null ? byId.get(id) : null;
    notes.querySelector('.cpu-tie-note')?.remove();
    tiedIds = new Set();
    if (!node) { render(); return; }
    for (let p = node.parent; p; p = p.parent) expanded.add(p.id);
    const { open, end, ties } = heaviestPath(node, visibleChildren);
    for (const opened of open) expanded.add(opened);
    for (const { best, tied } of ties) for (const t of [best, ...tied]) tiedIds.add(t.id);
    selectedId = end.id;
    render();
    if (ties.length) {
      const first = ties[0];
      const names = [first.best, ...first.tied].map((n) => `“${n.name}”`);
      const more = ties.length > 1 ? ` It broke ${ties.length - 1} more tie${ties.length > 2 ? 's' : ''} below.` : '';
      notes.append(el('p', { class: 'cpu-tie-note', role: 'note' },
        `Tie: below “${first.parent.name}”, ${names.join(' and ')} weigh ${formatDuration(first.best.total)} each; `
        + `the heaviest path follows ${names[0]} (first by name), not a heavier one.${more}`));
    }
    revealSelected(focus);
  }

  function setExpanded(id, open, deep = false) {
    const node = byId.get(id);
    if (!node) return;
    // `deep`: the node and everything below it.
    const stack = [node];
    while (stack.length) {
      const n = stack.pop();
      if (open) expanded.add(n.id); else expanded.delete(n.id);
      if (deep) stack.push(...visibleChildren(n));
    }
    render();
    revealSelected(true);
  }

  function render() {
    rows = flattenTree((data?.roots ?? []).filter((r) => !shown || shown.has(r.id)), expanded, visibleChildren);
    if (data && data.roots.length === 0) {
      tbody.replaceChildren(el('tr', {}, el('td', { colspan: 3, class: 'pane-empty' },
        emptyText(traceView.state.get()))));
      return;
    }
    tbody.replaceChildren(...treeRows(rows, {
      selectedId, tiedIds, total: data?.totalWeight ?? 0, unit: data?.unit, q: searchText.trim().toLowerCase(),
    }, {
      select: (id) => select(id, true),
      toggle: (row, selectIt = false) => { if (selectIt) selectedId = row.id; setExpanded(row.id, !row.expanded); },
    }));
  }

  function emptyText(state) {
    const view = scopeView(state);
    if (view) return `No CPU samples inside the updates of ${view.view}${currentRange(state) ? ' in the inspection range' : ''}.`;
    return currentRange(state) ? 'No CPU samples in the inspection range.' : 'No CPU samples in this trace.';
  }

  function select(id, focus) {
    selectedId = id;
    markSelectedRow(tbody, 'id', id);
    revealSelected(focus);
  }

  function revealSelected(focus) {
    const tr = selectedId != null ? tbody.querySelector(`tr[data-id="${CSS.escape(selectedId)}"]`) : null;
    if (!tr) return;
    if (focus) tr.focus({ preventScroll: true });
    scrollRowIntoView(viewport, tr);
  }

  function focusTree() {
    if (selectedId == null && rows.length) select(rows[0].id, true); else revealSelected(true);
  }

  refresh();
  return {
    update(state, changed) {
      if (changed.has('search') && (state.search ?? '') !== searchText) {
        searchText = state.search ?? '';
        search.value = searchText;
        applySearch();
      }
      if (changed.has('range') || changed.has('mode') || changed.has('cpu') || (state.cpu === 'view' && changed.has('paneView'))) refresh();
    },
    focus() { focusTree(); },
    destroy() {
      stopLoading?.();
      clearTimeout(searchTimer);
      input.destroy();
      root.replaceChildren();
    },
  };
}

/**
 * The pane's frame: the toolbar (search, invert, hide system libraries, thread, heaviest path,
 * charge to caller, what the tree is of and its totals) over the notes and the tree's table.
 * `initial`: {searchText, bottomUp}; the controls call `actions`.
 */
function callTreeFrame(trace, initial, actions) {
  const search = el('input', {
    type: 'search', class: 'cpu-search', placeholder: `Search frames (${/Mac|iPhone|iPad/.test(navigator.platform) ? '⌘F' : 'Ctrl+F'})`, 'aria-label': 'Search frames',
    value: initial.searchText,
  });
  search.addEventListener('input', () => actions.search(search.value));
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && search.value) { e.preventDefault(); search.value = ''; search.dispatchEvent(new Event('input')); }
    else if (e.key === 'ArrowDown' || e.key === 'Enter') { e.preventDefault(); actions.focusTree(); }
  });
  const invert = el('input', { type: 'checkbox', id: 'cpu-invert', checked: initial.bottomUp });
  invert.addEventListener('change', () => actions.invert(invert.checked));
  const threadSelect = el('select', { class: 'cpu-thread', 'aria-label': 'Thread' },
    el('option', { value: '' }, 'All threads'),
    (trace?.threads ?? []).map((t) => el('option', { value: t.index }, `${t.name || `Thread ${t.tid}`}${t.isMain ? ' (main)' : ''}`)));
  threadSelect.addEventListener('change', () => actions.thread(threadSelect.value));
  const heaviest = el('button', {
    type: 'button', class: 'pane-button', title: 'Expand the heaviest path below the selected row (H)', onclick: actions.heaviest,
  }, 'Expand Heaviest Path');
  const hideSystemBox = el('input', { type: 'checkbox', id: 'cpu-hide-system' });
  hideSystemBox.addEventListener('change', () => actions.hideSystem(hideSystemBox.checked));
  const chargeButton = el('button', {
    type: 'button', class: 'pane-button', title: 'Leave the selected frame out and charge its time to its callers (C)', onclick: actions.charge,
  }, 'Charge to Caller');
  const chargedList = el('span', { class: 'cpu-charged', 'aria-label': 'Frames charged to their callers' });
  const scope = el('span', { class: 'pane-scope' });
  const scopeReset = el('button', { type: 'button', class: 'pane-link', hidden: true, onclick: actions.showRange }, 'Show the range instead');
  const totals = el('span', { class: 'pane-totals', 'data-testid': 'cpu-total' });
  // What the weights count: the CPU Profiler's cycles are no time, and the pane says so.
  const unitLabel = el('span', { class: 'pane-unit', 'data-testid': 'cpu-unit' });
  const toolbar = el('div', { class: 'pane-toolbar' }, search,
    el('label', { class: 'pane-check', for: 'cpu-invert' }, invert, 'Invert call tree'),
    el('label', { class: 'pane-check', for: 'cpu-hide-system' }, hideSystemBox, 'Hide system libraries'),
    threadSelect, heaviest, chargeButton, chargedList, scope, scopeReset, unitLabel, totals);
  const weightHeader = el('th', { scope: 'col', class: 'num' }, 'Weight');
  const selfHeader = el('th', { scope: 'col', class: 'num' }, 'Self Weight');
  // Trust (too few samples) and how the heaviest path was chosen: said above the tree.
  const notes = el('div', { class: 'cpu-notes' });
  const tbody = el('tbody');
  const table = el('table', { class: 'pane-table cpu-table', role: 'treegrid', 'aria-label': 'CPU call tree' },
    el('thead', {}, el('tr', {}, weightHeader, selfHeader,
      el('th', { scope: 'col', class: 'name-col' }, 'Symbol Name'))),
    tbody);
  const viewport = el('div', { class: 'pane-scroll' }, table);
  const status = el('div', { class: 'pane-status' });
  return {
    search, invert, chargedList, scope, scopeReset, totals, unitLabel, weightHeader, selfHeader, notes, tbody, table, viewport, status,
    parts: [toolbar, status, notes, viewport],
  };
}
