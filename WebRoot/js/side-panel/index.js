// The side panel: the one owner of its <aside>. It shows the view's one selection
// (state.js currentSelection: {kind, id}) with the details module of that kind, and hides when nothing is selected (the
// panes take its width; the timeline's help line says how to select).
import { el } from '../dom.js';
import { currentSelection, selectionChanged } from '../state.js';
import { SELECTION_KINDS } from '../selections/index.js';
import { createPanel } from './panel.js';
import { showUpdate } from './update.js';
import { showSignpost } from './signpost.js';
import { showTaskState, showTaskStates } from './task.js';
import { showNote } from './note.js';
import { showHangRisk } from './hang-risk.js';

/** The details module of each selection kind (selections/: one descriptor per kind). */
export const DETAILS = Object.freeze({
  update: showUpdate,
  signpost: showSignpost,
  'task-state': showTaskState,
  'task-states': showTaskStates,
  note: showNote,
  'hang-risk': showHangRisk,
});
for (const kind of SELECTION_KINDS) if (!DETAILS[kind]) throw new Error(`side-panel/: no details module for selection kind ${kind}`);

/** Mounts the panel into `root` (an <aside>) for `traceView` (trace-view.js); returns {destroy()}. */
export function mountSidePanel(root, traceView) {
  const panel = createPanel(root);
  let shown;

  function placeholder() {
    root.hidden = true;
    panel.show(el('h2', { text: 'Selected update' }),
      el('p', { class: 'placeholder', text: 'Click an update on the timeline to see its details here.' }));
  }

  function show(selection) {
    const key = JSON.stringify(selection ?? null);
    if (key === shown) return;
    shown = key;
    panel.abort();
    if (!selection) { placeholder(); panel.announce(''); }
    else DETAILS[selection.kind](panel, traceView, selection.id);
  }

  show(currentSelection(traceView.state.get()));
  const unsubscribe = traceView.state.subscribe((state, changed) => { if (selectionChanged(changed)) show(currentSelection(state)); });
  return { destroy() { unsubscribe(); panel.abort(); } };
}
