// Strips HTML-like tags (`<i>`, `</font>`, `<v Name>`, `<00:00:01.000>`) and ASS override blocks
// (`{\an8}`) from cue text. Linear: a scan from '<' stops at the next '<' or '>', so every
// character is visited at most twice, even for `<<<<…>>>>`. Text such as `2<3 and 5>4` is kept.

function isTagStart(c: number): boolean {
  // letter, '/', or digit (WebVTT timestamp tags)
  return (
    (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2f || (c >= 0x30 && c <= 0x39)
  );
}

/** True when the text may contain markup (cheap pre-check before stripMarkup). */
export function mayHaveMarkup(s: string): boolean {
  return s.indexOf('<') >= 0 || s.indexOf('{') >= 0;
}

export function stripMarkup(s: string): string {
  if (!mayHaveMarkup(s)) return s;
  let out = '';
  let last = 0;
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 0x3c /* < */ && i + 1 < n && isTagStart(s.charCodeAt(i + 1))) {
      let j = i + 1;
      while (j < n) {
        const d = s.charCodeAt(j);
        if (d === 0x3e || d === 0x3c || d === 0x0a) break;
        j++;
      }
      if (j < n && s.charCodeAt(j) === 0x3e) {
        // A '<' followed by a digit is a tag only when it is a WebVTT timestamp (digits, ':', '.').
        if (!isDigitTagOk(s, i + 1, j)) {
          i = j;
          continue;
        }
        out += s.slice(last, i);
        last = j + 1;
        i = j + 1;
        continue;
      }
      i = j;
      continue;
    }
    if (c === 0x7b /* { */ && s.charCodeAt(i + 1) === 0x5c /* \ */) {
      let j = i + 2;
      while (j < n) {
        const d = s.charCodeAt(j);
        if (d === 0x7d || d === 0x7b || d === 0x0a) break;
        j++;
      }
      if (j < n && s.charCodeAt(j) === 0x7d) {
        out += s.slice(last, i);
        last = j + 1;
        i = j + 1;
        continue;
      }
      i = j;
      continue;
    }
    i++;
  }
  return last === 0 ? s : out + s.slice(last);
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
