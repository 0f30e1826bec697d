/*
 * An LD_PRELOAD shim for the upload crash test (upload-crash.test.ts): it finds the commit
 * points of `rcs upload` by tracing every write and fsync of the ledger file, and kills the
 * process (SIGKILL, no chance to clean up) at one of them.
 *
 * Each write or fsync of a file whose path ends with RCS_CRASH_FILE is two points: just before
 * the call (point 2k) and just after it (point 2k+1).
 *   RCS_CRASH_TRACE=path  appends one line per point: "<n> before|after <call>"
 *   RCS_CRASH_AT=n        SIGKILLs the process at point n
 * Built by the test with `cc -shared -fPIC`; Linux only (/proc/self/fd).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long points = 0;

static int is_ledger(int fd) {
  const char *suffix = getenv("RCS_CRASH_FILE");
  if (suffix == NULL || *suffix == '\0') return 0;
  char link[64];
  char path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  size_t l = strlen(suffix);
  return (size_t)n >= l && strcmp(path + n - l, suffix) == 0;
}

static void point(const char *when, const char *call) {
  long n = __atomic_fetch_add(&points, 1, __ATOMIC_SEQ_CST);
  const char *trace = getenv("RCS_CRASH_TRACE");
  if (trace != NULL && *trace != '\0') {
    static ssize_t (*real_write)(int, const void *, size_t);
    if (real_write == NULL) {
      real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    }
    int fd = open(trace, O_WRONLY | O_APPEND | O_CREAT, 0600);
    if (fd >= 0) {
      char line[128];
      int len = snprintf(line, sizeof line, "%ld %s %s\n", n, when, call);
      real_write(fd, line, (size_t)len);
      close(fd);
    }
  }
  const char *at = getenv("RCS_CRASH_AT");
  if (at != NULL && *at != '\0' && strtol(at, NULL, 10) == n) kill(getpid(), SIGKILL);
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwritev_fn)(int, const struct iovec *, int, off_t);
typedef int (*sync_fn)(int);
typedef int (*rename_fn)(const char *, const char *);

#define REAL(name, type) \
  static type real = NULL; \
  if (real == NULL) real = (type)dlsym(RTLD_NEXT, name)

#define TRACED(fd, name, call) \
  do { \
    int traced = is_ledger(fd); \
    if (traced) point("before", name); \
    __typeof__(call) result = call; \
    if (traced) point("after", name); \
    return result; \
  } while (0)

ssize_t write(int fd, const void *buf, size_t count) {
  REAL("write", write_fn);
  TRACED(fd, "write", real(fd, buf, count));
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
  REAL("writev", writev_fn);
  TRACED(fd, "writev", real(fd, iov, iovcnt));
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
  REAL("pwrite", pwrite_fn);
  TRACED(fd, "pwrite", real(fd, buf, count, offset));
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
  REAL("pwrite64", pwrite_fn);
  TRACED(fd, "pwrite", real(fd, buf, count, offset));
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
  REAL("pwritev", pwritev_fn);
  TRACED(fd, "pwritev", real(fd, iov, iovcnt, offset));
}

int fsync(int fd) {
  REAL("fsync", sync_fn);
  TRACED(fd, "fsync", real(fd));
}

int fdatasync(int fd) {
  REAL("fdatasync", sync_fn);
  TRACED(fd, "fdatasync", real(fd));
}

int rename(const char *from, const char *to) {
  REAL("rename", rename_fn);
  /* The ledger is never renamed today; a rename onto it would be a commit point too. */
  const char *suffix = getenv("RCS_CRASH_FILE");
  size_t l = suffix ? strlen(suffix) : 0;
  size_t n = strlen(to);
  int traced = l > 0 && n >= l && strcmp(to + n - l, suffix) == 0;
  if (traced) point("before", "rename");
  int result = real(from, to);
  if (traced) point("after", "rename");
  return result;
}
