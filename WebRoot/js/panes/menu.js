// A small popup menu (row actions), opened from a "⋯" button or a right click.
// Keyboard: arrows move, Enter/Space choose, Escape closes and returns focus.
import { el } from '../dom.js';

let openMenu = null;

export function closeMenu() {
  if (!openMenu) return;
  const { node, returnFocus, onDocDown, onKey } = openMenu;
  openMenu = null;
  document.removeEventListener('mousedown', onDocDown, true);
  document.removeEventListener('keydown', onKey, true);
  node.remove();
  if (returnFocus && document.contains(returnFocus)) returnFocus.focus();
}

/**
 * Shows `items` ([{label, action}]) at a point (right click) or under an anchor (button).
 * @param {{x?: number, y?: number, anchor?: Element, label: string}} where
 */
export function showMenu(where, items) {
  closeMenu();
  const buttons = items.map((item) =>
    el('button', {
      type: 'button', role: 'menuitem', class: 'pane-menu-item', tabindex: '-1',
      onclick: (e) => { e.stopPropagation(); closeMenu(); item.action(); },
    }, item.label));
  const node = el('div', { class: 'pane-menu', role: 'menu', 'aria-label': where.label }, buttons);
  document.body.append(node);

  let x = where.x, y = where.y;
  if (where.anchor) {
    const r = where.anchor.getBoundingClientRect();
    x = r.left; y = r.bottom + 2;
  }
  const { width, height } = node.getBoundingClientRect();
  x = Math.max(4, Math.min(x, window.innerWidth - width - 4));
  y = y + height > window.innerHeight - 4 ? Math.max(4, y - height - (where.anchor ? where.anchor.getBoundingClientRect().height + 4 : 0)) : y;
  node.style.left = `${x + window.scrollX}px`;
  node.style.top = `${y + window.scrollY}px`;

  const onDocDown = (e) => { if (!node.contains(e.target)) closeMenu(); };
  const onKey = (e) => {
    const i = buttons.indexOf(document.activeElement);
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); closeMenu(); }
    else if (e.key === 'ArrowDown') { e.preventDefault(); e.stopPropagation(); buttons[(i + 1) % buttons.length].focus(); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); e.stopPropagation(); buttons[(i - 1 + buttons.length) % buttons.length].focus(); }
    else if (e.key === 'Tab') { closeMenu(); }
  };
  document.addEventListener('mousedown', onDocDown, true);
  document.addEventListener('keydown', onKey, true);
  openMenu = { node, returnFocus: where.anchor ?? document.activeElement, onDocDown, onKey };
  buttons[0]?.focus();
}

/** A "⋯" button that opens `items()` for a row. */
export function menuButton(label, items) {
  return el('button', {
    type: 'button', class: 'pane-row-menu', 'aria-label': label, 'aria-haspopup': 'menu', title: label,
    onclick: (e) => { e.stopPropagation(); showMenu({ anchor: e.currentTarget, label }, items()); },
    ondblclick: (e) => e.stopPropagation(),
  }, '⋯');
}
