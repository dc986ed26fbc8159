// What can be selected, and so shown in the side panel: one descriptor module per kind, read by
// state.js (the link's keys), the side panel (what to fetch) and the timeline (where to outline
// it). Pure (no DOM, no requests): `node --test` checks it. A new kind of selection adds its
// descriptor here, its details module in side-panel/ (DETAILS) and its keys in
// docs/share-links.md.
//
// A descriptor: {kind, inPath?, fromQuery(params) → id | null, toQuery(id) → ['key=value'],
// resource(id) → the trace API path that describes it (null: nothing to ask),
// extent(answer, id) → {start, duration, lanes} where the timeline outlines it (null: not outlined)}.
import { update } from './update.js';
import { signpost } from './signpost.js';
import { taskState } from './task-state.js';
import { taskStates } from './task-states.js';
import { note } from './note.js';
import { hangRisk } from './hang-risk.js';

/** Every descriptor, in the order a link that names several is read (the path's update first). */
export const SELECTIONS = Object.freeze([update, taskStates, taskState, note, hangRisk, signpost]);

const BY_KIND = Object.freeze(Object.fromEntries(SELECTIONS.map((descriptor) => [descriptor.kind, descriptor])));

/** Every kind of selection; a selection is {kind, id}, its id's form said by the kind's module. */
export const SELECTION_KINDS = Object.freeze(SELECTIONS.map((descriptor) => descriptor.kind));

/** The descriptor of `kind`, or null. */
export const selectionDescriptor = (kind) => BY_KIND[kind] ?? null;

/** The selection other than an update that a query names (the first in SELECTIONS' order); none beside an update in the path. */
export function parseSelection(params, update) {
  if (update !== null) return null;
  for (const descriptor of SELECTIONS) {
    if (descriptor.inPath) continue;
    const id = descriptor.fromQuery(params);
    if (id !== null) return { kind: descriptor.kind, id };
  }
  return null;
}

/** The query keys of `selection` (an update's id is in the path: none). */
export const selectionQuery = (selection) => (selection ? selectionDescriptor(selection.kind)?.toQuery(selection.id) ?? [] : []);
