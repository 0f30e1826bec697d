import { EXPORT_RESOURCES } from '@rcs/client';
import { DEFAULT_OUT_DIR } from '@rcs/export';
import { describe, expect, it } from 'vitest';
import { DEMO_OUT_DIR } from '../../src/commands/demo.js';
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

  it("demo's --out default is DEMO_OUT_DIR, a directory of its own (never export's)", () => {
    const program = buildProgram({} as CliIO, () => {});
    const demo = program.commands.find((c) => c.name() === 'demo');
    const out = demo?.options.find((o) => o.long === '--out');
    expect(out?.defaultValue).toBe(DEMO_OUT_DIR);
    expect(DEMO_OUT_DIR).not.toBe(DEFAULT_OUT_DIR);
  });
});
