// The lane headers beside the timeline's canvas (DOM): each lane's title and count, the SwiftUI
// track's disclosure button, and a description of what is drawn for screen readers (the
// browser tests read the same attributes).
import { el } from '../dom.js';
import { RULER_HEIGHT } from './lanes.js';

/**
 * Fills `container` with the headers of `rows` (lanes.js layoutRows). `laneInfo`: the trace's
 * lanes by id (GET /api/traces/{id}: `lanes`); `expanded`: whether the SwiftUI track is open;
 * `toggleTrack()` opens or closes it.
 */
export function buildHeaders(container, rows, { laneInfo, expanded, toggleTrack }) {
  const items = [el('div', { class: 'tl-header ruler', style: { height: `${RULER_HEIGHT}px` }, role: 'listitem' },
    el('span', { class: 'title', text: 'Time' }))];
  const shortTitles = signpostTitles(rows.filter((row) => row.signposts).map((row) => laneInfo[row.id]?.title ?? row.title));
  for (const row of rows) {
    const info = laneInfo[row.id];
    const title = info?.title ?? row.title;
    const shown = row.signposts ? shortTitles.get(title) ?? title : title;
    const children = [];
    if (row.track) {
      children.push(el('button', {
        type: 'button', class: 'disclosure', id: 'toggle-swiftui', 'aria-expanded': String(expanded),
        'aria-label': `${expanded ? 'Collapse' : 'Expand'} the SwiftUI track`,
        onclick: toggleTrack,
      }, expanded ? '▾' : '▸'));
    }
    // A stacked signpost row continues the group above it: the title and count are there.
    children.push(el('span', { class: 'title', text: row.stacked ? '' : shown }));
    if (row.signposts) {
      if (!row.stacked) children.push(el('span', { class: 'count', title: `${row.groupSignposts} signposts: ${info.title}`, text: row.groupSignposts.toLocaleString('en-US') }));
    } else if (info && !row.cpu) {
      const long = info.orange + info.red;
      children.push(el('span', { class: 'count', title: `${info.count} in the trace${long ? `, ${info.orange} orange, ${info.red} red` : ''}`, text: info.count.toLocaleString('en-US') }));
    }
    items.push(el('div', {
      class: `tl-header${row.parent ? ' sub' : ''}${row.track ? ' track' : ''}${row.signposts ? ' signposts' : ''}${row.stacked ? ' stacked' : ''}`, role: 'listitem',
      style: { height: `${row.height}px` }, 'data-lane': row.id, 'aria-label': row.stacked ? `${title}, row ${row.level + 1}` : title,
      title: row.signposts ? (row.stacked ? `${title}: overlapping signposts, row ${row.level + 1}` : title) : null,
    }, ...children));
  }
  container.replaceChildren(...items);
}

/** Tells each header what is drawn in its lane: `counts` by lane id, {marks, orange, red, merged} (render.js). */
/**
 * What a signpost lane's header shows: its category alone ("Points of Interest"), the subsystem
 * going to the tooltip, unless two lanes share the category; then the whole "category · subsystem".
 */
export function signpostTitles(titles) {
  const category = (title) => title.split(' · ')[0];
  const counts = new Map();
  for (const title of titles) counts.set(category(title), (counts.get(category(title)) ?? 0) + 1);
  return new Map(titles.map((title) => [title, counts.get(category(title)) > 1 ? title : category(title)]));
}

export function describeLanes(container, counts) {
  for (const header of container.querySelectorAll('[data-lane]')) {
    const stats = counts[header.dataset.lane];
    if (!stats) continue;
    const text = `${stats.marks} marks in view` + (stats.orange || stats.red ? `, ${stats.orange} orange, ${stats.red} red` : '')
      + (stats.alsoOrange ? ` (${stats.alsoOrange} of them with orange too)` : '') + (stats.merged ? ', some merged' : '')
      + (stats.matches ? `, ${stats.matches} found` : '');
    if (header.dataset.drawn === text) continue;
    header.dataset.drawn = text;
    header.dataset.marks = stats.marks;
    header.dataset.orange = stats.orange;
    header.dataset.red = stats.red;
    header.dataset.merged = stats.merged;
    header.dataset.alsoOrange = stats.alsoOrange ?? 0;
    header.dataset.matches = stats.matches ?? 0;
    header.setAttribute('aria-description', text);
  }
}
