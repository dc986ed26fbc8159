// What every details module of the side panel shares: one request at a time (a newer selection
// aborts the older one's), the busy flag, the error box, and the `field` rows of a <dl>.
import { el } from '../dom.js';

/** A <dt>/<dd> pair, or nothing when the value is empty. */
export function field(name, value) {
  return value === null || value === undefined || value === '' ? [] : [el('dt', { text: name }), el('dd', {}, value)];
}

/**
 * The panel `root` (an <aside>) as the details modules see it. `load(title, fetch, render)`
 * shows the panel, runs `fetch(signal)` and hands its answer to `render`; a failure shows
 * `title` and the error. A newer load (or `abort()`) cancels an older one, whose answer is dropped.
 */
export function createPanel(root) {
  let controller = null;
  // What is shown, and a live region that says what was selected (a selection made with [ or ]
  // from the keyboard is heard, not only seen); the region stays while the content is replaced.
  const content = el('div', { class: 'side-panel-content' });
  const live = el('div', { class: 'visually-hidden', id: 'selection-announcement', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
  root.replaceChildren(live, content);

  function abort() {
    controller?.abort();
    controller = null;
  }

  async function load(title, fetch, render) {
    abort();
    const mine = new AbortController();
    controller = mine;
    root.hidden = false;
    root.setAttribute('aria-busy', 'true');
    try {
      const answer = await fetch(mine.signal);
      if (mine.signal.aborted) return;
      render(answer);
    } catch (error) {
      if (error.name === 'AbortError' || mine.signal.aborted) return;
      content.replaceChildren(...[title ? el('h2', { text: title }) : null,
        el('div', { class: 'error-box', role: 'alert', text: error.message })].filter(Boolean));
    } finally {
      if (controller === mine) root.setAttribute('aria-busy', 'false');
    }
  }

  return {
    root,
    load,
    abort,
    /** Replaces what the panel shows. */
    show: (...children) => content.replaceChildren(...children.filter(Boolean)),
    /** Says `text` to screen readers ("Update 12 selected: …"); '' says nothing. */
    announce(text) { if (live.textContent !== text) live.textContent = text; },
  };
}
