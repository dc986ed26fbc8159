// The timeline's find box: type a view, module or signpost name (or "> 2 ms") and its updates and
// signposts light up on the lanes (GET …/search, docs/api.md), with their count; ] and [ (or the
// box's buttons) step through them (GET …/search/step), selecting each. The query is the view
// state's `find` (tf= in the URL). The timeline (index.js) asks `marks(view, width)` what to draw.
import { el } from '../dom.js';
import { formatCount } from '../format.js';
import { currentSelection } from '../state.js';

const TYPE_DELAY_MS = 250;   // the query is written and searched once typing pauses

/**
 * The find box of `traceView`. `onMarks()` runs when new marks arrived (the timeline redraws);
 * `onStep(direction)` when the box asks for the next (1) or previous (-1) match (its buttons,
 * Enter): the timeline steps as for ] and [. Returns {box, active(), marks(view, width),
 * step(direction, {visible, show}), destroy()}.
 */
export function createTimelineSearch(traceView, { onMarks, onStep }) {
  const { state, api } = traceView;
  const input = el('input', { type: 'search', id: 'timeline-find', class: 'tl-find-input', autocomplete: 'off', spellcheck: 'false',
    placeholder: 'Find a view, signpost or > 2 ms', 'aria-label': 'Find on the timeline: a view, module or signpost name, or > a duration',
    value: state.get().find ?? '' });
  const count = el('span', { class: 'tl-find-count', id: 'timeline-find-count', role: 'status', 'aria-live': 'polite' });
  const previous = el('button', { type: 'button', class: 'tl-find-step', 'aria-label': 'Previous match ([)', title: 'Previous match ([)', text: '‹' });
  const next = el('button', { type: 'button', class: 'tl-find-step', 'aria-label': 'Next match (])', title: 'Next match (])', text: '›' });
  const box = el('div', { class: 'tl-find', role: 'search', 'aria-label': 'Find on the timeline' }, input, previous, next, count);

  let loaded = null;        // {key, query, answer}: the marks of one query, window and width
  let loading = null;       // the key being fetched
  let place = null;         // {index, count} of the match stepped to
  let typing = 0;
  let alive = true;

  const query = () => (state.get().find ?? '').trim();
  input.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => state.set({ find: input.value.trim() }, { push: false }), TYPE_DELAY_MS);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') { event.preventDefault(); clearTimeout(typing); state.set({ find: input.value.trim() }); onStep(event.shiftKey ? -1 : 1); }
    if (event.key === 'Escape') { input.value = ''; state.set({ find: '' }); }
  });
  previous.addEventListener('click', () => onStep(-1));
  next.addEventListener('click', () => onStep(1));

  const unsubscribe = state.subscribe((next, changed) => {
    if (!changed.includes('find')) return;
    if (input.value.trim() !== (next.find ?? '')) input.value = next.find ?? '';
    place = null;
    loaded = null;
    showCount();
    onMarks();
  });

  function showCount() {
    const answer = loaded?.answer;
    const text = !query() ? '' : !answer ? 'Searching…'
      : answer.count === 0 ? 'No matches'
        : place ? `${place.index} of ${formatCount(answer.count)}`
          : `${formatCount(answer.count)} ${answer.count === 1 ? 'match' : 'matches'}${answer.inWindow < answer.count ? ` (${formatCount(answer.inWindow)} in view)` : ''}`;
    if (count.textContent !== text) count.textContent = text;
    box.classList.toggle('has-query', !!query());
  }

  return {
    box,
    /** Whether a query is typed: ] and [ step through its matches rather than the long updates. */
    active: () => !!query(),
    /** The matches to draw in `view` at `width` px, by lane ({lanes, ...}); null while none or loading. */
    marks(view, width) {
      const q = query();
      if (!q) return null;
      const key = `${q}|${Math.round(view.start)}|${Math.round(view.end)}|${width}`;
      if (loaded?.key !== key && loading !== key) {
        loading = key;
        api.get('search', { q, start: Math.floor(view.start), end: Math.ceil(view.end), width }).then((answer) => {
          if (!alive || loading !== key) return;
          loading = null;
          loaded = { key, query: q, answer };
          showCount();
          onMarks();
        }, () => { if (loading === key) loading = null; });
      }
      return loaded?.query === q ? loaded.answer : null;
    },
    /**
     * Steps to the next (1) or previous (-1) match after the selection (else from the window's
     * edge) and shows it with `show(match)`. `visible()` is the window.
     */
    async step(direction, { visible, show }) {
      const q = query();
      const selection = currentSelection(state.get());
      const view = visible();
      const params = { q, direction: direction > 0 ? 'next' : 'previous', at: Math.round(direction > 0 ? view.start : view.end) };
      if (selection && (selection.kind === 'update' || selection.kind === 'signpost')) params.after = `${selection.kind}:${selection.id}`;
      const answer = await api.get('search/step', params);
      if (!alive || q !== query()) return null;
      place = answer.match ? { index: answer.index, count: answer.count } : place;
      showCount();
      if (answer.match) await show(answer.match);
      return answer;
    },
    destroy() { alive = false; clearTimeout(typing); unsubscribe(); },
  };
}
