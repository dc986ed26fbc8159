// Summary pane: process -> module -> view (and category) with count, total, average, max and
// long-update counts, for the inspection range (or the whole trace), like the SwiftUI
// instrument's summary. View rows have a menu: Show Updates, Show Cause & Effect Graph,
// Set Inspection Range and Zoom.
import {
  currentFilter, currentRange, rangeParams, filterSelect, formatDuration, formatTime, formatCount,
  message, paneLoader, viewKey,
} from './common.js';
import { el } from '../dom.js';
import { viewOf } from '../selections/view.js';
import { menuButton, showMenu } from './menu.js';
import { handleTreeKey, markSelectedRow, scrollRowIntoView } from './tree.js';

const COLUMNS = [
  { key: 'name', title: 'Name', numeric: false },
  { key: 'count', title: 'Count', numeric: true, text: formatCount },
  { key: 'totalNs', title: 'Total', numeric: true, text: formatDuration },
  { key: 'avgNs', title: 'Average', numeric: true, text: formatDuration },
  { key: 'maxNs', title: 'Max', numeric: true, text: formatDuration },
  { key: 'orange', title: 'Orange', numeric: true, text: formatCount, label: 'Orange (over 500 µs)' },
  { key: 'red', title: 'Red', numeric: true, text: formatCount, label: 'Red (over 1 ms)' },
];
// Instruments 27 records what each update made run after it: a column only when the recording has it.
const DOWNSTREAM = {
  key: 'downstreamNs', title: 'Downstream', numeric: true, text: formatDuration,
  label: 'Downstream cost (the time of the updates these made run)',
  cellTitle: (row) => `made ${formatCount(row.downstreamEvents ?? 0)} update${row.downstreamEvents === 1 ? '' : 's'} run, ${formatDuration(row.downstreamNs)}`,
};

/** The summary's columns: Downstream only when the answer has it (an older recording has none, not zero). */
export function summaryColumns(summary) {
  return summary?.total?.downstreamNs != null ? [...COLUMNS, DOWNSTREAM] : COLUMNS;
}

