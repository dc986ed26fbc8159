// The Findings pane: what is wrong in the trace (GET findings, docs/findings.md), costliest first,
// filtered by kind and severity (fk=, fs=). Each finding expands to its evidence as share links:
// its occurrences, its updates, the cause graph of a representative update, the CPU that proves it
// (a view's: all its updates merged, one update's range beside), the Swift task intervals (each
// shown in the side panel); its subjects open what they name. One incident (a hitch, the task that
// blocked the Main Actor, the task that waited) is one finding with its parts listed. The status
// line says what all of them cost, time two findings share counted once. The expanded finding is in the URL (fd=).
import { el } from '../dom.js';
import { sourceLinkNode } from '../source-link.js';
import { buildPath } from '../state.js';
import { viewOf } from '../selections/view.js';
import { FINDING_KIND_TITLES as KIND_TITLES, findingKindTitle, formatDuration, formatTimeRange, plural } from '../format.js';
import { message } from './common.js';

const SEVERITY_TITLES = { high: 'High', medium: 'Medium', low: 'Low' };
const SEVERITY_ORDER = ['low', 'medium', 'high'];
const UPDATE_LINKS_SHOWN = 12;
const TASK_LINKS_SHOWN = 4;
const OCCURRENCE_LINKS_SHOWN = 12;
const loaded = new WeakMap();

/**
 * The trace's findings, fetched once per open trace: the tab's count badge and the pane share them.
 * The API lists the costliest ones; `total` (on the array) says how many there are, `costNs` the
 * time all of them cost, each instant once.
 */
export function traceFindings(traceView) {
  if (!loaded.has(traceView)) {
    loaded.set(traceView, traceView.api.get('findings')
      .then((body) => Object.assign(body.findings, { total: body.total ?? body.findings.length, costNs: body.costNs ?? null })));
  }
  return loaded.get(traceView);
}

/** The findings a filter keeps: of `kind` (null: any), at `minSeverity` or above (null: any). */
export function filterFindings(findings, { kind = null, minSeverity = null } = {}) {
  const floor = SEVERITY_ORDER.indexOf(minSeverity);
  return findings.filter((finding) => (!kind || finding.kind === kind)
    && (floor < 0 || SEVERITY_ORDER.indexOf(finding.severity) >= floor));
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
  // A view's finding is proved by the CPU of every update it counts, merged; one update's range
  // (a few samples) is the secondary link.
  const view = evidence.cpuView;
  if (view) {
    const which = view.filter === 'long-view-body' ? `all ${evidence.updateCount} long bodies` : `all ${evidence.updateCount} updates`;
    links.push({ kind: 'cpu', text: `CPU of ${which} of ${view.name}`, href: buildPath(traceId, viewCPUState(view)) });
  }
  if (evidence.range) {
    const { start, end } = evidence.range;
    links.push({ kind: view ? 'cpu-range' : 'cpu', text: `${view ? 'CPU of one of them' : 'CPU'} ${formatTimeRange(start, end)}`,
      href: buildPath(traceId, { range: [start, end], window: [start, end], pane: 'cpu', cpuThread: evidence.thread ?? null }) });
  }
  // The first interval is the task the finding is about (its first task subject); then those it held up or that held it.
  const task = finding.subjects?.find((subject) => subject.role === 'task')?.name;
  (evidence.taskStates ?? []).slice(0, TASK_LINKS_SHOWN).forEach((row, i) => {
    links.push({ kind: 'task', text: i === 0 && task ? `Task: ${task}` : `task interval ${row}`,
      href: buildPath(traceId, { selection: { kind: 'task-state', id: row }, pane: 'findings', finding: finding.id }) });
  });
  // A grouped hang or hitch: each occurrence opens zoomed around it, as the range.
  for (const { start, end } of (evidence.intervals ?? []).slice(0, OCCURRENCE_LINKS_SHOWN)) {
    const pad = Math.max(end - start, 1_000_000) * 2;
    links.push({ kind: 'occurrence', text: `${(start / 1e9).toFixed(3)} s`,
      href: buildPath(traceId, { range: [start, end], window: [Math.max(0, start - pad), end + pad], pane: 'findings', finding: finding.id }) });
  }
  for (const id of evidence.updates.slice(0, UPDATE_LINKS_SHOWN)) {
    links.push({ kind: 'update', text: `${id}`, href: buildPath(traceId, { update: id, pane: 'findings', finding: finding.id }) });
  }
  return links;
}

