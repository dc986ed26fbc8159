// Tags to filter by, as removable chips and a field to add one (`key:value`, or a label): the
// list page and the history page ask for traces with all of them.
import { el } from '../dom.js';
import { isTag } from '../state.js';

/**
 * A tag filter showing `tags`; `onChange(tags)` with the new list when one is added or removed.
 * `id` names its field (the label points at it).
 */
export function tagFilter(tags, onChange, { id = 'tag-filter-input' } = {}) {
  const field = el('input', { type: 'text', id, class: 'tag-input', placeholder: 'key:value, e.g. branch:main', autocomplete: 'off',
    spellcheck: 'false', 'aria-describedby': `${id}-error` });
  const error = el('span', { id: `${id}-error`, class: 'field-error', role: 'alert' });
  const add = () => {
    // "branch=main" is how the command line writes it: take it as branch:main.
    const text = field.value.trim().replace(/^([a-z0-9][a-z0-9._-]*)=/, '$1:');
    if (!text) return;
    if (!isTag(text)) {
      error.textContent = `“${text}” is not a tag: key:value with a lowercase key (letters, digits, . _ -) and a value of letters, digits and . _ - / : + @ #`;
      return;
    }
    error.textContent = '';
    field.value = '';
    if (!tags.includes(text)) onChange([...tags, text]);
  };
  field.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') { event.preventDefault(); add(); }
  });
  return el('div', { class: 'tag-filter', role: 'group', 'aria-label': 'Tags' },
    el('label', { for: id, text: 'Tags' }),
    ...tags.map((tag) => el('span', { class: 'tag-chip tag-chip-active' }, el('bdi', { text: tag }),
      el('button', { type: 'button', class: 'tag-remove', 'aria-label': `Remove the tag filter ${tag}`, text: '×',
        onclick: () => onChange(tags.filter((t) => t !== tag)) }))),
    field,
    el('button', { type: 'button', class: 'tag-add', text: 'Add', onclick: add }),
    error);
}
