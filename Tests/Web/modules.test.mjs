// The shape of the browser code (WebRoot): imports point one way, one DOM helper, and nothing a
// `Content-Security-Policy: default-src 'self'` would block.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB_ROOT = fileURLToPath(new URL('../../WebRoot/', import.meta.url));
const JS = join(WEB_ROOT, 'js');

function files(dir, suffix) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

const modules = new Map(files(JS, '.js').map((file) => [file, readFileSync(file, 'utf8')]));
const name = (file) => relative(WEB_ROOT, file);

// Static imports and re-exports, dynamic import() (a module mounting another) and module workers.
const SPECIFIERS = [
  /^\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/gm,
  /^\s*import\s*['"]([^'"]+)['"]/gm,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  /new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g,
];
function importsOf(source) {
  return SPECIFIERS.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]));
}

test('every import is spelled relative to the importing module and names a module that exists', () => {
  let count = 0;
  for (const [file, source] of modules) {
    for (const specifier of importsOf(source)) {
      count += 1;
      assert.match(specifier, /^\.\.?\//, `${name(file)} imports '${specifier}': spell it './x.js' or '../x.js'`);
      assert.ok(existsSync(resolve(dirname(file), specifier)), `${name(file)} imports '${specifier}', which does not exist`);
    }
  }
  assert.ok(count > 40, `only ${count} imports found: the patterns above no longer match the code`);
});

test('there is no import cycle, so no module imports the module that mounts it', () => {
  const edges = new Map([...modules].map(([file, source]) => [file, importsOf(source).map((s) => resolve(dirname(file), s))]));
  // Iterative depth-first search; `path` is the chain of modules being visited.
  const done = new Set();
  for (const start of edges.keys()) {
    if (done.has(start)) continue;
    const path = [start];
    const onPath = new Set([start]);
    const next = [0];
    while (path.length) {
      const here = path.at(-1);
      const targets = edges.get(here) ?? [];
      const i = next.at(-1);
      if (i >= targets.length) {
        done.add(here);
        onPath.delete(here);
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] += 1;
      const target = targets[i];
      assert.ok(!onPath.has(target), `import cycle: ${[...path.slice(path.indexOf(target)), target].map(name).join(' -> ')}`);
      if (done.has(target)) continue;
      path.push(target);
      onPath.add(target);
      next.push(0);
    }
  }
});

test('one module builds DOM elements: dom.js', () => {
  for (const [file, source] of modules) {
    if (name(file) === 'js/dom.js') continue;
    assert.doesNotMatch(source, /\bcreateElement(NS)?\(/, `${name(file)} creates elements itself: use el() / svg() from dom.js`);
    assert.doesNotMatch(source, /^\s*(export\s+)?function\s+(el|svg)\s*\(/m, `${name(file)} defines its own el/svg`);
  }
});

test("nothing needs 'unsafe-inline' or 'unsafe-eval'", () => {
  for (const [file, source] of modules) {
    const where = name(file);
    assert.doesNotMatch(source, /\beval\s*\(|new\s+Function\s*\(|set(Timeout|Interval)\(\s*['"`]/, `${where} evaluates a string as code`);
    assert.doesNotMatch(source, /setAttribute\(\s*['"]style['"]|\.cssText\b|\bstyle\s*:\s*['"`]/, `${where} sets a style attribute: use el(..., {style: {...}}) or node.style.prop`);
    assert.doesNotMatch(source, /setAttribute\(\s*['"]on|\b(innerHTML|outerHTML|insertAdjacentHTML)\b/, `${where} writes markup or inline handlers`);
  }
  for (const file of files(WEB_ROOT, '.html')) {
    const html = readFileSync(file, 'utf8');
    for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
      assert.match(script[1], /\bsrc=/, `${name(file)} has an inline script`);
      assert.equal(script[2].trim(), '', `${name(file)} has an inline script`);
    }
    assert.doesNotMatch(html, /<style\b|\sstyle=|\son[a-z]+=|javascript:/i, `${name(file)} has inline style, handlers or javascript: URLs`);
  }
});