/** The CPU pane of a finding's view (evidence.cpuView): the updates it counts, merged. */
function viewCPUState(view) {
  return { pane: 'cpu', cpu: 'view', paneView: viewOf({ module: view.module, view: view.name, category: view.category }),
    filter: view.filter === 'all' ? null : view.filter, longerThan: view.longerThanNs ?? null };
}

/**
 * What a subject chip opens, or null when it names something with nothing to open (a thread, a
 * function, a property): a view its updates, a frame the CPU that proves the finding searched for
 * it (a view's finding: the view's updates merged; else the finding's range), a task its interval
 * in the side panel.
 */
export function subjectLink(traceId, finding, subject) {
  const range = finding.evidence.range ? [finding.evidence.range.start, finding.evidence.range.end] : null;
  const view = finding.evidence.cpuView;
  switch (subject.role) {
    case 'view':
      return { title: `Open the updates of ${subject.name}`,
        href: buildPath(traceId, { pane: 'updates', paneView: viewOf({ module: subject.detail, view: subject.name }), finding: finding.id }) };
    case 'frame':
      if (view) {
        return { title: `Find ${subject.name} in the CPU of ${view.name}'s ${view.filter === 'long-view-body' ? 'long bodies' : 'updates'}, merged`,
          href: buildPath(traceId, { ...viewCPUState(view), search: subject.name }) };
      }
      return { title: `Find ${subject.name} in the CPU call tree${range ? ' of this range' : ''}`,
        href: buildPath(traceId, { pane: 'cpu', search: subject.name, ...(range ? { range, window: range } : {}) }) };
    case 'task': {
      const row = finding.evidence.taskStates?.[0];
      if (row === undefined || finding.subjects.find((s) => s.role === 'task') !== subject) return null;
      return { title: `Show ${subject.name} in the side panel`,
        href: buildPath(traceId, { selection: { kind: 'task-state', id: row }, pane: 'findings', finding: finding.id }) };
    }
    default: return null;
  }
}

/**
 * "12 occurrences cost 100 ms in all, the worst 8.33 ms; the fix would save about 80.0 ms." A
 * lower-bound saving says "at least"; no saving is claimed when the cause is not identified.
 */
/**
 * The links of an incident's part that its leading part's evidence does not give already: a
 * hitch's or hang's occurrences, a wait's or a block's own task (the first part is the finding's
 * own evidence). They keep the incident open.
 */
export function partLinks(traceId, finding, part) {
  if (part === finding.parts[0]) return [];
  const links = evidenceLinks(traceId, { ...part, id: finding.id });
  const isTaskKind = part.kind === 'main-actor-wait' || part.kind === 'main-actor-blocked';
  return [...links.filter((link) => link.kind === 'occurrence').slice(0, 3), ...(isTaskKind ? links.filter((link) => link.kind === 'task').slice(0, 1) : [])];
}

/** "Hitch · 125 ms", the line of an incident's part (its title follows). */
export function partLabel(part) {
  return `${KIND_TITLES[part.kind] ?? part.kind} · ${formatDuration(part.costNs)}`;
}

/** "3 findings, costliest first: 245 ms in all (time two findings share counted once)." */
export function statusText(findings, shown) {
  const cost = findings.costNs > 0 ? `: ${formatDuration(findings.costNs)} in all (time two findings share counted once)` : '';
  if (shown.length < findings.length) return `${shown.length} of ${plural(findings.length, 'finding')} shown, costliest first.`;
  if (findings.total > findings.length) return `The ${findings.length} costliest of ${findings.total} findings${cost}. Open one for its evidence.`;
  return `${plural(findings.length, 'finding')}, costliest first${cost}. Open one for its evidence.`;
}

