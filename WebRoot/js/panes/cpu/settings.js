// The CPU pane's settings as the URL keeps them (state.js: cpuView, inverted, cpuThread,
// hideSystem, charged, flatten, focus, flameZoom, search, cpu) and as the API reads them, free of
// the DOM (node tests): one reading for the call tree, the flame graph and the stack chart.
import { currentPaneView, currentRange, formatDuration, plural, rangeParams } from '../common.js';

export const CPU_VIEWS = Object.freeze([
  { id: null, title: 'Call Tree' },
  { id: 'flame', title: 'Flame Graph' },
  { id: 'stack', title: 'Stack Chart' },
]);

/** The keys of the view state a CPU view reloads on. */
export const CPU_KEYS = Object.freeze(['range', 'inverted', 'cpu', 'cpuThread', 'hideSystem', 'charged', 'flatten', 'focus']);

/** "Every update of V" / "Every long update of V over 1.00 ms": what a c=view pane is of. */
export function scopeText(state, view) {
  const long = state.filter && state.filter !== 'all';
  const over = state.longerThan != null ? ` over ${formatDuration(state.longerThan)}` : '';
  return `${long ? 'Every long update' : 'Every update'} of ${view.view}${over}${state.range ? ' in the inspection range' : ''}, from its body`;
}

/**
 * What the stack chart shows: the timeline's window in time order, and of a c=view pane only the
 * samples inside the view's updates it counts (a finding's scope stays when the chart opens).
 */
export function stackScopeText(state, view) {
  if (!view) return 'Timeline window, in time order';
  const long = state.filter && state.filter !== 'all';
  const over = state.longerThan != null ? ` over ${formatDuration(state.longerThan)}` : '';
  return `${long ? 'Every long update' : 'Every update'} of ${view.view}${over}${state.range ? ' in the inspection range' : ''}: its samples in the timeline window, in time order`;
}

/** The view whose updates the pane is of (c=view with a pv=), else null. */
export function scopeView(state) {
  return state.cpu === 'view' ? currentPaneView(state) : null;
}

/**
 * The query parameters of GET calltree / flamegraph / stackchart for `state` (docs/api.md, "CPU"):
 * range, direction, thread, view, and the transforms. `forStack`: the stack chart's (one thread,
 * top-down, no focus; its range is the timeline's window, given by the caller).
 */
export function cpuParams(state, { forStack = false } = {}) {
  const params = forStack ? {} : { ...rangeParams(currentRange(state)), mode: state.inverted ? 'bottom-up' : 'top-down' };
  if (state.cpuThread != null) params.thread = state.cpuThread;
  const view = scopeView(state);
  if (view) Object.assign(params, { view: view.view, module: view.module });
  // "Updates to include" (f=) picks which of the view's updates: a long-body finding's CPU is of the long ones.
  if (view && state.filter && state.filter !== 'all') params.filter = state.filter;
  if (view && state.longerThan != null) params.longerThan = state.longerThan;
  if (state.hideSystem) params.hideSystem = 'true';
  if (state.charged?.length) params.charge = state.charged.join('\n');
  if (state.flatten) params.flatten = 'true';
  if (state.focus && !forStack) params.focus = state.focus;
  return params;
}

/** Whether a change of `changed` keys (a Set) means the CPU answer must be asked again. */
export function cpuChanged(state, changed) {
  return CPU_KEYS.some((key) => changed.has(key))
    || (state.cpu === 'view' && (changed.has('paneView') || changed.has('filter') || changed.has('longerThan')));
}

/**
 * Below this many samples a frame's share is too uncertain to act on: with n samples a share p
 * has a standard error of sqrt(p(1-p)/n), up to 7 points at 50 samples.
 */
export const MIN_TRUSTED_SAMPLES = 50;

/** The "too few samples" warning for an answer ({sampleCount, totalWeight}), or null. */
export function fewSamplesWarning(answer, inView) {
  if (!answer || !(answer.sampleCount > 0) || answer.sampleCount >= MIN_TRUSTED_SAMPLES) return null;
  const interval = answer.totalWeight / answer.sampleCount;
  const hint = inView ? 'Widen the inspection range, or clear it.'
    : 'Use “CPU of All Updates of This View” (Summary or Updates ⋯ menu) to merge every update of a view, or widen the range.';
  const every = answer.unit === 'cycles' ? '' : ` (one every ${formatDuration(interval)})`;
  return `Only ${plural(answer.sampleCount, 'sample')}${every}: too few to trust which frame is heaviest. ${hint}`;
}

/**
 * What a search that the transforms hide matches says ({functions, hideSystem, charged, focus}
 * of the answer), and the state patch that shows them; null when nothing is hidden.
 */
export function hiddenMatchesNote(hidden, text) {
  if (!hidden?.functions) return null;
  const reasons = [];
  const patch = {};
  if (hidden.hideSystem) { reasons.push('“Hide system libraries”'); patch.hideSystem = false; }
  if (hidden.charged) { reasons.push('“Charge to caller”'); patch.charged = []; }
  if (hidden.focus) { reasons.push('the focus on a subtree'); patch.focus = null; patch.flameZoom = null; }
  const what = hidden.functions === 1 ? '1 function matching' : `${hidden.functions} functions matching`;
  return {
    text: `${what} “${text}” ${hidden.functions === 1 ? 'is' : 'are'} hidden by ${reasons.join(' and ') || 'a transform'}.`,
    action: 'Show them',
    patch,
  };
}

/** A call path of the answer's steps (`step` of each node from the root), as the URL and API write it. */
export function joinPath(steps) {
  return steps.filter(Boolean).join('.');
}
