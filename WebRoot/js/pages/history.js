// The history page /history?tag=…&view=…&metric=…: one metric of the traces with some tags over
// their builds (GET /api/history), its change points with the first bad build named, the check
// verdicts per build, and the history of each finding. Click a point: its trace; shift-click two
// (or "Compare" at a change point): their comparison.
import { getHistory } from '../api.js';
import { el } from '../dom.js';
import { findingKindTitle, findingName } from '../format.js';
import { navigate } from '../shell.js';
import { HISTORY_EMPTY, buildComparePath, buildHistoryPath, buildListPath, buildPath, historyQuery } from '../state.js';
import { BAND_SIGMAS, chartLayout, drawChart, formatValue, stepLabel } from '../chart/history.js';
import { tagFilter } from './tag-filter.js';

const CHART_HEIGHT = 340;

/** The words for a metric of a view ("total body time of RecipeRowView"). */
function subject(answer) {
  const what = answer.metric.title;
  if (answer.metric.scope === 'view' && answer.view) return `${what} of ${answer.view}`;
  if (answer.metric.scope === 'finding' && answer.finding) return `${what} ${findingName(answer.finding)}`;
  return what;
}

const traceLink = (id) => buildPath(id, { pane: 'findings' });

/** Where a row of the findings over the builds opens: the finding, or for a row of one kind (a
 * trace's hangs, its hitches: their ids are times) the Findings pane showing that kind. */
const findingState = (f) => (f.id === f.kind ? { pane: 'findings', findingKind: f.kind } : { pane: 'findings', finding: f.id });

/** The traces of builds [from, to), in order. */
const idsOf = (builds, from, to) => builds.slice(Math.max(0, from), to).flatMap((build) => build.traces.map((trace) => trace.id));

/** The most recordings a compared side pools (the server's maxRecordingsPerSide). */
const MAX_POOLED = 10;

/**
 * The two sides of "the builds before `at` against `at` and the builds after": up to 5 builds a
 * side (the ones nearest the split taken first) and at most MAX_POOLED recordings, in build order.
 * Pure (node tests).
 */
export function splitSides(builds, at) {
  const side = (indexes) => {
    let count = 0;
    const taken = [];
    for (const index of indexes) {
      const traces = builds[index].traces.length;
      if (taken.length && count + traces > MAX_POOLED) break;
      count += traces;
      taken.push(index);
    }
    // In build order, as the chart (a pooled side is named by its first recording).
    taken.sort((x, y) => x - y);
    const ids = taken.flatMap((index) => builds[index].traces.map((trace) => trace.id)).slice(0, MAX_POOLED);
    const [first, last] = [taken[0], taken.at(-1)].map((index) => builds[index].label);
    const labels = taken.length > 1 ? `builds ${first}–${last}` : `build ${first}`;
    return { ids, text: `${ids.length} recording${ids.length === 1 ? '' : 's'} (${labels})` };
  };
  const before = [];
  for (let index = at - 1; index >= Math.max(0, at - 5); index--) before.push(index);
  const after = [];
  for (let index = at; index < Math.min(builds.length, at + 5); index++) after.push(index);
  return { before: side(before), after: side(after) };
}

