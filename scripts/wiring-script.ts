import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { Script } from 'node:vm';

/**
 * Turns the CLI's wiring chunk (esbuild's ESM output for packages/cli/src/wiring.ts: commander,
 * program.ts and the command declarations) into a classic script that dist/rcs.js runs with
 * `vm.Script` (bench/cli, start-up). Why: Node's compile cache stores the V8 code cache of an ES
 * module as compiled *before* it runs, so every function `rcs --help` calls (most of commander)
 * was compiled again on every start. A script's code cache can be made after it ran
 * (`script.createCachedData()`), which includes them.
 *
 * The script is one function expression, `(async function (__rcsImport, __rcsRequire,
 * __rcsImportMetaUrl) {…})`: static imports become `const {…} = await __rcsImport("…")` (hoisted,
 * in order, as ESM links them first), or `__rcsRequire("…")` for Node's built-ins, `import(…)`
 * becomes `__rcsImport(…)`, `import.meta.url` becomes `__rcsImportMetaUrl`, and the chunk's
 * `export {…}` becomes the function's return value. Anything else ESM-only fails the build rather
 * than the run. The first line carries a hash of the text (part of the code cache's key).
 */
export function toWiringScript(esm: string): string {
  let body = esm.replace(/^#!.*\n/, '');
  const imports: string[] = [];
  body = body.replace(
    /^import\s+(?:([\w$]+)|\*\s+as\s+([\w$]+)|\{([^}]*)\})?\s*(?:from\s*)?"([^"]+)";[ \t]*$/gm,
    (_, def: string | undefined, ns: string | undefined, named: string | undefined, spec) => {
      const builtin = builtinModules.includes(spec.replace(/^node:/, ''));
      if (builtin && !ns) {
        // Built-ins synchronously (require): no ESM facade to build, no await.
        const from = `__rcsRequire(${JSON.stringify(spec)})`;
        if (def) imports.push(`const ${def} = ${from};`);
        else imports.push(`const { ${bindings(named ?? '')} } = ${from};`);
        return '';
      }
      const from = `await __rcsImport(${JSON.stringify(spec)})`;
      if (def) imports.push(`const { default: ${def} } = ${from};`);
      else if (ns) imports.push(`const ${ns} = ${from};`);
      else if (named !== undefined) imports.push(`const { ${bindings(named)} } = ${from};`);
      else imports.push(`${from};`);
      return '';
    },
  );
  let exported: string | undefined;
  body = body.replace(/^export\s*\{([^}]*)\};?[ \t]*$/gm, (_, names: string) => {
    if (exported !== undefined) throw new Error('wiring chunk: more than one export statement');
    exported = `return { ${names
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean)
      .map((n) => {
        const [local, as] = n.split(/\s+as\s+/);
        return as ? `${as}: ${local}` : local;
      })
      .join(', ')} };`;
    return '';
  });
  body = body
    .replaceAll('import.meta.url', '__rcsImportMetaUrl')
    .replace(/\bimport\(/g, '__rcsImport(');
  // Whatever is left of `import`/`export` as syntax would be a SyntaxError or a dynamic import
  // without a loader: refuse it here.
  const left =
    body.match(/\bimport\.meta\b/) ??
    body.match(
      /^\s*(import\s*[{*"']|import\s+[\w$]+\s*(,|from)|export\s*[{*]|export\s+(default|const|let|var|function|class|async)\b)/m,
    );
  if (left) throw new Error(`wiring chunk: ESM syntax left after the conversion: ${left[0]}`);
  const code = `"use strict";\n${imports.join('\n')}\n${body}\n${exported ?? ''}\n`;
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const script = `// rcs-wiring ${hash}\n(async function (__rcsImport, __rcsRequire, __rcsImportMetaUrl) {${code}})\n`;
  new Script(script); // a syntax check
  return script;
}

function bindings(named: string): string {
  return named
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => n.replace(/\s+as\s+/, ': '))
    .join(', ');
}

/** Rewrites the built file in place (tsup's onSuccess for the CLI). */
export function convertWiringFile(path: string): void {
  writeFileSync(path, toWiringScript(readFileSync(path, 'utf8')));
}
