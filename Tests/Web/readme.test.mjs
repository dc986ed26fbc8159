// The README's promises (README.md): what the first paragraph asks a user to do can be done, the
// buttons it names are the app's, and scripts/test.sh says where it installs things itself.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const webSources = (dir) => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name);
  return statSync(path).isDirectory() ? webSources(path) : name.endsWith('.js') ? [readFileSync(path, 'utf8')] : [];
});
const web = webSources(join(root, 'WebRoot/js')).join('\n');

test('the first paragraph says to export the recording: a .trace itself cannot be uploaded', () => {
  const first = readme.split('\n\n')[1];
  assert.doesNotMatch(first, /upload the trace/i);
  assert.match(first, /export/i);
  assert.match(first, /export-instruments-trace\.sh/);
});

test('every button the README tells you to press is a button of the app', () => {
  const pressed = [...readme.matchAll(/(?:press|then) "([^"]+)"/g)].map((m) => m[1]);
  assert.ok(pressed.length >= 3, `found ${pressed}`);
  for (const name of pressed) assert.ok(web.includes(`'${name}'`) || web.includes(`\`${name}\``) || web.includes(`text: '${name}'`), `no button "${name}" in WebRoot`);
  // One name for one action (Instruments' words), in the side panel and the panes' menus alike.
  assert.ok(!web.includes('Set range & zoom'), 'the button is "Set Inspection Range and Zoom" everywhere');
});

test('the README says which systems scripts/test.sh installs on, what it installs, and the manual steps', () => {
  for (const words of ['Debian or Ubuntu', 'apt-get', 'pip install playwright pytest', 'CHROMIUM_PATH', 'node --test', 'swift test']) {
    assert.ok(readme.includes(words), words);
  }
});
