/* The cases of a test program of lib-json/tests: one "ok NAME" or
 * "FAIL NAME: why" line per case, then "N passed, N failed" (the lines
 * tests/t-lib-json.sh folds into its own).  Include it in the program's
 * one source file. */

#ifndef CASES_H
#define CASES_H 1

#include <stdarg.h>
#include <stdio.h>

static int n_passed, n_failed;
static char case_why[1024];     /* First failure of the current case. */

/* Records the first failure of the current case. */
static void __attribute__((format(printf, 1, 2)))
case_failed(const char *format, ...)
{
    va_list args;

    if (!case_why[0]) {
        va_start(args, format);
        vsnprintf(case_why, sizeof case_why, format, args);
        va_end(args);
    }
}

/* Starts a case. */
static void
case_begin(void)
{
    case_why[0] = '\0';
}

/* Ends the current case, 'name': prints its line and counts it. */
static void
case_end(const char *name)
{
    if (case_why[0]) {
        printf("FAIL %s: %s\n", name, case_why);
        n_failed++;
    } else {
        printf("ok %s\n", name);
        n_passed++;
    }
    fflush(stdout);
    case_why[0] = '\0';
}

/* Prints the closing line.  Returns the program's exit status. */
static int
cases_summary(void)
{
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}

#endif /* cases.h */
