// The selected node's card beside the cause graph: what the node is, where a value was written
// (the backtrace), what caused it and what it caused (each a link to that node), its updates
// (each selects the update), for a folded group its members, and for a Swift task how it is tied
// to the change and a button that opens the task (docs/cause-graph.md, "Swift tasks in the chain").
import { el } from '../dom.js';
import { sourceText } from '../source-link.js';
import { KIND_LABELS, edgeText, weightText } from './render.js';

/**
 * The card's children for `node` of `graph` (`nodeById`: its nodes by id). `actions`: close(),
 * copyLink(), select(nodeId) (another node), selectUpdate(id), open(node) (a folded group),
 * openTask(node) (a Swift task: its details in the side panel).
 */
export function nodeInfo(node, graph, nodeById, actions) {
  const parts = [
    el('button', { type: 'button', class: 'cg-info-close', 'aria-label': 'Close node details', onclick: actions.close }, '\u00d7'),
    el('button', { type: 'button', class: 'pane-button cg-info-copy', 'aria-label': 'Copy a link to this node', onclick: actions.copyLink }, 'Copy link'),
    el('div', { class: 'cg-info-kind' }, KIND_LABELS[node.kind] ?? node.kind, ' \u00b7 ', node.isAppCode ? 'app code' : 'system'),
    el('h3', { class: 'cg-info-title' }, node.title),
  ];
  if (node.subtitle) parts.push(el('div', { class: 'cg-info-subtitle' }, node.subtitle));
  if (node.dimmed) parts.push(el('p', { class: 'cg-info-note' }, 'This body was notified of a change but did not run.'));
  if (node.count > 1) parts.push(el('p', {}, `Merged from ${node.count} appearances.`));
  if (weightText(node)) parts.push(el('p', { class: 'cg-info-weight' }, `Downstream: ${weightText(node)}.`));
  if (node.kind === 'state' || node.kind === 'observable') parts.push(backtrace(node));
  if (node.task) parts.push(task(node, actions));
  parts.push(
    edgeList('Caused by', graph.edges.filter((e) => e.to === node.id), 'from', nodeById, actions),
    edgeList('Caused', graph.edges.filter((e) => e.from === node.id), 'to', nodeById, actions),
    updates(node, actions),
    members(node, actions));
  return parts.filter(Boolean);
}

const TASK_ROLES = {
  ran: 'Ran on the Main Actor and wrote the value it points to.',
  created: 'Created the task that wrote the value.',
  waited: 'Waited for the Main Actor while that task ran.',
};

/** How sure the tie from the change to the task is (TaskWriteBasis). */
const TASK_BASES = {
  thread: 'Written on the thread the task ran on, while it ran.',
  backtrace: "The write's backtrace holds the task's resume function.",
  time: 'Probably: the change names no thread and no resume function; this was the only task on the Main Actor at that time.',
};

function task(node, actions) {
  const link = node.task;
  return el('div', { class: 'cg-info-section cg-task' },
    el('h4', {}, 'Swift task'),
    el('p', {}, TASK_ROLES[link.role] ?? link.role),
    link.basis ? el('p', { class: link.basis === 'time' ? 'cg-info-note' : 'cg-hint' }, TASK_BASES[link.basis] ?? link.basis) : null,
    actions.openTask ? el('button', { type: 'button', class: 'pane-button cg-open-task', onclick: () => actions.openTask(node) }, "Open the task's details") : null);
}

function backtrace(node) {
  return el('div', { class: 'cg-info-section cg-backtrace' },
    el('h4', {}, 'Where the value was written'),
    node.backtrace?.length
      ? el('ol', { class: 'cg-frames' }, node.backtrace.map((f) =>
        el('li', { class: f.isAppCode ? 'cg-frame-app' : 'cg-frame-system' },
          el('span', { class: 'cg-frame-name' }, f.name), ' ', el('span', { class: 'cg-frame-binary' }, f.binary),
          f.source ? [' \u2014 ', el('span', { class: 'cg-frame-source', title: f.source.path }, sourceText(f.source))] : null)))
      : el('p', { class: 'cg-hint' }, node.backtraceTruncated
        ? 'Left out: this graph already carries the backtraces of many other writes.'
        : 'No backtrace was recorded for this change.'),
    node.backtrace?.length && node.backtraceTruncated
      ? el('p', { class: 'cg-hint' }, `The ${node.backtrace.length} innermost frames of a deeper stack.`) : null);
}

/** The neighbours across `edges` (`other`: 'from' or 'to'); look-alikes (twelve rows updated by one change) listed once, with a count. */
function edgeList(title, edges, other, nodeById, actions) {
  if (edges.length === 0) return null;
  const rows = new Map();
  for (const e of edges) {
    const neighbour = nodeById.get(e[other]);
    const key = JSON.stringify([neighbour?.title, neighbour?.kind, e.label, e.property]);
    const row = rows.get(key) ?? { first: e[other], title: neighbour?.title ?? e[other], edge: e, nodes: 0 };
    row.nodes += 1;
    rows.set(key, row);
  }
  return el('div', { class: 'cg-info-section' },
    el('h4', {}, title),
    el('ul', { class: 'cg-info-list' }, [...rows.values()].map((row) => el('li', {},
      el('button', { type: 'button', class: 'pane-link', onclick: () => actions.select(row.first) }, row.title),
      row.nodes > 1 ? ` \u00d7${row.nodes}` : '',
      ` (${row.nodes > 1 ? row.edge.label : edgeText(row.edge)}${row.edge.property ? `: ${row.edge.property}` : ''})`))));
}

function updates(node, actions) {
  if (node.updates.length === 0) return null;
  const shown = node.updates.slice(0, 50);
  const total = node.updateCount ?? node.updates.length;
  return el('div', { class: 'cg-info-section' },
    el('h4', {}, total === 1 ? 'Update' : `Updates (${total})`),
    el('ul', { class: 'cg-info-list cg-info-updates' }, shown.map((id) => el('li', {},
      el('button', { type: 'button', class: 'pane-link', 'aria-label': `Select update ${id} on the timeline`, onclick: () => actions.selectUpdate(id) }, `#${id}`)))),
    total > shown.length ? el('p', { class: 'cg-hint' }, `and ${total - shown.length} more`) : null);
}

function members(node, actions) {
  if (!node.collapsed) return null;
  return el('div', { class: 'cg-info-section' },
    el('button', { type: 'button', class: 'pane-button', onclick: () => actions.open(node) }, `Show all ${node.collapsed.more}`),
    el('ul', { class: 'cg-info-list' }, node.collapsed.members.slice(0, 50).map((m) =>
      el('li', { class: m.dimmed ? 'cg-info-dimmed' : '' }, m.title, m.updates.length ? ` #${m.updates.join(', #')}` : ' (did not run)'))));
}
