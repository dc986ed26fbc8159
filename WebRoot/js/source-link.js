// A frame's file and line, as Instruments 27 records them for the app's frames ({path, line}: the
// recording machine's path). With the server's source link (GET /api/traces/{id} `sourceLink`:
// `serve --source-url … --source-root …`) it is a link into the app's repository; without one, a
// button that copies the `xed` command opening the line in Xcode.
import { el } from './dom.js';

/** "TripCard.swift:88" (the file alone when the line is 0). */
export function sourceText(location) {
  const file = location.path.split('/').pop() || location.path;
  return location.line > 0 ? `${file}:${location.line}` : file;
}

/** The path below `root` ("/Users/dev/Trips" + "/Users/dev/Trips/Trips/Views/TripCard.swift" → "Trips/Views/TripCard.swift"); the path itself outside it. */
export function relativePath(path, root) {
  if (!root) return path;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

/** The link `sourceLink.url` makes for the location ({path}, {line}; the server filled {commit}), or null. */
export function sourceHref(location, sourceLink) {
  if (!sourceLink?.url) return null;
  const path = relativePath(location.path, sourceLink.root);
  // A path outside the root is the recording machine's own: no link into the repository.
  if (path.startsWith('/')) return null;
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  return sourceLink.url.replaceAll('{path}', encoded).replaceAll('{line}', String(location.line));
}

/** `xed --line 88 Trips/Views/TripCard.swift`: opens the line in Xcode (paths with spaces quoted). */
export function xedCommand(location, sourceLink) {
  const path = relativePath(location.path, sourceLink?.root);
  const quoted = /^[\w./@+-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
  return location.line > 0 ? `xed --line ${location.line} ${quoted}` : `xed ${quoted}`;
}

/** The location as a link, or a button copying the xed command (`copy(text, what)`: shell.js copyText). */
export function sourceLinkNode(location, sourceLink, copy) {
  const text = sourceText(location);
  const href = sourceHref(location, sourceLink);
  if (href) {
    return el('a', { class: 'source-link', href, target: '_blank', rel: 'noopener noreferrer', title: location.path, 'data-testid': 'source-link' }, text);
  }
  const command = xedCommand(location, sourceLink);
  return el('button', {
    type: 'button', class: 'source-copy pane-link', title: `Copy: ${command}`, 'data-testid': 'source-copy',
    onclick: (event) => { event.stopPropagation(); copy?.(command, 'Command'); },
  }, text);
}
