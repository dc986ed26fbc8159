// The CPU pane's call tree: total and self weight in the trace's unit, main thread first; opens
// with the heaviest path expanded (a tie on the way is said, not hidden); the search keeps and
// highlights frames whose name matches. Keyboard: arrows move/expand/collapse, `h` expands the
// heaviest path below the selected row, `*` everything below it, `c` charges it to its callers,
// `f` focuses on its subtree.
import { paneLoader } from '../common.js';
import { formatDuration, plural } from '../../format.js';
import { el } from '../../dom.js';
import { markSelectedRow, scrollRowIntoView } from '../tree.js';
import { flattenTree, heaviestPath, prepareTree, searchTree } from './model.js';
import { treeRows } from './rows.js';
import { attachTreeInput } from './input.js';
import { cpuChanged, cpuParams, joinPath, scopeView } from './settings.js';

/** Mounts the tree in `container`; `pane` (index.js) shows its totals and notes. */
export function mountTreeView(container, traceView, pane) {
  const { state } = traceView;
  let data = null;            // {totalWeight, sampleCount, roots: [Node]} with ids/parents added
  let byId = new Map();
  let expanded = new Set();
  let selectedId = null;
  let searchText = state.get().search ?? '';
  let hidden = null;          // the answer's hiddenMatches for `searchText`
  let rows = [];
  let shown = null;           // while searching: ids of the rows kept, else null
  let tiedIds = new Set();    // rows as heavy as the one the heaviest path followed
  const loader = paneLoader(pane.status);

  const heaviestButton = el('button', {
    type: 'button', class: 'pane-button', title: 'Expand the heaviest path below the selected row (H)',
    onclick: () => { expandHeaviest(selectedId ?? data?.roots[0]?.id); focusTree(); },
  }, 'Expand Heaviest Path');
  const weightHeader = el('th', { scope: 'col', class: 'num' }, 'Weight');
  const selfHeader = el('th', { scope: 'col', class: 'num' }, 'Self Weight');
  const tbody = el('tbody');
  const table = el('table', { class: 'pane-table cpu-table', role: 'treegrid', 'aria-label': 'CPU call tree' },
    el('thead', {}, el('tr', {}, weightHeader, selfHeader, el('th', { scope: 'col', class: 'name-col' }, 'Symbol Name'))),
    tbody);
  const viewport = el('div', { class: 'pane-scroll' }, table);
  container.replaceChildren(el('div', { class: 'cpu-view-tools' }, heaviestButton), viewport);

  const input = attachTreeInput(table, {
    rows: () => rows,
    index: () => rows.findIndex((r) => r.id === selectedId),
    select: (i) => select(rows[i].id, true),
    setExpanded: (i, open, deep) => setExpanded(rows[i].id, open, deep),
    heaviest: () => expandHeaviest(selectedId ?? data?.roots[0]?.id),
    charge: () => document.getElementById('cpu-charge')?.click(),
    focusSubtree: () => document.getElementById('cpu-focus')?.click(),
  });

  function refresh() {
    const s = state.get();
    const params = cpuParams(s);
    // Matches a transform hides are counted by the server, which alone saw the frames.
    const transformed = s.hideSystem || s.charged?.length || s.focus;
    if (searchText.trim() && transformed) params.search = searchText.trim();
    loader.run('call tree', () => traceView.api.get('calltree', params), setData, () => setData(null));
  }

  function setData(result) {
    const mainThreads = new Set((traceView.trace?.threads ?? []).filter((t) => t.isMain).map((t) => t.name));
    ({ data, byId } = result ? prepareTree(result, mainThreads) : { data: null, byId: new Map() });
    hidden = result?.hiddenMatches ?? null;
    expanded = new Set();
    selectedId = null;
    pane.select(null);
    const cycles = data?.unit === 'cycles';
    weightHeader.textContent = cycles ? 'Cycles' : 'Weight';
    selfHeader.textContent = cycles ? 'Self Cycles' : 'Self Weight';
    pane.showAnswer(result, state.get().focus ? data?.roots[0]?.name : null);
    pane.notes.querySelector('.cpu-omitted-note')?.remove();
    if (data?.omittedNodes > 0) {
      pane.notes.append(el('p', { class: 'cpu-omitted-note', role: 'note' },
        `${plural(data.omittedNodes, 'lighter node')} not listed (their time is in their callers\u2019 self weight).`));
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
      pane.showSearch('', true, null);
      if (data.roots.length) expandHeaviest(data.roots[0].id, false); else render();
      return;
    }
    const found = searchTree(data.roots, q);
    shown = found.shown;
    expanded = found.opened;
    selectedId = found.firstMatch?.id ?? null;
    render();
    if (selectedId) { reportSelection(); revealSelected(false); }
    pane.showSearch(searchText.trim(), !!found.firstMatch, hidden);
  }

  const visibleChildren = (node) => (shown ? node.children.filter((c) => shown.has(c.id)) : node.children);

  /** Opens the chain of heaviest children below `id` and selects its end; says where it broke a tie. */
  function expandHeaviest(id, focus = true) {
    const node = id != null ? byId.get(id) : null;
    pane.notes.querySelector('.cpu-tie-note')?.remove();
    tiedIds = new Set();
    if (!node) { render(); return; }
    for (let p = node.parent; p; p = p.parent) expanded.add(p.id);
    const { open, end, ties } = heaviestPath(node, visibleChildren);
    for (const opened of open) expanded.add(opened);
    for (const { best, tied } of ties) for (const t of [best, ...tied]) tiedIds.add(t.id);
    selectedId = end.id;
    render();
    reportSelection();
    if (ties.length) pane.notes.append(el('p', { class: 'cpu-tie-note', role: 'note' }, tieText(ties)));
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
      tbody.replaceChildren(el('tr', {}, el('td', { colspan: 3, class: 'pane-empty' }, emptyText(state.get()))));
      return;
    }
    tbody.replaceChildren(...treeRows(rows, {
      selectedId, tiedIds, total: data?.totalWeight ?? 0, unit: data?.unit, q: searchText.trim().toLowerCase(),
    }, {
      select: (id) => select(id, true),
      toggle: (row, selectIt = false) => { if (selectIt) selectedId = row.id; setExpanded(row.id, !row.expanded); },
    }));
  }

  /** The selected node's frame, for Charge to Caller and Focus on Subtree (its path in the tree's direction). */
  function reportSelection() {
    const node = selectedId != null ? byId.get(selectedId) : null;
    if (!node) { pane.select(null); return; }
    pane.select({ name: node.name, binary: node.binary, path: callPathOf(node, state.get().focus), source: node.source ?? null });
  }

  function select(id, focus) {
    selectedId = id;
    markSelectedRow(tbody, 'id', id);
    reportSelection();
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
    search(text) {
      searchText = text;
      applySearch();
    },
    update(s, changed) {
      if (cpuChanged(s, changed)) { searchText = s.search ?? ''; refresh(); return; }
      if (changed.has('search') && (s.search ?? '') !== searchText) {
        searchText = s.search ?? '';
        applySearch();
      }
      // Hidden matches are counted per search text: ask again once the text settles.
      if (changed.has('search') && (s.hideSystem || s.charged?.length || s.focus)) refresh();
    },
    focus() { focusTree(); },
    destroy() {
      loader.stop();
      input.destroy();
      container.replaceChildren();
    },
  };
}

