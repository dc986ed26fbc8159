// The activity page (/audit): the audit trail, newest first, a page at a time (docs/api.md,
// "Audit"). Reading it needs a token with the `read` scope on a server that has a write token:
// the token form asks for one when the server refuses.
import { getAudit } from '../api.js';
import { el } from '../dom.js';
import { buildPath } from '../state.js';
import { writeTokenForm } from '../write-token.js';

/** What each action did, as a sentence's verb. */
export const AUDIT_VERBS = {
  upload: 'uploaded', delete: 'deleted', tags: 'edited the tags of', note: 'added a note to', 'note-deleted': 'deleted a note of',
};

/** Renders the page into `root`; returns {teardown()}. */
export function mountAudit(root) {
  let alive = true;
  let cursor = null;
  const status = el('div', { id: 'audit-status', class: 'audit-status', role: 'status', 'aria-live': 'polite' });
  const rows = el('tbody');
  const table = el('table', { id: 'audit-table', class: 'traces audit-table', hidden: true },
    el('thead', {}, el('tr', {}, ...['When', 'Who', 'Did', 'Trace', 'Detail'].map((text) => el('th', { scope: 'col', text })))),
    rows);
  const more = el('button', { type: 'button', id: 'audit-more', hidden: true, text: 'Older changes' });
  root.append(el('div', { class: 'history-page audit-page' },
    el('h1', { text: 'Activity' }),
    el('p', { class: 'muted', text: 'Who uploaded, deleted, tagged and annotated traces on this server, newest first.' }),
    status, table, more));

  async function load() {
    status.replaceChildren('Loading…');
    more.disabled = true;
    try {
      const page = await getAudit({ cursor });
      if (!alive) return;
      rows.append(...page.events.map(row));
      cursor = page.nextCursor;
      table.hidden = rows.children.length === 0;
      more.hidden = !cursor;
      status.replaceChildren(rows.children.length === 0 ? 'Nothing was uploaded, deleted, tagged or annotated yet.' : '');
    } catch (error) {
      if (!alive) return;
      // 401: no token; 403: a token without the read scope. Either way another token may do.
      if (error.status === 401 || error.status === 403) {
        status.replaceChildren(el('p', { text: error.detail || error.message }), writeTokenForm('Reading the activity', load));
        status.querySelector('input')?.focus();
        return;
      }
      status.replaceChildren(error.message);
    } finally {
      more.disabled = false;
    }
  }
  more.addEventListener('click', load);
  load();
  return { teardown() { alive = false; } };
}

function row(event) {
  const when = new Date(event.at);
  const trace = event.traceId && event.action !== 'delete'
    ? el('a', { href: buildPath(event.traceId, {}) }, el('bdi', { text: event.traceName ?? event.traceId }))
    : el('bdi', { text: event.traceName ?? event.traceId ?? '' });
  return el('tr', { class: 'audit-event', 'data-action': event.action },
    el('td', { title: event.at }, el('time', { datetime: event.at, text: when.toLocaleString() })),
    el('td', { class: 'audit-actor' }, el('bdi', { text: event.actor })),
    el('td', { text: AUDIT_VERBS[event.action] ?? event.action }),
    el('td', { class: 'name' }, trace),
    el('td', { class: 'name audit-detail', text: event.detail }));
}
