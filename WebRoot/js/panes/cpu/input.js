// The call tree's keys: arrows move, expand and collapse (tree.js, the WAI-ARIA tree pattern),
// `h` expands the heaviest path below the selected row, `c` charges it to its callers, `f`
// focuses on its subtree. (Ctrl/Cmd+F, the search, is the pane's: index.js.)
import { handleTreeKey } from '../tree.js';

/**
 * Listens on `table`. `tree`: rows(), index() (of the selected row, or -1), select(i),
 * setExpanded(i, open, deep), heaviest(), charge(), focusSubtree(). Returns {destroy()}.
 */
export function attachTreeInput(table, tree) {
  const plain = (e) => !e.ctrlKey && !e.metaKey && !e.altKey;
  const commands = { h: tree.heaviest, c: tree.charge, f: tree.focusSubtree };
  const onKey = (e) => {
    const command = plain(e) ? commands[e.key.toLowerCase()] : null;
    const handled = command ? (command(), true) : handleTreeKey(e, {
      rows: tree.rows(), index: tree.index(), select: tree.select, setExpanded: tree.setExpanded,
    });
    // Handled keys stay here: the timeline pans and zooms on arrows and letters at the document.
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  };
  table.addEventListener('keydown', onKey);
  return { destroy: () => table.removeEventListener('keydown', onKey) };
}
