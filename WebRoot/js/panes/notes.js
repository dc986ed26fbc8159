// The Notes pane: the trace's notes (each opens in the side panel, nt= in the link) and a form
// to add one to what is selected now: the selected update, the inspection range, or the finding
// open in the Findings pane (fd=). Adding and deleting need the write token on a shared server.
import { el } from '../dom.js';
import { currentRange, selectedUpdate } from '../state.js';
import { formatDate, noteTargetText } from '../format.js';
import { withWriteToken } from '../write-token.js';

const MAX_LENGTH = 500;

/** What a note can be about now: the selected update, the range, the open finding. */
export function noteTargets(state) {
  const targets = [];
  const update = selectedUpdate(state);
  if (update !== null) targets.push({ kind: 'update', update });
  const range = currentRange(state);
  if (range) targets.push({ kind: 'range', start: range.start, end: range.end });
  if (state.finding) targets.push({ kind: 'finding', finding: state.finding });
  return targets;
}

export function mountNotes(pane, traceView) {
  const list = el('ul', { class: 'note-list', id: 'note-list', 'aria-label': 'Notes' });
  const formSlot = el('div', { id: 'note-form-slot' });
  const status = el('div', { class: 'note-status', id: 'note-status', role: 'status' });
  pane.append(el('div', { class: 'pane-notes' }, formSlot, status, list));

  function renderList(notes) {
    list.replaceChildren(...(notes.length ? notes.map((note) => el('li', { 'data-note-id': note.id },
      el('button', { type: 'button', class: 'link-like note-open', text: noteTargetText(note.target),
        'aria-label': `Show the note on ${noteTargetText(note.target)}`,
        onclick: () => traceView.select({ kind: 'note', id: note.id }) }),
      el('span', { class: 'meta', text: ` · ${formatDate(note.createdAt)}` }),
      el('p', { class: 'note-text', text: note.text })))
      : [el('li', { class: 'meta', text: 'No notes yet. Select an update, set an inspection range or open a finding, then add a note about it here.' })]));
  }

  function renderForm(state) {
    const targets = noteTargets(state);
    if (!targets.length) {
      formSlot.replaceChildren(el('p', { class: 'meta', id: 'note-form-hint',
        text: 'To add a note: select an update, drag an inspection range on the ruler, or open a finding.' }));
      return;
    }
    const text = el('textarea', { id: 'note-text-input', maxlength: String(MAX_LENGTH), rows: '3', required: true,
      placeholder: 'What you found, or fixed: “fixed in #1234: cached the formatter”' });
    const choices = targets.map((target, i) => el('label', { class: 'note-target' },
      el('input', { type: 'radio', name: 'note-target', value: String(i), checked: i === 0 }), ` ${noteTargetText(target)}`));
    const form = el('form', { class: 'note-form', id: 'note-form', 'aria-label': 'Add a note' },
      el('fieldset', {}, el('legend', { text: 'Add a note about' }), ...choices),
      el('label', { for: 'note-text-input', class: 'visually-hidden', text: 'Note' }), text,
      el('button', { type: 'submit', class: 'primary', id: 'note-save', text: 'Add note' }));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const chosen = targets[Number(form.querySelector('input[name=note-target]:checked')?.value ?? 0)];
      const body = text.value.trim();
      if (!body) return;
      status.textContent = '';
      withWriteToken(status, 'Adding a note', async () => {
        const note = await traceView.notes.add(chosen, body);
        text.value = '';
        status.textContent = 'Note added.';
        traceView.select({ kind: 'note', id: note.id });
      }, (error) => { status.textContent = `Could not add the note: ${error.message}`; });
    });
    formSlot.replaceChildren(form);
  }

  const unsubscribeNotes = traceView.notes.subscribe(renderList);
  renderList(traceView.notes.list());
  renderForm(traceView.state.get());
  return {
    update(state, changed) {
      if (changed.has('update') || changed.has('range') || changed.has('finding')) {
        // Keep what is being typed when the selection moves.
        const typed = document.getElementById('note-text-input')?.value ?? '';
        renderForm(state);
        const field = document.getElementById('note-text-input');
        if (field) field.value = typed;
      }
    },
    destroy() { unsubscribeNotes(); },
  };
}
