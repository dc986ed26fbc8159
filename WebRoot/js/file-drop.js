// A trace file dropped anywhere, on any page, goes to `onFile` (the router has the list page upload
// it, which shows the progress and any error). Without this the browser would leave the app to show the file.
import { el } from './dom.js';

export function watchFileDrops(onFile) {
  const overlay = el('div', { id: 'drop-overlay', hidden: true, 'aria-hidden': 'true' },
    el('span', { class: 'drop-message', text: 'Drop a trace file to upload it' }));
  document.body.append(overlay);
  let depth = 0;
  const carriesFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes('Files');
  window.addEventListener('dragenter', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth += 1;
    overlay.hidden = false;
  });
  window.addEventListener('dragover', (event) => { if (carriesFiles(event)) event.preventDefault(); });
  window.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (!depth) overlay.hidden = true;
  });
  window.addEventListener('drop', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth = 0;
    overlay.hidden = true;
    const file = event.dataTransfer.files[0];
    if (file) onFile(file);
  });
}
