/*
 * crash-at.so: an LD_PRELOAD shim for the crash-injection test (issue 25). It counts the calls
 * of the file-system commit points (rename, renameat, renameat2, fsync, fdatasync) and, when
 * CRASH_AT=N is set, SIGKILLs the process at the Nth call: before the call by default, after it
 * with CRASH_WHEN=after. With CRASH_TRACE=FILE, each call appends one line "<n> <name>" to FILE
 * (to count the calls of a clean run). Test-only: built by the test with `cc`, never shipped.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long counter;

static long point(const char *name, long after) {
  static long at = -1;
  static int crash_after = -1;
  if (at < 0) {
    const char *text = getenv("CRASH_AT");
    at = text ? atol(text) : 0;
    const char *when = getenv("CRASH_WHEN");
    crash_after = when && strcmp(when, "after") == 0;
  }
  if (after) {
    /* `after` is the number this call was given before it ran. */
    if (crash_after && after == at) kill(getpid(), SIGKILL);
    return 0;
  }
  long n = __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST);
  const char *trace = getenv("CRASH_TRACE");
  if (trace) {
    int fd = open(trace, O_WRONLY | O_APPEND | O_CREAT, 0600);
    if (fd >= 0) {
      char line[64];
      int len = snprintf(line, sizeof line, "%ld %s\n", n, name);
      if (write(fd, line, len) < 0) { /* best effort */ }
      close(fd);
    }
  }
  if (!crash_after && n == at) kill(getpid(), SIGKILL);
  return n;
}

#define NEXT(fn) static __typeof__(fn) *next; if (!next) next = dlsym(RTLD_NEXT, #fn)

int rename(const char *a, const char *b) {
  NEXT(rename);
  long n = point("rename", 0);
  int r = next(a, b);
  point("rename", n);
  return r;
}

int renameat(int d1, const char *a, int d2, const char *b) {
  NEXT(renameat);
  long n = point("renameat", 0);
  int r = next(d1, a, d2, b);
  point("renameat", n);
  return r;
}

int renameat2(int d1, const char *a, int d2, const char *b, unsigned int flags) {
  NEXT(renameat2);
  long n = point("renameat2", 0);
  int r = next(d1, a, d2, b, flags);
  point("renameat2", n);
  return r;
}

int fsync(int fd) {
  NEXT(fsync);
  long n = point("fsync", 0);
  int r = next(fd);
  point("fsync", n);
  return r;
}

int fdatasync(int fd) {
  NEXT(fdatasync);
  long n = point("fdatasync", 0);
  int r = next(fd);
  point("fdatasync", n);
  return r;
}
