// The functions of a JavaScript source and how many lines each spans, read without a parser: a
// scanner that skips strings, template literals, comments and regular expressions, and takes a
// `{` after `=>`, or after `)` whose parenthesis does not follow if/for/while/switch/catch/with,
// for a function body. An arrow with an expression body runs to the `,` or `;` at its own depth,
// or to the bracket that closes around it (WebRoot ends its statements with `;`). A source whose
// brackets do not balance at the end was misread: it throws, so the fence never under-counts in
// silence. Enough for the plain ES modules of WebRoot (modules.test.mjs uses it).

const CONTROL = new Set(['if', 'for', 'while', 'switch', 'catch', 'with']);
// After these a `/` starts a regular expression, not a division.
const REGEX_AFTER = new Set([...'(,=:[!&|?{};+-*%<>~^'.split(''), '=>', 'return', 'typeof', 'case', 'of', 'in', 'do', 'else', '']);

/** [{name, startLine, lines}] of every function body in `source`, nested ones too (each counted whole); throws on a source it cannot balance. */
export function functionSizes(source) {
  const found = [];
  const braces = [];          // per open `{`: {fn: {name, startLine} | null} | {template: true} for `${`
  const parens = [];          // per open `(`: the word before it
  let line = 1;
  let last = '';              // the previous significant token (a word or a punctuation character)
  let lastWord = '';          // the word before the latest `(`…`)`
  let closedParenWord = null; // the word before the `(` of a `)` just closed, until the next token
  let i = 0;
  const n = source.length;
  const templates = [];       // brace depth at which each open template literal's `${` began
  let brackets = 0;           // open `[`
  let arrowLine = 0;          // the line of the `=>` just read
  const arrows = [];          // open expression-bodied arrows: {startLine, depth}
  const depth = () => braces.length + parens.length + brackets;
  // Ends the expression-bodied arrows deeper than `level` (a closing bracket), or at it (`,` `;`).
  function closeArrows(level) {
    while (arrows.length && arrows.at(-1).depth >= level) {
      const { startLine } = arrows.pop();
      found.push({ name: '(arrow)', startLine, lines: line - startLine + 1 });
    }
  }

  function skipString(quote) {
    i += 1;
    while (i < n && source[i] !== quote) {
      if (source[i] === '\\') i += 1;
      else if (source[i] === '\n') line += 1;
      i += 1;
    }
    i += 1;
  }

  // Inside a template literal's text, up to its end or the next `${`: returns true at `${`.
  function skipTemplateText() {
    while (i < n) {
      const c = source[i];
      if (c === '\\') { i += 2; continue; }
      if (c === '\n') line += 1;
      if (c === '`') { i += 1; return false; }
      if (c === '$' && source[i + 1] === '{') { i += 2; return true; }
      i += 1;
    }
    return false;
  }

  function enterTemplate() {
    if (skipTemplateText()) { braces.push({ template: true }); templates.push(braces.length); }
  }

  while (i < n) {
    const c = source[i];
    if (c === '\n') { line += 1; i += 1; continue; }
    if (c === ' ' || c === '\t' || c === '\r') { i += 1; continue; }
    if (c === '/' && source[i + 1] === '/') { while (i < n && source[i] !== '\n') i += 1; continue; }
    if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (let k = i; k < stop; k++) if (source[k] === '\n') line += 1;
      i = stop;
      continue;
    }
    if (last === '=>' && c !== '{') arrows.push({ startLine: arrowLine, depth: depth() });
    if (c === '"' || c === "'") { skipString(c); last = 'str'; closedParenWord = null; continue; }
    if (c === '`') { i += 1; enterTemplate(); last = 'str'; closedParenWord = null; continue; }
    if (c === '/' && REGEX_AFTER.has(last)) {
      // A regular expression literal, with its character classes.
      i += 1;
      let inClass = false;
      while (i < n && (inClass || source[i] !== '/') && source[i] !== '\n') {
        if (source[i] === '\\') i += 1;
        else if (source[i] === '[') inClass = true;
        else if (source[i] === ']') inClass = false;
        i += 1;
      }
      i += 1;
      while (/[a-z]/i.test(source[i] ?? '')) i += 1;
      last = 'regex';
      closedParenWord = null;
      continue;
    }
    const word = /^[A-Za-z_$][\w$]*/.exec(source.slice(i, i + 64));
    if (word) { last = word[0]; lastWord = word[0]; i += word[0].length; closedParenWord = null; continue; }
    if (/[0-9]/.test(c)) { while (/[\w.]/.test(source[i] ?? '')) i += 1; last = 'num'; closedParenWord = null; continue; }
    if (c === '=' && source[i + 1] === '>') { i += 2; last = '=>'; arrowLine = line; closedParenWord = null; continue; }
    if (c === '(') { parens.push(last === lastWord ? lastWord : ''); i += 1; last = '('; closedParenWord = null; continue; }
    if (c === ')') { closedParenWord = parens.pop() ?? ''; closeArrows(depth() + 1); i += 1; last = ')'; continue; }
    if (c === '[') brackets += 1;
    else if (c === ']') { brackets -= 1; closeArrows(depth() + 1); }
    else if (c === ',' || c === ';') closeArrows(depth());
    if (c === '{') {
      const isFunction = last === '=>' || (last === ')' && !CONTROL.has(closedParenWord));
      braces.push({ fn: isFunction ? { name: last === '=>' ? '(arrow)' : closedParenWord || '(anonymous)', startLine: line } : null });
      i += 1;
      last = '{';
      closedParenWord = null;
      continue;
    }
    if (c === '}') {
      const open = braces.pop();
      closeArrows(depth() + 1);
      i += 1;
      if (open?.template) {
        templates.pop();
        // Back in the template's text.
        enterTemplate();
        last = 'str';
      } else {
        if (open?.fn) found.push({ name: open.fn.name, startLine: open.fn.startLine, lines: line - open.fn.startLine + 1 });
        last = '}';
      }
      closedParenWord = null;
      continue;
    }
    last = c;
    closedParenWord = null;
    i += 1;
  }
  // A source that does not close what it opens was misread (or is broken): say so rather than
  // under-count its functions.
  if (braces.length || parens.length || brackets) throw new Error(`unbalanced at the end: ${braces.length} {, ${parens.length} ( and ${brackets} [ still open`);
  closeArrows(0);
  return found;
}
