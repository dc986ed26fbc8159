// Home: the trace list with its filters (in the URL: state.js LIST_EMPTY), upload by button (or a
// file dropped anywhere: file-drop.js, routed by app.js), progress and parse errors.
import { listTracePage, uploadTrace } from '../api.js';
import { el } from '../dom.js';
import { navigate, toast } from '../shell.js';
import { LIST_EMPTY, LIST_SORTS, buildHistoryPath, buildListPath, listQuery } from '../state.js';
import { writeTokenForm } from '../write-token.js';
import { rememberUpload } from './runs.js';
import { mountTraceList, openTracePath } from './trace-list.js';
import { tagFilter } from './tag-filter.js';
import { formatBytes } from '../format.js';

const SORT_LABELS = { uploaded: 'Upload time', name: 'Name', duration: 'Duration', updates: 'Updates', size: 'Size' };

/** Text with the export script's command line set as code (so it reads, and copies, as one). */
function withCommands(text) {
  return text.split(/(scripts\/export-instruments-trace\.sh (?:'[^']*'|[^\s,]+))/)
    .map((part, i) => (i % 2 ? el('code', { class: 'command', text: part }) : part));
}

/**
 * The filters of the list: tags, words, upload days, order. A change navigates to the list's
 * URL (`replace` while typing), which the router hands back to the page (`restore`).
 */
function filterBar(list) {
  const go = (patch, { replace = false } = {}) => navigate(buildListPath({ ...list, ...patch }), { replace });
  const search = el('input', { type: 'search', id: 'list-search', value: list.q, placeholder: 'name, app, device or tag', autocomplete: 'off' });
  let typing = 0;
  search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => go({ q: search.value.trim() }, { replace: true }), 300);
  });
  const day = (id, label, key) => [el('label', { for: id, text: label }),
    el('input', { type: 'date', id, value: list[key], onchange: (event) => go({ [key]: event.target.value }) })];
  const sort = el('select', { id: 'list-sort', onchange: (event) => go({ sort: event.target.value, order: null }) },
    ...LIST_SORTS.map((name) => el('option', { value: name, text: SORT_LABELS[name], selected: name === list.sort })));
  const defaultOrder = list.sort === 'name' ? 'asc' : 'desc';
  const order = el('select', { id: 'list-order', 'aria-label': 'Order', onchange: (event) => go({ order: event.target.value === defaultOrder ? null : event.target.value }) },
    el('option', { value: 'desc', text: list.sort === 'name' ? 'Z to A' : 'Largest or newest first', selected: (list.order ?? defaultOrder) === 'desc' }),
    el('option', { value: 'asc', text: list.sort === 'name' ? 'A to Z' : 'Smallest or oldest first', selected: (list.order ?? defaultOrder) === 'asc' }));
  const filtered = listQuery({ ...list, sort: 'uploaded', order: null }) !== '';
  return el('div', { class: 'list-filters', role: 'search', 'aria-label': 'Filter traces' },
    tagFilter(list.tags, (tags) => go({ tags })),
    el('div', { class: 'list-filter-row' },
      el('label', { for: 'list-search', text: 'Search' }), search,
      ...day('list-from', 'Uploaded from', 'from'), ...day('list-to', 'to', 'to'),
      el('label', { for: 'list-sort', text: 'Sort by' }), sort, order,
      filtered ? el('a', { href: '/', id: 'clear-filters', text: 'Clear filters' }) : null,
      el('a', { href: buildHistoryPath({ tags: list.tags }), id: 'history-link', class: 'button',
        title: 'A metric of these traces over builds', text: 'History of these traces' }),
      el('a', { href: '/audit', id: 'audit-link', class: 'button', title: 'Who uploaded, deleted, tagged and annotated what', text: 'Activity' })));
}

