// The selected update's side panel (#update-details): GET /api/traces/{id}/updates/{uid}.
import { el } from './dom.js';
import { updateLink } from './state.js';
import { formatCount, formatDuration, formatTimestamp, kindLabel, severityLabel } from './format.js';

export function createDetails(root, ctx) {
  let shown = undefined;
  let controller = null;

  // With nothing selected the panel has nothing to say: it is hidden and the panes take its width
  // (the timeline's help line says how to select).
  function placeholder() {
    root.hidden = true;
    root.replaceChildren(el('h2', { text: 'Selected update' }),
      el('p', { class: 'placeholder', text: 'Click an update on the timeline to see its details here.' }));
  }

  async function show(id) {
    if (id === shown) return;
    shown = id;
    controller?.abort();
    if (id === null || id === undefined) { placeholder(); return; }
    controller = new AbortController();
    root.hidden = false;
    root.setAttribute('aria-busy', 'true');
    try {
      const update = await ctx.api.get(`updates/${id}`, null, { signal: controller.signal });
      render(update);
    } catch (error) {
      if (error.name === 'AbortError') return;
      root.replaceChildren(el('h2', { text: `Update ${id}` }), el('div', { class: 'error-box', role: 'alert', text: error.message }));
    } finally {
      root.setAttribute('aria-busy', 'false');
    }
  }

  function render(u) {
    const field = (name, value) => (value === null || value === undefined || value === '' ? [] : [el('dt', { text: name }), el('dd', {}, value)]);
    const group = u.group ? `${u.group.label || 'Group'} · ${formatDuration(u.group.duration)} at ${formatTimestamp(u.group.start)}` : null;
    const link = updateLink(ctx.traceId, u.id);
    root.replaceChildren(...[
      el('h2', { id: 'update-details-title', text: u.view || u.description || `Update ${u.id}` }),
      el('div', {}, el('span', { class: `sev sev-${u.severity}`, text: severityLabel[u.severity] ?? u.severity }), ' ',
        el('strong', { text: formatDuration(u.duration) })),
      el('dl', {},
        ...field('Update', String(u.id)),
        ...field('Kind', kindLabel[u.kind] ?? u.kind),
        ...field('Start', formatTimestamp(u.start)),
        ...field('Duration', formatDuration(u.duration)),
        ...field('Module', u.module),
        ...field('View', u.view),
        ...field('Description', u.description),
        ...field('Category', u.category),
        ...field('Allocations', u.allocations ? formatCount(u.allocations) : null),
        ...field('Thread', u.thread ? `${u.thread.name || 'Thread'} (${u.thread.tid})` : null),
        ...field('Process', u.process ? `${u.process.name} (${u.process.pid})` : null),
        ...field('Group', group),
        ...field('Reported severity', u.sourceSeverity && u.sourceSeverity !== 'none' ? u.sourceSeverity : null)),
      el('div', { class: 'actions' },
        el('button', { type: 'button', 'aria-label': 'Zoom to this update', onclick: () => ctx.selectUpdate(u.id, { zoom: true }), text: 'Zoom to update' }),
        el('button', { type: 'button', 'aria-label': 'Set inspection range to this update and zoom',
          onclick: () => ctx.setRange(u.start, u.start + Math.max(u.duration, 1), { zoom: 'context' }), text: 'Set range & zoom' }),
        el('button', { type: 'button', 'aria-label': 'Show cause and effect graph of this update', onclick: () => ctx.openPane('graph', { update: u.id }), text: 'Cause & Effect' }),
        // Not the header's "Link to this view": this one opens the update zoomed around it with its graph.
        el('button', { type: 'button', id: 'copy-update-link', 'aria-label': 'Copy link to this update',
          title: 'Copy a link that opens this update zoomed around it, with its Cause & Effect graph (not your current pane, zoom or range)',
          onclick: () => ctx.copyLink(link, 'Link to this update') },
          el('span', { class: 'icon icon-link', 'aria-hidden': 'true' }), 'Link to this update')),
      el('div', { class: 'actions' },
        el('button', { type: 'button', 'aria-label': `Previous update of ${u.view}`, disabled: u.previous === null || u.previous === undefined,
          onclick: () => ctx.selectUpdate(u.previous, { zoom: true }), text: '← Previous' }),
        el('button', { type: 'button', 'aria-label': `Next update of ${u.view}`, disabled: u.next === null || u.next === undefined,
          onclick: () => ctx.selectUpdate(u.next, { zoom: true }), text: 'Next →' })),
      u.causes?.length ? el('div', {}, el('h3', { class: 'causes-title', text: 'Caused by' }),
        el('ul', { class: 'causes' }, ...u.causes.map((c) => el('li', {},
          c.title, c.property ? ` (${c.property})` : '', c.label ? el('span', { class: 'badge badge-after', text: c.label }) : null)))) : null,
    ].filter(Boolean));
  }

  show(ctx.state.get().update);
  const unsubscribe = ctx.state.subscribe((state, changed) => { if (changed.includes('update')) show(state.update); });
  return { destroy() { unsubscribe(); controller?.abort(); } };
}
