/* test_fault= : a real CPU exception on purpose, so a test can see what the
 * platform makes of one (BIOS: an error record and a stop). Only in builds
 * made with BAREMARK_TEST_HOOKS (make bios-testhooks); a release build does
 * not know the option and refuses it like any unknown key. */
#ifndef BAREMARK_TEST_FAULT_H
#define BAREMARK_TEST_FAULT_H

#include <stdbool.h>

#ifdef BAREMARK_TEST_HOOKS
/* ud, gp, pf or de; mc on the BIOS platform (a machine check during a BIOS call). */
bool test_fault_known(const char *kind);
/* A log record naming the exception and the rip it will have, then the
 * fault itself; returns only if the platform resumes after it. */
void test_fault_raise(const char *kind);
#endif

#endif
