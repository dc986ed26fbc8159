// Keyboard behaviour and row selection shared by the summary tree and the call tree (WAI-ARIA tree pattern):
// Up/Down move, Right expands or steps into the first child, Left collapses or steps to the
// parent, Home/End jump, `*` expands everything below the selected row.

/**
 * @param {KeyboardEvent} e
 * @param {{rows: {depth:number, hasChildren:boolean, expanded:boolean}[], index:number,
 *          select:(i:number)=>void, setExpanded:(i:number, open:boolean, deep?:boolean)=>void}} tree
 * @returns {boolean} whether the key was handled
 */
export function handleTreeKey(e, tree) {
  const { rows, index, select, setExpanded } = tree;
  if (e.altKey || e.ctrlKey || e.metaKey || rows.length === 0) return false;
  const row = rows[index];
  switch (e.key) {
    case 'ArrowDown': select(index < 0 ? 0 : Math.min(rows.length - 1, index + 1)); return true;
    case 'ArrowUp': select(index < 0 ? 0 : Math.max(0, index - 1)); return true;
    case 'Home': select(0); return true;
    case 'End': select(rows.length - 1); return true;
    case 'PageDown': select(Math.min(rows.length - 1, Math.max(0, index) + 10)); return true;
    case 'PageUp': select(Math.max(0, index - 10)); return true;
    case 'ArrowRight':
      if (!row) return false;
      if (row.hasChildren && !row.expanded) setExpanded(index, true);
      else if (row.hasChildren && rows[index + 1]?.depth > row.depth) select(index + 1);
      return true;
    case 'ArrowLeft': {
      if (!row) return false;
      if (row.hasChildren && row.expanded) { setExpanded(index, false); return true; }
      for (let i = index - 1; i >= 0; i--) if (rows[i].depth < row.depth) { select(i); break; }
      return true;
    }
    case '*':
      if (row?.hasChildren) setExpanded(index, true, true);
      return true;
    default: return false;
  }
}

/** Keeps row `node` visible inside the scrolling `viewport` without jumping the page. */
export function scrollRowIntoView(viewport, node) {
  if (!node) return;
  const v = viewport.getBoundingClientRect();
  const r = node.getBoundingClientRect();
  const header = viewport.querySelector('thead')?.getBoundingClientRect().height ?? 0;
  if (r.top < v.top + header) viewport.scrollTop -= v.top + header - r.top;
  else if (r.bottom > v.bottom) viewport.scrollTop += r.bottom - v.bottom;
}

/**
 * Makes the row whose `data-{field}` is `value` the selected one of `tbody` (class, aria-selected,
 * the tree's one tab stop) and returns it (null when no row has that value).
 */
export function markSelectedRow(tbody, field, value) {
  let selected = null;
  for (const tr of tbody.querySelectorAll('tr')) {
    if (tr.dataset[field] === undefined) continue;
    const on = tr.dataset[field] === value;
    tr.classList.toggle('selected', on);
    tr.setAttribute('aria-selected', String(on));
    tr.tabIndex = on ? 0 : -1;
    if (on) selected = tr;
  }
  return selected;
}
