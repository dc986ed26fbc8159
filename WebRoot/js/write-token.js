// The server's write token, asked for when a write is refused with 401 (docs/api.md, Access):
// a small form; saving the token runs the write again. Every page that writes uses it.
import { writeToken } from './api.js';
import { el } from './dom.js';

let forms = 0;

/** A form asking for the write token that `what` ("Uploading x.json") needs; saving it calls `retry()`. */
export function writeTokenForm(what, retry) {
  forms += 1;
  const id = forms === 1 ? 'write-token' : `write-token-${forms}`;
  const field = el('input', { type: 'password', id, autocomplete: 'off', required: true, 'aria-describedby': `${id}-help` });
  const form = el('form', { class: 'token-form' },
    el('p', { id: `${id}-help` },
      `${what} needs this server's write token. `,
      writeToken.get() ? 'The saved one was refused. ' : '',
      'tracesvc serve printed it when it started (or ask whoever runs the server).'),
    el('label', { for: id, text: 'Write token' }), field,
    el('button', { type: 'submit', class: 'primary', text: 'Save and retry' }));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    writeToken.set(field.value.trim());
    form.remove();
    retry();
  });
  return form;
}

/**
 * Runs the write `action()`; when the server wants its token (401), shows the form in `where`
 * (an element: the form replaces its content) and runs it again once a token is saved.
 * Other failures are `onError(error)`'s.
 */
export async function withWriteToken(where, what, action, onError) {
  try {
    return await action();
  } catch (error) {
    if (error.status !== 401) { onError(error); return undefined; }
    const form = writeTokenForm(what, () => withWriteToken(where, what, action, onError));
    where.replaceChildren(form);
    where.hidden = false;
    form.querySelector('input').focus();
    return undefined;
  }
}
