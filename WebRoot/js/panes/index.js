// The detail area below the timeline: a tab bar (Summary | Updates | CPU | Cause & Effect) and
// the open pane. Which pane is open and its arguments live in the URL state (`pane`,
// `paneView`, `filter`, `search`, `mode`), so back/forward and shared links restore them.
import { el, currentPaneView } from './common.js';
import { mountSummary } from './summary.js';
import { mountUpdates } from './updates.js';
import { mountCallTree } from './cpu.js';
import { closeMenu } from './menu.js';

const TABS = [
  { id: 'summary', title: 'Summary' },
  { id: 'updates', title: 'Updates' },
  { id: 'cpu', title: 'CPU' },
  { id: 'graph', title: 'Cause & Effect' },
];

export function mountDetailPanes(container, ctx) {
  const tabs = TABS.map((t) => el('button', {
    type: 'button', role: 'tab', id: `pane-tab-${t.id}`, class: 'pane-tab', 'aria-controls': 'pane-body',
    dataset: { pane: t.id }, onclick: () => choose(t.id),
  }, t.title));
  const tabBar = el('div', { class: 'pane-tabs', role: 'tablist', 'aria-label': 'Detail panes' }, tabs);
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
  let pointerInPaneAt = -Infinity;
  body.addEventListener('pointerdown', () => { pointerInPaneAt = performance.now(); }, true);
  const interactingWithPane = () => body.contains(document.activeElement) || performance.now() - pointerInPaneAt < 1000;

  // The graph's subject is what was asked for when it was opened ("Cause & Effect" on an update or
  // a view). Selecting a node in the graph selects its update; that must not re-centre the graph,
  // so the subject changes only on a new request, a new view, a selection made outside the pane,
  // or on entering the pane.
  const shellOpenPane = ctx.openPane;
  let requestedGraph = null;
  ctx.openPane = (name, arg = {}) => {
    if (name === 'graph') requestedGraph = arg;
    shellOpenPane.call(ctx, name, arg);
    // The state did not change (the graph is open on that update already): apply the request here.
    if (requestedGraph) show(ctx.state.get(), new Set());
  };

  function choose(name) {
    if (paneName(ctx.state.get()) !== name) ctx.state.set({ pane: name }, { push: true });
  }

  function show(state, changed) {
    const name = paneName(state);
    let graphKey = null;
    if (name === 'graph') {
      const asked = requestedGraph && (requestedGraph.update != null
        ? { update: Number(requestedGraph.update) } : requestedGraph.view ? { view: requestedGraph.view, module: requestedGraph.module ?? '' } : null);
      requestedGraph = null;
      // An update graph follows a selection made elsewhere (timeline, details), not one made by
      // clicking a node in the graph itself.
      const selectedElsewhere = changed.has('update') && state.update != null && !interactingWithPane()
        && JSON.parse(current?.graphKey ?? 'null')?.update != null;
      const keep = current?.name === 'graph' && !changed.has('paneView') && !selectedElsewhere;
      graphKey = asked ? JSON.stringify(asked) : keep ? current.graphKey : JSON.stringify(graphRequest(state));
    }
    if (current && current.name === name && current.graphKey === graphKey) {
      current.instance?.update?.(state, changed);
      return;
    }
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
    if (name === 'summary') current.instance = mountSummary(pane, ctx);
    else if (name === 'updates') current.instance = mountUpdates(pane, ctx);
    else if (name === 'cpu') current.instance = mountCallTree(pane, ctx);
    else mountGraph(pane, JSON.parse(graphKey), current);
    updateTabTitles(state);
  }

  function updateTabTitles(state) {
    const pv = currentPaneView(state);
    tabs[1].textContent = pv ? `Updates: ${pv.view}` : 'Updates';
  }

  async function mountGraph(pane, request, entry) {
    if (!request) {
      pane.append(el('div', { class: 'pane-message', role: 'status' },
        'Select an update on the timeline, or choose “Show Cause & Effect Graph” on a view in the Summary.'));
      return;
    }
    try {
      const { mountCauseGraph } = await import('/js/graph/index.js');
      if (current !== entry) return;
      const instance = (await mountCauseGraph(pane, ctx, request)) ?? null;
      if (current === entry) entry.instance = instance;
      else instance?.destroy?.();
    } catch (error) {
      if (current !== entry) return;
      pane.replaceChildren(el('div', { class: 'pane-message pane-message-error', role: 'alert' },
        `Could not show the Cause & Effect graph: ${error.message}`));
    }
  }

  show(ctx.state.get(), new Set(['pane']));
  const unsubscribe = ctx.state.subscribe((state, changedKeys) => {
    const changed = new Set(changedKeys ?? Object.keys(state));
    if (changed.has('paneView')) updateTabTitles(state);
    show(state, changed);
  });

  return {
    destroy() {
      ctx.openPane = shellOpenPane;
      unsubscribe?.();
      current?.instance?.destroy?.();
      container.replaceChildren();
    },
  };
}

function paneName(state) {
  return TABS.some((t) => t.id === state.pane) ? state.pane : 'summary';
}

/** The graph's subject from the URL alone: the selected update, else the view chosen in the summary. */
function graphRequest(state) {
  if (state.update != null) return { update: Number(state.update) };
  const pv = currentPaneView(state);
  return pv ? { view: pv.view, module: pv.module } : null;
}
