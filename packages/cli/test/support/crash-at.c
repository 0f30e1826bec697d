/*
 * crash-at.so: the LD_PRELOAD shim of the crash-injection tests: export-crash.test.ts
 * (`rcs export --changes` under the nightly load) and upload-crash.test.ts (the upload ledger).
 * It numbers the calls that are commit points and SIGKILLs the process (no chance to clean up)
 * at one of them, so a test can trace a clean run, then kill a run at each point in turn.
 *
 *   CRASH_CALLS=rename,fsync,write  which calls are points (default "rename,fsync"):
 *                                   rename = rename, renameat, renameat2;
 *                                   fsync = fsync, fdatasync;
 *                                   write = write, writev, pwrite, pwrite64, pwritev
 *   CRASH_FILE=suffix               only calls on a file whose path ends with suffix count (the
 *                                   fd's path from /proc/self/fd; a rename's destination as given)
 *   CRASH_TRACE=FILE                each point appends "<n> <call>" to FILE (n from 1)
 *   CRASH_AT=n                      SIGKILL at point n: before the call, or after it with
 *   CRASH_WHEN=after                CRASH_WHEN=after
 *
 * Test-only: built by the tests with `cc -shared -fPIC … -ldl`, never shipped. Linux only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { RENAME = 1, FSYNC = 2, WRITE = 4 };

static int calls = RENAME | FSYNC;
static const char *file_suffix;
static const char *trace;
static long at;
static int crash_after;
static long counter;

/* Read once, when the library is loaded (before any thread of the process runs). */
__attribute__((constructor)) static void configure(void) {
  const char *kinds = getenv("CRASH_CALLS");
  if (kinds && *kinds) {
    calls = (strstr(kinds, "rename") ? RENAME : 0) | (strstr(kinds, "fsync") ? FSYNC : 0) |
            (strstr(kinds, "write") ? WRITE : 0);
  }
  const char *suffix = getenv("CRASH_FILE");
  file_suffix = suffix && *suffix ? suffix : NULL;
  const char *path = getenv("CRASH_TRACE");
  trace = path && *path ? path : NULL;
  const char *n = getenv("CRASH_AT");
  at = n ? atol(n) : 0;
  const char *when = getenv("CRASH_WHEN");
  crash_after = when && strcmp(when, "after") == 0;
}

static int ends_with(const char *text, size_t length, const char *suffix) {
  size_t l = strlen(suffix);
  return length >= l && strcmp(text + length - l, suffix) == 0;
}

/* Whether a call of this kind on this fd (or, for a rename, to this path) is a point. */
static int counts(int kind, int fd, const char *to) {
  if (!(calls & kind)) return 0;
  if (file_suffix == NULL) return 1;
  if (to != NULL) return ends_with(to, strlen(to), file_suffix);
  char link[64];
  char path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  return ends_with(path, (size_t)n, file_suffix);
}

/* Before a counted call: its number (from 1), traced, and the kill when it is CRASH_AT. */
static long before(const char *name) {
  long n = __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST);
  if (trace) {
    int fd = open(trace, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
      char line[64];
      int len = snprintf(line, sizeof line, "%ld %s\n", n, name);
      /* The system call itself: this shim's write() would look at the trace file too. */
      if (syscall(SYS_write, fd, line, (size_t)len) < 0) { /* best effort */ }
      close(fd);
    }
  }
  if (!crash_after && n == at) kill(getpid(), SIGKILL);
  return n;
}

static void after(long n) {
  if (crash_after && n == at) kill(getpid(), SIGKILL);
}

#define NEXT(fn) \
  static __typeof__(fn) *next; \
  if (!next) next = dlsym(RTLD_NEXT, #fn)

/* The call, numbered before and checked after when it counts. */
#define POINT(kind, fd, to, name, call) \
  do { \
    long n = counts(kind, fd, to) ? before(name) : 0; \
    __typeof__(call) result = call; \
    if (n) after(n); \
    return result; \
  } while (0)

int rename(const char *a, const char *b) {
  NEXT(rename);
  POINT(RENAME, -1, b, "rename", next(a, b));
}

int renameat(int d1, const char *a, int d2, const char *b) {
  NEXT(renameat);
  POINT(RENAME, -1, b, "renameat", next(d1, a, d2, b));
}

int renameat2(int d1, const char *a, int d2, const char *b, unsigned int flags) {
  NEXT(renameat2);
  POINT(RENAME, -1, b, "renameat2", next(d1, a, d2, b, flags));
}

int fsync(int fd) {
  NEXT(fsync);
  POINT(FSYNC, fd, NULL, "fsync", next(fd));
}

int fdatasync(int fd) {
  NEXT(fdatasync);
  POINT(FSYNC, fd, NULL, "fdatasync", next(fd));
}

ssize_t write(int fd, const void *buf, size_t count) {
  NEXT(write);
  POINT(WRITE, fd, NULL, "write", next(fd, buf, count));
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
  NEXT(writev);
  POINT(WRITE, fd, NULL, "writev", next(fd, iov, iovcnt));
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
  NEXT(pwrite);
  POINT(WRITE, fd, NULL, "pwrite", next(fd, buf, count, offset));
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
  NEXT(pwrite64);
  POINT(WRITE, fd, NULL, "pwrite", next(fd, buf, count, offset));
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
  NEXT(pwritev);
  POINT(WRITE, fd, NULL, "pwritev", next(fd, iov, iovcnt, offset));
}
