// What every page may ask of the app around it: go to another page, say something briefly
// (toast), copy a link. The router (app.js) registers itself here, so pages never import it.
import { el } from './dom.js';

let router = () => {};

/** Called once by the router: `route()` runs on navigate(), on back/forward and on in-app link clicks. */
export function startNavigation(route) {
  router = route;
  // Same-origin links navigate inside the app; modified clicks keep the browser's behaviour.
  document.addEventListener('click', (event) => {
    const link = event.target.closest?.('a[href]');
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (link.target && link.target !== '_self') return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
    event.preventDefault();
    if (url.href !== location.href) navigate(url.pathname + url.search);
  });
  window.addEventListener('popstate', () => router());
}

export function navigate(url, { replace = false } = {}) {
  if (replace) history.replaceState({ tracesvc: true }, '', url);
  else history.pushState({ tracesvc: true }, '', url);
  router();
}

let toastTimer = 0;
export function toast(text) {
  const box = document.getElementById('toast');
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

/** Copies text; falls back to a selected text field where the Clipboard API is unavailable (plain http on a LAN). */
export async function copyText(text, what = 'Link') {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const field = el('textarea', { class: 'offscreen', 'aria-hidden': 'true' });
    field.value = text;
    document.body.append(field);
    field.select();
    document.execCommand('copy');
    field.remove();
  }
  toast(`${what} copied: ${text}`);
}
