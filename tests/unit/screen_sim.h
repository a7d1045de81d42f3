/* What the screen tests share: records into the screen sink, and the
 * simulated console's rows read back (platform_sim.h). Include after
 * cmocka.h. */
#ifndef BAREMARK_TEST_SCREEN_SIM_H
#define BAREMARK_TEST_SCREEN_SIM_H

#include "platform_sim.h"
#include "screen/screen_private.h"

static char row_text[1024];

/* One record (its "type" read from the JSON) into the sink. */
static inline void feed(struct sink *s, const char *json)
{
    char type[32];
    assert_true(screen_json_str(json, "type", type, sizeof(type)));
    s->record(s, type, json, NULL);
}

/* Row r of the simulated console (valid until the next call). */
static inline const char *row(unsigned r)
{
    plat_sim_screen_row(r, row_text, sizeof(row_text));
    return row_text;
}

/* The row holding text, or -1. */
static inline int find_row(unsigned rows, const char *text)
{
    for (unsigned r = 0; r < rows; r++)
        if (strstr(row(r), text))
            return (int)r;
    return -1;
}

#endif
