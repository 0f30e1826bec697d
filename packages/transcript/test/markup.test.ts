import { stripMarkup } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// What is markup in cue text (removed before labels are read and KPIs counted) and what is speech
// that merely looks like it ("2<3 and 5>4", "{braces}").
describe('stripMarkup', () => {
  it.each([
    ['<i>hello</i>', 'hello'],
    ['<b>Rita:</b> hi', 'Rita: hi'],
    ['<font color="red">x</font>', 'x'],
    ['<v Rita Rep>hi</v>', 'hi'],
    ['<00:00:01.000>word', 'word'],
    ['<9>x', 'x'],
    ['<a>x<z>y<A>z<Z>', 'xyz'],
    ['{\\an8}top', 'top'],
    ['{\\i1}a{\\i0}b', 'ab'],
    ['x<a<b>y', 'x<ay'], // a '<' inside a tag ends the scan there; the next one is the tag
    ['{\\a{\\b}c', '{\\ac'],
    ['</>', ''],
  ])('%j → %j', (text, stripped) => {
    expect(stripMarkup(text)).toBe(stripped);
  });

  it.each([
    '2<3 and 5>4', // a digit after '<' is a tag only as a WebVTT timestamp
    'x<0a>y',
    'x<9a>y',
    'x<1-2>y',
    'x<1/2>y',
    'a <@b> c', // '@' is just before 'A'
    'a <[b> c', // '[' is just after 'Z'
    'a <`b> c', // '`' is just before 'a'
    'a <{b> c', // '{' is just after 'z'
    'a <.b> c', // '.' is just before '/'
    'a <:b> c', // ':' is just after '9'
    'x<a\nb>y', // a tag never spans lines
    'x<i', // unclosed
    'a<',
    '<',
    '{braces}',
    'a\\b}c',
    'x{\\a\nb}y',
    'x{\\a',
    '{\\',
    '{',
    'plain text',
  ])('%j is kept as written', (text) => {
    expect(stripMarkup(text)).toBe(text);
  });

  it('timestamp tags may hold digits, colons and dots only', () => {
    expect(stripMarkup('a<0:00:01.500>b')).toBe('ab');
    expect(stripMarkup('a<01.5>b')).toBe('ab');
    expect(stripMarkup('a<1:5;>b')).toBe('a<1:5;>b');
  });

  it('keeps the text between and after tags', () => {
    expect(stripMarkup('one <i>two</i> three {\\b1}four{\\b0} five')).toBe(
      'one two three four five',
    );
  });
});
