// HTML character references as Teams writes them in names (`Mar&#237;a`) and WebVTT in text.
// A Map, not an object literal: `&toString;` or `&__proto__;` must not find Object.prototype.
const NAMED = new Map<string, string>([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
  ['nbsp', '\u00a0'],
  ['lrm', '\u200e'],
  ['rlm', '\u200f'],
]);

/**
 * Decodes `&name;`, `&#NNN;`, `&#xHH;`. Linear: the next ';' is searched once and kept while
 * the '&'s before it are read (searched again from every '&', a run of them with no ';' after
 * would cost the square of its length). With `keepAngles`, `<` and `>` stay encoded: for text
 * whose decoded brackets would read as a tag (`&lt;Thursday&gt;`), which every later reader would
 * strip as markup, losing the word.
 */
export function decodeEntities(s: string, keepAngles = false): string {
  let out = '';
  let last = 0;
  let i = s.indexOf('&');
  let semi = -1;
  while (i >= 0) {
    // Stryker disable next-line EqualityOperator: s[semi] is ';' and s[i] is '&', never one index.
    if (semi <= i) {
      semi = s.indexOf(';', i + 1);
      if (semi === -1) break; // no ';' after this '&': no reference can end anywhere
    }
    if (semi - i <= 10) {
      const body = s.slice(i + 1, semi);
      let rep: string | undefined;
      if (body.charCodeAt(0) === 0x23 /* # */) {
        const hex = body[1] === 'x' || body[1] === 'X';
        const digits = body.slice(hex ? 2 : 1);
        const valid = hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/;
        const cp = valid.test(digits) ? Number.parseInt(digits, hex ? 16 : 10) : Number.NaN;
        // (NaN fails every comparison.) No NUL, nothing past U+10FFFF, no lone surrogate.
        if (cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff))
          rep = String.fromCodePoint(cp);
      } else rep = NAMED.get(body);
      if (rep !== undefined && !(keepAngles && (rep === '<' || rep === '>'))) {
        out += s.slice(last, i) + rep;
        last = semi + 1;
      }
    }
    i = s.indexOf('&', i + 1);
  }
  return out + s.slice(last);
}