export function numbers(finding) {
  const many = finding.occurrences > 1;
  const worst = many && finding.worstNs ? `, the worst ${formatDuration(finding.worstNs)}` : '';
  const cost = many
    ? `${plural(finding.occurrences, 'occurrence')} cost ${formatDuration(finding.costNs)} in all${worst}; `
    : `Costs ${formatDuration(finding.costNs)}; `;
  if (!(finding.savingNs > 0)) return `${cost}no saving estimated: the cause is not identified.`;
  return `${cost}the fix would save ${finding.savingIsLowerBound ? 'at least' : 'about'} ${formatDuration(finding.savingNs)}.`;
}

export function mountFindings(container, traceView) {
  const filters = el('div', { class: 'findings-filters', role: 'group', 'aria-label': 'Filter findings' });
  const list = el('ol', { class: 'findings-list', 'aria-label': 'Findings, costliest first' });
  const status = el('div', { class: 'findings-status' });
  container.append(status, filters, list);
  let findings = null;
  let alive = true;

  traceFindings(traceView).then((result) => {
    if (!alive) return;
    findings = result;
    if (!findings.length) {
      status.replaceChildren(message('No findings: none of the rules of docs/findings.md matched this trace.'));
      return;
    }
    render(traceView.state.get());
  }, (error) => {
    if (alive) status.replaceChildren(message(`Could not load the findings: ${error.message}`, 'error'));
  });

  function render(state) {
    const shown = filterFindings(findings, { kind: state.findingKind, minSeverity: state.findingSeverity });
    status.replaceChildren(el('p', { class: 'findings-intro', role: 'status', text: statusText(findings, shown) }));
    filters.replaceChildren(...filterControls(state));
    list.replaceChildren(...shown.map((finding) => item(finding, finding.id === state.finding)));
    list.querySelector('.finding.open')?.scrollIntoView?.({ block: 'nearest' });
  }

  function filterControls(state) {
    const count = (kind) => findings.filter((f) => f.kind === kind).length;
    const kinds = Object.keys(KIND_TITLES).filter(count);
    const kind = el('select', { class: 'pane-filter', id: 'finding-kind', 'aria-label': 'Kind of finding' },
      el('option', { value: '', text: `All kinds (${findings.length})` }),
      ...kinds.map((k) => el('option', { value: k, selected: k === state.findingKind, text: `${KIND_TITLES[k]} (${count(k)})` })));
    const severity = el('select', { class: 'pane-filter', id: 'finding-severity', 'aria-label': 'Lowest severity shown' },
      el('option', { value: '', text: 'Any severity' }),
      el('option', { value: 'medium', selected: state.findingSeverity === 'medium', text: 'Medium and high' }),
      el('option', { value: 'high', selected: state.findingSeverity === 'high', text: 'High only' }));
    kind.addEventListener('change', () => traceView.state.set({ findingKind: kind.value || null }, { push: true }));
    severity.addEventListener('change', () => traceView.state.set({ findingSeverity: severity.value || null }, { push: true }));
    return [kind, severity];
  }

  function item(finding, open) {
    const head = el('button', {
      type: 'button', class: 'finding-head', 'aria-expanded': String(open),
      onclick: () => traceView.state.set({ finding: open ? null : finding.id }, { push: true }),
    },
    el('span', { class: `finding-severity severity-${finding.severity}`, text: SEVERITY_TITLES[finding.severity] ?? finding.severity }),
    el('span', { class: 'finding-kind', title: finding.kind, text: findingKindTitle(finding.kind) }),
    el('span', { class: 'finding-title', text: finding.title }),
    finding.occurrences > 1 ? el('span', { class: 'finding-count', title: `${plural(finding.occurrences, 'occurrence')}`, text: `${finding.occurrences}×` }) : null,
    finding.parts?.length ? el('span', { class: 'finding-parts-count', title: 'One incident: these findings overlap in time', text: `${finding.parts.length} parts` }) : null,
    el('span', { class: 'finding-cost', text: formatDuration(finding.costNs) }));
    return el('li', { class: `finding${open ? ' open' : ''}`, dataset: { id: finding.id, kind: finding.kind } },
      head, open ? body(finding) : null);
  }

  function body(finding) {
    const links = evidenceLinks(traceView.traceId, finding);
    const anchor = (link) => el('a', { href: link.href, class: `evidence-link evidence-${link.kind}`, text: link.text });
    const inline = (kind, label, total) => {
      const shown = links.filter((link) => link.kind === kind);
      const more = total - shown.length;
      return shown.length ? el('span', { class: `evidence-${kind}s` }, label, ...shown.flatMap((link, i) => [i ? ', ' : '', anchor(link)]),
        more > 0 ? ` and ${more} more` : '') : null;
    };
    const frames = finding.evidence.frames;
    return el('div', { class: 'finding-body' },
      el('p', { class: 'finding-numbers', text: numbers(finding) }),
      el('p', { class: 'finding-fix' }, el('strong', { text: 'Fix: ' }), finding.fix),
      el('p', { class: 'finding-subjects' }, ...finding.subjects.map((subject) => chip(finding, subject))),
      finding.parts?.length ? parts(finding) : null,
      el('div', { class: 'finding-evidence', role: 'group', 'aria-label': 'Evidence' },
        ...links.filter((link) => !['update', 'occurrence'].includes(link.kind)).map(anchor),
        inline('occurrence', 'At: ', finding.evidence.intervals?.length ?? 0),
        inline('update', 'Updates: ', finding.evidence.updateCount)),
      frames.length ? el('table', { class: 'pane-table finding-frames' },
        el('thead', {}, el('tr', {}, el('th', { class: 'num', text: 'CPU' }), el('th', { text: 'Frame' }), el('th', { text: 'Called from' }))),
        el('tbody', {}, ...frames.map((frame) => el('tr', {},
          el('td', { class: 'num', text: formatDuration(frame.weightNs) }),
          el('td', {}, `${frame.name} (${frame.binary})`, frame.source ? [' — ', sourceLinkNode(frame.source, traceView.trace.sourceLink, traceView.copyLink)] : null),
          el('td', {}, frame.caller || '–', frame.callerSource ? [' — ', sourceLinkNode(frame.callerSource, traceView.trace.sourceLink, traceView.copyLink)] : null))))) : null);
  }

  /** An incident's parts, each as its rule found it: what it is, its cost and its task and occurrence links. */
  function parts(finding) {
    const anchor = (link) => el('a', { href: link.href, class: `evidence-link evidence-${link.kind}`, text: link.text });
    return el('div', { class: 'finding-parts' },
      el('p', { text: `One incident, ${finding.parts.length} parts (${formatDuration(finding.costNs)} in all, overlapping time counted once):` }),
      el('ol', {}, ...finding.parts.map((part) => el('li', { class: 'finding-part', dataset: { kind: part.kind, id: part.id } },
        el('span', { class: `finding-severity severity-${part.severity}`, text: SEVERITY_TITLES[part.severity] ?? part.severity }), ' ',
        el('strong', { class: 'finding-part-label', text: partLabel(part) }), ` — ${part.title} `,
        ...partLinks(traceView.traceId, finding, part).flatMap((link) => [anchor(link), ' '])))));
  }

  /** A subject that opens something is a link; one that does not is plain text, not a button look-alike. */
  function chip(finding, subject) {
    const link = subjectLink(traceView.traceId, finding, subject);
    const detail = subject.detail ? ` (${subject.detail})` : '';
    if (!link) return el('span', { class: `subject subject-text subject-${subject.role}`, title: `${subject.role}${detail}`, text: subject.name });
    return el('a', { class: `subject subject-link subject-${subject.role}`, href: link.href, title: `${link.title}${detail}`, text: subject.name });
  }

  return {
    update(state, changed) {
      if (findings?.length && (changed.has('finding') || changed.has('findingKind') || changed.has('findingSeverity'))) render(state);
    },
    destroy() { alive = false; },
  };
}
