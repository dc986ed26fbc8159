// CPU pane (Time Profiler, or the CPU Profiler in cycles): the call tree of the samples in the
// inspection range, main thread first, with total and self weight in the unit the trace has. Opens with the heaviest path expanded; "Invert call tree"
// shows it bottom-up; the search box (Ctrl/Cmd+F) keeps and highlights frames whose name matches.
// Keyboard: arrows move/expand/collapse, `h` expands the heaviest path below the selected row,
// `*` expands everything below it.
import {
  currentRange, rangeParams, formatDuration, formatTime, formatMs, formatPercent, formatCount,
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
  const scope = el('span', { class: 'pane-scope' });
  const totals = el('span', { class: 'pane-totals', 'data-testid': 'cpu-total' });
  // What the weights count: the CPU Profiler's cycles are no time, and the pane says so.
  const unitLabel = el('span', { class: 'pane-unit', 'data-testid': 'cpu-unit' });
  const toolbar = el('div', { class: 'pane-toolbar' }, search,
    el('label', { class: 'pane-check', for: 'cpu-invert' }, invert, 'Invert call tree'),
    threadSelect, heaviest, scope, unitLabel, totals);
  const weightHeader = el('th', { scope: 'col', class: 'num' }, 'Weight');
  const selfHeader = el('th', { scope: 'col', class: 'num' }, 'Self Weight');
  const tbody = el('tbody');
  const table = el('table', { class: 'pane-table cpu-table', role: 'treegrid', 'aria-label': 'CPU call tree' },
    el('thead', {}, el('tr', {}, weightHeader, selfHeader,
      el('th', { scope: 'col', class: 'name-col' }, 'Symbol Name'))),
    tbody);
  const viewport = el('div', { class: 'pane-scroll' }, table);
  const status = el('div', { class: 'pane-status' });
  root.replaceChildren(toolbar, status, viewport);

  table.addEventListener('keydown', (e) => {
    const index = rows.findIndex((r) => r.id === selectedId);
    if ((e.key === 'h' || e.key === 'H') && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      e.stopPropagation();
      expandHeaviest(selectedId ?? data?.roots[0]?.id);
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

  function refresh() {
    const state = ctx.state.get();
    const range = currentRange(state);
    const mode = isBottomUp(state.mode) ? 'bottom-up' : 'top-down';
    invert.checked = mode === 'bottom-up';
    scope.textContent = range
      ? `Inspection range ${formatTime(range.start)} – ${formatTime(range.end)} (${formatDuration(range.end - range.start)})`
      : 'Whole trace';
    stopLoading?.();
    const loaded = stopLoading = loadingSoon(status, 'Loading call tree…');
    const params = { ...rangeParams(range), mode };
    if (thread !== '') params.thread = thread;
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
      ? `${formatCount(data.sampleCount)} samples · ${formatWeight(data.totalWeight, data.unit)}${cycles ? '' : ' of CPU'}` : '';
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

  /** Opens the chain of heaviest children below `id` and selects its end. */
  function expandHeaviest(id, focus = true) {
    let node = id != null ? byId.get(id) : null;
    if (!node) { render(); return; }
    for (let p = node.parent; p; p = p.parent) expanded.add(p.id);
    for (;;) {
      const kids = visibleChildren(node);
      if (!kids.length) break;
      expanded.add(node.id);
      node = kids.reduce((best, c) => (c.total > best.total ? c : best));
    }
    selectedId = node.id;
    render();
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
        currentRange(ctx.state.get()) ? 'No CPU samples in the inspection range.' : 'No CPU samples in this trace.')));
      return;
    }
    const total = data?.totalWeight ?? 0;
    const unit = data?.unit;
    const q = searchText.trim().toLowerCase();
    tbody.replaceChildren(...rows.map((row) => {
      const n = row.node;
      const selected = row.id === selectedId;
      return el('tr', {
        class: `cpu-row${selected ? ' selected' : ''}${n.isAppCode ? ' app-code' : ''}`,
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
        n.binary ? el('span', { class: 'cpu-binary' }, n.binary) : null));
    }));
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
      if (changed.has('range') || changed.has('mode')) refresh();
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
