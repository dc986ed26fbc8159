// The detail area below the timeline: a tab bar (Findings | Summary | Updates | CPU | Cause & Effect) and
// the open pane. Which pane is open and its arguments live in the URL state (`pane`,
// `paneView`, `filter`, `search`, `mode`, `graph`), so back/forward and shared links restore them.
import { el } from '../dom.js';
import { currentPaneView } from './common.js';
import { graphSubject, selectedUpdate } from '../state.js';
import { mountSummary } from './summary.js';
import { mountUpdates } from './updates.js';
import { mountCallTree } from './cpu/index.js';
import { mountFindings, traceFindings } from './findings.js';
import { closeMenu } from './menu.js';
import { mountNotes } from './notes.js';

const TABS = [
  { id: 'findings', title: 'Findings' },
  { id: 'summary', title: 'Summary' },
  { id: 'updates', title: 'Updates' },
  { id: 'cpu', title: 'CPU' },
  { id: 'graph', title: 'Cause & Effect' },
  { id: 'notes', title: 'Notes' },
];

export function mountDetailPanes(container, traceView) {
  const tabs = TABS.filter((t) => t.id !== 'notes' || traceView.offers('notes')).map((t) => el('button', {
    type: 'button', role: 'tab', id: `pane-tab-${t.id}`, class: 'pane-tab', 'aria-controls': 'pane-body',
    dataset: { pane: t.id }, onclick: () => choose(t.id),
  }, t.title));
  const tabBar = el('div', { class: 'pane-tabs', role: 'tablist', 'aria-label': 'Detail panes' }, tabs);
  const findingsTab = tabs.find((tab) => tab.dataset.pane === 'findings');
  traceFindings(traceView).then((findings) => {
    const count = findings.total ?? findings.length;
    findingsTab.append(el('span', { class: 'tab-badge', 'aria-label': `${count} findings`, text: String(count) }));
  }, () => {});
  tabBar.addEventListener('keydown', (e) => {
    const i = tabs.indexOf(document.activeElement);
    if (i < 0) return;
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next == null) return;
    e.preventDefault();
    e.stopPropagation();
    const tab = tabs[(next + tabs.length) % tabs.length];
    tab.focus();
    choose(tab.dataset.pane);
  });
  const body = el('div', { class: 'pane-body', id: 'pane-body', role: 'tabpanel' });
  container.classList.add('detail-panes');
  container.replaceChildren(tabBar, body);

  let current = null; // {name, instance, graphKey}

  function choose(name) {
    const state = traceView.state.get();
    if (paneName(state) === name) return;
    // Entering the graph pins its subject, so selecting a node in it does not re-root it.
    const patch = name === 'graph' ? { pane: name, graph: state.graph ?? graphSubject(graphRequest(state)) } : { pane: name };
    traceView.state.set(patch, { push: true });
  }

  function show(state, changed) {
    const name = paneName(state);
    const graphKey = name === 'graph' ? JSON.stringify(graphRequest(state)) : null;
    if (current && current.name === name && current.graphKey === graphKey) {
      current.instance?.update?.(state, changed);
      return;
    }
    // Focus inside the old pane (or in a row menu of it) would fall to <body>: it goes to the new tab.
    const hadFocus = body.contains(document.activeElement) || !!document.activeElement?.closest?.('.pane-menu');
    closeMenu();
    current?.instance?.destroy?.();
    body.replaceChildren();
    for (const tab of tabs) {
      const on = tab.dataset.pane === name;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      tab.classList.toggle('active', on);
    }
    body.setAttribute('aria-labelledby', `pane-tab-${name}`);
    body.dataset.pane = name;
    const pane = el('div', { class: `pane pane-${name}` });
    body.append(pane);
    current = { name, graphKey, instance: null };
    if (name === 'findings') current.instance = mountFindings(pane, traceView);
    else if (name === 'summary') current.instance = mountSummary(pane, traceView);
    else if (name === 'updates') current.instance = mountUpdates(pane, traceView);
    else if (name === 'cpu') current.instance = mountCallTree(pane, traceView);
    else if (name === 'notes') current.instance = mountNotes(pane, traceView);
    else mountGraph(pane, JSON.parse(graphKey), current);
    updateTabTitles(state);
    if (hadFocus) tabs.find((tab) => tab.dataset.pane === name)?.focus();
  }

  function updateTabTitles(state) {
    const pv = currentPaneView(state);
    tabs.find((tab) => tab.dataset.pane === 'updates').textContent = pv ? `Updates: ${pv.view}` : 'Updates';
  }

  async function mountGraph(pane, request, entry) {
    if (!request) {
      pane.append(el('div', { class: 'pane-message', role: 'status' },
        'Select an update on the timeline, or choose “Show Cause & Effect Graph” on a view in the Summary.'));
      return;
    }
    try {
      const { mountCauseGraph } = await import('../graph/index.js');
      if (current !== entry) return;
      const instance = (await mountCauseGraph(pane, traceView, request)) ?? null;
      if (current === entry) entry.instance = instance;
      else instance?.destroy?.();
    } catch (error) {
      if (current !== entry) return;
      pane.replaceChildren(el('div', { class: 'pane-message pane-message-error', role: 'alert' },
        `Could not show the Cause & Effect graph: ${error.message}`));
    }
  }

  show(traceView.state.get(), new Set(['pane']));
  const unsubscribe = traceView.state.subscribe((state, changedKeys) => {
    const changed = new Set(changedKeys ?? Object.keys(state));
    if (changed.has('paneView')) updateTabTitles(state);
    show(state, changed);
  });

  return {
    destroy() {
      unsubscribe?.();
      current?.instance?.destroy?.();
      container.replaceChildren();
    },
  };
}

function paneName(state) {
  return TABS.some((t) => t.id === state.pane) ? state.pane : 'summary';
}

/** The graph's subject from the URL alone: the pinned one (g=), else the selected update, else the view chosen in the summary. */
function graphRequest(state) {
  const pv = currentPaneView(state);
  const view = pv ? { view: pv.view, module: pv.module } : null;
  if (state.graph === 'view' && view) return view;
  const pinned = /^u(\d+)$/.exec(state.graph ?? '');
  if (pinned) return { update: Number(pinned[1]) };
  const update = selectedUpdate(state);
  if (update != null) return { update };
  return view;
}
