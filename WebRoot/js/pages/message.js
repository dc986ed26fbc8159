// A page for a link that leads nowhere (no such trace, update or path; a link too new or damaged),
// with a way back to the list.
import { el } from '../dom.js';
import { buildPath, STATE_VERSION } from '../state.js';

/** Renders the message page into the cleared `shell` (app.js: {main, trace, actions, clear}). */
export function messagePage(shell, title, text, extraLinks = []) {
  shell.clear();
  document.title = `${title} – tracesvc`;
  shell.main.append(el('div', { class: 'message-page', role: 'alert' },
    el('h1', { text: title }),
    el('p', { text }),
    el('p', {}, el('a', { href: '/', class: 'button primary', text: 'Back to all traces' }), ' ', ...extraLinks)));
}

/** A link whose v= this server cannot read: too new, or not a version at all. */
export function badVersionPage(shell, { version, traceId, plainPath }) {
  const withoutView = [el('a', { href: plainPath ?? buildPath(traceId, {}), class: 'button',
    text: plainPath ? 'Open the comparison without the view' : 'Open the trace without the view' })];
  if (/^\d+$/.test(version) && Number(version) > STATE_VERSION) {
    messagePage(shell, 'This link needs a newer tracesvc',
      `This link was made by a newer tracesvc (v=${version}); this server understands links up to v=${STATE_VERSION}. ` +
      'Update the server, or open the trace from the list.', withoutView);
  } else {
    messagePage(shell, 'This link is damaged',
      `"v=${version}" is not a link version (links carry v=1 to v=${STATE_VERSION}). The link may have been cut or edited.`, withoutView);
  }
}

/** An update path whose id is not a whole number. */
export function badUpdatePage(shell, { traceId, updateText }) {
  messagePage(shell, 'No such update', `"${updateText}" is not an update id; update ids are whole numbers.`,
    [el('a', { href: buildPath(traceId, {}), class: 'button', text: 'Open the trace' })]);
}
