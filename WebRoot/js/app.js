// The router: which page a location shows (pages/), in the header and main area they share
// (index.html), and where a trace file dropped on any page goes.
import { navigate, startNavigation } from './shell.js';
import { parseLocation } from './state.js';
import { watchFileDrops } from './file-drop.js';
import { renderHome } from './pages/home.js';
import { mountHistory } from './pages/history.js';
import { mountAudit } from './pages/audit.js';
import { openTracePage } from './pages/trace.js';
import { compareKey, mountCompare } from './pages/compare/index.js';
import { badUpdatePage, badVersionPage, messagePage } from './pages/message.js';

let current = null; // the mounted page: {route, traceId?, compareKey?, restore?(state), teardown(), upload?(file)}
let routeToken = 0;
let droppedFile = null; // dropped on another page, uploaded once the list page is up

/** What a page draws into: the main area, the header's trace and action slots; `clear()` empties them. */
const shell = {
  main: document.getElementById('app'),
  trace: document.getElementById('header-trace'),
  actions: document.getElementById('header-actions'),
  clear() {
    current?.teardown?.();
    current = null;
    shell.trace.replaceChildren();
    shell.actions.replaceChildren();
    shell.main.replaceChildren();
    shell.main.className = '';
  },
};

async function route() {
  const token = ++routeToken;
  const parsed = parseLocation();
  // Back/forward, or a link to the page already open: the page adopts the state.
  if (parsed.route === 'trace' && current?.traceId === parsed.traceId) {
    await current.restore(parsed.state);
    return;
  }
  if (parsed.route === 'compare' && current?.compareKey === compareKey(parsed.a, parsed.b)) {
    current.restore(parsed.state);
    return;
  }
  // The list and the history keep their page when only their filters change.
  if ((parsed.route === 'home' || parsed.route === 'history') && current?.route === parsed.route) {
    current.restore(parsed.route === 'home' ? parsed.list : parsed.history);
    return;
  }
  shell.clear();
  switch (parsed.route) {
    case 'home': {
      document.title = 'tracesvc';
      const home = renderHome(shell.main, parsed.list);
      current = { route: 'home', teardown: home.teardown, upload: home.upload, restore: home.restore };
      if (droppedFile) home.upload(droppedFile);
      droppedFile = null;
      return;
    }
    case 'history': {
      document.title = 'History – tracesvc';
      const page = mountHistory(shell.main, parsed.history);
      current = { route: 'history', restore: page.restore, teardown: page.teardown };
      return;
    }
    case 'audit': {
      document.title = 'Activity – tracesvc';
      current = { route: 'audit', ...mountAudit(shell.main) };
      return;
    }
    case 'bad-version':
      badVersionPage(shell, parsed);
      return;
    case 'bad-update':
      badUpdatePage(shell, parsed);
      return;
    case 'not-found':
      messagePage(shell, 'Page not found', `There is nothing at ${parsed.path}.`);
      return;
    case 'trace': {
      const page = await openTracePage(shell, parsed, () => token === routeToken);
      if (page && token === routeToken) current = page;
      return;
    }
    case 'compare': {
      const page = mountCompare(shell.main, { trace: shell.trace, actions: shell.actions }, parsed);
      current = { compareKey: page.key, restore: page.restore, teardown: page.teardown };
      return;
    }
  }
}

watchFileDrops((file) => {
  if (current?.upload) current.upload(file);
  else { droppedFile = file; navigate('/'); }
});
startNavigation(route);
route();
