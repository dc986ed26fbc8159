// A note on the trace's evidence in the side panel (nt= in the link): its text, what it is about
// with a way to show it, when it was written, a link to it, and deleting it (write token).
import { el } from '../dom.js';
import { buildPath } from '../state.js';
import { formatDate, noteTargetText } from '../format.js';
import { withWriteToken } from '../write-token.js';
import { field } from './panel.js';

/** Shows note `id` of `traceView` in `panel` (panel.js). */
export function showNote(panel, traceView, id) {
  return panel.load('Note', async () => {
    await traceView.notes.ready;
    const note = traceView.notes.get(id);
    if (!note) throw new Error(`This trace has no note ${id}: it was deleted, or the link was made for another trace.`);
    return note;
  }, (note) => render(panel, traceView, note));
}

function showTarget(traceView, target) {
  if (target.kind === 'update') traceView.select({ kind: 'update', id: target.update }, { zoom: true });
  else if (target.kind === 'range') traceView.setRange(target.start, target.end, { zoom: 'context' });
  else traceView.state.set({ pane: 'findings', finding: target.finding }, { push: true });
}

const SHOW_LABEL = { update: 'Select the update', range: 'Set the inspection range', finding: 'Open the finding' };

function render(panel, traceView, note) {
  const status = el('div', { class: 'note-status', role: 'status' });
  const link = new URL(buildPath(traceView.traceId, { ...traceView.state.get(), update: null, selection: { kind: 'note', id: note.id } }), window.location.origin).href;
  const remove = () => withWriteToken(status, 'Deleting a note', async () => {
    await traceView.notes.remove(note.id);
    traceView.select(null);
  }, (error) => { status.textContent = `Could not delete the note: ${error.message}`; });
  panel.show(
    el('h2', { id: 'note-details-title', text: 'Note' }),
    el('p', { class: 'note-text', id: 'note-text', text: note.text }),
    el('dl', { id: 'note-details-fields' },
      ...field('About', noteTargetText(note.target)),
      ...field('Added', formatDate(note.createdAt))),
    el('div', { class: 'signpost-actions' },
      el('button', { type: 'button', class: 'primary', id: 'note-show-target', text: SHOW_LABEL[note.target.kind] ?? 'Show',
        onclick: () => showTarget(traceView, note.target) }),
      el('button', { type: 'button', id: 'note-copy-link', text: 'Link to this note', onclick: () => traceView.copyLink(link, 'Link to this note') }),
      el('button', { type: 'button', id: 'note-delete', class: 'link-like', text: 'Delete note', onclick: remove })),
    status);
}
