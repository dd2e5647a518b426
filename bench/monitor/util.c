/* util: see util.h. */

#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

const char *program_name = "monitor-bench";

void
fatal(const char *fmt, ...)
{
    va_list args;

    fprintf(stderr, "%s: ", program_name);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

void *
xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fatal("out of memory");
    }
    return p;
}

void
unix_address(struct sockaddr_un *sun, const char *path)
{
    memset(sun, 0, sizeof *sun);
    sun->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sun->sun_path) {
        fatal("socket path too long: %s", path);
    }
    strcpy(sun->sun_path, path);
}
