// Home: the trace list, upload by button (or a file dropped anywhere: file-drop.js, routed by app.js), progress and parse errors.
import { listTraces, uploadTrace, deleteTrace, writeToken } from '../api.js';
import { el } from '../dom.js';
import { navigate, toast } from '../shell.js';
import { buildComparePath, buildPath } from '../state.js';
import { rememberUpload } from './runs.js';

import { formatBytes, formatCount, formatDate, formatDuration } from '../format.js';

/** Opening a trace from the list or after an upload shows its findings first. */
const openTracePath = (id) => buildPath(id, { pane: 'findings' });

/** Each sample's story: what it shows and what to click first (the samples are SampleTraces/). */
export const SAMPLE_STORIES = {
  'landmarks-scroll-slow': 'Scrolling hitches: open the Long body finding, then its CPU link: every row builds formatters.',
  'landmarks-scroll-fixed': 'The same scroll with cached strings: compare it with landmarks-scroll-slow to see the hitches go.',
  'landmarks-favorites-slow': 'A favorite tap re-runs all 12 rows: open the Collection fan-out finding and its Cause & Effect graph.',
  'landmarks-favorites-fixed': 'The same taps with a model per row: one row body per tap; compare it with the slow one.',
  'environment-color-scheme': 'Dark mode switch: click View1 on the timeline, then Cause & Effect: View2 was notified but did not run.',
  'landmarks-concurrency-slow': 'Images load on the Main Actor for 120 ms: open the Main Actor blocked finding, then click the red Main Actor mark.',
  'landmarks-concurrency-fixed': 'The loading moved off the Main Actor: the map’s task waits under a millisecond; compare it with the slow one.',
};

