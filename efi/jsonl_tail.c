/* Where earlier runs' records end in a preallocated results file (see
 * jsonl_tail.h). */
#include "jsonl_tail.h"

#define RUN_PREFIX "{\"type\":\"run\""

static bool blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

void jsonl_tail_scan(const char *img, uint32_t size, struct jsonl_tail *t)
{
    uint32_t last, start = 0;
    bool any = false;

    memset(t, 0, sizeof(*t));
    if (size < 2)
        return;
    /* The last byte that is not blank, before the file's final '\n'. */
    for (last = size - 1; last-- > 0;)
        if (!blank(img[last])) {
            any = true;
            break;
        }
    if (!any)
        return;
    if (last + 1 == size - 1 || img[last + 1] == '\n') {
        /* A whole line: the next run starts after its '\n' (the file's
         * own final '\n' when the records filled the file exactly). */
        t->end = last + 1 == size - 1 ? size - 1 : last + 2;
    } else {
        /* A line cut short (no '\n' after it): it is blanked, and the next
         * run starts where it began. */
        uint32_t ls = last;
        while (ls > 0 && img[ls - 1] != '\n')
            ls--;
        t->end = ls;
        t->cut_bytes = last + 1 - ls;
    }
    /* Count the run records: lines that begin with {"type":"run". */
    for (uint32_t p = 0; p < t->end; p = start) {
        uint32_t q = p;
        while (q < t->end && img[q] != '\n')
            q++;
        if (q - p >= sizeof(RUN_PREFIX) - 1 && !memcmp(img + p, RUN_PREFIX, sizeof(RUN_PREFIX) - 1))
            t->runs++;
        start = q + 1;
    }
}
