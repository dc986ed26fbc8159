// CPU pane (Time Profiler, or the CPU Profiler in cycles): the samples of the inspection range
// (or, c=view, of every update of one view, from its body) as a call tree, a flame graph or a
// stack chart (m=), through the same transforms (Instruments' call tree options): invert, hide
// system libraries, charge to caller, flatten recursion, focus on subtree, and one thread. Every
// setting is in the URL (docs/share-links.md). This module is the toolbar and the notes; the views
// are tree-view.js, flame.js and stack.js, each given `pane` (below) to report what they show.
import { el } from '../../dom.js';
import { currentRange, formatDuration, formatTime, plural } from '../common.js';
import { formatWeight } from '../../format.js';
import { CPU_VIEWS, fewSamplesWarning, hiddenMatchesNote, scopeText, scopeView } from './settings.js';
import { mountTreeView } from './tree-view.js';
import { mountFlameView } from './flame.js';
import { mountStackView } from './stack.js';
import { sourceLinkNode } from '../../source-link.js';

const MOUNTS = { tree: mountTreeView, flame: mountFlameView, stack: mountStackView };

export function mountCallTree(root, traceView) {
  const { state } = traceView;
  const bar = cpuToolbar(traceView);
  const notes = el('div', { class: 'cpu-notes' });
  const status = el('div', { class: 'pane-status' });
  const body = el('div', { class: 'cpu-body' });
  root.replaceChildren(bar.node, status, notes, body);

  let selected = null;   // the frame the view has selected: {name, binary, path, source} (path null: not focusable)
  let current = null;    // {id, instance}

  /** What a view reports to the pane; the same object for every view. */
  const pane = {
    status,
    /**
     * The answer drawn: totals, unit, the too-few-samples warning (not for the stack chart, which
     * ranks nothing: `ranked` false), the focus; `focusName`: the focused frame's.
     */
    showAnswer(answer, focusName = null, { ranked = true } = {}) {
      bar.focusName(focusName);
      const cycles = answer?.unit === 'cycles';
      bar.unit.textContent = !answer ? '' : cycles ? 'Weights: CPU cycles (CPU Profiler), not time' : 'Weights: CPU time';
      bar.totals.textContent = answer
        ? `${answer.updateCount != null ? `${plural(answer.updateCount, 'update')} · ` : ''}`
          + `${plural(answer.sampleCount, 'sample')} · ${cycles ? formatWeight(answer.totalWeight, answer.unit) : `${formatDuration(answer.totalWeight)} of CPU`}` : '';
      notes.querySelector('.cpu-warning')?.remove();
      const warning = ranked ? fewSamplesWarning(answer, !!scopeView(state.get())) : null;
      if (warning) notes.prepend(el('p', { class: 'cpu-warning', role: 'note' }, warning));
      notes.querySelector('.cpu-focus-note')?.remove();
      if (answer && answer.focusFound === false) {
        notes.append(el('p', { class: 'cpu-focus-note', role: 'note' }, 'The focused subtree has no samples here. ',
          el('button', { type: 'button', class: 'pane-link', onclick: () => state.set({ focus: null, flameZoom: null }, { push: true }) }, 'Show the whole tree')));
      }
    },
    /** The search's result: how many frames match, and the matches a transform hides. */
    showSearch(text, found, hidden) {
      notes.querySelector('.cpu-search-note')?.remove();
      if (!text) return;
      const note = hiddenMatchesNote(hidden, text);
      if (found && !note) return;
      const line = el('p', { class: 'cpu-search-note', role: 'status', 'data-testid': 'cpu-search-note' },
        found ? '' : `No frame matches “${text}”. `, note ? note.text : '');
      if (note) line.append(' ', el('button', { type: 'button', class: 'pane-link', onclick: () => state.set(note.patch, { push: true }) }, note.action));
      notes.append(line);
    },
    notes,
    /** The selected frame, for Charge to Caller and Focus on Subtree, and its file and line when recorded. */
    select(frame) {
      selected = frame;
      bar.charge.disabled = !frame?.binary;
      bar.focus.disabled = !frame?.path;
      notes.querySelector('.cpu-source')?.remove();
      if (frame?.source) {
        notes.append(el('p', { class: 'cpu-source', 'data-testid': 'cpu-source' },
          el('span', { class: 'cpu-source-name' }, frame.name), ' \u2014 ',
          sourceLinkNode(frame.source, traceView.trace.sourceLink, traceView.copyLink)));
      }
    },
  };

  bar.charge.addEventListener('click', () => {
    const charged = state.get().charged ?? [];
    if (!selected?.binary || charged.includes(selected.name)) return;
    state.set({ charged: [...charged, selected.name] }, { push: true });
  });
  bar.focus.addEventListener('click', () => { if (selected?.path) state.set({ focus: selected.path, flameZoom: null }, { push: true }); });

  function viewId(s) {
    return CPU_VIEWS.some((v) => v.id === s.cpuView && v.id) ? s.cpuView : 'tree';
  }

  function show(s) {
    const id = viewId(s);
    bar.sync(s, id);
    if (current?.id === id) return;
    current?.instance.destroy();
    body.replaceChildren();
    notes.replaceChildren();
    status.replaceChildren();
    pane.select(null);
    const container = el('div', { class: `cpu-view cpu-view-${id}` });
    body.append(container);
    current = { id, instance: MOUNTS[id](container, traceView, pane) };
  }

  // Typing filters at once; the URL follows a moment later (q=).
  let searchTimer = 0;
  bar.search.addEventListener('input', () => {
    current?.instance.search?.(bar.search.value);
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => state.set({ search: bar.search.value }, { push: false }), 250);
  });
  bar.search.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && bar.search.value) { e.preventDefault(); bar.search.value = ''; bar.search.dispatchEvent(new Event('input')); }
    else if (e.key === 'ArrowDown' || e.key === 'Enter') { e.preventDefault(); current?.instance.focus?.(); }
  });
  // Ctrl/Cmd+F finds frames while the pane is open (instead of the browser's find).
  const onDocKey = (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === 'f' || e.key === 'F')) {
      e.preventDefault();
      bar.search.focus();
      bar.search.select();
    }
  };
  document.addEventListener('keydown', onDocKey);

  show(state.get());
  return {
    update(s, changed) {
      if (changed.has('cpuView')) show(s);
      else bar.sync(s, viewId(s));
      current?.instance.update(s, changed);
    },
    focus() { current?.instance.focus?.(); },
    destroy() {
      clearTimeout(searchTimer);
      document.removeEventListener('keydown', onDocKey);
      current?.instance.destroy();
      root.replaceChildren();
    },
  };
}