export function mountSummary(root, traceView) {
  let data = null;            // last summary response
  let sort = { key: 'totalNs', descending: true };
  const collapsed = new Set();  // row keys the user closed (processes and modules start open)
  let selectedKey = null;
  let rows = [];              // visible rows, flattened

  const scope = el('span', { class: 'pane-scope' });
  const totals = el('span', { class: 'pane-totals', 'data-testid': 'summary-total' });
  const select = filterSelect(currentFilter(traceView.state.get()), (filter) => traceView.state.set({ filter }, { push: true }));
  const toolbar = el('div', { class: 'pane-toolbar' }, select, scope, totals);
  const headRow = el('tr');
  const tbody = el('tbody');
  const table = el('table', { class: 'pane-table summary-table', role: 'treegrid', 'aria-label': 'Summary of updates' },
    el('thead', {}, headRow), tbody);
  const viewport = el('div', { class: 'pane-scroll', tabindex: '-1' }, table);
  const status = el('div', { class: 'pane-status' });
  root.replaceChildren(toolbar, status, viewport);
  const loader = paneLoader(status);

  table.addEventListener('keydown', (e) => {
    const index = rows.findIndex((r) => r.key === selectedKey);
    const row = rows[index];
    if ((e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) && row?.level === 'view') {
      e.preventDefault();
      const node = tbody.querySelector(`[data-key="${CSS.escape(row.key)}"]`);
      showMenu({ anchor: node.querySelector('.pane-row-menu'), label: `Actions for ${row.name}` }, viewActions(row));
      return;
    }
    if (e.key === 'Enter' && row?.level === 'view') { e.preventDefault(); showUpdates(row); return; }
    const handled = handleTreeKey(e, {
      rows, index,
      select: (i) => selectRow(rows[i].key, true),
      setExpanded: (i, open) => toggle(rows[i].key, open),
    });
    // Handled keys stay here: the timeline pans and zooms on arrows and letters at the document.
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  });

  function refresh() {
    const state = traceView.state.get();
    const filter = currentFilter(state);
    const range = currentRange(state);
    select.value = filter;
    scope.textContent = range
      ? `Inspection range ${formatTime(range.start)} – ${formatTime(range.end)} (${formatDuration(range.end - range.start)})`
      : 'Whole trace';
    loader.run('summary', () => traceView.api.get('summary', { ...rangeParams(range), filter }),
      (result) => { data = result; render(); },
      () => { data = null; render(); });
  }

  function render() {
    const columns = summaryColumns(data);
    if (!columns.some((c) => c.key === sort.key)) sort = { key: 'totalNs', descending: true };
    headRow.replaceChildren(...columns.map((c) => {
      const active = sort.key === c.key;
      return el('th', {
        scope: 'col', class: c.numeric ? 'num' : 'name-col',
        'aria-sort': active ? (sort.descending ? 'descending' : 'ascending') : 'none',
      }, el('button', {
        type: 'button', class: 'pane-sort', 'aria-label': `Sort by ${c.label ?? c.title}`,
        onclick: () => {
          sort = active ? { key: c.key, descending: !sort.descending } : { key: c.key, descending: c.numeric };
          render();
        },
      }, c.title, active ? el('span', { class: 'sort-arrow', 'aria-hidden': 'true' }, sort.descending ? '▼' : '▲') : null));
    }));
    rows = summaryRows(data, sort, collapsed);
    totals.textContent = data?.total
      ? `${formatCount(data.total.count)} updates · ${formatDuration(data.total.totalNs)} total · ${formatCount(data.total.orange)} orange · ${formatCount(data.total.red)} red`
        + (data.total.downstreamNs != null ? ` · made ${formatCount(data.total.downstreamEvents ?? 0)} updates run, ${formatDuration(data.total.downstreamNs)}` : '')
        + (data.omittedViews > 0 ? ` · ${formatCount(data.omittedViews)} smaller views not listed` : '')
      : '';
    if (data && rows.length === 0) {
      tbody.replaceChildren(el('tr', {}, el('td', { colspan: columns.length, class: 'pane-empty' },
        currentRange(traceView.state.get()) ? 'No updates in the inspection range.' : 'No updates in this trace.')));
      return;
    }
    if (!rows.some((r) => r.key === selectedKey)) selectedKey = rows[0]?.key ?? null;
    tbody.replaceChildren(...rows.map((row) => renderRow(row, columns)));
  }

  function renderRow(row, columns) {
    const selected = row.key === selectedKey;
    const nameCell = el('td', { role: 'gridcell', class: 'name-col', style: { 'padding-left': `${6 + row.depth * 16}px` } },
      row.hasChildren
        ? el('button', {
          type: 'button', class: 'pane-disclosure', tabindex: '-1',
          'aria-label': `${row.expanded ? 'Collapse' : 'Expand'} ${row.label}`,
          onclick: (e) => { e.stopPropagation(); toggle(row.key, !row.expanded); },
        }, row.expanded ? '▾' : '▸')
        : el('span', { class: 'pane-disclosure-space' }),
      el('span', { class: `summary-name summary-${row.level}` }, row.label),
      row.level === 'view' && row.category && row.kind !== 'view-body'
        ? el('span', { class: 'summary-category' }, row.category) : null,
      row.level === 'view' ? menuButton(`Actions for ${row.label}`, () => viewActions(row)) : null);
    const cells = columns.slice(1).map((c) => {
      const value = row[c.key] ?? 0;
      const sev = (c.key === 'orange' || c.key === 'red') && value > 0 ? ` summary-${c.key}` : '';
      return el('td', { role: 'gridcell', class: `num${sev}`, title: c.cellTitle?.(row) ?? null, dataset: { column: c.key } }, c.text(value));
    });
    const tr = el('tr', {
      class: `summary-row level-${row.level}${selected ? ' selected' : ''}`,
      role: 'row', 'aria-level': row.depth + 1, 'aria-selected': String(selected),
      'aria-expanded': row.hasChildren ? String(row.expanded) : null,
      tabindex: selected ? '0' : '-1',
      dataset: {
        key: row.key, level: row.level, view: row.level === 'view' ? row.name : '', module: row.module ?? row.name ?? '',
        category: row.level === 'view' ? row.category ?? '' : '',
      },
      onclick: () => selectRow(row.key, false),
      ondblclick: () => { if (row.level === 'view') showUpdates(row); else toggle(row.key, !row.expanded); },
      oncontextmenu: (e) => {
        if (row.level !== 'view') return;
        e.preventDefault();
        selectRow(row.key, false);
        showMenu({ x: e.clientX, y: e.clientY, label: `Actions for ${row.label}` }, viewActions(row));
      },
    }, nameCell, cells);
    return tr;
  }

  function selectRow(key, focus) {
    selectedKey = key;
    const tr = markSelectedRow(tbody, 'key', key);
    if (tr && focus) { tr.focus({ preventScroll: true }); scrollRowIntoView(viewport, tr); }
  }

  function toggle(key, open) {
    if (open) collapsed.delete(key); else collapsed.add(key);
    render();
    selectRow(key, true);
  }

  function viewActions(row) {
    return [
      { label: 'Show Updates', action: () => showUpdates(row) },
      // The graph pane shows the selected update's graph when there is one: clear it to show the view's.
      { label: 'Show Cause & Effect Graph', action: () => traceView.openPane('graph', { view: row.name, module: row.module, update: null }) },
      { label: 'Set Inspection Range and Zoom', action: () => zoomToView(row) },
      { label: 'CPU of All Updates of This View', action: () => traceView.openPane('cpu', { ...viewOfRow(row), cpu: 'view' }) },
    ];
  }

  function showUpdates(row) {
    traceView.openPane('updates', viewOfRow(row));
  }

  // The span from the view's first update start to its last update end, among the updates this
  // row counts (same filter and range).
  async function zoomToView(row) {
    let start = row.firstStart, end = row.lastEnd;
    if (start == null || end == null) {
      const state = traceView.state.get();
      const params = { ...viewOfRow(row), filter: currentFilter(state), ...rangeParams(currentRange(state)), sort: 'start' };
      try {
        const [first, last] = await Promise.all([
          traceView.api.get('updates', { ...params, order: 'asc', limit: 1 }),
          traceView.api.get('updates', { ...params, order: 'desc', limit: 200 }),
        ]);
        if (!first.updates?.length) return;
        start = first.updates[0].start;
        end = Math.max(...last.updates.map((u) => u.start + u.duration));
      } catch (error) {
        status.replaceChildren(message(`Could not find ${row.name}'s updates: ${error.message}`, 'error'));
        return;
      }
    }
    traceView.setRange(start, end, { zoom: true });
  }

  refresh();
  return {
    update(state, changed) {
      if (changed.has('range') || changed.has('filter')) refresh();
    },
    focus() { tbody.querySelector('tr[tabindex="0"]')?.focus(); },
    destroy() { loader.stop(); root.replaceChildren(); },
  };
}

