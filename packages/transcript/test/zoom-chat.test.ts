import { importTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { cues, firstLine, imp, SPEAKERS, skipped, timedCues } from './support/imports.js';

// Zoom's saved chat, as one-line messages ("10:00:00 From Ana Ruiz : hi") or in the cloud layout
// (elapsed time, tab, sender): which lines are messages, who sent them, and what is no speech.

describe('Zoom chat: messages, senders and what is no speech', () => {
  it('recognises a chat line by a clock of 5 to 8 characters that parses', () => {
    expect(imp('12:34 From Ana Ruiz : hi', 'zoom-txt').speakers).toHaveLength(1);
    expect(imp('1:02:03 From Ana Ruiz : hi', 'zoom-txt').speakers).toHaveLength(1);
    for (const line of [
      '1:05 From Ana Ruiz : hi',
      '100:00:00 From Ana Ruiz : hi',
      'ab:cd From Ana Ruiz : hi',
      '10:00:00 From Ana Ruiz hello',
      '00:01:05 Ana Ruiz hi',
    ]) {
      const r = imp(line, 'zoom-txt');
      expect(r.speakers).toEqual([]);
      expect(skipped(r)).toEqual([1]);
    }
  });

  it('splits sender and message at " : ", trims both, collapses spaces in the name', () => {
    const r = imp(
      '10:00:00 From Ana Ruiz : see below:\n10:00:05 From  Ben   Okafor  to  Ana Ruiz(Direct Message) :   ok  \n',
      'zoom-txt',
    );
    expect(r.speakers.map((s) => s.name)).toEqual(['Ana Ruiz', 'Ben Okafor']);
    expect(cues(r)).toEqual([
      [0, 'a@x.io', 'see below:'],
      [5000, 'b@x.io', 'ok'],
    ]);
    expect(firstLine(imp('\n\n10:00:00 From Cy : hi', 'zoom-txt'))).toBe(3);
  });

  it('reads a two-line message head with trailing spaces', () => {
    const r = imp('10:00:00 From Ana Ruiz:  \n\thello\n', 'zoom-txt');
    expect(cues(r)).toEqual([[0, 'a@x.io', 'hello']]);
  });

  it('keeps cloud elapsed times as they are (no wall clock), trimming sender and message', () => {
    const r = imp('00:01:05\tAna Ruiz :\t hi \n00:01:09\tBen Okafor:\tho\n', 'zoom-txt');
    expect(cues(r)).toEqual([
      [65_000, 'a@x.io', 'hi'],
      [69_000, 'b@x.io', 'ho'],
    ]);
  });

  it('a reaction is dropped with its continuation lines; a message with text is kept', () => {
    const r = imp(
      '10:00:00 From Ana Ruiz : hello\nReacted to "a long\nquote" with 👍\n10:00:05 From Ben Okafor : hi\n',
      'zoom-txt',
    );
    expect(cues(r)).toEqual([
      [0, 'a@x.io', 'hello'],
      [5000, 'b@x.io', 'hi'],
    ]);
    expect(skipped(r)).toEqual([2, 3]);
    const head = imp('10:00:09 From Ben Okafor : Reacted to "sure" with ❤️   \n', 'zoom-txt');
    expect(head.diagnostics[0]?.message).toBe(
      'Line 1 is not speech (title, date, attendees or a tool notice) and is left out: "10:00:09 From Ben Okafor : Reacted to "sure" with ❤️".',
    );
  });

  it('a reaction drops only its own empty head, never an earlier message, even before any message', () => {
    // Ben's two-line head has no text lines (an attachment): his message stays, empty.
    const r = imp(
      '10:00:00 From Ben Okafor to Everyone:\n10:00:01 From Ana Ruiz to Everyone : Reacted to "a long\nquote" with 👍\n10:00:05 From Ana Ruiz : hi\n',
      'zoom-txt',
    );
    expect(r.speakers.map((s) => [s.name, s.cueCount])).toEqual([
      ['Ben Okafor', 1],
      ['Ana Ruiz', 1],
    ]);
    expect(skipped(r)).toEqual([2, 3]);
    const first = imp('Reacted to "hi" with 👍\n10:00:00 From Ana Ruiz : hello\n', 'zoom-txt');
    expect(skipped(first)).toEqual([1]);
    expect(cues(first)).toEqual([[0, 'a@x.io', 'hello']]);
  });

  it('a local message with no sender before " : " is speech without a speaker', () => {
    expect(cues(imp('10:00:00 From  : hi', 'zoom-txt'))).toEqual([[0, null, 'hi']]);
    const r = imp('10:00:00 From  : the plan is:\n', 'zoom-txt');
    expect(r.speakers).toEqual([]);
    expect(skipped(r)).toEqual([]);
    expect(r.srt).toContain('\nthe plan is:\n');
  });

  it('a cloud line with nothing before ":<TAB>" is no message head', () => {
    const r = imp('00:01:05\t:\thi\n00:01:09\tBen Okafor:\tho\n', 'zoom-txt');
    expect(skipped(r)).toEqual([1]);
    expect(cues(r)).toEqual([[69_000, 'b@x.io', 'ho']]);
  });

  it('a sender is cut before " to " only when a recipient follows', () => {
    const r = imp('10:00:00 From Ana Ruiz to   : hi\n', 'zoom-txt', { 'Ana Ruiz to': 'a@x.io' });
    expect(r.speakers).toEqual([{ name: 'Ana Ruiz to', email: 'a@x.io', cueCount: 1 }]);
  });

  it('Zoom chat: a continuation line before the first message is skipped at its line', () => {
    const r = importTranscript('\n  stray text\n10:00:00 From Ana Ruiz : hi\n', {
      source: 'zoom-txt',
      speakers: SPEAKERS,
    });
    expect(skipped(r)).toEqual([2]);
    expect(timedCues(r)).toEqual([[0, 1000, 'a@x.io', 'hi']]);
  });
});