/**
 * The pane's toolbar: the view switch, the search box, the transforms (each a state key), the
 * thread, Charge to Caller and Focus on Subtree (on the view's selected frame), the frames charged
 * and the focus (each removable), what the samples are of and their totals. `sync(state, viewId)`
 * shows a state.
 */
function cpuToolbar(traceView) {
  const { state, trace } = traceView;
  const set = (patch) => state.set(patch, { push: true });
  const switcher = el('div', { class: 'cpu-views', role: 'radiogroup', 'aria-label': 'CPU view' },
    CPU_VIEWS.map((v) => el('button', {
      type: 'button', role: 'radio', class: 'cpu-view-button', dataset: { view: v.id ?? 'tree' },
      onclick: () => set({ cpuView: v.id }),
    }, v.title)));
  const search = el('input', {
    type: 'search', class: 'cpu-search', placeholder: `Search frames (${/Mac|iPhone|iPad/.test(navigator.platform) ? '⌘F' : 'Ctrl+F'})`, 'aria-label': 'Search frames',
    value: state.get().search ?? '',
  });
  const check = (id, label, key) => {
    const box = el('input', { type: 'checkbox', id, onchange: () => set({ [key]: box.checked }) });
    return { box, label: el('label', { class: 'pane-check', for: id }, box, label) };
  };
  const invert = check('cpu-invert', 'Invert call tree', 'inverted');
  const hideSystem = check('cpu-hide-system', 'Hide system libraries', 'hideSystem');
  const flatten = check('cpu-flatten', 'Flatten recursion', 'flatten');
  const thread = el('select', { class: 'cpu-thread', 'aria-label': 'Thread',
    onchange: () => set({ cpuThread: thread.value === '' ? null : Number(thread.value), focus: null, flameZoom: null }) },
  el('option', { value: '' }, 'All threads'),
  (trace?.threads ?? []).map((t) => el('option', { value: t.index }, `${t.name || `Thread ${t.tid}`}${t.isMain ? ' (main)' : ''}`)));
  const charge = el('button', { type: 'button', class: 'pane-button', id: 'cpu-charge', disabled: true,
    title: 'Leave the selected frame out and charge its time to its callers (C)' }, 'Charge to Caller');
  const focus = el('button', { type: 'button', class: 'pane-button', id: 'cpu-focus', disabled: true,
    title: 'Only the samples under the selected frame, with it as the root (F)' }, 'Focus on Subtree');
  const chips = el('span', { class: 'cpu-charged', 'aria-label': 'Transforms' });
  const scope = el('span', { class: 'pane-scope' });
  const scopeReset = el('button', { type: 'button', class: 'pane-link', hidden: true, onclick: () => set({ cpu: null }) }, 'Show the range instead');
  const unit = el('span', { class: 'pane-unit', 'data-testid': 'cpu-unit' });
  const totals = el('span', { class: 'pane-totals', 'data-testid': 'cpu-total' });
  const node = el('div', { class: 'pane-toolbar' }, switcher, search, invert.label, hideSystem.label, flatten.label, thread,
    charge, focus, chips, scope, scopeReset, unit, totals);

  const chip = (text, title, label, remove) => el('span', { class: 'cpu-charged-item', title },
    el('span', { class: 'cpu-charged-name' }, text),
    el('button', { type: 'button', class: 'pane-link', 'aria-label': label, onclick: remove }, '×'));

  function sync(s, viewId) {
    for (const button of switcher.children) button.setAttribute('aria-checked', String(button.dataset.view === viewId));
    invert.box.checked = !!s.inverted;
    hideSystem.box.checked = !!s.hideSystem;
    flatten.box.checked = !!s.flatten;
    // The stack chart is in time order, one thread at a time: inverting and focusing do not apply.
    invert.box.disabled = viewId === 'stack';
    thread.value = s.cpuThread == null ? '' : String(s.cpuThread);
    if (search.value !== (s.search ?? '') && document.activeElement !== search) search.value = s.search ?? '';
    const charged = s.charged ?? [];
    chips.replaceChildren(
      ...charged.map((name) => chip(name, `${name}: its time is charged to its callers`, `Show ${name} again`,
        () => set({ charged: (state.get().charged ?? []).filter((c) => c !== name) }))),
      s.focus ? chip(`Focus: ${focusedName || `${s.focus.split('.').length} frames deep`}`, 'Only the samples under the focused frame', 'Remove the focus',
        () => set({ focus: null, flameZoom: null })) : '');
    const view = scopeView(s);
    const range = currentRange(s);
    scope.textContent = view ? scopeText(s, view)
      : range ? `Inspection range ${formatTime(range.start)} – ${formatTime(range.end)} (${formatDuration(range.end - range.start)})` : 'Whole trace';
    if (viewId === 'stack') scope.textContent = 'Timeline window, in time order';
    scopeReset.hidden = !view;
  }
  let focusedName = '';
  let last = null;
  return {
    node, search, charge, focus, unit, totals,
    sync(s, viewId) { last = [s, viewId]; sync(s, viewId); },
    focusName(name) { if ((name ?? '') !== focusedName) { focusedName = name ?? ''; if (last) sync(...last); } },
  };
}