/** Renders the list page into `root`; returns {upload(file), restore(list), teardown()}. */
export function renderHome(root, list = LIST_EMPTY) {
  const input = el('input', { type: 'file', id: 'upload-input', accept: '.json,.gz,.xml,.trace,.zip,application/json,application/gzip,text/xml,application/zip', class: 'visually-hidden', 'aria-label': 'Trace file to upload', tabindex: '-1' }); // the button is its Tab stop
  const uploadButton = el('button', { type: 'button', class: 'primary', id: 'upload-button', 'aria-label': 'Upload a trace' },
    el('span', { class: 'icon icon-upload', 'aria-hidden': 'true' }), 'Upload a trace…');
  const status = el('div', { id: 'upload-status', class: 'upload-status', role: 'status', 'aria-live': 'polite', hidden: true });
  const listRoot = el('div', { id: 'trace-list', 'aria-busy': 'true' }, el('p', { class: 'page-loading', text: 'Loading traces…' }));
  const filters = el('div', { id: 'list-filters-slot' }, filterBar(list));
  root.append(el('div', { class: 'home' },
    el('div', { class: 'home-top' }, el('h1', { text: 'Traces' }), el('div', {}, uploadButton, input)),
    el('p', { class: 'drop-hint', text: 'Upload a trace recorded with Instruments’ SwiftUI template (tracesvc JSON, .json.gz, xctrace export XML, or the .xctrace.tar.gz that scripts/export-instruments-trace.sh makes from a .trace recording on the Mac), or drop it anywhere on this page.' }),
    status, filters, listRoot));

  let alive = true;
  let uploading = false;
  let uploadLimit = null;   // bytes (GET /api/traces: maxUploadBytes), once a page of the list is loaded
  let current = list;
  const mountList = () => mountTraceList(listRoot, listQuery(current), {
    onTag: (tag) => { if (!current.tags.includes(tag)) navigate(buildListPath({ ...current, tags: [...current.tags, tag] })); },
    askForWriteToken,
    onPage: (page) => { uploadLimit = page.maxUploadBytes ?? uploadLimit; },
  });
  let traceList = mountList();
  const refresh = () => traceList.refresh();

  /** The server wants its write token: a small form in the status area, then `retry()`. */
  function askForWriteToken(what, retry) {
    status.dataset.state = 'token';
    const form = writeTokenForm(what, retry);
    showStatus(form);
    form.querySelector('input').focus();
  }

  function showStatus(...children) {
    status.hidden = false;
    status.replaceChildren(...children);
  }

  /** A file larger than the server accepts is refused here, before a byte is sent. */
  async function tooLarge(file) {
    if (uploadLimit === null) {
      try { uploadLimit = (await listTracePage('', { limit: 1 })).maxUploadBytes ?? null; } catch { return false; }
    }
    if (uploadLimit === null || file.size <= uploadLimit) return false;
    status.dataset.state = 'too-large';
    showStatus(el('div', { class: 'error-box', role: 'alert' },
      el('strong', { text: `${file.name} is too large to upload: ` }),
      `it is ${formatBytes(file.size)}, and this server accepts traces up to ${formatBytes(uploadLimit)} `,
      '(tracesvc serve --max-upload-mb). Export a shorter recording, or run the server with a higher limit.'));
    return true;
  }

  async function upload(file) {
    if (uploading) { toast('An upload is already running'); return; }
    if (await tooLarge(file)) { input.value = ''; return; }
    uploading = true;
    uploadButton.disabled = true;
    const bar = el('progress', { max: '1', value: '0', 'aria-label': `Uploading ${file.name}` });
    const label = el('span', { text: `Uploading ${file.name} (${formatBytes(file.size)})… 0%` });
    showStatus(label, bar);
    status.dataset.state = 'uploading';
    try {
      const result = await uploadTrace(file, {
        onProgress: (fraction) => {
          bar.value = fraction;
          label.textContent = `Uploading ${file.name} (${formatBytes(file.size)})… ${Math.round(fraction * 100)}%`;
        },
        onParsing: () => {
          status.dataset.state = 'parsing';
          bar.removeAttribute('value'); // indeterminate while the server reads the trace
          bar.setAttribute('aria-label', `Parsing ${file.name}`);
          label.textContent = `Parsing ${file.name} on the server…`;
        },
      });
      // A several-run export: the trace page offers the other runs, re-sending this file.
      rememberUpload(result.trace.id, file);
      if (!alive) return;
      if (result.alreadyStored) {
        showDuplicate(file.name, result.trace);
        return;
      }
      status.dataset.state = 'done';
      navigate(openTracePath(result.trace.id));
    } catch (error) {
      if (error.status === 401) {
        uploading = false;
        askForWriteToken(`Uploading ${file.name}`, () => upload(file));
        return;
      }
      status.dataset.state = 'error';
      // The detail of an unreadable file begins with its location: say it once, on its own line.
      const detail = error.location && error.detail.startsWith(`${error.location}:`)
        ? error.detail.slice(error.location.length + 1).trim() : error.detail;
      // A refusal for size or space is not a file that could not be read.
      const lead = error.status === 413 ? `${file.name} is too large to upload: `
        : error.status === 507 ? `No room to store ${file.name}: ` : `Could not read ${file.name}: `;
      showStatus(el('div', { class: 'error-box', role: 'alert' },
        el('strong', { text: lead }),
        detail ? [`${error.error}. `, ...withCommands(detail[0].toUpperCase() + detail.slice(1))] : error.message,
        error.location ? el('span', { class: 'where', text: `at ${error.location}` }) : null));
    } finally {
      uploading = false;
      uploadButton.disabled = false;
      input.value = '';
    }
  }

  /** The content was uploaded before: say under which name, rather than silently open the old trace. */
  function showDuplicate(fileName, trace) {
    status.dataset.state = 'duplicate';
    const where = trace.isSample ? 'as the sample' : 'as';
    showStatus(el('p', { class: 'duplicate-message' },
      el('strong', { text: `${fileName} is already here ${where} “${trace.name}”` }),
      ' (the same content, so it was not stored twice). ',
      el('a', { href: openTracePath(trace.id), class: 'button primary', id: 'open-existing' }, `Open “${trace.name}”`)));
    refresh();
    status.querySelector('#open-existing')?.focus();
  }

  uploadButton.addEventListener('click', () => input.click());
  input.addEventListener('change', () => { if (input.files[0]) upload(input.files[0]); });

  return {
    upload,
    /** The list's URL changed (a filter, back or forward): the filters and the list follow. */
    restore(next) {
      if (listQuery(next) === listQuery(current)) return;
      current = next;
      // The search field keeps its focus (and caret) while the list behind it changes.
      const typing = document.activeElement?.id === 'list-search';
      filters.replaceChildren(filterBar(current));
      if (typing) {
        const field = document.getElementById('list-search');
        field.focus();
        field.setSelectionRange(field.value.length, field.value.length);
      }
      traceList.destroy();
      traceList = mountList();
    },
    teardown: () => { alive = false; traceList.destroy(); },
  };
}
