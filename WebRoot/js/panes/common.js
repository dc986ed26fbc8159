// Helpers shared by the detail panes: number/time text, the long-update filters, and reading
// the pane arguments out of the shared view state.
import { el } from '../dom.js';
import { formatDuration, formatCount, formatTime, plural, severityLabel } from '../format.js';
import { currentRange, rangeParams } from '../selections/range.js';
import { viewOf } from '../selections/view.js';

export { formatDuration, formatCount, formatTime, plural, severityLabel, currentRange };

/** The summary / updates filters, in the order of the SwiftUI instrument's lanes. */
export const FILTERS = [
  { id: 'all', title: 'All Updates' },
  { id: 'long-view-body', title: 'Long View Body Updates' },
  { id: 'long-representable', title: 'Long Representable Updates' },
  { id: 'long-other', title: 'Other Long Updates' },
];

export function currentFilter(state) {
  return FILTERS.some((f) => f.id === state.filter) ? state.filter : 'all';
}

/** A <select> of the filters; `onChange(filterId)`. */
export function filterSelect(value, onChange) {
  const select = el('select', { class: 'pane-filter', 'aria-label': 'Updates to include' },
    FILTERS.map((f) => el('option', { value: f.id, selected: f.id === value }, f.title)));
  select.addEventListener('change', () => onChange(select.value));
  return select;
}

/** Query parameters for a range (none = the whole trace). */
export { rangeParams };

/** "Module:View" — the `pv` form, also used as a stable key. */
export function viewKey(module, view) {
  return `${module ?? ''}:${view ?? ''}`;
}

/** The {module, view, category} the updates / graph panes are about. */
export function currentPaneView(state) {
  return state.paneView?.view ? viewOf(state.paneView) : null;
}

/** Runs the latest of several overlapping async loads; older results are dropped. */
export function latestOnly() {
  let generation = 0;
  return async (load, apply, fail) => {
    const mine = ++generation;
    try {
      const result = await load();
      if (mine === generation) apply(result);
    } catch (error) {
      if (mine === generation) fail(error);
    }
  };
}

/**
 * The loads of one pane part into `status`: `run(what, fetch, apply, fail)` says "Loading {what}…"
 * if the answer takes a while, keeps only the latest of overlapping loads, clears `status` before
 * `apply(answer)`, and on a failure runs `fail(error)` then says "Could not load the {what}: …".
 * `stop()` cancels a pending "Loading…" (the part is going away).
 */
export function paneLoader(status) {
  const latest = latestOnly();
  let stopLoading = null;
  return {
    run(what, fetch, apply, fail = () => {}) {
      stopLoading?.();
      const loaded = stopLoading = loadingSoon(status, `Loading ${what}…`);
      return latest(() => fetch().finally(loaded),
        (answer) => { status.replaceChildren(); apply(answer); },
        (error) => { fail(error); status.replaceChildren(message(`Could not load the ${what}: ${error.message}`, 'error')); });
    },
    stop: () => stopLoading?.(),
  };
}

/** Shows "Loading…" in `status` only if the answer takes a while, so quick reloads don't jump. */
export function loadingSoon(status, text) {
  const timer = setTimeout(() => status.replaceChildren(message(text)), 250);
  return () => clearTimeout(timer);
}

export function message(text, kind = 'info') {
  return el('div', { class: `pane-message pane-message-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}
