/**
 * `@rcs/export/internal`: plumbing the export engine shares with the `rcs` command, published so
 * that the command imports it through the package's `exports` rather than its files. Not for
 * users: no semver promise, and it may change in any release. Everything a user needs is in
 * `@rcs/export` (README.md).
 *
 * The lock file (`acquireLock`) is the export's, taken by `rcs upload` for its ledger too
 * (waiting, not refusing). What these throw, `UnsafeFileError`, is the main entry's.
 */
export {
  acquireLock,
  type FileLock,
  type LockOptions,
  type LockOwner,
} from './files/lock.js';
export { type OpenPurpose, openNoFollowSync } from './files/safe-open.js';
