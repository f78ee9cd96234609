import { describe, expect, it } from 'vitest';
import { FieldMarks, labelsFrom } from './form-marks.ts';

describe('the marks of a refused form', () => {
  const labels = labelsFrom((key) => ({ 'f.name': 'Name', 'f.uri': 'URI' })[key] ?? key, 'f.');

  it('marks a field in error, describes it by its help and message, and leaves the others alone', () => {
    const marks = new FieldMarks({ name: 'Missing.', uri: undefined }, labels);
    expect(marks.attributes('name', { help: true })).toBe(' aria-describedby="name-help name-error" aria-invalid="true"');
    expect(marks.attributes('name')).toBe(' aria-describedby="name-error" aria-invalid="true"');
    expect(marks.attributes('uri', { help: true })).toBe(' aria-describedby="uri-help"');
    expect(marks.attributes('uri')).toBe('');
    expect(marks.message('name')).toBe('<p class="field-error" id="name-error">Missing.</p>');
    expect(marks.message('uri')).toBe('');
    expect(new FieldMarks().problems).toEqual([]);
  });

  it('makes a group in error focusable, for the summary\'s link', () => {
    const marks = new FieldMarks({ scopes: 'Unknown.' });
    expect(marks.attributes('scopes', { group: true })).toBe(' aria-describedby="scopes-error" aria-invalid="true" tabindex="-1"');
    expect(marks.attributes('other', { group: true })).toBe('');
  });

  it('lists the problems in the form\'s order, fields it does not know last, labelled where a label exists', () => {
    const marks = new FieldMarks({ later: 'Added later.', uri: 'Bad.', name: 'Missing.' }, labels, ['name', 'uri']);
    expect(marks.problems).toEqual([
      { id: 'name', label: 'Name', message: 'Missing.' },
      { id: 'uri', label: 'URI', message: 'Bad.' },
      { id: 'later', label: undefined, message: 'Added later.' },
    ]);
  });

  it('escapes what it writes into the page', () => {
    const marks = new FieldMarks({ 'a"b': '<script>&\'' });
    expect(marks.message('a"b')).toBe('<p class="field-error" id="a&quot;b-error">&lt;script&gt;&amp;&#39;</p>');
    expect(marks.attributes('a"b')).toBe(' aria-describedby="a&quot;b-error" aria-invalid="true"');
  });
});
