/* util: what monitor-bench and monitor-control share besides the scanner
 * and the workload: fatal errors, allocation, unix socket addresses. */

#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H 1

#include <stddef.h>
#include <sys/un.h>

/* The program's name, for fatal(): set by main(). */
extern const char *program_name;

/* Prints "PROGRAM: MESSAGE" to stderr and exits with status 1. */
void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* realloc() that fails with fatal(). */
void *xrealloc(void *, size_t);

/* Fills 'sun' with the address of the unix socket 'path', or fails. */
void unix_address(struct sockaddr_un *sun, const char *path);

#endif /* util.h */
