// The call tree's keys: arrows move, expand and collapse (tree.js, the WAI-ARIA tree pattern),
// `h` expands the heaviest path below the selected row, `c` charges it to its callers, and
// Ctrl/Cmd+F focuses the search box while the pane is open (instead of the browser's find).
import { handleTreeKey } from '../tree.js';

/**
 * Listens on `table` and the document. `tree`: rows(), index() (of the selected row, or -1),
 * select(i), setExpanded(i, open, deep), heaviest(), charge(). Returns {destroy()}.
 */
export function attachTreeInput(table, search, tree) {
  const plain = (e) => !e.ctrlKey && !e.metaKey && !e.altKey;
  table.addEventListener('keydown', (e) => {
    const letter = e.key.toLowerCase();
    const command = plain(e) && (letter === 'h' ? tree.heaviest : letter === 'c' ? tree.charge : null);
    const handled = command ? (command(), true) : handleTreeKey(e, {
      rows: tree.rows(), index: tree.index(), select: tree.select, setExpanded: tree.setExpanded,
    });
    // Handled keys stay here: the timeline pans and zooms on arrows and letters at the document.
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  });

  const onDocKey = (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === 'f' || e.key === 'F')) {
      e.preventDefault();
      search.focus();
      search.select();
    }
  };
  document.addEventListener('keydown', onDocKey);
  return { destroy: () => document.removeEventListener('keydown', onDocKey) };
}
