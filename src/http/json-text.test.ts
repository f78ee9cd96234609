import { describe, expect, it } from 'vitest';
import { jsonTextProblem } from './json-text.ts';

describe('jsonTextProblem (RFC 8259 §4 and §8.2, RFC 7493)', () => {
  it.each([
    ['a name twice', '{"a":1,"a":2}', { kind: 'repeated-name', pointer: '/a' }],
    ['a name twice, deep inside', '{"a":{"b":[1,{"c":1,"c":2}]}}', { kind: 'repeated-name', pointer: '/a/b/1/c' }],
    ['a name twice, once escaped', '{"a\\u0062":1,"ab":2}', { kind: 'repeated-name', pointer: '/ab' }],
    ['the empty name twice', '{"":1,"":2}', { kind: 'repeated-name', pointer: '/' }],
    ['a name twice under a name with / and ~', '{"a/b~c":{"k":1,"k":1}}', { kind: 'repeated-name', pointer: '/a~1b~0c/k' }],
    ['a high surrogate alone', '{"d":"x\\ud800y"}', { kind: 'unpaired-surrogate', pointer: '/d' }],
    ['a low surrogate alone, in an array', '["ok", "\\ud83d\\ude00", "\\udfff"]', { kind: 'unpaired-surrogate', pointer: '/2' }],
    ['the two halves in the wrong order', '"\\ude00\\ud83d"', { kind: 'unpaired-surrogate', pointer: '' }],
    ['a lone surrogate in a name', '{"\\ud800":1}', { kind: 'unpaired-surrogate', pointer: '/\ud800' }],
    ['a pair', '{"e":"\\ud83d\\ude00"}', undefined],
    ['the same name in two objects', '{"a":[],"b":{},"c":[{"a":1},{"a":1}]}', undefined],
    ['a name inside a string', '{"x":"he said \\"a\\":1","a":1}', undefined],
    ['backslashes before a closing quote', '{"s":"\\\\\\"","t":"\\\\"}', undefined],
    ['nested empty arrays', '[[[[]]]]', undefined],
    ['a number, true, null', '[1e5,true,null,{"a":false}]', undefined],
  ])('%s', (_name, text, expected) => {
    JSON.parse(text);
    expect(jsonTextProblem(text)).toEqual(expected);
  });

  it('reads a deeply nested text without recursion', () => {
    const deep = `${'['.repeat(300_000)}{"a":1,"a":2}${']'.repeat(300_000)}`;
    expect(jsonTextProblem(deep)).toEqual({ kind: 'repeated-name', pointer: `${'/0'.repeat(300_000)}/a` });
  });
});

describe('jsonTextProblem with half pairs allowed at some pointers', () => {
  it('takes them there only, and still finds a repeated name', () => {
    const allowed = new Set(['/filename']);
    expect(jsonTextProblem('{"filename":"a\\ud800.txt","body":"eA=="}', allowed)).toBeUndefined();
    expect(jsonTextProblem('{"filename":"a.txt","body":"\\ud800"}', allowed)).toEqual({ kind: 'unpaired-surrogate', pointer: '/body' });
    expect(jsonTextProblem('{"filename":"a\\ud800","filename":"b"}', allowed)).toEqual({ kind: 'repeated-name', pointer: '/filename' });
  });
});
