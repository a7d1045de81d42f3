/* The run, from options to the end record. Portable: both builds call it. */
#ifndef BAREMARK_APP_H
#define BAREMARK_APP_H

#define BAREMARK_VERSION "0.1.0"

/* Exit status of a run. */
enum app_status {
    APP_OK = 0,          /* every step ran, no error record */
    APP_ERRORS = 1,      /* finished, with error records */
    APP_BAD_OPTIONS = 2, /* stopped before any work: bad options */
    APP_ABORTED = 3,     /* Esc */
};

/* Run baremark. Returns an app_status; *exit_mode says how to leave. */
int baremark_main(int *exit_mode);

#endif
