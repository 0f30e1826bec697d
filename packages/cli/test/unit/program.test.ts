import { EXPORT_RESOURCES } from '@rcs/client';
import { DEFAULT_OUT_DIR } from '@rcs/export';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/context.js';
import { buildProgram } from '../../src/program.js';

describe('the commander wiring', () => {
  // The help text names the nine without importing the client (start-up, bench/cli): this keeps
  // it equal to EXPORT_TABLE.
  it('export help lists exactly the nine resources of EXPORT_TABLE, then all', () => {
    const program = buildProgram({} as CliIO, () => {});
    const exportCmd = program.commands.find((c) => c.name() === 'export');
    const listed = exportCmd?.registeredArguments[0]?.description
      .replace(/, or all$/, '')
      .split(', ');
    expect(listed).toEqual([...EXPORT_RESOURCES]);
  });

  it("export's --out default is DEFAULT_OUT_DIR (a literal there, for start-up time)", () => {
    const program = buildProgram({} as CliIO, () => {});
    const exportCmd = program.commands.find((c) => c.name() === 'export');
    const out = exportCmd?.options.find((o) => o.long === '--out');
    expect(out?.defaultValue).toBe(DEFAULT_OUT_DIR);
  });
});
