// The Findings pane: what is wrong in the trace (GET findings, docs/findings.md), costliest first.
// Each finding expands to its evidence as share links: its updates, the cause graph of a
// representative update, the CPU range, the Swift task intervals (each shown in the side
// panel). The expanded finding is in the URL (fd=).
import { el } from '../dom.js';
import { buildPath } from '../state.js';
import { formatDuration, formatMs, message } from './common.js';

const SEVERITY_TITLES = { high: 'High', medium: 'Medium', low: 'Low' };
const UPDATE_LINKS_SHOWN = 12;
const TASK_LINKS_SHOWN = 4;
const loaded = new WeakMap();

/** The trace's findings, fetched once per open trace: the tab's count badge and the pane share them. */
export function traceFindings(traceView) {
  if (!loaded.has(traceView)) loaded.set(traceView, traceView.api.get('findings').then((body) => body.findings));
  return loaded.get(traceView);
}

/** Links of a finding's evidence: [{kind, text, href}] (pure: the node tests and the pane use it). */
export function evidenceLinks(traceId, finding) {
  const evidence = finding.evidence;
  const links = [];
  const update = evidence.representativeUpdate;
  if (update !== null && update !== undefined) {
    links.push({ kind: 'graph', text: `Cause & Effect graph of update ${update}`,
      href: buildPath(traceId, { update, pane: 'graph', graph: `u${update}` }) });
  }
  if (evidence.range) {
    const { start, end } = evidence.range;
    links.push({ kind: 'cpu', text: `CPU ${formatSeconds(start)} – ${formatSeconds(end)}`,
      href: buildPath(traceId, { range: [start, end], window: [start, end], pane: 'cpu' }) });
  }
  // The first interval is the task the finding is about (its first task subject); then those it held up or that held it.
  const task = finding.subjects?.find((subject) => subject.role === 'task')?.name;
  (evidence.taskStates ?? []).slice(0, TASK_LINKS_SHOWN).forEach((row, i) => {
    links.push({ kind: 'task', text: i === 0 && task ? `Task: ${task}` : `task interval ${row}`,
      href: buildPath(traceId, { selection: { kind: 'task-state', id: row }, pane: 'findings', finding: finding.id }) });
  });
  for (const id of evidence.updates.slice(0, UPDATE_LINKS_SHOWN)) {
    links.push({ kind: 'update', text: `${id}`, href: buildPath(traceId, { update: id, pane: 'findings', finding: finding.id }) });
  }
  return links;
}

/** "Costs 120.00 ms (1×); the fix would save about 120.00 ms." — no saving claimed when the cause is not identified. */
export function numbers(finding) {
  const cost = `Costs ${formatDuration(finding.costNs)} (${finding.occurrences}×); `;
  return cost + (finding.savingNs > 0 ? `the fix would save about ${formatDuration(finding.savingNs)}.` : 'no saving estimated: the cause is not identified.');
}

function formatSeconds(ns) {
  return `${(Number(ns) / 1e9).toFixed(3)} s`;
}

export function mountFindings(container, traceView) {
  const list = el('ol', { class: 'findings-list', 'aria-label': 'Findings, costliest first' });
  const status = el('div', { class: 'findings-status' });
  container.append(status, list);
  let findings = null;
  let alive = true;

  traceFindings(traceView).then((result) => {
    if (!alive) return;
    findings = result;
    if (!findings.length) {
      status.replaceChildren(message('No findings: none of the rules of docs/findings.md matched this trace.'));
      return;
    }
    status.replaceChildren(el('p', { class: 'findings-intro',
      text: `${findings.length} finding${findings.length > 1 ? 's' : ''}, costliest first. Open one for its evidence.` }));
    render(traceView.state.get());
  }, (error) => {
    if (alive) status.replaceChildren(message(`Could not load the findings: ${error.message}`, 'error'));
  });

  function render(state) {
    list.replaceChildren(...findings.map((finding) => item(finding, finding.id === state.finding)));
    list.querySelector('.finding.open')?.scrollIntoView?.({ block: 'nearest' });
  }

  function item(finding, open) {
    const head = el('button', {
      type: 'button', class: 'finding-head', 'aria-expanded': String(open),
      onclick: () => traceView.state.set({ finding: open ? null : finding.id }, { push: true }),
    },
    el('span', { class: `finding-severity severity-${finding.severity}`, text: SEVERITY_TITLES[finding.severity] ?? finding.severity }),
    el('span', { class: 'finding-kind', text: finding.kind }),
    el('span', { class: 'finding-title', text: finding.title }),
    el('span', { class: 'finding-cost', text: formatDuration(finding.costNs) }));
    return el('li', { class: `finding${open ? ' open' : ''}`, dataset: { id: finding.id, kind: finding.kind } },
      head, open ? body(finding) : null);
  }

  function body(finding) {
    const links = evidenceLinks(traceView.traceId, finding);
    const anchor = (link) => el('a', { href: link.href, class: `evidence-link evidence-${link.kind}`, text: link.text });
    const updates = links.filter((link) => link.kind === 'update');
    const more = finding.evidence.updateCount - updates.length;
    const frames = finding.evidence.frames;
    return el('div', { class: 'finding-body' },
      el('p', { class: 'finding-numbers', text: numbers(finding) }),
      el('p', { class: 'finding-fix' }, el('strong', { text: 'Fix: ' }), finding.fix),
      el('p', { class: 'finding-subjects' }, ...finding.subjects.map((subject) =>
        el('span', { class: `subject subject-${subject.role}`, title: subject.detail || subject.role, text: subject.name }))),
      el('div', { class: 'finding-evidence', role: 'group', 'aria-label': 'Evidence' },
        ...links.filter((link) => link.kind !== 'update').map(anchor),
        updates.length ? el('span', { class: 'evidence-updates' }, 'Updates: ', ...updates.flatMap((link, i) => [i ? ', ' : '', anchor(link)]),
          more > 0 ? ` and ${more} more` : '') : null),
      frames.length ? el('table', { class: 'pane-table finding-frames' },
        el('thead', {}, el('tr', {}, el('th', { class: 'num', text: 'CPU' }), el('th', { text: 'Frame' }), el('th', { text: 'Called from' }))),
        el('tbody', {}, ...frames.map((frame) => el('tr', {},
          el('td', { class: 'num', text: formatMs(frame.weightNs) }),
          el('td', { text: `${frame.name} (${frame.binary})` }),
          el('td', { text: frame.caller || '–' }))))) : null);
  }

  return {
    update(state, changed) {
      if (findings?.length && changed.has('finding')) render(state);
    },
    destroy() { alive = false; },
  };
}