/** Mounts the page into `root` for `question` (state.js HISTORY_EMPTY); returns {restore(question), teardown()}. */
export function mountHistory(root, question = HISTORY_EMPTY) {
  let current = question;
  let answer = null;
  let controller = null;
  let selected = [];
  const { controls, summary, verdict, chart, tooltip, pickBar, splitBar, changes, findings, listLink } = historyFrame(root, current);

  const go = (patch) => navigate(buildHistoryPath({ ...current, ...patch }));

  function renderControls() {
    controls.replaceChildren(...historyControls(answer, current, go));
  }

  function renderSummary() {
    const traces = answer.builds.reduce((n, build) => n + build.traces.length, 0);
    summary.textContent = `${traces} trace${traces === 1 ? '' : 's'} in ${answer.builds.length} build${answer.builds.length === 1 ? '' : 's'} · ${subject(answer)}`
      + (answer.notes.length ? ` · ${answer.notes.join('; ')}` : '');
    // A confirmed step up gets the banner; a young one is a suspect; else the series' own sentence
    // (what it could have told), never "no bad build".
    const bad = answer.firstBad ?? answer.suspect;
    if (!answer.builds.length && !answer.pending && current.tags?.length) {
      // Say which tags matched nothing rather than an empty chart.
      const tags = current.tags.map((tag) => `“${tag}”`);
      summary.textContent = tags.length === 1 ? `No trace has the tag ${tags[0]}.` : `No trace has all of the tags ${tags.join(', ')}.`;
    }
    const word = answer.firstBad ? 'First bad build' : 'Suspect build (not yet confirmed)';
    // The compare link pools the builds before the step against the builds after (up to 5 each).
    const before = bad ? idsOf(answer.builds, bad.index - Math.min(5, bad.step?.buildsBefore ?? 1), bad.index) : [];
    const after = bad ? idsOf(answer.builds, bad.index, bad.index + Math.min(5, bad.step?.buildsAfter ?? 1)) : [];
    // replaceChildren would write a null (no verdict) as the text "null".
    verdict.replaceChildren(...[bad ? el('div', { class: answer.firstBad ? 'first-bad' : 'first-bad suspect', role: 'note' },
      el('strong', { text: `${word}: ${bad.label}` }),
      ` — ${subject(answer)} went from ${formatValue(bad.before, answer.metric.unit)} to ${formatValue(bad.after, answer.metric.unit)}`,
      bad.step ? ` (${bad.step.exact ? 'an exact count' : `strength ${bad.step.strength.toFixed(1)} against ${bad.step.threshold.toFixed(1)}`})` : '',
      bad.commit ? `; first seen in commit ${bad.commit}` : '', '. ',
      el('a', { href: before.length > 1 || after.length > 1 ? buildComparePath(before, after, {}) : buildComparePath(bad.previousTraceId, bad.traceId, {}),
        id: 'first-bad-compare', class: 'button primary',
        text: before.length > 1 || after.length > 1 ? `Compare ${before.length} recordings before → ${after.length} after` : `Compare ${bad.previousLabel} → ${bad.label}` }), ' ',
      el('a', { href: traceLink(bad.traceId), id: 'first-bad-trace', text: 'Open its trace' }))
      : answer.builds.length ? el('p', { class: 'meta', id: 'no-regression', text: answer.verdict }) : null].filter(Boolean));
  }

  /**
   * "Compare the builds before with the builds after" a build the reader picks (the first bad
   * or suspect build, else the latest): up to 5 builds a side, pooled (at most 10 recordings).
   */
  function renderSplit() {
    const builds = answer.builds;
    if (builds.length < 2) { splitBar.replaceChildren(); return; }
    const bad = answer.firstBad ?? answer.suspect;
    const select = el('select', { id: 'history-split-build', 'aria-label': 'The first build after' },
      ...builds.slice(1).map((build, i) => el('option', { value: String(i + 1), text: `build ${build.label}`, selected: i + 1 === (bad?.index ?? builds.length - 1) })));
    const link = el('a', { id: 'history-split-compare', class: 'button' });
    const update = () => {
      const at = Number(select.value);
      const sides = splitSides(builds, at);
      link.href = buildComparePath(sides.before.ids, sides.after.ids, {});
      link.textContent = `Compare ${sides.before.text} → ${sides.after.text}`;
    };
    select.addEventListener('change', update);
    update();
    splitBar.replaceChildren(el('label', { for: 'history-split-build', text: 'Compare the builds before with the builds after, from ' }), select, ' ', link);
  }

  function showTooltip(p, build, event) {
    const check = p.check ? ` · check ${p.check.passed ? 'passed' : 'failed'}: ${p.check.summary}` : '';
    tooltip.replaceChildren(el('div', { class: 'tt-title', text: `Build ${build.label}` }),
      el('div', { text: `${formatValue(p.value, answer.metric.unit)} · ${p.name}${check}` }),
      el('div', { class: 'meta', text: 'Click: open the trace · Shift-click two points: compare them' }));
    tooltip.hidden = false;
    const box = chart.getBoundingClientRect();
    tooltip.style.left = `${Math.min(event.clientX - box.left + 12, box.width - 260)}px`;
    tooltip.style.top = `${event.clientY - box.top + 14}px`;
  }

  /** Shift-click (or shift-Enter): pick the point for a comparison; with two, the older is A. */
  function toggle(id) {
    selected = selected.includes(id) ? selected.filter((x) => x !== id) : [...selected.slice(-1), id];
    if (selected.length === 2) {
      const order = answer.builds.flatMap((build) => build.traces.map((trace) => trace.id));
      const [a, b] = [...selected].sort((x, y) => order.indexOf(x) - order.indexOf(y));
      navigate(buildComparePath(a, b, {}));
      return;
    }
    pickBar.textContent = selected.length ? 'One point picked: shift-click another to compare them.' : '';
    renderChart();
  }

  function renderChart() {
    if (!answer?.builds.length) {
      chart.replaceChildren(el('p', { class: 'meta', text: answer?.pending ? 'These traces are still being measured.' : 'No measured traces have these tags.' }));
      return;
    }
    const width = Math.max(360, chart.clientWidth || 900);
    const layout = chartLayout(answer, width, CHART_HEIGHT);
    const point = (p, build) => ({
      role: 'link', tabindex: '0', 'aria-label': `Build ${build.label}: ${formatValue(p.value, answer.metric.unit)}, ${p.name}`,
      onclick: (event) => (event.shiftKey ? toggle(p.id) : navigate(traceLink(p.id))),
      onkeydown: (event) => { if (event.key === 'Enter') { event.preventDefault(); if (event.shiftKey) toggle(p.id); else navigate(traceLink(p.id)); } },
      onmouseenter: (event) => showTooltip(p, build, event),
      onmousemove: (event) => showTooltip(p, build, event),
      onmouseleave: () => { tooltip.hidden = true; },
    });
    chart.replaceChildren(drawChart(layout, answer.metric.unit, { point, selected: new Set(selected) }), legend(),
      el('figcaption', { class: 'meta', text: `${subject(answer)} per build, in ${current.order === 'commit' ? 'commit' : 'upload'} order. `
        + 'A change point is the strongest split of the series beyond run-to-run noise, tested so that an unchanged series shows one at most 5 % of the time (docs/statistics.md).' }));
  }

  /** What the chart's marks mean, with this series' own noise and where it was measured. */
  function legend() {
    const noise = answer.noise ?? { sigma: 0, source: 'prior' };
    const reach = Math.round((Math.exp(BAND_SIGMAS * noise.sigma) - 1) * 100);
    const from = noise.source === 'prior' ? 'the default prior (nothing measured yet)' : `the series' own recordings (${noise.degreesOfFreedom} degrees of freedom, steadied by the prior)`;
    const item = (swatch, text) => el('li', {}, el('span', { class: `hc-key ${swatch}`, 'aria-hidden': 'true' }), text);
    return el('ul', { class: 'history-legend', id: 'history-legend', 'aria-label': 'Legend' },
      item('hc-key-point', 'a recording'),
      item('hc-key-median', 'median per build'),
      item('hc-key-band', `noise band: the level between change points ±${reach} % (${BAND_SIGMAS} σ of one recording, σ = ${Math.round(noise.sigma * 100)} %, from ${from}); about 95 % of recordings of an unchanged build fall inside`),
      item('hc-key-change', 'change point: bolder and larger = stronger against the series\' threshold; its ratio after/before and p over the whole series; dashed = suspect (fewer than 3 builds after it)'),
      item('hc-key-verdict', 'check verdict (green passed, red failed)'));
  }

  function renderChanges() {
    changes.replaceChildren(...(answer.changePoints.length ? [el('h2', { text: 'Change points' }),
      el('ul', {}, ...answer.changePoints.map((change) => el('li', { 'data-index': change.index },
        `${change.direction === 'up' ? '▲ Up' : '▼ Down'} at build ${change.label}: ${formatValue(change.before, answer.metric.unit)} → ${formatValue(change.after, answer.metric.unit)}`
          + ` (${stepLabel(change, answer.metric.unit)})` + (change.commit ? ` (commit ${change.commit})` : '') + ' ',
        el('a', { href: buildComparePath(change.previousTraceId, change.traceId, {}), class: 'compare-change', text: `Compare ${change.previousLabel} → ${change.label}` }))))] : []));
    findings.replaceChildren(...(answer.findings.length ? [el('h2', { text: 'Findings over the builds' }),
      el('table', { class: 'traces finding-history', 'aria-label': 'Findings over the builds' },
        el('thead', {}, el('tr', {}, ...['Finding', 'First seen', 'Last seen', 'Now', 'Builds', 'Cost'].map((title) => el('th', { scope: 'col', text: title })))),
        el('tbody', {}, ...answer.findings.map((f) => el('tr', { 'data-finding': f.id },
          el('td', {}, el('strong', { title: f.kind, text: findingKindTitle(f.kind) }), ' on ', el('bdi', { text: f.subject })),
          el('td', {}, el('a', { href: buildPath(f.firstSeen.traceId, findingState(f)), text: `build ${f.firstSeen.label}` })),
          el('td', {}, el('a', { href: buildPath(f.lastSeen.traceId, findingState(f)), text: `build ${f.lastSeen.label}` })),
          el('td', { class: f.stillPresent ? 'still-present' : 'gone', text: f.stillPresent ? 'still present' : `gone after build ${f.lastSeen.label}` }),
          el('td', { class: 'num', text: String(f.builds) }),
          el('td', { class: 'num', text: formatValue(f.costNs, 'ns') })))))] : []));
  }

  async function load() {
    controller?.abort();
    controller = new AbortController();
    const mine = controller;
    summary.textContent = 'Loading the history…';
    try {
      answer = await getHistory(historyQuery(current), { signal: mine.signal });
    } catch (error) {
      if (error.name === 'AbortError') return;
      summary.replaceChildren(el('span', { class: 'error-box', role: 'alert', text: `Could not load the history. ${error.message}` }));
      return;
    }
    if (mine.signal.aborted) return;
    listLink.href = buildListPath({ tags: current.tags });
    selected = [];
    pickBar.textContent = '';
    renderControls();
    renderSummary();
    renderChart();
    renderSplit();
    renderChanges();
  }

  let drawnWidth = 0;
  const resize = new ResizeObserver(() => {
    if (!answer || chart.clientWidth === drawnWidth) return;
    drawnWidth = chart.clientWidth;
    renderChart();
  });
  resize.observe(chart);
  renderControls();
  load();
  return {
    restore(next) {
      if (historyQuery(next) === historyQuery(current)) return;
      current = next;
      load();
    },
    teardown() {
      controller?.abort();
      resize.disconnect();
    },
  };
}

