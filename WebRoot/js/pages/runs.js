// Several runs in one xctrace export: each run is a separate recording and a trace reads one
// (GET /api/traces/{id}: `runs`, `run`). Another run is read by uploading the same file again
// with ?run=N, which makes another trace (its id covers the run).
import { uploadTrace } from '../api.js';
import { el } from '../dom.js';
import { buildPath } from '../state.js';
import { navigate } from '../shell.js';

/** Files uploaded from this page, by the trace id they gave: while the page has the file, picking a run re-sends it. */
const uploadedFiles = new Map();

export function rememberUpload(traceId, file) {
  uploadedFiles.set(traceId, file);
}

/** Where a run's trace opens (as after any upload: findings first). */
const openRunPath = (id) => buildPath(id, { pane: 'findings' });

/**
 * The runs a trace did not read, as choices `{run, label}` ("Run 2 of 3"); [] for a source of
 * one run. Pure: the node tests check it. Runs are numbered from 1 in an export; when they are
 * not 1…N, a label says only "Run N".
 */
export function otherRuns(trace) {
  const runs = trace?.runs ?? [];
  if (runs.length < 2) return [];
  const counted = runs.every((run, i) => run === i + 1);
  return runs.filter((run) => run !== trace.run)
    .map((run) => ({ run, label: counted ? `Run ${run} of ${runs.length}` : `Run ${run}` }));
}

/** One line of text with `tracesvc inspect --run N FILE` as code. */
const inspectCommand = (run) => el('code', { class: 'command', text: `tracesvc inspect --run ${run} <export file>` });

/**
 * The run picker of a trace page: null for a trace of one run. Picking a run uploads the file
 * again with ?run=N when this page still has it (it was uploaded here); otherwise it asks for
 * the file again, and names the command line that reads the run.
 */
export function runPicker(trace) {
  const choices = otherRuns(trace);
  if (!choices.length) return null;
  const status = el('span', { class: 'run-status', id: 'run-status', role: 'status', 'aria-live': 'polite' });
  let busy = false;

  async function read(choice, file) {
    if (busy) return;
    busy = true;
    status.textContent = `Reading ${choice.label.toLowerCase()} of ${file.name}…`;
    try {
      const result = await uploadTrace(file, { run: choice.run });
      rememberUpload(result.trace.id, file);
      navigate(openRunPath(result.trace.id));
    } catch (error) {
      status.replaceChildren(el('span', { class: 'error', role: 'alert', text: `Could not read ${choice.label.toLowerCase()}: ${error.detail || error.message}` }));
    } finally {
      busy = false;
    }
  }

  function askForFile(choice) {
    const input = el('input', { type: 'file', id: 'run-file', class: 'visually-hidden', 'aria-label': `The export file, to read ${choice.label.toLowerCase()}` });
    input.addEventListener('change', () => { if (input.files[0]) read(choice, input.files[0]); });
    status.replaceChildren(
      `This page no longer has the file. `,
      el('button', { type: 'button', id: 'run-choose-file', onclick: () => input.click(), text: `Choose ${trace.name} again…` }), input,
      ` to read ${choice.label.toLowerCase()}, or on the command line: `, inspectCommand(choice.run));
    status.querySelector('#run-choose-file').focus();
  }

  const buttons = choices.map((choice) => el('button', {
    type: 'button', class: 'run-choice', 'data-run': String(choice.run), text: choice.label,
    onclick: () => {
      const file = uploadedFiles.get(trace.id);
      if (file) read(choice, file); else askForFile(choice);
    },
  }));
  return el('div', { class: 'run-picker', id: 'run-picker', role: 'group', 'aria-label': 'Runs of this export' },
    el('span', { text: `This export holds ${trace.runs.length} runs (separate recordings); run ${trace.run} is shown. Read another:` }),
    ...buttons, status);
}
