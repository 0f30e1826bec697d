// The API report of every published entry point (API Extractor), so that each change to a public
// surface shows in review as a diff of packages/<package>/api/*.api.md. Reads the built type
// declarations (dist/*.d.ts): run after `npm run build`.
//
//   node scripts/api-report.mjs            check (npm test): exit 1 when a surface changed
//   node scripts/api-report.mjs --update   write the reports (npm run api:update builds first)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** [package folder, the entry's .d.ts in dist, report name]: every `exports` entry with types. */
const ENTRIES = [
  ['transcript', 'index.d.ts', 'transcript'],
  ['client', 'index.d.ts', 'client'],
  ['client', 'otel.d.ts', 'client-otel'],
  ['client', 'internal.d.ts', 'client-internal'],
  ['mock', 'index.d.ts', 'mock'],
  ['mock', 'node.d.ts', 'mock-node'],
  ['export', 'index.d.ts', 'export'],
  ['export', 'internal.d.ts', 'export-internal'],
];

const update = process.argv.includes('--update');
const temp = mkdtempSync(join(tmpdir(), 'rcs-api-report-'));
const changed = [];
try {
  for (const [pkg, dts, name] of ENTRIES) {
    const projectFolder = join(ROOT, 'packages', pkg);
    const entry = join(projectFolder, 'dist', dts);
    if (update) mkdirSync(join(projectFolder, 'api'), { recursive: true });
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder,
        mainEntryPointFilePath: entry,
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: 'es2022',
              module: 'nodenext',
              moduleResolution: 'nodenext',
              lib: ['es2023', 'dom'],
              types: ['node'],
              strict: true,
              skipLibCheck: true,
            },
            files: [entry],
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: `${name}.api.md`,
          reportFolder: join(projectFolder, 'api'),
          reportTempFolder: temp,
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        newlineKind: 'lf',
        messages: {
          compilerMessageReporting: { default: { logLevel: 'warning' } },
          // The report is the review tool; release tags and TSDoc style are not used here.
          extractorMessageReporting: {
            default: { logLevel: 'none' },
            'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
          },
          tsdocMessageReporting: { default: { logLevel: 'none' } },
        },
      },
      configObjectFullPath: join(projectFolder, 'api-extractor.json'),
      packageJsonFullPath: join(projectFolder, 'package.json'),
    });
    const result = Extractor.invoke(config, {
      localBuild: update,
      showVerboseMessages: false,
      messageCallback: (message) => {
        // API Extractor's own notes ("analysis will use the bundled TypeScript version") are noise.
        if (message.messageId === 'console-compiler-version-notice') message.handled = true;
      },
    });
    if (result.errorCount > 0) throw new Error(`API Extractor failed on ${entry}`);
    if (result.apiReportChanged && !update) {
      const report = `packages/${pkg}/api/${name}.api.md`;
      changed.push(report);
      // What changed, as a reviewer sees it (the report as committed, then as built now).
      spawnSync(
        'git',
        ['diff', '--no-index', '--', join(ROOT, report), join(temp, `${name}.api.md`)],
        {
          stdio: 'inherit',
        },
      );
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
if (changed.length > 0) {
  console.error(
    `\nThe public API changed (${changed.join(', ')}): if the difference above is meant, ` +
      'run `npm run api:update` and commit the reports with the change.',
  );
  process.exit(1);
}
console.log(update ? 'API reports written.' : 'API reports match the packages.');
