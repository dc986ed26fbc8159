// A signpost interval or event in the side panel (#update-details), shown when one is clicked on a
// signpost lane: GET /api/traces/{id}/signposts/{row}. The selection is `sp=` in the URL, so a
// shared link opens with it; "Set Inspection Range" makes the interval the app's inspection range.
import { el } from './dom.js';
import { formatDuration, formatTimestamp } from './format.js';

const KIND_LABEL = { interval: 'Interval', event: 'Event (an instant)', unended: 'Interval that never ended (runs to the end of the recording)' };

export function createSignpostDetails(root, ctx) {
  let controller = null;
  let showing = null;

  async function show(row) {
    if (row === showing) return;
    controller?.abort();
    if (row === null || row === undefined) {
      // Hide only what this panel put there: an update or a task interval may own it now.
      if (showing !== null && ctx.state.get().update === null) root.hidden = true;
      showing = null;
      return;
    }
    showing = row;
    controller = new AbortController();
    root.hidden = false;
    root.setAttribute('aria-busy', 'true');
    try {
      render(await ctx.api.get(`signposts/${row}`, null, { signal: controller.signal }));
    } catch (error) {
      if (error.name === 'AbortError') return;
      root.replaceChildren(el('h2', { text: `Signpost ${row}` }), el('div', { class: 'error-box', role: 'alert', text: error.message }));
    } finally {
      root.setAttribute('aria-busy', 'false');
    }
  }

  function render(s) {
    const field = (name, value) => (value === null || value === undefined || value === '' ? [] : [el('dt', { text: name }), el('dd', {}, value)]);
    const end = s.start + Math.max(s.duration, 1);
    root.replaceChildren(
      el('h2', { id: 'signpost-details-title', text: s.name || 'Signpost' }),
      el('div', {}, el('strong', { text: s.kind === 'event' ? 'Event' : formatDuration(s.duration) }), ' · ', el('span', { text: s.laneTitle })),
      el('div', { class: 'signpost-actions' },
        el('button', { type: 'button', id: 'signpost-set-range', class: 'primary',
          title: 'Make this interval the inspection range: the summary, updates and CPU panes then cover only it',
          onclick: () => ctx.setRange(s.start, end, { zoom: false }), text: 'Set Inspection Range' }),
        el('button', { type: 'button', 'aria-label': 'Set inspection range to this signpost and zoom to it',
          onclick: () => ctx.setRange(s.start, end, { zoom: true }), text: 'Set range & zoom' })),
      el('dl', { id: 'signpost-details-fields' },
        ...field('Name', s.name),
        ...field('Subsystem', s.subsystem),
        ...field('Category', s.category),
        ...field('Kind', KIND_LABEL[s.kind] ?? s.kind),
        ...field('Start', formatTimestamp(s.start)),
        ...field('Duration', s.kind === 'event' ? null : formatDuration(s.duration)),
        ...field(s.kind === 'event' ? 'Message' : 'Begin message', s.beginMessage),
        ...field('End message', s.endMessage),
        ...field('Signpost ID', s.signpostID),
        ...field('Process', s.process ? `${s.process.name} (${s.process.pid})` : null),
        ...field('Thread', s.thread ? `${s.thread.name || 'Thread'} (${s.thread.tid})` : null)),
    );
  }

  const unsubscribe = ctx.state.subscribe((next, changed) => { if (changed.includes('signpost')) show(next.signpost); });
  show(ctx.state.get().signpost);

  return { show, destroy() { controller?.abort(); unsubscribe(); } };
}