/** The view a summary row is of. */
const viewOfRow = (row) => viewOf({ module: row.module, view: row.name, category: row.category });

/** The order of `sort` ({key, descending}) among rows of one level: by the column, then by name. */
function compareBy({ key, descending }) {
  return (a, b) => {
    const d = key === 'name'
      ? String(a.name).localeCompare(String(b.name)) || String(a.category ?? '').localeCompare(String(b.category ?? ''))
      : (a[key] ?? 0) - (b[key] ?? 0) || String(a.name).localeCompare(String(b.name));
    return descending ? -d : d;
  };
}

/** The rows the table shows of summary `data`: processes, their modules and views, sorted, under the ones not `collapsed`. */
function summaryRows(data, sort, collapsed) {
  const out = [];
  if (!data) return out;
  const compare = compareBy(sort);
  for (const p of [...(data.processes ?? [])].sort(compare)) {
    const pKey = `p:${p.pid}:${p.name}`;
    const pOpen = !collapsed.has(pKey);
    const modules = p.modules ?? [];
    out.push({ ...p, key: pKey, level: 'process', depth: 0, hasChildren: modules.length > 0, expanded: pOpen,
      label: `${p.name || '(unknown process)'}${p.pid != null ? ` (${p.pid})` : ''}` });
    if (!pOpen) continue;
    for (const m of [...modules].sort(compare)) {
      const mKey = `m:${p.pid}:${m.name}`;
      const mOpen = !collapsed.has(mKey);
      const views = m.views ?? [];
      out.push({ ...m, key: mKey, level: 'module', depth: 1, hasChildren: views.length > 0, expanded: mOpen, label: m.name || '(unknown module)' });
      if (!mOpen) continue;
      for (const v of [...views].sort(compare)) {
        out.push({ ...v, key: `v:${p.pid}:${viewKey(m.name, v.name)}:${v.category ?? ''}`, level: 'view', depth: 2,
          hasChildren: false, expanded: false, module: m.name, label: v.name || '(unnamed)' });
      }
    }
  }
  return out;
}
