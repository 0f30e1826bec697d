#!/usr/bin/env bash
# The nightly job for cron: export the nine resources with --changes and merge them into the
# DuckDB warehouse (nightly-load.mjs beside this file; README.md says how to set it up).
#
#   RCS_PROFILE, or RCS_BASE_URL + RCS_API_KEY   where and as whom (see `rcs config`)
#   RCS_EXPORT_DIR  the export directory, kept from night to night (default: ./export beside this file)
#   RCS_WAREHOUSE   the DuckDB database (default: ./warehouse.duckdb beside this file)
#   RCS_NODE        the node to run (default: node on PATH; cron's PATH is short: set it in crontab)
#
# Exit status: 0 done; rcs's own code when the export failed (1 service/network, 2 usage,
# 4 credentials, 130 interrupted); 1 when the merge failed (rolled back, the next night reloads);
# 75 (EX_TEMPFAIL) when a previous run still holds the lock.
set -euo pipefail

self="$0"
# Run through a symlink (as in the repository's examples/): the loader is beside the real file.
if [ -L "$self" ]; then self="$(dirname "$self")/$(readlink "$self")"; fi
here="$(cd "$(dirname "$self")" && pwd)"
export_dir="${RCS_EXPORT_DIR:-$here/export}"
warehouse="${RCS_WAREHOUSE:-$here/warehouse.duckdb}"
lock="$warehouse.lock"
# glibc keeps freed memory in one malloc arena per thread; two arenas take a million-record
# export's peak RSS down by 10-25 %. Read once at process start, hence here.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"

# One run at a time: a slow night must not overlap the next (flock where available, an atomic
# mkdir elsewhere, e.g. macOS).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$lock"
  if ! flock -n 9; then
    echo "rcs nightly: another run holds $lock; not starting" >&2
    exit 75
  fi
else
  if ! mkdir "$lock.d" 2>/dev/null; then
    echo "rcs nightly: another run holds $lock.d; not starting" >&2
    exit 75
  fi
  trap 'rmdir "$lock.d"' EXIT
fi

# rcs writes each file aside and renames it when complete; the merge is one transaction.
if "${RCS_NODE:-node}" "$here/nightly-load.mjs" "$export_dir" "$warehouse"; then
  echo "rcs nightly: $warehouse holds the night's data"
else
  status=$?
  echo "rcs nightly: failed with exit $status (see rcs help exit-codes)" >&2
  exit "$status"
fi
