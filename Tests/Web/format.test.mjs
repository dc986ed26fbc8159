// Text the panes show for counts and durations: "1 sample", not "1 samples"; long CPU totals in
// seconds, not "202262 ms"; µs, not us; the same text as the CLI writes (the shared fixture).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { findingKindTitle, findingName, noteTargetText, plural, formatDuration, formatTimeRange, parseDuration } from '../../WebRoot/js/format.js';

const fixture = JSON.parse(readFileSync(new URL('../Fixtures/duration-format.json', import.meta.url), 'utf8'));

test('a count of one takes the singular noun, others the plural with separators', () => {
  assert.equal(plural(1, 'sample'), '1 sample');
  assert.equal(plural(0, 'sample'), '0 samples');
  assert.equal(plural(1204, 'update'), '1,204 updates');
});

test('durations pick their unit, so a long CPU total reads in seconds', () => {
  assert.equal(formatDuration(202_262_000_000), '202 s');
  assert.equal(formatDuration(2_430_000), '2.43 ms');
  assert.equal(formatDuration(480_000), '480 µs');
  assert.equal(formatDuration(40_561_000_000), '40.6 s');  // a CPU row, not "40561 ms"
});

test('durations read as the CLI writes them (Tests/Fixtures/duration-format.json)', () => {
  for (const [ns, text] of fixture.format) assert.equal(formatDuration(ns), text, `${ns} ns`);
});

test('a rounding that reaches the next digit or unit says so: never "100.0 ms" or "1000 ms"', () => {
  assert.equal(formatDuration(99_970_000), '100 ms');
  assert.equal(formatDuration(999_700_000), '1.00 s');
  assert.equal(formatDuration(0), '0 ms');
});

test('durations are read in the same syntax the CLI and budgets accept', () => {
  for (const [text, ns] of fixture.parse) assert.equal(parseDuration(text), ns, text);
  for (const text of fixture.refused) assert.equal(parseDuration(text), null, JSON.stringify(text));
});

test('a time range that rounds to one value gets the decimals to tell its ends apart', () => {
  assert.equal(formatTimeRange(1_200_000_000, 1_350_000_000), '1.200 s – 1.350 s');
  assert.equal(formatTimeRange(1_200_100_000, 1_200_400_000), '1.2001 s – 1.2004 s');
  assert.notEqual(formatTimeRange(1_200_000_000, 1_200_000_500).split(' – ')[0], formatTimeRange(1_200_000_000, 1_200_000_500).split(' – ')[1]);
});

test('a finding is named in words, never by its raw id, for any app and any kind', () => {
  assert.equal(findingKindTitle('collection-fan-out'), 'Collection fan-out');
  assert.equal(findingKindTitle('some-future-kind'), 'Some future kind');
  assert.equal(findingName('long-body:Pantry.PriceTagView'), 'Long body: Pantry.PriceTagView');
  assert.equal(findingName('collection-fan-out:@Observable Pantry.items>ItemRowView'), 'Collection fan-out: @Observable Pantry.items → ItemRowView');
  assert.equal(findingName('main-actor-blocked:MessageStore.decodeHistory()@View.task @ Harbor/ConversationView.swift:44'),
    'Main Actor blocked: MessageStore.decodeHistory()@View.task @ Harbor/ConversationView.swift:44');
  assert.equal(findingName('hitch-explained:1027596405'), 'Hitch at 1.028 s');
  assert.equal(findingName('hang-explained:more'), 'More hangs');
  assert.equal(findingName('hitch-explained'), 'Hitches');
  assert.equal(noteTargetText({ kind: 'finding', finding: 'long-body:Harbor.MessageRow' }), 'the finding Long body: Harbor.MessageRow');
});
