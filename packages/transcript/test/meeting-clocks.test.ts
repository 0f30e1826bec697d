import { describe, expect, it } from 'vitest';
import { parseClock, parseMeetMarker, parseSpeakerHeader } from '../src/importers/clock.js';

// The clocks that meeting-tool exports (Otter, Teams, Meet) are read with: a wrong clock re-times
// a turn. (The character references of those exports: entities.test.ts.)
describe('parseClock: M:SS, MM:SS, H:MM:SS', () => {
  it.each([
    ['0:00', 0],
    ['0:07', 7_000],
    ['12:34', 754_000],
    ['1:02:03', 3_723_000],
    ['100:00', 6_000_000],
    ['999:59:59', (999 * 3600 + 59 * 60 + 59) * 1000],
    ['00:59', 59_000],
    ['1:59:00', 7_140_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseClock(text)).toBe(ms);
  });

  it.each([
    ['', 'empty'],
    ['12', 'no colon'],
    ['1:2:3:4', 'four fields'],
    ['1:02:03:04', 'four fields'],
    [':00', 'empty leading field'],
    ['1000:00', 'leading field of four digits'],
    ['1:5', 'one-digit seconds'],
    ['1:005', 'three-digit seconds'],
    ['1:2:03', 'one-digit minutes'],
    ['0:60', 'seconds of 60'],
    ['1:60:00', 'minutes of 60'],
    ['1:0a', 'a letter'],
    ['1:/0', 'the character before 0'],
    ['1::0', 'the character after 9 (:) inside a field'],
    ['1:0;', 'the character after 9 + 1'],
    ['1: 5', 'a space'],
    ['-1:00', 'a sign'],
    ['1:00 ', 'trailing space'],
  ])('%j is not a clock (%s)', (text) => {
    expect(parseClock(text)).toBeNull();
  });

  it('accepts 99 hours as a leading field and 59 in every later field', () => {
    expect(parseClock('99:59:59')).toBe((99 * 3600 + 59 * 60 + 59) * 1000);
    expect(parseClock('60:00')).toBe(3_600_000); // the leading field has no 60 limit
  });
});

describe('parseMeetMarker: exactly HH:MM:SS', () => {
  it('reads a marker', () => {
    expect(parseMeetMarker('00:01:05')).toBe(65_000);
    expect(parseMeetMarker('10:00:00')).toBe(36_000_000);
  });

  it.each([
    '1:05:00', // seven characters
    '10:30', // a spoken time
    '001:05:0', // eight characters, colon in the wrong place
    '00:0105:', // second colon misplaced
    '0010:5:0',
    '00-01-05',
    '00:01:60',
    '00:01:0x',
  ])('%j is speech, not a marker', (text) => {
    expect(parseMeetMarker(text)).toBeNull();
  });
});

describe('parseSpeakerHeader: Name<2+ spaces>clock', () => {
  it('reads Otter (two spaces) and Teams docx (three spaces) headers', () => {
    expect(parseSpeakerHeader('Rita Rep  0:07')).toEqual({
      name: 'Rita Rep',
      startMs: 7_000,
      spaces: 2,
    });
    expect(parseSpeakerHeader('Paul Prospect   1:02:03')).toEqual({
      name: 'Paul Prospect',
      startMs: 3_723_000,
      spaces: 3,
    });
  });

  it('ignores trailing spaces after the clock and surrounding spaces of the name', () => {
    expect(parseSpeakerHeader('  Rita  0:07   ')).toEqual({
      name: 'Rita',
      startMs: 7_000,
      spaces: 2,
    });
  });

  it.each([
    ['Rita 0:07', 'one space is prose'],
    ['Rita  7 minutes', 'no clock'],
    ['  0:07', 'no name'],
    ['A 0:07', 'too short'],
    ['Rita  0:7', 'bad clock'],
    ['0:07', 'no space at all'],
  ])('%j is not a header (%s)', (line) => {
    expect(parseSpeakerHeader(line)).toBeNull();
  });

  it('a name of 100 characters is a name; 101 is prose', () => {
    expect(parseSpeakerHeader(`${'n'.repeat(100)}  0:07`)?.name).toHaveLength(100);
    expect(parseSpeakerHeader(`${'n'.repeat(101)}  0:07`)).toBeNull();
  });

  it('a two-character name is enough', () => {
    expect(parseSpeakerHeader('Al  0:07')).toEqual({ name: 'Al', startMs: 7_000, spaces: 2 });
  });
});
