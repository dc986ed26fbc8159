// The call tree's rows (DOM): weight and self weight with their share, the indented name with its
// disclosure button, search matches marked, and "tie" where the heaviest path chose among equals.
import { el } from '../../dom.js';
import { formatPercent, formatWeight } from '../../format.js';

/**
 * The <tr> of each row of `rows` (model.js flattenTree). `shows`: {selectedId, tiedIds, total,
 * unit, q (the search, lower case)}; `actions`: select(id), toggle(row) (open or close it).
 */
export function treeRows(rows, shows, actions) {
  const { selectedId, tiedIds, total, unit, q } = shows;
  return rows.map((row) => {
    const n = row.node;
    const selected = row.id === selectedId;
    return el('tr', {
      class: `cpu-row${selected ? ' selected' : ''}${n.isAppCode ? ' app-code' : ''}${tiedIds.has(row.id) ? ' cpu-tie' : ''}`,
      role: 'row', 'aria-level': row.depth + 1, 'aria-selected': String(selected),
      'aria-expanded': row.hasChildren ? String(row.expanded) : null,
      tabindex: selected ? '0' : '-1', dataset: { id: row.id, name: n.name },
      onclick: () => actions.select(row.id),
      ondblclick: () => actions.toggle(row),
    },
    el('td', { role: 'gridcell', class: 'num' }, el('span', { class: 'cpu-ms' }, formatWeight(n.total, unit)), el('span', { class: 'cpu-pct' }, formatPercent(n.total, total))),
    el('td', { role: 'gridcell', class: 'num' }, el('span', { class: 'cpu-ms' }, formatWeight(n.self, unit)), el('span', { class: 'cpu-pct' }, formatPercent(n.self, total))),
    el('td', { role: 'gridcell', class: 'name-col', style: { 'padding-left': `${6 + row.depth * 14}px` } },
      row.hasChildren
        ? el('button', {
          type: 'button', class: 'pane-disclosure', tabindex: '-1',
          'aria-label': `${row.expanded ? 'Collapse' : 'Expand'} ${n.name}`,
          onclick: (e) => { e.stopPropagation(); actions.toggle(row, true); },
        }, row.expanded ? '▾' : '▸')
        : el('span', { class: 'pane-disclosure-space' }),
      el('span', { class: 'cpu-name' }, highlight(n.name, q)),
      tiedIds.has(row.id) ? el('span', { class: 'cpu-tie-mark', title: 'As heavy as another row here: a tie' }, 'tie') : null,
      n.binary ? el('span', { class: 'cpu-binary' }, n.binary) : null));
  });
}

/** `name` with every occurrence of `q` marked. */
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