/** The page's controls for `answer` and question `current`: tags, view, metric and axis; a change goes to `go(patch)`. */
function historyControls(answer, current, go) {
  const views = answer?.views ?? [];
  const viewKey = (v) => `${v.module}\u0000${v.view}`;
  const currentView = answer?.view ? { module: answer.module ?? '', view: answer.view } : null;
  const viewOptions = currentView && !views.some((v) => viewKey(v) === viewKey(currentView)) ? [currentView, ...views] : views;
  const viewSelect = el('select', { id: 'history-view', disabled: answer?.metric?.scope !== 'view',
    onchange: (event) => { const [module, view] = event.target.value.split('\u0000'); go({ module, view }); } },
    ...viewOptions.map((v) => el('option', { value: viewKey(v), text: v.module ? `${v.view} (${v.module})` : v.view,
      selected: currentView && viewKey(v) === viewKey(currentView) })));
  const metricSelect = el('select', { id: 'history-metric', onchange: (event) => go({ metric: event.target.value }) },
    ...(answer?.metrics ?? []).filter((m) => m.scope !== 'finding' || m.name === answer.metric.name)
      .map((m) => el('option', { value: m.name, text: `${m.title} (${m.name})`, selected: m.name === answer.metric.name })));
  const order = el('select', { id: 'history-order', onchange: (event) => go({ order: event.target.value }) },
    el('option', { value: 'upload', text: 'Upload order', selected: current.order !== 'commit' }),
    el('option', { value: 'commit', text: 'Commit order (commit-time tag)', selected: current.order === 'commit' }));
  return [
    tagFilter(current.tags, (tags) => go({ tags }), { id: 'history-tag-input' }),
    el('div', { class: 'list-filter-row' },
      el('label', { for: 'history-view', text: 'View' }), viewSelect,
      el('label', { for: 'history-metric', text: 'Metric' }), metricSelect,
      el('label', { for: 'history-order', text: 'Axis' }), order)];
}

