// The comparison's drill-down into one view row: its longest updates in A and in B (links into
// each trace page) and its merged cause graph in each, stacked A above B at reading scale (each
// fitted to its own graph), the edges that differ marked on both: gone (only in A), new (only in
// B), count changed. Each graph is the trace page's (graph/index.js) with a trace view of its own
// (trace-view.js) whose state stays in the page. A pooled side shows its first recording there;
// the CPU of the view's bodies below pools them all.
import { traceApi } from '../../api.js';
import { el } from '../../dom.js';
import { copyText } from '../../shell.js';
import { buildPath, createLocalViewState, selectionPatch } from '../../state.js';
import { createTraceView } from '../../trace-view.js';
import { formatDuration } from '../../format.js';
import { bundleMark, graphDiff } from '../../graph/diff.js';
import { rowKey } from './sections.js';
import { rangeOf, rangeParams } from '../../selections/range.js';
import { viewOf } from '../../selections/view.js';
import { mountDiffFlame, pooledFlameNote } from './flame.js';

/**
 * The merged cause graph of `view` in one trace (the trace page's graph module), with a view
 * state of its own: opening groups or selecting nodes stays in the drill-down; the node card's
 * "Copy link" gives that trace's page with the node selected. `onRender(graph)` after each drawing.
 */
function mountDrillGraph(container, { id, range, paneView, trace, onRender }) {
  const state = createLocalViewState({ range, pane: 'graph', graph: 'view', paneView },
    { link: (s) => new URL(buildPath(id, s), window.location.origin).href });
  let instance = null;
  let destroyed = false;
  const unsubscribe = state.subscribe((s, changed) => instance?.update(s, new Set(changed)));
  const mounted = Promise.all([trace, import('../../graph/index.js')])
    .then(([info, { mountCauseGraph }]) => {
      if (destroyed) return null;
      // A selection stays in the drill-down's state: there is no side panel here.
      const view = createTraceView({ trace: info, api: traceApi(id), state,
        select: (selection) => state.set(selectionPatch(selection)), copyLink: (text, what) => copyText(text, what) });
      return mountCauseGraph(container, view, paneView, { scrollingPage: true, readable: true, onRender });
    })
    .then((graph) => {
      if (destroyed) { graph?.destroy(); return null; }
      instance = graph;
      return graph;
    })
    .catch((error) => { container.replaceChildren(el('p', { class: 'error-box', text: `Could not show the graph: ${error.message}` })); return null; });
  return {
    markEdges: (markOf) => mounted.then((graph) => graph?.markEdges(markOf)),
    destroy() { destroyed = true; unsubscribe(); instance?.destroy(); },
  };
}

/** "A · before", "A · before (the first of 3 recordings)". */
function sideTitle(name, runs) {
  const title = name === 'A' ? 'A · before' : 'B · after';
  return runs > 1 ? `${title} (the first of ${runs} recordings)` : title;
}

/**
 * The drill-down section of row `s.row` (null when no row is open). `a`, `b`: each side's trace
 * ids (the first is drilled into); `infos`: both first traces' infos (a promise); each graph
 * mounted is pushed onto `graphs`, to be destroyed when the tables are rebuilt.
 */
