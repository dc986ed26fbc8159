// The notes on a trace's evidence (GET/POST/DELETE /api/traces/{id}/notes): one store the parts
// share through the trace view (trace-view.js `notes`). The timeline marks each note where its
// update, range or finding is; the side panel shows one (nt= in the link); the Notes pane lists
// them and adds new ones. Texts are shown as text, never as markup.
import { sendJSON } from './api.js';

/** A page without notes (the comparison): nothing to list, nothing to add. */
export const NO_NOTES = Object.freeze({
  offered: false,
  ready: Promise.resolve(),
  list: () => [],
  get: () => null,
  spanOf: () => null,
  subscribe: () => () => {},
  add: async () => { throw new Error('Notes are kept on trace pages.'); },
  remove: async () => { throw new Error('Notes are kept on trace pages.'); },
});

/**
 * The notes of trace `traceId`: `api` is its trace API (api.js traceApi), `findings()` gives a
 * promise of its findings (a finding note sits on the finding's evidence range).
 */
export function createNoteStore(traceId, api, findings) {
  const base = `/api/traces/${encodeURIComponent(traceId)}/notes`;
  let notes = [];
  const spans = new Map(); // note id -> [start, end] on the trace's clock, or null
  const listeners = new Set();
  const notify = () => { for (const fn of [...listeners]) fn(notes); };

  async function span(note) {
    const target = note.target;
    try {
      if (target.kind === 'range') return [target.start, target.end];
      if (target.kind === 'update') {
        const update = await api.get(`updates/${target.update}`);
        return [update.start, update.start + Math.max(update.duration, 1)];
      }
      const range = (await findings()).find((finding) => finding.id === target.finding)?.evidence?.range;
      return range ? [range.start, range.end] : null;
    } catch {
      return null;
    }
  }

  async function place(note) {
    spans.set(note.id, await span(note));
  }

  const ready = api.get('notes').then(async (answer) => {
    notes = answer.notes ?? [];
    await Promise.all(notes.map(place));
    notify();
  }).catch(() => {});

  return {
    offered: true,
    ready,
    list: () => notes,
    get: (id) => notes.find((note) => note.id === id) ?? null,
    /** Where note `id` sits on the timeline, [start, end], or null (not known, or nowhere). */
    spanOf: (id) => spans.get(id) ?? null,
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    /** Adds a note ({kind, update | start, end | finding}, text); resolves to it. */
    async add(target, text) {
      const note = await sendJSON('POST', base, { target, text });
      await place(note);
      notes = [...notes, note];
      notify();
      return note;
    },
    async remove(id) {
      await sendJSON('DELETE', `${base}/${encodeURIComponent(id)}`);
      notes = notes.filter((note) => note.id !== id);
      spans.delete(id);
      notify();
    },
  };
}
