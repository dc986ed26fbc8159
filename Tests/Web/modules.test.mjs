// The shape of the browser code (WebRoot): the layout (pages, the trace view contract, the side
// panel, lane kinds), imports pointing one way, functions of a bounded size, one DOM helper, and nothing a
// `Content-Security-Policy: default-src 'self'` would block.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { functionSizes } from './function-sizes.mjs';

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

test('every module parses and every import names an export of its module (linked, never run)', () => {
  const checker = fileURLToPath(new URL('./module-link.mjs', import.meta.url));
  const run = spawnSync(process.execPath, ['--experimental-vm-modules', '--no-warnings', checker], { input: JSON.stringify([...modules.keys()]), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout).map((problem) => problem.replace(WEB_ROOT, '')), []);
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

// ----- the layout (docs/architecture.md, "Browser") -----

const at = (path) => join(JS, path);
const importsIn = (file) => importsOf(modules.get(file)).map((s) => resolve(dirname(file), s));
const under = (folder) => [...modules.keys()].filter((file) => file.startsWith(at(folder)));
const PARTS = ['timeline/', 'side-panel/', 'panes/', 'graph/'];

test('app.js is only the router: it mounts pages and builds nothing itself', () => {
  const allowed = [/^js\/pages\//, /^js\/(shell|state|file-drop)\.js$/];
  for (const target of importsIn(at('app.js'))) {
    assert.ok(allowed.some((pattern) => pattern.test(name(target))), `app.js imports ${name(target)}: a page's work belongs in pages/`);
  }
  assert.doesNotMatch(modules.get(at('app.js')), /\bel\(|\bsvg\(/, 'app.js builds DOM: that is a page\'s work');
});

test('pages are mounted by the router alone, and the parts never import a page', () => {
  for (const [file] of modules) {
    if (file === at('app.js') || file.startsWith(at('pages/'))) continue;
    for (const target of importsIn(file)) {
      assert.ok(!target.startsWith(at('pages/')) && target !== at('app.js'), `${name(file)} imports ${name(target)}: parts get what they need through trace-view.js`);
    }
  }
});

test('every page that mounts a part of the trace view builds its view with trace-view.js', () => {
  const mounts = [at('timeline/index.js'), at('side-panel/index.js'), at('panes/index.js'), at('graph/index.js')];
  const pages = under('pages/');
  assert.ok(pages.length >= 5, 'pages/ holds the pages');
  for (const file of pages) {
    const source = modules.get(file);
    if (!importsIn(file).some((target) => mounts.includes(target))) continue;
    assert.ok(importsIn(file).includes(at('trace-view.js')) && /\bcreateTraceView\(/.test(source),
      `${name(file)} mounts a part without createTraceView: a hand-built view lacks what the contract promises`);
    assert.doesNotMatch(source, /\bselect(Update|TaskStates?|Signpost)\b/, `${name(file)} offers a selection outside select({kind, id})`);
  }
  for (const file of PARTS.flatMap(under)) {
    assert.doesNotMatch(modules.get(file), /\b(traceView|ctx|view)\.(select(Update|TaskStates?|Signpost)|zoomToUpdate)\b/, `${name(file)} calls a capability trace-view.js does not offer`);
  }
});

test('the side panel is one owner of its <aside>, with one details module per selection kind', () => {
  const details = under('side-panel/').filter((file) => ![at('side-panel/index.js'), at('side-panel/panel.js')].includes(file));
  assert.ok(details.length >= 3, 'the update, task and signpost details are side-panel modules');
  for (const [file] of modules) {
    for (const target of importsIn(file)) {
      if (details.includes(target)) assert.equal(file, at('side-panel/index.js'), `${name(file)} imports ${name(target)}: only the panel's owner shows details`);
    }
  }
  for (const file of details) {
    assert.ok(importsIn(file).includes(at('side-panel/panel.js')), `${name(file)} fetches and renders without the shared panel.js`);
    assert.doesNotMatch(modules.get(file), /new AbortController|aria-busy|\.hidden\s*=/, `${name(file)} manages the request or the <aside> itself: panel.js does`);
  }
});

test('what lanes and selections mean is pure: timeline/kinds.js, lanes.js and selections/ use no DOM, no requests', () => {
  const selections = under('selections/').map((file) => relative(JS, file));
  assert.ok(selections.length >= 6, 'selections/ holds one descriptor per kind');
  for (const path of ['timeline/kinds.js', 'timeline/lanes.js', 'timeline/viewport.js', 'graph/viewport.js', 'state.js', ...selections]) {
    const source = modules.get(at(path));
    for (const target of importsIn(at(path))) {
      assert.ok(![at('dom.js'), at('api.js'), at('shell.js')].includes(target), `${path} imports ${name(target)}`);
    }
    assert.doesNotMatch(source.replace(/\/\/.*$/gm, ''), /\bdocument\.|\bfetch\(/, `${path} touches the DOM or the network`);
  }
});

test('the chart math and drawing pages and parts share are in chart/, which imports no page and no part', () => {
  const charts = under('chart/');
  assert.ok(charts.length >= 4, 'chart/ holds the shared charts');
  for (const file of charts) {
    for (const target of importsIn(file)) {
      assert.ok(!target.startsWith(at('pages/')) && !PARTS.some((part) => target.startsWith(at(part))), `${name(file)} imports ${name(target)}: chart/ sits below the pages and the parts`);
    }
  }
  // The comparison page draws its flame graph with chart/, not with the CPU pane's modules.
  for (const file of under('pages/compare/')) {
    for (const target of importsIn(file)) assert.ok(!target.startsWith(at('panes/')), `${name(file)} imports ${name(target)}: shared chart code belongs in chart/`);
  }
});

// ----- size -----

// Past this a function holds several concerns (the trace page's closures grew to 400 lines):
// split it into modules with one job each (docs/architecture.md).
const MAX_FUNCTION_LINES = 200;

test('the size scanner finds functions, skips strings, templates, regexes and comments, and counts lines', () => {
  const body = Array.from({ length: 300 }, (_, i) => `  const s${i} = '}' + \`\${ { a: "{" } }\` + /[}]/.source; // }`).join('\n');
  const source = `function big(a) {\n${body}\n  if (a) { return () => { a(); }; }\n}\nconst small = (x) => {\n  return x;\n};\n`;
  const sizes = functionSizes(source);
  const names = Object.fromEntries(sizes.map((f) => [f.name, f.lines]));
  assert.equal(names.big, 303);
  assert.equal(names['(arrow)'], 3);
  assert.equal(sizes.length, 3, JSON.stringify(sizes));
});

test('the scanner reads methods, async and nested functions, a regex after =>, and refuses a source it cannot balance', () => {
  const source = [
    'export async function load(a) {',            // 1
    '  const tags = a.filter((t) => /^(x|y):/.test(t));',
    '  return { get size() {',                     // 3
    '    return 1;',
    '  }, method(b) {',                              // 5
    '    for (const c of b) { if (c) { continue; } }',
    '    return b;',
    '  } };',                                       // 8
    '}',
    'class Box extends Base {',
    '  draw(g) {',                                  // 11
    '    g.fill();',
    '  }',
    '}',
  ].join('\n');
  const sizes = functionSizes(source).map(({ name, startLine, lines }) => `${name}@${startLine}:${lines}`).sort();
  assert.deepEqual(sizes, ['(arrow)@2:1', 'draw@11:3', 'load@1:9', 'method@5:4', 'size@3:3'].sort());
  assert.throws(() => functionSizes('function broken() {\n  if (a) {\n}\n'), /unbalanced/);
  assert.throws(() => functionSizes('const f = (x) => /(/.test(x) ? g(( : 1;'), /unbalanced/);
});

test(`no function passes ${MAX_FUNCTION_LINES} lines`, () => {
  const big = [];
  for (const [file, source] of modules) {
    for (const fn of functionSizes(source)) if (fn.lines > MAX_FUNCTION_LINES) big.push(`${name(file)}:${fn.startLine} ${fn.name} (${fn.lines} lines)`);
  }
  assert.deepEqual(big, [], `split these into modules with one job each:\n${big.join('\n')}`);
});
