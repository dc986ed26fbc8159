// The comparison's drill-down into one view row: its longest updates in A and in B (links into
// each trace page) and its merged cause graph in each, the trace page's graph (graph/index.js)
// with a trace view of its own (trace-view.js) whose state stays in the page.
import { traceApi } from '../../api.js';
import { el } from '../../dom.js';
import { copyText } from '../../shell.js';
import { buildPath, createLocalViewState, selectionPatch } from '../../state.js';
import { createTraceView } from '../../trace-view.js';
import { formatDuration } from '../../format.js';
import { rangeParams, rowKey } from './sections.js';

/**
 * The merged cause graph of `view` in one trace (the trace page's graph module), with a view
 * state of its own: opening groups or selecting nodes stays in the drill-down; the node card's
 * "Copy link" gives that trace's page with the node selected.
 */
function mountDrillGraph(container, { id, range, paneView, trace }) {
  const state = createLocalViewState({ range, pane: 'graph', graph: 'view', paneView },
    { link: (s) => new URL(buildPath(id, s), window.location.origin).href });
  let instance = null;
  let destroyed = false;
  const unsubscribe = state.subscribe((s, changed) => instance?.update(s, new Set(changed)));
  Promise.all([trace, import('../../graph/index.js')])
    .then(([info, { mountCauseGraph }]) => {
      if (destroyed) return null;
      // A selection stays in the drill-down's state: there is no side panel here.
      const view = createTraceView({ trace: info, api: traceApi(id), state,
        select: (selection) => state.set(selectionPatch(selection)), copyLink: (text, what) => copyText(text, what) });
      return mountCauseGraph(container, view, paneView);
    })
    .then((mounted) => {
      if (destroyed) { mounted?.destroy(); return; }
      instance = mounted;
      // Two graphs side by side are small: show each whole rather than the trace page's
      // readable-scale start at the view.
      instance?.fit();
    })
    .catch((error) => { container.replaceChildren(el('p', { class: 'error-box', text: `Could not show the graph: ${error.message}` })); });
  return { destroy() { destroyed = true; unsubscribe(); instance?.destroy(); } };
}

/**
 * The drill-down section of row `s.row` (null when no row is open). `infos`: both traces' infos
 * (a promise); each graph mounted is pushed onto `graphs`, to be destroyed when the tables are rebuilt.
 */
export function drillSection(c, s, { a, b, infos, graphs }) {
  if (!s.row) return null;
  const v = c.views.find((row) => rowKey(row) === rowKey(s.row));
  const section = el('section', { class: 'compare-section compare-drill', id: 'compare-drill', 'aria-label': `${s.row.view} in A and B` });
  if (!v) {
    section.append(el('p', { text: `No row ${s.row.view} (${s.row.module}) in this comparison.` }));
    return section;
  }
  const paneView = { module: v.module, view: v.view, category: v.category };
  const side = (name, id, range, stats) => {
    const list = el('ol', { class: 'drill-updates', 'aria-busy': 'true' });
    const column = el('div', { class: 'drill-side', 'data-side': name },
      el('h3', { text: name === 'A' ? 'A · before' : 'B · after' }),
      el('p', { class: 'meta', text: `${stats.count} updates, ${formatDuration(stats.totalNs)}; max ${formatDuration(stats.maxNs)}` }),
      el('p', { class: 'drill-links' },
        el('a', { href: buildPath(id, { range, pane: 'updates', paneView }), 'data-link': 'updates', text: 'Updates in this trace' }), ' · ',
        el('a', { href: buildPath(id, { range, pane: 'graph', graph: 'view', paneView }), 'data-link': 'graph', text: 'Merged cause graph' })),
      list);
    if (!stats.count) {
      list.replaceWith(el('p', { class: 'empty', text: 'No updates of this view.' }));
      return column;
    }
    const graph = el('div', { class: 'drill-graph', 'data-graph': name });
    column.append(graph);
    graphs.push(mountDrillGraph(graph, { id, range, paneView: { view: v.view, module: v.module, category: v.category }, trace: infos.then((both) => both[name === 'A' ? 0 : 1]) }));
    traceApi(id).get('updates', { view: v.view, module: v.module, category: v.category, sort: 'duration', order: 'desc', limit: 5, ...rangeParams(range) })
      .then((page) => {
        list.replaceChildren(...page.updates.map((u) => el('li', {},
          el('a', { href: buildPath(id, { update: u.id, pane: 'graph', graph: `u${u.id}` }), text: formatDuration(u.duration) }),
          u.cause ? el('span', { class: 'meta', text: ` ${u.cause}` }) : null)));
        list.setAttribute('aria-busy', 'false');
      })
      .catch((error) => { list.replaceChildren(el('li', { class: 'error-box', text: error.message })); });
    return column;
  };
  section.append(el('h2', { text: `${v.view}: longest updates and merged cause graph` }),
    el('div', { class: 'drill-columns' }, side('A', a, s.rangeA, v.a), side('B', b, s.rangeB, v.b)));
  return section;
}
