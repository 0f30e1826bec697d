/**
 * The id of one `--changes` run (FORMATS.md "The change contract"): the UTC time it started and a
 * random tag, `20261125T204512Z-3fa9c1`. Ids sort in time order; the tag keeps two runs of the
 * same second apart. A consumer records the id of the run it applied and names it with `--ack`.
 */
import { randomBytes } from 'node:crypto';

const RUN_ID = /^\d{8}T\d{6}Z-[0-9a-f]{6}$/;

export function newRunId(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export function isRunId(text: string): boolean {
  return RUN_ID.test(text);
}
