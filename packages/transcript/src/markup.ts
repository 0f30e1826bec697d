// Strips HTML-like tags (`<i>`, `</font>`, `<v Name>`, `<00:00:01.000>`) and ASS override blocks
// (`{\an8}`) from cue text. Linear: a scan from '<' stops at the next '<' or '>', so every
// character is visited at most twice, even for `<<<<…>>>>`. Text such as `2<3 and 5>4` is kept.

function isTagStart(c: number): boolean {
  // letter, '/', or digit (WebVTT timestamp tags)
  return (
    (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2f || (c >= 0x30 && c <= 0x39)
  );
}

export function stripMarkup(s: string): string {
  let out = '';
  let last = 0;
  let i = 0;
  // Stryker disable next-line EqualityOperator: at n the NaN read matches nothing either.
  while (i < s.length) {
    const c = s.charCodeAt(i);
    // Reading at or past the end gives NaN, which is no tag start, no '>' and no '}': the bounds
    // below are only where the scan stops.
    let close = -1;
    if (c === 0x3c /* < */ && isTagStart(s.charCodeAt(i + 1))) close = 0x3e; /* > */
    else if (c === 0x7b /* { */ && s.charCodeAt(i + 1) === 0x5c /* \ */) close = 0x7d; /* } */
    if (close === -1) {
      i++;
      continue;
    }
    const j = scanTo(s, i + 1, c, close);
    // A '<' followed by a digit is a tag only when it is a WebVTT timestamp (digits, ':', '.');
    // an ASS block starts with '\', never a digit.
    if (s.charCodeAt(j) === close && isDigitTagOk(s, i + 1, j)) {
      out += s.slice(last, i);
      last = j + 1;
      i = last;
    } else i = j;
  }
  return out + s.slice(last);
}

/** From `j`, the first `close`, `open` or line break (or the end): a tag ends only at `close`. */
function scanTo(s: string, j: number, open: number, close: number): number {
  // Stryker disable next-line EqualityOperator: at n the NaN read matches nothing either.
  while (j < s.length) {
    const d = s.charCodeAt(j);
    if (d === close || d === open || d === 0x0a) break;
    j++;
  }
  return j;
}

function isDigitTagOk(s: string, from: number, to: number): boolean {
  const c = s.charCodeAt(from);
  if (!(c >= 0x30 && c <= 0x39)) return true;
  for (let k = from; k < to; k++) {
    const d = s.charCodeAt(k);
    if (!((d >= 0x30 && d <= 0x39) || d === 0x3a || d === 0x2e)) return false;
  }
  return true;
}
