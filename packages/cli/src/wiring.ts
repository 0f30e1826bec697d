/**
 * The wiring: commander, program.ts and the command declarations, i.e. everything `rcs --help`
 * runs. Built as dist/wiring.js and then turned into a classic script (scripts/wiring-script.ts)
 * that main.ts runs with a V8 code cache made after a run (start-up, bench/cli).
 */
export { runFromProcess, warmHelp } from './program.js';
