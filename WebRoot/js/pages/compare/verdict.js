// The comparison page's story first: the verdict (GET /api/compare `verdict`: what changed, the
// largest effect first, each line a way to its evidence below) and the findings resolved, new
// and still present. The words are the API's (the model's ComparisonWords), as the CLI prints them.
import { el } from '../../dom.js';
import { findingKindTitle, formatDuration, plural } from '../../format.js';
import { scrollBox } from './sections.js';

const TONES = { better: 'Better', worse: 'Worse', neutral: 'Unchanged' };

/** Where a verdict line's evidence is on the page: a selector of its row. */
export function evidenceSelector(line) {
  const key = CSS.escape(line.key);
  switch (line.section) {
    case 'findings': return `#compare-findings tr[data-key="${key}"]`;
    case 'views': return `#compare-views tr[data-key="${key}"]`;
    case 'causes': return `#compare-causes tr[data-index="${key}"]`;
    case 'intervals': return `.compare-interval[data-interval="${key}"]`;
    case 'totals': return `#compare-totals tr[data-total="${key}"]`;
    case 'main-actor': return `#compare-main-actor tr[data-main-actor="${key}"]`;
    default: return null;
  }
}

/** Scrolls the evidence of `line` into view and flashes it; a view row hidden by the filter shows all rows first. */
function showEvidence(line, { showAllRows }) {
  const selector = evidenceSelector(line);
  let target = selector ? document.querySelector(selector) : null;
  if (!target && line.section === 'views') {
    showAllRows();
    target = document.querySelector(selector);
  }
  if (!target) return;
  target.scrollIntoView({ block: 'center', behavior: 'smooth' });
  target.classList.remove('evidence-flash');
  void target.offsetWidth; // restart the animation
  target.classList.add('evidence-flash');
}

export function verdictSection(c, { showAllRows }) {
  const runs = c.a.runs > 1 || c.b.runs > 1 ? ` Pooled: ${plural(c.a.runs, 'recording')} of A, ${plural(c.b.runs, 'recording')} of B; counts are per recording.` : '';
  return el('section', { class: 'compare-section compare-verdict', id: 'compare-verdict', 'aria-label': 'Verdict' },
    el('h2', { text: 'Verdict' }),
    el('ul', { class: 'verdict-lines' }, ...c.verdict.map((line) => el('li', { class: `verdict-line tone-${line.tone}`, 'data-kind': line.kind, 'data-tone': line.tone },
      // Spans that differ decide nothing: their lines are undecided, not "unchanged".
      el('span', { class: 'verdict-tone', text: line.kind === 'span' ? 'Spans differ' : c.spanMismatch ? 'Undecided' : TONES[line.tone] ?? line.tone }),
      line.section
        ? el('button', { type: 'button', class: 'link-like verdict-text', title: 'Show the evidence below', onclick: () => showEvidence(line, { showAllRows }) }, line.text)
        : el('span', { class: 'verdict-text', text: line.text })))),
    el('p', { class: 'compare-note', text: `Fewer / more: how many ran, beyond noise when the count changed by 2 or more and over 10 %. `
      + 'Faster / slower per body: each recording\'s mean time per body, beyond the run-to-run noise (99 % interval over recordings; '
      + 'a recording\'s updates are not independent samples).' + runs }),
    c.noise?.text ? el('p', { class: 'compare-note', id: 'compare-noise', text: `Run-to-run noise: ${c.noise.text}.` }) : null);
}

/** "high · 2 occurrences · 24.0 ms", "in 2 of 3 runs". */
function presence(p, runs) {
  if (!p) return '–';
  return [p.severity, plural(p.occurrences, 'occurrence'), formatDuration(p.costNs),
    p.runs < runs ? `in ${p.runs} of ${runs} runs` : null].filter(Boolean).join(' · ');
}

export function findingsSection(c) {
  const order = { resolved: 'Resolved', new: 'New', 'still-present': 'Still present' };
  const table = el('table', { class: 'compare-table', id: 'compare-findings', 'aria-label': 'Findings, A against B' },
    el('thead', {}, el('tr', {}, ...['Change', 'Finding', 'About', 'A', 'B'].map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, ...c.findings.map((f) => el('tr', {
      class: `finding-${f.change}`, 'data-key': `${f.kind}:${f.key}`, 'data-change': f.change, 'data-kind': f.kind,
    },
    el('td', { class: 'change', text: order[f.change] ?? f.change }),
    el('td', { class: 'kind', title: f.kind, text: findingKindTitle(f.kind) }),
    el('td', { class: 'name', title: f.title, text: f.subject }),
    el('td', { class: 'presence', text: presence(f.a, c.a.runs) }),
    el('td', { class: 'presence', text: presence(f.b, c.b.runs) })))));
  return el('section', { class: 'compare-section', 'aria-label': 'Findings' },
    el('h2', { text: 'Findings' }),
    c.findings.length ? scrollBox(table, 'Findings table (scrolls sideways)')
      : el('p', { class: 'empty', text: 'Neither trace has findings.' }));
}
