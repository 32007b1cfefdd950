import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonWithNonFinite, quoteNonFiniteTokens } from '../src/json-text.js';

test('bare NaN and Infinity tokens are read as the numbers they name; the same words in strings stay text', () => {
  const parsed = parseJsonWithNonFinite('{"a": NaN, "b": [Infinity, -Infinity, 1e400, -2.5], "c": "NaN", "d": "say \\"Infinity\\"", "NaN": 1}') as any;
  assert.ok(Number.isNaN(parsed.a));
  assert.deepEqual(parsed.b, [Infinity, -Infinity, Infinity, -2.5]);
  assert.equal(parsed.c, 'NaN');
  assert.equal(parsed.d, 'say "Infinity"');
  assert.equal(parsed.NaN, 1);
  // plain JSON is untouched, and broken JSON still throws
  assert.deepEqual(parseJsonWithNonFinite('{"x": [1, "Infinity"]}'), { x: [1, 'Infinity'] });
  assert.throws(() => parseJsonWithNonFinite('{"x": NaNa}'), SyntaxError);
  assert.throws(() => parseJsonWithNonFinite('{"x": nan}'), SyntaxError);
});

test('quoting marks tokens with the given marker, so a client string can never pass for one', () => {
  assert.equal(quoteNonFiniteTokens('[NaN, -Infinity, "NaN"]'), '["NaN", "-Infinity", "NaN"]');
  assert.equal(quoteNonFiniteTokens('[NaN, "NaN"]', 'm:'), '["m:NaN", "NaN"]');
});
