/* The grid a layout draws into: text placed in cells, nothing else, so that
 * the layout and the parts it places (screen_map.c) draw the same way
 * without calling each other. */
#include "screen_private.h"

/* Text into the grid at (col, row), at most width cells; returns cells written. */
unsigned screen_put(struct screen_grid *g, unsigned col, unsigned row, enum plat_colour colour, const char *s,
                    unsigned width)
{
    unsigned n = 0;

    if (row >= g->rows)
        return 0;
    while (s && *s && col + n < g->cols && n < width) {
        uint32_t cp;
        s += bm_utf8_next(s, &cp);
        g->ch[row][col + n] = cp == BM_UTF8_INVALID ? '?' : cp;
        g->colour[row][col + n] = (uint8_t)colour;
        n++;
    }
    return n;
}
