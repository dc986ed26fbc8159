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
  currentRange, currentPaneView, rangeParams, formatDuration, formatTime, formatMs, formatPercent, formatCount, plural,
  latestOnly, loadingSoon, message,
} from './common.js';
import { el } from '../dom.js';
import { handleTreeKey, markSelectedRow, scrollRowIntoView } from './tree.js';

/** A call tree weight in its unit: CPU time ("ns", Time Profiler) or cycles (CPU Profiler). */
export function formatWeight(value, unit) {
  if (unit !== 'cycles') return formatMs(value);
  const n = Number(value);
  const [scale, suffix] = n >= 1e9 ? [1e9, ' G'] : n >= 1e6 ? [1e6, ' M'] : n >= 1e3 ? [1e3, ' k'] : [1, ''];
  const x = n / scale;
  return `${scale === 1 ? String(n) : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)}${suffix} cycles`;
}

/** The URL keeps the mode as m=td / m=bu; accept either spelling from the state. */
export function isBottomUp(mode) {
  return mode === 'bu' || mode === 'bottom-up';
}

/**
 * Below this many samples a frame's share of the tree is too uncertain to act on: with n samples
 * a share p has a standard error of sqrt(p(1-p)/n), up to 7 points at 50 samples.
 */
export const MIN_TRUSTED_SAMPLES = 50;

/**
 * The heaviest child of `children` ({total, name}[], non-empty) and the ones tied with it: the
 * server sorts ties by name, so the pick is the first by name, which the pane says.
 */
export function heaviestChild(children) {
  const best = children.reduce((a, c) => (c.total > a.total ? c : a));
  return { best, tied: children.filter((c) => c !== best && c.total === best.total) };
}

