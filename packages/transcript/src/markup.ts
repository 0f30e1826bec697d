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
  const n = s.length;
  let i = 0;
  // Stryker disable next-line EqualityOperator: at n the NaN read matches nothing either.
  while (i < n) {
    const c = s.charCodeAt(i);
    // Reading at or past the end gives NaN, which is no tag start, no '>' and no '}': the bounds
    // below are only where the scan stops.
    if (c === 0x3c /* < */ && isTagStart(s.charCodeAt(i + 1))) {
      let j = i + 1;
      // Stryker disable next-line EqualityOperator: at n the NaN read matches nothing either.
      while (j < n) {
        const d = s.charCodeAt(j);
        if (d === 0x3e || d === 0x3c || d === 0x0a) break;
        j++;
      }
      if (s.charCodeAt(j) === 0x3e) {
        // A '<' followed by a digit is a tag only when it is a WebVTT timestamp (digits, ':', '.').
        if (!isDigitTagOk(s, i + 1, j)) {
          i = j;
          continue;
        }
        out += s.slice(last, i);
        last = j + 1;
        i = last;
        continue;
      }
      i = j;
      continue;
    }
    if (c === 0x7b /* { */ && s.charCodeAt(i + 1) === 0x5c /* \ */) {
      let j = i + 2;
      // Stryker disable next-line EqualityOperator: at n the NaN read matches nothing either.
      while (j < n) {
        const d = s.charCodeAt(j);
        if (d === 0x7d || d === 0x7b || d === 0x0a) break;
        j++;
      }
      if (s.charCodeAt(j) === 0x7d) {
        out += s.slice(last, i);
        last = j + 1;
        i = last;
        continue;
      }
      i = j;
      continue;
    }
    i++;
  }
  return out + s.slice(last);
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
