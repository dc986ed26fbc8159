import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relativePath, sourceHref, sourceText, xedCommand } from '../../WebRoot/js/source-link.js';

const card = { path: '/Users/dev/Trips/Trips/Views/TripCard.swift', line: 88 };

test('a location reads as file:line, the file alone without a line', () => {
  assert.equal(sourceText(card), 'TripCard.swift:88');
  assert.equal(sourceText({ path: '/Users/dev/Trips/Trips/Gen.swift', line: 0 }), 'Gen.swift');
});

test('the source root is stripped only where it is a whole folder prefix', () => {
  assert.equal(relativePath(card.path, '/Users/dev/Trips'), 'Trips/Views/TripCard.swift');
  assert.equal(relativePath(card.path, '/Users/dev/Trips/'), 'Trips/Views/TripCard.swift');
  assert.equal(relativePath(card.path, '/Users/dev/Tri'), card.path);
  assert.equal(relativePath(card.path, null), card.path);
});

test('the link template gets the relative path, encoded, and the line', () => {
  const link = { url: 'https://github.com/org/app/blob/4f2a91c/{path}#L{line}', root: '/Users/dev/Trips' };
  assert.equal(sourceHref(card, link), 'https://github.com/org/app/blob/4f2a91c/Trips/Views/TripCard.swift#L88');
  assert.equal(sourceHref({ path: '/Users/dev/Trips/My Views/A#1.swift', line: 3 }, link),
    'https://github.com/org/app/blob/4f2a91c/My%20Views/A%231.swift#L3');
  // Outside the root, or without a template: no link.
  assert.equal(sourceHref({ path: '/Users/other/X.swift', line: 1 }, link), null);
  assert.equal(sourceHref(card, { root: '/Users/dev/Trips' }), null);
  assert.equal(sourceHref(card, undefined), null);
});

test('without a link the xed command opens the line, quoting what the shell would split', () => {
  assert.equal(xedCommand(card, { root: '/Users/dev/Trips' }), 'xed --line 88 Trips/Views/TripCard.swift');
  assert.equal(xedCommand(card, null), 'xed --line 88 /Users/dev/Trips/Trips/Views/TripCard.swift');
  assert.equal(xedCommand({ path: "/a/it's here.swift", line: 2 }, null), "xed --line 2 '/a/it'\\''s here.swift'");
});
