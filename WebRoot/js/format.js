// Time, size and date formatting shared by the shell, timeline and panes.
// All trace times are integer nanoseconds.

const UNITS = [
  { ns: 1e9, name: 's' },
  { ns: 1e6, name: 'ms' },
  { ns: 1e3, name: 'µs' },
  { ns: 1, name: 'ns' },
];

/** The largest unit that keeps `ns` at or above 1 (e.g. 1_500_000 -> ms). */
export function unitFor(ns) {
  const abs = Math.abs(ns);
  return UNITS.find((u) => abs >= u.ns) ?? UNITS[UNITS.length - 1];
}

/**
 * A duration with three significant digits in the largest unit that keeps it at or above 1:
 * "840 µs", "2.31 ms", "125 ms", "1.20 s"; a rounding that reaches 1000 moves up a unit ("1.00 s",
 * never "1000 ms" or "100.0 ms" for 99.97 ms), zero is "0 ms". The CLI's DurationText follows the
 * same rules (both are checked against Tests/Fixtures/duration-format.json).
 */
export function formatDuration(ns) {
  if (ns == null || !Number.isFinite(Number(ns))) return '–';
  ns = Number(ns);
  if (ns === 0) return '0 ms';
  let index = UNITS.indexOf(unitFor(ns));
  while (index > 0 && Math.abs(ns / UNITS[index].ns) >= 999.5) index -= 1;
  const unit = UNITS[index];
  const value = ns / unit.ns;
  const digits = unit.ns === 1 || Math.abs(value) >= 99.95 ? 0 : Math.abs(value) >= 9.995 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit.name}`;
}

const PARSE_UNITS = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9 };

/**
 * A duration as people type it, in the syntax the CLI's options and budget files accept
 * (DurationText.parse): "1s", "1 s", "1.5 ms", "500 µs" (or "us"), "120ns"; a bare whole number
 * is nanoseconds. Null when the text is not one.
 */
export function parseDuration(text) {
  const match = /^(\d+(?:\.\d+)?)(?: ?(ns|us|µs|ms|s))?$/.exec(text ?? '');
  if (!match || (!match[2] && match[1].includes('.'))) return null;
  return Math.round(Number(match[1]) * (match[2] ? PARSE_UNITS[match[2]] : 1));
}

/** A time from the start of the recording in seconds to the microsecond ("1.234567 s"), one
 * unit for every row so a column of times lines up. */
export function formatTime(ns) {
  return `${(Number(ns) / 1e9).toFixed(6)} s`;
}

/**
 * A range of recording times in seconds with as many decimals as it takes to tell its ends apart
 * (at least milliseconds): "1.200 s – 1.350 s", "1.2001 s – 1.2004 s", never "1.200 s – 1.200 s".
 */
export function formatTimeRange(start, end) {
  let decimals = 3;
  const text = (ns) => `${(Number(ns) / 1e9).toFixed(decimals)} s`;
  while (decimals < 9 && text(start) === text(end)) decimals += 1;
  return `${text(start)} – ${text(end)}`;
}

/**
 * A timestamp (ns from recording start) as a ruler or tooltip shows it, with enough decimals
 * to tell apart two points `resolutionNs` apart: "1.234 s", "1.234 567 s" is spelled "1.234567 s".
 */
export function formatTimestamp(ns, resolutionNs = 1000) {
  const unit = ns === 0 ? unitFor(Math.max(resolutionNs, 1)) : unitFor(Math.max(Math.abs(ns), resolutionNs));
  const decimals = Math.max(0, Math.min(9, Math.ceil(Math.log10(unit.ns / Math.max(resolutionNs, 1)))));
  return `${(ns / unit.ns).toFixed(decimals)} ${unit.name}`;
}

/**
 * Ruler tick labels for ticks `stepNs` apart starting at `firstTick`. Labels are absolute times
 * in the unit that reads best ("800 ms", "1.2 s", "1.1735 s"); when that would need more than
 * four decimals (deep zoom far from the start) the first tick is absolute and the others are
 * offsets from it in the step's unit ("+20 µs"), as Perfetto does.
 */
export function tickLabel(ns, stepNs, firstTick) {
  const unit = unitFor(Math.max(Math.abs(ns), stepNs));
  if (unit.ns / stepNs <= 1e4 || ns === firstTick) return formatTimestamp(ns, stepNs);
  const offsetUnit = unitFor(stepNs);
  const value = (ns - firstTick) / offsetUnit.ns;
  const step = stepNs / offsetUnit.ns;
  return `+${value.toFixed(step >= 1 ? 0 : Math.ceil(-Math.log10(step)))} ${offsetUnit.name}`;
}

export function formatBytes(bytes) {
  if (bytes == null) return '–';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes;
  let i = -1;
  do { value /= 1024; i++; } while (value >= 1024 && i < units.length - 1);
  return `${value.toFixed(value >= 100 ? 0 : 1)} ${units[i]}`;
}

export function formatCount(n) {
  return n == null ? '–' : Number(n).toLocaleString('en-US');
}

/** A count and its noun, singular for one: "1 sample", "1,204 samples". */
export function plural(n, noun) {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** ISO 8601 -> local date and time, short. */
export function formatDate(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Main-actor waits have their own thresholds (MainActorWait in the model). */
export const waitSeverityLabel = { normal: 'Short wait (≤ 16 ms)', orange: 'Long wait (> 16 ms)', red: 'Very long wait (> 100 ms)' };

export const severityLabel = { normal: 'Normal', orange: 'Long (> 500 µs)', red: 'Very long (> 1 ms)' };

/** A task's run on the Main Actor holds it: its own words, not an update's duration class (same thresholds). */
export const taskRunSeverityLabel = { normal: 'Task run', orange: 'Holds the Main Actor > 500 µs', red: 'Holds the Main Actor > 1 ms' };

export const kindLabel = {
  'view-body': 'View Body',
  representable: 'Representable',
  layout: 'Layout',
  other: 'Other',
};

/** A p-value as the CLI prints it (ComparisonWords.pValue): "p = 0.41", "p = 0.003", "p = 3e-11". */
export function formatPValue(p) {
  if (p <= 0) return 'p < 1e-300';
  if (p >= 0.001) return `p = ${Math.round(p * (p >= 0.1 ? 100 : 1000)) / (p >= 0.1 ? 100 : 1000)}`;
  let exponent = Math.floor(Math.log10(p));
  let mantissa = Math.round(p / 10 ** exponent);
  if (mantissa >= 10) { mantissa = 1; exponent += 1; }
  return `p = ${mantissa}e${exponent}`;
}

/** Each finding kind as people read it; the stable name (docs/findings.md) stays in ids, URLs and tooltips. */
export const FINDING_KIND_TITLES = {
  'collection-fan-out': 'Collection fan-out',
  'long-body': 'Long body',
  'environment-churn': 'Environment churn',
  'hang-explained': 'Hang',
  'hitch-explained': 'Hitch',
  'repeated-body-in-transaction': 'Repeated body',
  'main-actor-blocked': 'Main Actor blocked',
  'main-actor-wait': 'Main Actor wait',
  'long-layout': 'Long layout',
  'hang-risk': 'Hang risk',
};

/** Kinds whose findings are intervals, named by their time and followed over builds per kind
 * (the server's FindingComparison.countedKinds), with their plural. */
export const COUNTED_FINDING_KINDS = new Map([['hang-explained', 'Hangs'], ['hitch-explained', 'Hitches']]);

/** A finding kind's title; a kind this page does not know yet reads as words ("new-kind" → "New kind"). */
export function findingKindTitle(kind) {
  const known = FINDING_KIND_TITLES[kind];
  if (known) return known;
  const words = String(kind ?? '').replace(/-/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : 'Finding';
}

/**
 * A finding id (kind:subject) in words: "Long body of Pantry.PriceTagView", "Collection fan-out:
 * @Observable Pantry.items → ItemRowView"; hangs and hitches are named by their time ("Hitch at
 * 1.028 s"), a bare kind (the history's one row per kind) by the kind's plural.
 */
export function findingName(id) {
  const text = String(id ?? '');
  const colon = text.indexOf(':');
  const kind = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  const title = findingKindTitle(kind);
  if (!rest) return COUNTED_FINDING_KINDS.get(kind) ?? title;
  if (COUNTED_FINDING_KINDS.has(kind) && /^\d+$/.test(rest)) return `${title} at ${formatTimestamp(Number(rest), 1e6)}`;
  if (COUNTED_FINDING_KINDS.has(kind) && rest === 'more') return `More ${COUNTED_FINDING_KINDS.get(kind).toLowerCase()}`;
  return `${title}: ${rest.replace(/>/g, ' → ')}`;
}

/** What a note is about, in words: "update 12", "the range 1.200 s – 1.500 s", "the finding Long body: X". */
export function noteTargetText(target) {
  switch (target?.kind) {
    case 'update': return `update ${target.update}`;
    case 'range': return `the range ${formatTimestamp(target.start)} – ${formatTimestamp(target.end)}`;
    case 'finding': return `the finding ${findingName(target.finding)}`;
    default: return 'the trace';
  }
}

/** A call tree weight in its unit: CPU time ("ns", Time Profiler) or cycles (CPU Profiler). */
export function formatWeight(value, unit) {
  if (unit !== 'cycles') return formatDuration(value);
  const n = Number(value);
  const [scale, suffix] = n >= 1e9 ? [1e9, ' G'] : n >= 1e6 ? [1e6, ' M'] : n >= 1e3 ? [1e3, ' k'] : [1, ''];
  const x = n / scale;
  return `${scale === 1 ? String(n) : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)}${suffix} cycles`;
}

/** `part` of `whole` as a percentage with one decimal ("12.5%"); 0.0% of nothing. */
export function formatPercent(part, whole) {
  if (!whole) return '0.0%';
  return `${((100 * part) / whole).toFixed(1)}%`;
}