function emptyText(s) {
  const view = scopeView(s);
  if (view) return `No CPU samples inside the updates of ${view.view}${s.range ? ' in the inspection range' : ''}.`;
  return s.range ? 'No CPU samples in the inspection range.' : 'No CPU samples in this trace.';
}

/** What the heaviest path did at its ties (heaviestPath's `ties`, non-empty): the first said in full. */
function tieText(ties) {
  const first = ties[0];
  const names = [first.best, ...first.tied].map((n) => `“${n.name}”`);
  const more = ties.length > 1 ? ` It broke ${ties.length - 1} more tie${ties.length > 2 ? 's' : ''} below.` : '';
  return `Tie: below “${first.parent.name}”, ${names.join(' and ')} weigh ${formatDuration(first.best.total)} each; `
    + `the heaviest path follows ${names[0]} (first by name), not a heavier one.${more}`;
}

/** `node`'s call path in the tree's direction (fo=), or null when a step has none. Below a focus
 * (`base`) the tree's roots are the focused node: its path goes on from the focus. */
function callPathOf(node, base) {
  const steps = [];
  for (let n = node; n; n = n.parent) steps.push(n.step);
  if (!steps.every(Boolean)) return null;
  steps.reverse();
  return joinPath(base ? [base, ...steps.slice(1)] : steps);
}
