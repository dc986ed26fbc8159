// A view of the app (a SwiftUI view type) as the panes, the graph and the comparison pick it:
// {module, view, category}, '' for no module or category. Not one of the side panel's kinds: a
// page's state holds it beside the selection (paneView; the comparison's drilled-into row).
// Link keys: pv=Module:View (percent-encoded as one value, split at the first ':'; no ':' means no
// module) and pc=Category.

/** The view `fields` name ({module, view, category}; a missing module or category is ''), or null without a view. */
export function viewOf({ module, view, category } = {}) {
  return view == null ? null : { module: module ?? '', view, category: category ?? '' };
}

/** The view a link's query names (pv=, pc=), or null. */
export function viewFromQuery(params) {
  const text = params.get('pv');
  if (!text) return null;
  const colon = text.indexOf(':');
  const [module, view] = colon < 0 ? ['', text] : [text.slice(0, colon), text.slice(colon + 1)];
  return { module, view, category: params.get('pc') ?? '' };
}

/** The query keys of `view` (none for null). */
export function viewQuery(view) {
  if (!view) return [];
  const keys = [`pv=${encodeURIComponent(`${view.module ?? ''}:${view.view ?? ''}`)}`];
  if (view.category) keys.push(`pc=${encodeURIComponent(view.category)}`);
  return keys;
}
