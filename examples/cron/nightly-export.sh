#!/usr/bin/env bash
# Nightly export of all nine resources to a dated directory, for cron.
#
#   RCS_BASE_URL, RCS_API_KEY (or RCS_PROFILE)  where and as whom (see `rcs config`)
#   RCS_EXPORT_ROOT  where the dated directories go (default: $HOME/rcs-exports)
#   RCS_EXPORT_LOCK  lock file against overlapping runs (default: /tmp/rcs-nightly-export.lock)
#   RCS_BIN          how to call rcs (default: rcs)
#
# Exit status: 0 done; rcs's own code when the export failed (1 service/network, 2 usage,
# 4 credentials, 130 interrupted); 75 (EX_TEMPFAIL) when a previous run still holds the lock.
set -euo pipefail

root="${RCS_EXPORT_ROOT:-$HOME/rcs-exports}"
lock="${RCS_EXPORT_LOCK:-/tmp/rcs-nightly-export.lock}"
read -r -a rcs <<<"${RCS_BIN:-rcs}"
# glibc keeps freed memory in one malloc arena per thread; two arenas take a million-record export's
# peak RSS down by 10-25 % (bench/export/README.md). Read once at process start, hence here.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"

# One run at a time: a slow export must not overlap the next night's (flock where available,
# an atomic mkdir elsewhere, e.g. macOS).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$lock"
  if ! flock -n 9; then
    echo "rcs nightly export: another run holds $lock; not starting" >&2
    exit 75
  fi
else
  if ! mkdir "$lock.d" 2>/dev/null; then
    echo "rcs nightly export: another run holds $lock.d; not starting" >&2
    exit 75
  fi
  trap 'rmdir "$lock.d"' EXIT
fi

out="$root/$(date -u +%F)"
mkdir -p "$root"
# rcs writes each file aside and renames it when complete, so $out never holds half a file.
if "${rcs[@]}" --quiet export all --out "$out"; then
  echo "rcs nightly export: wrote $out"
else
  status=$?
  echo "rcs nightly export: failed with exit $status (see rcs help exit-codes)" >&2
  exit "$status"
fi