export function drillSection(c, s, { a, b, infos, graphs }) {
  if (!s.row) return null;
  const v = c.views.find((row) => rowKey(row) === rowKey(s.row));
  const section = el('section', { class: 'compare-section compare-drill', id: 'compare-drill', 'aria-label': `${s.row.view} in A and B` });
  if (!v) {
    section.append(el('p', { text: `No row ${s.row.view} (${s.row.module}) in this comparison.` }));
    return section;
  }
  const paneView = viewOf(v);
  // Both graphs as drawn last; when both are there, the edges that differ are marked on both.
  const drawn = { A: null, B: null };
  const mounted = {};
  function markDifferences() {
    if (!drawn.A || !drawn.B) return;
    const diff = graphDiff(drawn.A, drawn.B);
    const changed = [...diff.values()];
    legend.querySelector('.drill-diff-counts').textContent = ['gone', 'new', 'changed']
      .map((change) => `${changed.filter((d) => d.change === change).length} ${change}`).join(' · ');
    for (const side of ['A', 'B']) mounted[side]?.markEdges((bundle, nodeById) => bundleMark(bundle, nodeById, diff));
  }
  const legend = el('p', { class: 'drill-diff-legend', id: 'drill-diff-legend' }, 'Edges that differ: ',
    el('span', { class: 'diff-gone', text: 'gone (only in A)' }), ' · ', el('span', { class: 'diff-new', text: 'new (only in B)' }), ' · ',
    el('span', { class: 'diff-changed', text: 'count changed' }), ' — ', el('span', { class: 'drill-diff-counts', text: 'comparing…' }));

  const side = (name, id, range, stats, runs) => {
    const list = el('ol', { class: 'drill-updates', 'aria-busy': 'true' });
    const block = el('div', { class: 'drill-side', 'data-side': name },
      el('div', { class: 'drill-side-head' },
        el('h3', { text: sideTitle(name, runs) }),
        el('span', { class: 'meta', text: `${stats.count} updates${runs > 1 ? ' a run' : ''}, ${formatDuration(stats.totalNs)}; max ${formatDuration(stats.maxNs)}` }),
        el('span', { class: 'drill-links' },
          el('a', { href: buildPath(id, { range, pane: 'updates', paneView }), 'data-link': 'updates', text: 'Updates in this trace' }), ' · ',
          el('a', { href: buildPath(id, { range, pane: 'graph', graph: 'view', paneView }), 'data-link': 'graph', text: 'Merged cause graph' }))),
      el('div', { class: 'drill-longest' }, el('span', { class: 'meta', text: 'Longest: ' }), list));
    if (!stats.count) {
      list.replaceWith(el('p', { class: 'empty', text: 'No updates of this view.' }));
      drawn[name] = { nodes: [], edges: [] };
      return block;
    }
    const graph = el('div', { class: 'drill-graph', 'data-graph': name });
    block.append(graph);
    mounted[name] = mountDrillGraph(graph, {
      id, range, paneView: { ...paneView }, trace: infos.then((both) => both[name === 'A' ? 0 : 1]),
      onRender: (g) => { drawn[name] = g; markDifferences(); },
    });
    graphs.push(mounted[name]);
    traceApi(id).get('updates', { view: v.view, module: v.module, category: v.category, sort: 'duration', order: 'desc', limit: 5, ...rangeParams(rangeOf(range)) })
      .then((page) => {
        list.replaceChildren(...page.updates.map((u) => el('li', {},
          el('a', { href: buildPath(id, { update: u.id, pane: 'graph', graph: `u${u.id}` }), text: formatDuration(u.duration) }),
          u.cause ? el('span', { class: 'meta', text: ` ${u.cause}` }) : null)));
        list.setAttribute('aria-busy', 'false');
      })
      .catch((error) => { list.replaceChildren(el('li', { class: 'error-box', text: error.message })); });
    return block;
  };
  section.append(el('h2', { text: `${v.view}: longest updates and merged cause graph, A above B` }), legend,
    el('div', { class: 'drill-stack' }, side('A', a[0], s.rangeA, v.a, c.a.runs), side('B', b[0], s.rangeB, v.b, c.b.runs)));
  // The CPU of this view's bodies only, B against A (every recording of a side pooled).
  const flame = el('div', { class: 'drill-flame', id: 'compare-drill-flame' });
  section.append(...[el('h3', { text: `${v.view}: CPU of its bodies, B against A` }), pooledFlameNote(c), flame].filter(Boolean));
  graphs.push(mountDiffFlame(flame, { a, b, rangeA: s.rangeA, rangeB: s.rangeB, view: { view: v.view, module: v.module } }));
  return section;
}