export function mountCallTree(root, ctx) {
  let data = null;            // {totalWeight, sampleCount, roots: [Node]} with ids/parents added
  let byId = new Map();
  let expanded = new Set();
  let selectedId = null;
  let searchText = ctx.state.get().search ?? '';
  let searchTimer = 0;
  let thread = '';            // '' = all threads, else a thread index
  let rows = [];
  let shown = null;           // while searching: ids of the rows kept, else null
  const load = latestOnly();
  let stopLoading = null;     // cancels the pending "Loading…" of the last request

  const search = el('input', {
    type: 'search', class: 'cpu-search', placeholder: `Search frames (${/Mac|iPhone|iPad/.test(navigator.platform) ? '⌘F' : 'Ctrl+F'})`, 'aria-label': 'Search frames',
    value: searchText,
  });
  search.addEventListener('input', () => {
    searchText = search.value;
    applySearch();
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => ctx.state.set({ search: searchText }, { push: false }), 250);
  });
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && search.value) { e.preventDefault(); search.value = ''; search.dispatchEvent(new Event('input')); }
    else if (e.key === 'ArrowDown' || e.key === 'Enter') { e.preventDefault(); focusTree(); }
  });
  const invert = el('input', { type: 'checkbox', id: 'cpu-invert', checked: isBottomUp(ctx.state.get().mode) });
  invert.addEventListener('change', () => ctx.state.set({ mode: invert.checked ? 'bottom-up' : 'top-down' }, { push: true }));
  const threadSelect = el('select', { class: 'cpu-thread', 'aria-label': 'Thread' },
    el('option', { value: '' }, 'All threads'),
    (ctx.trace?.threads ?? []).map((t) => el('option', { value: t.index }, `${t.name || `Thread ${t.tid}`}${t.isMain ? ' (main)' : ''}`)));
  threadSelect.addEventListener('change', () => { thread = threadSelect.value; refresh(); });
  const heaviest = el('button', {
    type: 'button', class: 'pane-button', title: 'Expand the heaviest path below the selected row (H)',
    onclick: () => { expandHeaviest(selectedId ?? data?.roots[0]?.id); focusTree(); },
  }, 'Expand Heaviest Path');
  let hideSystem = false;
  let charged = [];           // frame names charged to their callers
  const hideSystemBox = el('input', { type: 'checkbox', id: 'cpu-hide-system' });
  hideSystemBox.addEventListener('change', () => { hideSystem = hideSystemBox.checked; refresh(); });
  const chargeButton = el('button', {
    type: 'button', class: 'pane-button', title: 'Leave the selected frame out and charge its time to its callers (C)',
    onclick: () => chargeSelected(),
  }, 'Charge to Caller');
  const chargedList = el('span', { class: 'cpu-charged', 'aria-label': 'Frames charged to their callers' });
  const scope = el('span', { class: 'pane-scope' });
  const scopeReset = el('button', { type: 'button', class: 'pane-link', hidden: true,
    onclick: () => ctx.state.set({ cpu: null }, { push: true }) }, 'Show the range instead');
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
  root.replaceChildren(toolbar, status, notes, viewport);

  table.addEventListener('keydown', (e) => {
    const index = rows.findIndex((r) => r.id === selectedId);
    if ((e.key === 'h' || e.key === 'H') && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      e.stopPropagation();
      expandHeaviest(selectedId ?? data?.roots[0]?.id);
      return;
    }
    if ((e.key === 'c' || e.key === 'C') && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      e.stopPropagation();
      chargeSelected();
      return;
    }
    const handled = handleTreeKey(e, {
      rows, index,
      select: (i) => select(rows[i].id, true),
      setExpanded: (i, open, deep) => setExpanded(rows[i].id, open, deep),
    });
    // Handled keys stay here: the timeline pans and zooms on arrows and letters at the document.
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  });

  // Ctrl/Cmd+F focuses the search box while this pane is open (instead of the browser's find).
  const onDocKey = (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === 'f' || e.key === 'F')) {
      e.preventDefault();
      search.focus();
      search.select();
    }
  };
  document.addEventListener('keydown', onDocKey);

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
    const state = ctx.state.get();
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
      () => ctx.api.get('calltree', params).finally(loaded),
      (result) => { status.replaceChildren(); setData(result); },
      (error) => { setData(null); status.replaceChildren(message(`Could not load the call tree: ${error.message}`, 'error')); },
    );
  }

  function setData(result) {
    data = result ? prepare(result) : null;
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
      const hint = scopeView(ctx.state.get()) ? 'Widen the inspection range, or clear it.'
        : 'Use “CPU of All Updates of This View” (Summary or Updates ⋯ menu) to merge every update of a view, or widen the range.';
      notes.append(el('p', { class: 'cpu-warning', role: 'note' },
        `Only ${plural(data.sampleCount, 'sample')} (one every ${formatDuration(interval)}): `
        + `too few to trust which frame is heaviest. ${hint}`));
    }
    if (data && searchText) applySearch();
    else if (data?.roots.length) expandHeaviest(data.roots[0].id, false);
    else render();
  }

  // Adds ids (the path of child indexes), parents and depth; main thread first, then by weight.
  function prepare(result) {
    byId = new Map();
    const mainNames = new Set((ctx.trace?.threads ?? []).filter((t) => t.isMain).map((t) => t.name));
    const roots = [...(result.roots ?? [])].sort((a, b) => b.total - a.total);
    if (result.mode !== 'bottom-up') roots.sort((a, b) => mainNames.has(b.name) - mainNames.has(a.name));
    const visit = (node, parent, id, depth) => {
      const n = { ...node, id, parent, depth, children: [] };
      byId.set(id, n);
      const kids = [...(node.children ?? [])].sort((a, b) => b.total - a.total);
      n.children = kids.map((child, i) => visit(child, n, `${id}.${i}`, depth + 1));
      return n;
    };
    return {
      totalWeight: result.totalWeight ?? roots.reduce((s, r) => s + r.total, 0),
      sampleCount: result.sampleCount ?? 0,
      unit: result.unit ?? 'ns',
      updateCount: result.updateCount ?? null,
      roots: roots.map((r, i) => visit(r, null, String(i), 0)),
    };
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
    shown = new Set();
    const opened = new Set();
    const walk = (node, insideMatch) => {
      const matches = node.name.toLowerCase().includes(q);
      let below = false;
      for (const child of node.children) below = walk(child, insideMatch || matches) || below;
      if (below) opened.add(node.id);
      if (matches || below || insideMatch) shown.add(node.id);
      return matches || below;
    };
    for (const r of data.roots) walk(r, false);
    expanded = opened;
    const firstMatch = [...byId.values()].find((n) => shown.has(n.id) && n.name.toLowerCase().includes(q));
    selectedId = firstMatch?.id ?? null;
    render();
    if (selectedId) revealSelected(false);
    if (!firstMatch) status.replaceChildren(message(`No frame matches “${searchText.trim()}”.`));
    else status.replaceChildren();
  }

  function visibleChildren(node) {
    return shown ? node.children.filter((c) => shown.has(c.id)) : node.children;
  }

  let tiedIds = new Set();     // rows as heavy as the one the heaviest path followed

  /** Opens the chain of heaviest children below `id` and selects its end; says where it broke a tie. */
  function expandHeaviest(id, focus = true) {
    let node = id != null ? byId.get(id) : null;
    notes.querySelector('.cpu-tie-note')?.remove();
    tiedIds = new Set();
    if (!node) { render(); return; }
    for (let p = node.parent; p; p = p.parent) expanded.add(p.id);
    const ties = [];
    for (;;) {
      const kids = visibleChildren(node);
      if (!kids.length) break;
      expanded.add(node.id);
      const { best, tied } = heaviestChild(kids);
      if (tied.length) {
        ties.push({ parent: node, best, tied });
        for (const t of [best, ...tied]) tiedIds.add(t.id);
      }
      node = best;
    }
    selectedId = node.id;
    render();
    if (ties.length) {
      const first = ties[0];
      const names = [first.best, ...first.tied].map((n) => `“${n.name}”`);
      const more = ties.length > 1 ? ` It broke ${ties.length - 1} more tie${ties.length > 2 ? 's' : ''} below.` : '';
      notes.append(el('p', { class: 'cpu-tie-note', role: 'note' },
        `Tie: below “${first.parent.name}”, ${names.join(' and ')} weigh ${formatMs(first.best.total)} each; `
        + `the heaviest path follows ${names[0]} (first by name), not a heavier one.${more}`));
    }
    revealSelected(focus);
  }

  function setExpanded(id, open, deep = false) {
    const node = byId.get(id);
    if (!node) return;
    const mark = (n) => {
      if (open) expanded.add(n.id); else expanded.delete(n.id);
      if (deep) for (const c of visibleChildren(n)) mark(c);
    };
    mark(node);
    render();
    revealSelected(true);
  }

  function flatten() {
    const out = [];
    const add = (node) => {
      const kids = visibleChildren(node);
      const open = expanded.has(node.id) && kids.length > 0;
      out.push({ id: node.id, node, depth: node.depth, hasChildren: kids.length > 0, expanded: open });
      if (open) for (const c of kids) add(c);
    };
    for (const r of data?.roots ?? []) if (!shown || shown.has(r.id)) add(r);
    return out;
  }

  function render() {
    rows = flatten();
    if (data && data.roots.length === 0) {
      tbody.replaceChildren(el('tr', {}, el('td', { colspan: 3, class: 'pane-empty' },
        emptyText(ctx.state.get()))));
      return;
    }
    const total = data?.totalWeight ?? 0;
    const unit = data?.unit;
    const q = searchText.trim().toLowerCase();
    tbody.replaceChildren(...rows.map((row) => {
      const n = row.node;
      const selected = row.id === selectedId;
      return el('tr', {
        class: `cpu-row${selected ? ' selected' : ''}${n.isAppCode ? ' app-code' : ''}${tiedIds.has(row.id) ? ' cpu-tie' : ''}`,
        role: 'row', 'aria-level': row.depth + 1, 'aria-selected': String(selected),
        'aria-expanded': row.hasChildren ? String(row.expanded) : null,
        tabindex: selected ? '0' : '-1', dataset: { id: row.id, name: n.name },
        onclick: () => select(row.id, true),
        ondblclick: () => setExpanded(row.id, !row.expanded),
      },
      el('td', { role: 'gridcell', class: 'num' }, el('span', { class: 'cpu-ms' }, formatWeight(n.total, unit)), el('span', { class: 'cpu-pct' }, formatPercent(n.total, total))),
      el('td', { role: 'gridcell', class: 'num' }, el('span', { class: 'cpu-ms' }, formatWeight(n.self, unit)), el('span', { class: 'cpu-pct' }, formatPercent(n.self, total))),
      el('td', { role: 'gridcell', class: 'name-col', style: { 'padding-left': `${6 + row.depth * 14}px` } },
        row.hasChildren
          ? el('button', {
            type: 'button', class: 'pane-disclosure', tabindex: '-1',
            'aria-label': `${row.expanded ? 'Collapse' : 'Expand'} ${n.name}`,
            onclick: (e) => { e.stopPropagation(); selectedId = row.id; setExpanded(row.id, !row.expanded); },
          }, row.expanded ? '▾' : '▸')
          : el('span', { class: 'pane-disclosure-space' }),
        el('span', { class: 'cpu-name' }, highlight(n.name, q)),
        tiedIds.has(row.id) ? el('span', { class: 'cpu-tie-mark', title: 'As heavy as another row here: a tie' }, 'tie') : null,
        n.binary ? el('span', { class: 'cpu-binary' }, n.binary) : null));
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
      document.removeEventListener('keydown', onDocKey);
      root.replaceChildren();
    },
  };
}

function highlight(name, q) {
  if (!q) return name;
  const parts = [];
  const lower = name.toLowerCase();
  let at = 0;
  for (let i = lower.indexOf(q); i >= 0; i = lower.indexOf(q, at)) {
    parts.push(name.slice(at, i), el('mark', {}, name.slice(i, i + q.length)));
    at = i + q.length;
  }
  parts.push(name.slice(at));
  return el('span', {}, parts);
}