/** The page's parts in `root`, in order: title and list link, controls, summary, verdict, chart, picks, split, change points, findings. */
function historyFrame(root, current) {
  const parts = {
    controls: el('div', { class: 'history-controls', id: 'history-controls' }),
    summary: el('p', { id: 'history-summary', class: 'meta', role: 'status', 'aria-live': 'polite', text: 'Loading the history…' }),
    verdict: el('div', { id: 'first-bad' }),
    chart: el('figure', { id: 'history-chart', class: 'history-figure' }),
    tooltip: el('div', { class: 'tl-tooltip history-tooltip', role: 'tooltip', hidden: true }),
    pickBar: el('p', { id: 'history-picked', class: 'meta' }),
    splitBar: el('div', { id: 'history-split', class: 'history-split' }),
    changes: el('section', { id: 'change-points', 'aria-label': 'Change points' }),
    findings: el('section', { id: 'finding-history', 'aria-label': 'Findings over the builds' }),
    listLink: el('a', { href: buildListPath({ tags: current.tags }), id: 'history-traces-link', text: 'These traces in the list' }),
  };
  const { controls, summary, verdict, chart, tooltip, pickBar, splitBar, changes, findings, listLink } = parts;
  root.append(el('div', { class: 'history-page' },
    el('div', { class: 'home-top' }, el('h1', { text: 'History' }), listLink),
    controls, summary, verdict, el('div', { class: 'history-chart-wrap' }, chart, tooltip), pickBar, splitBar, changes, findings));
  return parts;
}
