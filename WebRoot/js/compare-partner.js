// "Compare with…": which trace is the likely partner of this one, first. Pure, for `node --test`.
// The likely partner is the other recording of the same scenario: the same name with the other
// of a pair of words (slow/fixed, before/after, old/new, base/head, main/pr), then the same name
// stem (run numbers and those words left out), then the same app and device; the latest first
// among equals.

const PAIRS = [['slow', 'fixed'], ['before', 'after'], ['old', 'new'], ['base', 'head'], ['main', 'pr'], ['baseline', 'candidate']];
const PAIR_WORD = new RegExp(`(^|[-_ .])(${PAIRS.flat().join('|')})(?=$|[-_ .])`, 'gi');

/** The name with each pair word swapped for its other ("landmarks-favorites-slow" → "...-fixed"). */
export function counterpartName(name) {
  return name.replace(PAIR_WORD, (_, sep, word) => {
    const pair = PAIRS.find((p) => p.includes(word.toLowerCase()));
    const other = pair[0] === word.toLowerCase() ? pair[1] : pair[0];
    if (word === word.toUpperCase()) return sep + other.toUpperCase();
    return sep + (word[0] === word[0].toUpperCase() ? other[0].toUpperCase() + other.slice(1) : other);
  });
}

/** The name without pair words, run numbers and extensions: what recordings of one scenario share. */
export function nameStem(name) {
  return name.toLowerCase().replace(/\.(json|gz|xml|trace|tar)$/g, '').replace(PAIR_WORD, '$1')
    .replace(/(^|[-_ .])(run)?\d+(?=$|[-_ .])/g, '$1').replace(/[-_ .]+/g, '-').replace(/^-|-$/g, '');
}

/**
 * `traces` (the list's entries: {id, name, app, device, uploadedAt}) other than `trace`, the
 * likely partner first, each with `why` ("the fixed of this slow", "same scenario", "same app and device", or "").
 */
export function rankPartners(trace, traces) {
  const counterpart = counterpartName(trace.name);
  const stem = nameStem(trace.name);
  const scored = traces.filter((t) => t.id !== trace.id).map((t) => {
    let score = 0;
    let why = '';
    if (counterpart !== trace.name && t.name === counterpart) { score = 4; why = 'the other recording of this scenario'; }
    else if (stem && nameStem(t.name) === stem) { score = 3; why = 'same scenario'; }
    else if (t.app && t.app === trace.app && t.device === trace.device) { score = 2; why = 'same app and device'; }
    else if (t.app && t.app === trace.app) { score = 1; why = 'same app'; }
    return { trace: t, score, why };
  });
  scored.sort((x, y) => y.score - x.score || (y.trace.uploadedAt ?? '').localeCompare(x.trace.uploadedAt ?? '') || x.trace.name.localeCompare(y.trace.name));
  return scored.map(({ trace: t, why }) => ({ ...t, why }));
}