/** Text with the export script's command line set as code (so it reads, and copies, as one). */
function withCommands(text) {
  return text.split(/(scripts\/export-instruments-trace\.sh (?:'[^']*'|[^\s,]+))/)
    .map((part, i) => (i % 2 ? el('code', { class: 'command', text: part }) : part));
}

/** Renders the list page into `root`; returns {upload(file), teardown()}. */
export function renderHome(root) {
  const input = el('input', { type: 'file', id: 'upload-input', accept: '.json,.gz,.xml,.trace,.zip,application/json,application/gzip,text/xml,application/zip', class: 'visually-hidden', 'aria-label': 'Trace file to upload', tabindex: '-1' }); // the button is its Tab stop
  const uploadButton = el('button', { type: 'button', class: 'primary', id: 'upload-button', 'aria-label': 'Upload a trace' },
    el('span', { class: 'icon icon-upload', 'aria-hidden': 'true' }), 'Upload a trace…');
  const status = el('div', { id: 'upload-status', class: 'upload-status', role: 'status', 'aria-live': 'polite', hidden: true });
  const list = el('div', { id: 'trace-list', 'aria-busy': 'true' }, el('p', { class: 'page-loading', text: 'Loading traces…' }));
  root.append(el('div', { class: 'home' },
    el('div', { class: 'home-top' }, el('h1', { text: 'Traces' }), el('div', {}, uploadButton, input)),
    el('p', { class: 'drop-hint', text: 'Upload a trace recorded with Instruments’ SwiftUI template (tracesvc JSON, .json.gz, xctrace export XML, or the .xctrace.tar.gz that scripts/export-instruments-trace.sh makes from a .trace recording on the Mac), or drop it anywhere on this page.' }),
    status, list));

  let alive = true;
  let uploading = false;
  let uploadLimit = null;   // bytes (GET /api/traces: maxUploadBytes), once the list is loaded

  async function refresh() {
    try {
      const { traces, maxUploadBytes } = await listTraces();
      uploadLimit = maxUploadBytes ?? null;
      if (alive) list.replaceChildren(traceTable(traces));
    } catch (error) {
      if (alive) list.replaceChildren(el('div', { class: 'error-box', role: 'alert', text: `Could not load the trace list. ${error.message}` }));
    }
    list.setAttribute('aria-busy', 'false');
  }

  function traceTable(traces) {
    if (!traces.length) return el('p', { text: 'No traces yet. Upload one to start.' });
    // Picked for comparison, in the order picked: the first is A (before).
    const picked = [];
    const compareButton = el('button', { type: 'button', id: 'compare-button', disabled: true,
      title: 'Tick two traces: the first one ticked is A (before), the second B (after)',
      onclick: () => navigate(buildComparePath(picked[0], picked[1], {})) }, 'Compare');
    const pick = (trace, box) => {
      const at = picked.indexOf(trace.id);
      if (box.checked && at < 0) picked.push(trace.id);
      if (!box.checked && at >= 0) picked.splice(at, 1);
      compareButton.disabled = picked.length !== 2;
      compareButton.textContent = picked.length === 2 ? 'Compare (first ticked is A)' : 'Compare';
    };
    const rows = traces.map((trace) => el('tr', { 'data-trace-id': trace.id },
      el('td', { class: 'pick' }, el('input', { type: 'checkbox', class: 'compare-pick', 'aria-label': `Pick ${trace.name} to compare`,
        onchange: (event) => pick(trace, event.target) })),
      el('td', { class: 'name' }, el('a', { href: openTracePath(trace.id), text: trace.name }),
        trace.isSample ? el('span', { class: 'badge badge-after', text: 'sample' }) : null,
        trace.isSample && SAMPLE_STORIES[trace.name] ? el('div', { class: 'sample-story', text: SAMPLE_STORIES[trace.name] }) : null),
      el('td', { text: trace.app || '–' }),
      el('td', { class: 'num', text: formatDuration(trace.durationNs) }),
      el('td', { class: 'num', text: formatCount(trace.updateCount) }),
      el('td', { class: 'num', text: formatBytes(trace.sizeBytes) }),
      el('td', { text: trace.uploadedAt ? formatDate(trace.uploadedAt) : 'Sample' }),
      el('td', {}, trace.isSample ? null : el('button', {
        type: 'button', class: 'link-like', 'aria-label': `Delete ${trace.name}`, text: 'Delete',
        onclick: async () => {
          if (!confirm(`Delete "${trace.name}"? Links to it will stop working.`)) return;
          const remove = async () => {
            try { await deleteTrace(trace.id); toast(`Deleted ${trace.name}`); refresh(); } catch (error) {
              if (error.status === 401) askForWriteToken(`Deleting ${trace.name}`, remove); else toast(error.message);
            }
          };
          await remove();
        },
      }))));
    return el('div', {},
      el('div', { class: 'compare-bar' }, compareButton, el('span', { class: 'meta', text: 'Tick two traces to compare them (before, then after).' })),
      el('table', { class: 'traces', 'aria-label': 'Traces' },
        el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, el('span', { class: 'visually-hidden', text: 'Compare' })),
          ...['Name', 'App', 'Duration', 'Updates', 'Size', 'Uploaded', ''].map((title, i) =>
            el('th', { scope: 'col', class: i >= 2 && i <= 4 ? 'num' : null }, title || el('span', { class: 'visually-hidden', text: 'Actions' }))))),
        el('tbody', {}, ...rows)));
  }

  /** The server wants its write token: a small form in the status area, then `retry()`. */
  function askForWriteToken(what, retry) {
    status.dataset.state = 'token';
    const field = el('input', { type: 'password', id: 'write-token', autocomplete: 'off', required: true, 'aria-describedby': 'write-token-help' });
    const form = el('form', { class: 'token-form' },
      el('p', { id: 'write-token-help' },
        `${what} needs this server's write token. `,
        writeToken.get() ? 'The saved one was refused. ' : '',
        'tracesvc serve printed it when it started (or ask whoever runs the server).'),
      el('label', { for: 'write-token', text: 'Write token' }), field,
      el('button', { type: 'submit', class: 'primary', text: 'Save and retry' }));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      writeToken.set(field.value.trim());
      retry();
    });
    showStatus(form);
    field.focus();
  }

  function showStatus(...children) {
    status.hidden = false;
    status.replaceChildren(...children);
  }

  /** A file larger than the server accepts is refused here, before a byte is sent. */
  async function tooLarge(file) {
    if (uploadLimit === null) {
      try { uploadLimit = (await listTraces()).maxUploadBytes ?? null; } catch { return false; }
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

  refresh();
  return { upload, teardown: () => { alive = false; } };
}
