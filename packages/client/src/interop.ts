/**
 * The default export of a dependency, in both of our builds. In the CommonJS bundle, tsup/esbuild
 * wraps `require()` in Node-mode interop, which makes the default import the module object when
 * the dependency does not mark itself `__esModule` (openapi-fetch's CJS build) or is ESM loaded
 * through require(esm) (p-limit 7). The function is then that object's `default`.
 */
export function defaultExport<T>(imported: T): T {
  return typeof imported === 'function'
    ? imported
    : (imported as unknown as { default: T }).default;
}
