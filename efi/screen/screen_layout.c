/* The fixed layout: where each part of the run goes on a grid of a given
 * size (80x25 up to the largest mode a console offers). */
#include "screen_private.h"

#define DISK_BLOCK_COLS 70  /* one disk table: test, read MB/s IOPS p99, write MB/s IOPS p99 */
#define DISK_BLOCK_GAP 3

#define put screen_put

static void fill_row(struct screen_grid *g, unsigned row, enum plat_colour colour)
{
    for (unsigned c = 0; row < g->rows && c < g->cols; c++) {
        g->ch[row][c] = ' ';
        g->colour[row][c] = (uint8_t)colour;
    }
}

/* "Label   value" with the label in its colour. */
static void field(struct screen_grid *g, unsigned row, const char *label, const char *value, enum plat_colour colour)
{
    put(g, 1, row, PLAT_COLOUR_LABEL, label, 8);
    put(g, 9, row, colour, value, g->cols > 10 ? g->cols - 10 : 0);
}

static void minutes(char *buf, size_t cap, double seconds)
{
    unsigned long s = bm_double_to_u64(seconds + 0.5);
    if (s >= 3600)
        snprintf(buf, cap, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, cap, "%lu:%02lu", s / 60, s % 60);
}

static void draw_status(struct screen_grid *g, unsigned row, const struct screen_model *m, const struct config *c,
                        uint64_t now_ns)
{
    char right[96], el[32], lt[32], line[400];
    double left = screen_model_seconds_left(m, c, now_ns);
    unsigned rlen;

    minutes(el, sizeof(el), (double)(now_ns - m->t0_ns) / 1e9);
    if (m->ended)
        snprintf(right, sizeof(right), "%s", "");
    else if (left < 0)
        snprintf(right, sizeof(right), "elapsed %s", el);
    else {
        minutes(lt, sizeof(lt), left);
        /* Narrow consoles keep the room for the test under way. */
        if (g->cols >= 120)
            snprintf(right, sizeof(right), "elapsed %s  about %s left", el, lt);
        else
            snprintf(right, sizeof(right), "about %s left", lt);
    }
    fill_row(g, row, PLAT_COLOUR_TITLE);
    put(g, 1, row, PLAT_COLOUR_TITLE, "Status", 7);
    if (m->ended)
        snprintf(line, sizeof(line), "%s", m->end_line);
    else if (m->progress[0] && !strncmp(m->progress, m->phase, strlen(m->phase)))
        snprintf(line, sizeof(line), "%s", m->progress);
    else
        snprintf(line, sizeof(line), "%s%s%s", m->phase, m->progress[0] ? ": " : "", m->progress);
    rlen = (unsigned)strlen(right);
    put(g, 9, row, PLAT_COLOUR_TITLE, line, g->cols > 11 + rlen ? g->cols - 11 - rlen : 0);
    if (g->cols > rlen + 1)
        put(g, g->cols - rlen - 1, row, PLAT_COLOUR_TITLE, right, rlen);
}

static void figure(char *buf, size_t cap, bool has, double v, int decimals)
{
    if (!has)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.*f", decimals, v);
}

/* Latency at L1/L2/L3/DRAM sizes and bandwidth on 1 and all CPUs. */
static unsigned draw_memory(struct screen_grid *g, unsigned row, const struct screen_model *m)
{
    static const char *const level[4] = { "L1", "L2", "L3", "DRAM" };
    static const char *const op[3] = { "read", "write", "copy" };
    char line[240], part[64];
    size_t n = 0;
    unsigned rows = 0;

    for (unsigned i = 0; i < 4; i++) {
        char size[16];
        if (!m->lat[i].bytes)
            continue;
        if (m->lat[i].bytes >= (1ull << 20))
            snprintf(size, sizeof(size), "%lluM", (unsigned long long)(m->lat[i].bytes >> 20));
        else
            snprintf(size, sizeof(size), "%lluK", (unsigned long long)(m->lat[i].bytes >> 10));
        snprintf(part, sizeof(part), "%s%s %s %.1f ns", n ? "   " : "", level[i], size, m->lat[i].ns);
        n += (size_t)snprintf(line + n, sizeof(line) - n, "%s", part);
    }
    if (n) {
        put(g, 1, row + rows, PLAT_COLOUR_LABEL, "Latency", 8);
        put(g, 9, row + rows++, PLAT_COLOUR_VALUE, line, g->cols - 10);
    }
    n = 0;
    for (unsigned i = 0; i < 3; i++) {
        if (!m->bw[i][0] && !m->bw[i][1])
            continue;
        char one[16], all[16];
        figure(one, sizeof(one), m->bw[i][0] > 0, m->bw[i][0], 2);
        figure(all, sizeof(all), m->bw[i][1] > 0, m->bw[i][1], 2);
        n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s | %s", n ? "   " : "", op[i], one, all);
    }
    if (n) {
        snprintf(line + n, sizeof(line) - n, "   GB/s, 1 CPU | %u CPUs", m->bw_threads);
        put(g, 1, row + rows, PLAT_COLOUR_LABEL, "Memory", 8);
        put(g, 9, row + rows++, PLAT_COLOUR_VALUE, line, g->cols - 10);
    }
    return rows;
}

/* One disk's table at (col, row), at most max_rows rows; returns rows used. */
static unsigned draw_disk(struct screen_grid *g, unsigned col, unsigned row, unsigned max_rows,
                          const struct screen_disk *d)
{
    char line[160], f[6][16];
    unsigned used = 0;

    if (max_rows < 3)
        return 0;
    snprintf(line, sizeof(line), "%s  %s", d->id, d->label);
    put(g, col, row + used++, PLAT_COLOUR_VALUE, line, DISK_BLOCK_COLS);
    snprintf(line, sizeof(line), "%-12s %9s %8s %8s  %9s %8s %8s", "", "read MB/s", "IOPS", "p99 us", "write MB/s",
             "IOPS", "p99 us");
    put(g, col, row + used++, PLAT_COLOUR_LABEL, line, DISK_BLOCK_COLS);
    for (unsigned i = 0; i < d->ntests && used < max_rows; i++) {
        const struct screen_test *t = &d->tests[i];
        if (used + 1 == max_rows && i + 1 < d->ntests) {
            snprintf(line, sizeof(line), "  ... %u more tests in the results file", d->ntests - i);
            put(g, col, row + used++, PLAT_COLOUR_NORMAL, line, DISK_BLOCK_COLS);
            break;
        }
        for (unsigned w = 0; w < 2; w++) {
            figure(f[w * 3], sizeof(f[0]), t->has[w], t->mbps[w], 1);
            figure(f[w * 3 + 1], sizeof(f[0]), t->has[w], t->iops[w], 0);
            figure(f[w * 3 + 2], sizeof(f[0]), t->has[w], t->p99_us[w], 0);
        }
        snprintf(line, sizeof(line), "%-12.12s %9s %8s %8s  %9s %8s %8s", t->name, f[0], f[1], f[2], f[3], f[4], f[5]);
        put(g, col, row + used++, PLAT_COLOUR_NORMAL, line, DISK_BLOCK_COLS);
    }
    return used;
}

static unsigned disk_columns(const struct screen_grid *g)
{
    return MIN(8u, MAX(1u, (g->cols + DISK_BLOCK_GAP - 1) / (DISK_BLOCK_COLS + DISK_BLOCK_GAP)));
}

/* Do all the tables fit whole, side by side as disk_columns() puts them? */
static bool disk_tables_fit(const struct screen_grid *g, unsigned max_rows, const struct screen_model *m)
{
    unsigned ncols = disk_columns(g), height[8] = { 0 };

    for (unsigned i = 0; i < m->ndisks; i++) {
        unsigned c = i % ncols;
        height[c] += 2 + m->disks[i].ntests + 1;
        if (height[c] > max_rows + 1)
            return false;
    }
    return true;
}

/* The line that says how many disks did not fit. */
static void more_disks(struct screen_grid *g, unsigned row, unsigned more)
{
    char line[96];

    snprintf(line, sizeof(line), "... %u more disk%s: see the results file", more, more == 1 ? "" : "s");
    put(g, 1, row, PLAT_COLOUR_WARN, line, g->cols - 2);
}

/* Many disks: one row each (a second for writes), the first four tests
 * as columns: MB/s for sequential tests, IOPS for random ones. */
static unsigned draw_disks_compact(struct screen_grid *g, unsigned top, unsigned max_rows,
                                   const struct screen_model *m)
{
    const char *names[4];
    unsigned nnames = 0, row = 0, i;
    char line[200], cell[16];
    size_t n;

    for (i = 0; i < m->ndisks && !nnames; i++)
        for (unsigned t = 0; t < m->disks[i].ntests && nnames < 4; t++)
            names[nnames++] = m->disks[i].tests[t].name;
    if (max_rows < 3)
        return 0;
    n = (size_t)snprintf(line, sizeof(line), "%-10s %-20s", "disk", "model");
    for (unsigned k = 0; k < nnames; k++)
        n += (size_t)snprintf(line + n, sizeof(line) - n, " %11.11s", names[k]);
    put(g, 1, top + row++, PLAT_COLOUR_LABEL, line, g->cols - 2);
    n = (size_t)snprintf(line, sizeof(line), "%-31s", "");
    for (unsigned k = 0; k < nnames; k++)
        n += (size_t)snprintf(line + n, sizeof(line) - n, " %11s", strncmp(names[k], "RND", 3) ? "MB/s" : "IOPS");
    put(g, 1, top + row++, PLAT_COLOUR_LABEL, line, g->cols - 2);
    for (i = 0; i < m->ndisks; i++) {
        const struct screen_disk *d = &m->disks[i];
        for (unsigned w = 0; w < 2; w++) {
            bool any = false;
            if (row + 1 >= max_rows && (i + 1 < m->ndisks || m->disks_unkept)) {
                more_disks(g, top + row, m->ndisks - i + m->disks_unkept);
                return row + 1;
            }
            n = (size_t)snprintf(line, sizeof(line), "%-10.10s %-20.20s", w ? "" : d->id, w ? "  write" : d->label);
            for (unsigned k = 0; k < nnames; k++) {
                const struct screen_test *t = NULL;
                for (unsigned x = 0; x < d->ntests; x++)
                    if (!strcmp(d->tests[x].name, names[k]))
                        t = &d->tests[x];
                any |= t && t->has[w];
                figure(cell, sizeof(cell), t && t->has[w], !t ? 0 : strncmp(names[k], "RND", 3) ? t->mbps[w] : t->iops[w],
                       strncmp(names[k], "RND", 3) ? 1 : 0);
                n += (size_t)snprintf(line + n, sizeof(line) - n, " %11s", cell);
            }
            if (w == 0 || any)
                put(g, 1, top + row++, PLAT_COLOUR_NORMAL, line, g->cols - 2);
        }
    }
    if (m->disks_unkept && row < max_rows)
        more_disks(g, top + row++, m->disks_unkept);
    return row;
}

/* The disk tables side by side as the width allows, each column filled
 * top down (one compact table when they do not all fit); returns the rows
 * used. */
static unsigned draw_disks(struct screen_grid *g, unsigned top, unsigned max_rows, const struct screen_model *m)
{
    unsigned ncols = disk_columns(g);
    unsigned height[8] = { 0 }, shown = 0, most = 0;

    if (m->ndisks > 1 && !disk_tables_fit(g, max_rows, m))
        return draw_disks_compact(g, top, max_rows, m);
    for (unsigned i = 0; i < m->ndisks; i++) {
        unsigned c = i % ncols, used;
        unsigned room = max_rows > height[c] ? max_rows - height[c] : 0;
        /* Keep a row for the line that says what did not fit. */
        if (i + 1 < m->ndisks && room > 0)
            room--;
        used = draw_disk(g, 1 + c * (DISK_BLOCK_COLS + DISK_BLOCK_GAP), top + height[c], room, &m->disks[i]);
        if (!used)
            break;
        height[c] += used + 1;
        shown++;
    }
    for (unsigned c = 0; c < ncols; c++)
        most = MAX(most, height[c]);
    if (shown < m->ndisks || m->disks_unkept) {
        more_disks(g, top + MIN(most, max_rows - 1), m->ndisks - shown + m->disks_unkept);
        most = MIN(most + 1, max_rows);
    }
    return most;
}

/* The DIMM table and the memory map chart between the memory lines and
 * the disks, each with a blank row after it; *rows (what is left for
 * them and the disks) shrinks by what they take. Beside disks the DIMM
 * table gets a fifth of it and the map a quarter (at least 3 and 6 rows),
 * and the DIMM table yields when it alone would turn whole disk tables
 * into the compact one (its facts are in the header, the text table and
 * the report too); without disks they share all of it. */
static unsigned draw_memory_tables(struct screen_grid *g, unsigned row, unsigned *rows, const struct screen_model *m)
{
    unsigned want_dimms = m->ndimms ? m->ndimms + 1 : 0, want_map = m->nregions ? m->nregions + 1 : 0;
    unsigned dimm_rows = MIN(MIN(want_dimms, m->ndisks ? MAX(3u, *rows / 5) : MAX(3u, *rows / 2)), *rows);
    unsigned map_rows = MIN(MIN(want_map, m->ndisks ? MAX(6u, *rows / 4) : *rows), *rows);
    unsigned used = 0, n, left = *rows > map_rows + 1 ? *rows - map_rows - 1 : 0;

    if (m->ndisks && disk_tables_fit(g, left, m) && !disk_tables_fit(g, left > dimm_rows ? left - dimm_rows - 1 : 0, m))
        dimm_rows = 0;
    n = screen_draw_dimms(g, row, dimm_rows, m);
    if (n) {
        used += n + 1;
        *rows = *rows > n + 1 ? *rows - n - 1 : 0;
    }
    n = screen_draw_map(g, row + used, MIN(map_rows, *rows), m);
    if (n) {
        used += n + 1;
        *rows = *rows > n + 1 ? *rows - n - 1 : 0;
    }
    return used;
}

/* The findings under the title, warnings first: the conclusions of the run
 * come before its figures (at most a third of the screen). */
static unsigned draw_findings(struct screen_grid *g, unsigned row, unsigned bottom, const struct screen_model *m)
{
    unsigned first = row, room = bottom > row ? (bottom - row) / 3 : 0, shown = 0;
    char title[64];

    if (!m->nfindings || room < 2)
        return 0;
    snprintf(title, sizeof(title), "Findings: %u", m->nfindings + m->findings_unkept);
    put(g, 1, row++, PLAT_COLOUR_TITLE, title, g->cols - 2);
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < m->nfindings && row < first + room; i++) {
            bool warn = m->findings[i].colour == PLAT_COLOUR_WARN;
            if (warn != (pass == 0))
                continue;
            put(g, 3, row++, m->findings[i].colour, m->findings[i].text, g->cols - 4);
            shown++;
        }
    if (shown < m->nfindings + m->findings_unkept && row < bottom) {
        char more[80];
        snprintf(more, sizeof(more), "(%u more in the results file and the report)",
                 m->nfindings + m->findings_unkept - shown);
        put(g, 3, row++, PLAT_COLOUR_NORMAL, more, g->cols - 4);
    }
    return row - first;
}

/* Errors first (all that fit), then notes, then the latest free text. */
static void draw_messages(struct screen_grid *g, unsigned top, unsigned bottom, const struct screen_model *m)
{
    char title[96];
    unsigned row = top;

    if (top >= bottom)
        return;
    if (m->nmessages) {
        snprintf(title, sizeof(title), "Errors and notes: %u error%s, %u note%s", m->errors, m->errors == 1 ? "" : "s",
                 m->notes, m->notes == 1 ? "" : "s");
        put(g, 1, row++, m->errors ? PLAT_COLOUR_ERROR : PLAT_COLOUR_WARN, title, g->cols - 2);
        for (int pass = 0; pass < 2; pass++)
            for (unsigned i = 0; i < m->nmessages && row < bottom; i++) {
                bool err = m->messages[i].colour == PLAT_COLOUR_ERROR;
                if (err == (pass == 0))
                    put(g, 3, row++, m->messages[i].colour, m->messages[i].text, g->cols - 4);
            }
    }
    if (row + 1 < bottom && m->ntext) {
        unsigned room = bottom - row - 1, first = m->ntext > room ? m->ntext - room : 0;
        row++;
        for (unsigned i = first; i < m->ntext && row < bottom; i++)
            put(g, 3, row++, PLAT_COLOUR_NORMAL, m->text[i], g->cols - 4);
    }
}

void screen_layout(struct screen_grid *g, const struct screen_model *m, const struct config *c, uint64_t now_ns)
{
    unsigned row = 0, bottom = g->rows - 1, disk_rows, msg_rows;
    const char *hint = "Esc stops the run";
    const char *second = strchr(m->final_line, '\n');

    /* A two-line final text takes the row above the last as well. */
    if (second)
        bottom--;

    for (unsigned r = 0; r < g->rows; r++)
        fill_row(g, r, PLAT_COLOUR_NORMAL);
    fill_row(g, row, PLAT_COLOUR_TITLE);
    put(g, 1, row, PLAT_COLOUR_TITLE, m->version_time[0] ? m->version_time : "baremark", g->cols - 2);
    if (!m->ended && g->cols > strlen(hint) + 2)
        put(g, g->cols - (unsigned)strlen(hint) - 1, row, PLAT_COLOUR_TITLE, hint, g->cols);
    row++;
    row += draw_findings(g, row, bottom, m);
    field(g, row++, "System", m->system, PLAT_COLOUR_VALUE);
    field(g, row++, "CPU", m->cpu, PLAT_COLOUR_VALUE);
    field(g, row++, "Memory", m->memory, PLAT_COLOUR_VALUE);
    for (unsigned i = 0; i < m->nwarnings && i < 2; i++)
        field(g, row++, i ? "" : "DIMMs", m->warnings[i], PLAT_COLOUR_WARN);
    draw_status(g, row++, m, c, now_ns);
    row++;
    row += draw_memory(g, row, m);
    if (m->lat[3].bytes || m->bw_threads)
        row++;
    /* The bottom: errors and notes get at least a quarter of what is left
     * when there are any; the DIMM table and the memory map a share each
     * (all of theirs when there are no disks); disks take the rest. */
    msg_rows = m->nmessages ? MIN(m->nmessages + 1, MAX(3u, (bottom - MIN(row, bottom)) / 4)) : 0;
    disk_rows = bottom > row + msg_rows ? bottom - row - msg_rows : 0;
    row += draw_memory_tables(g, row, &disk_rows, m);
    if (m->nscans) {
        /* The surface scan above the disk tables, in at most half of their rows. */
        unsigned n = screen_draw_scan(g, row, MIN(screen_scan_rows(m), disk_rows / 2), m);
        if (n) {
            row += n + 1;
            disk_rows = disk_rows > n + 1 ? disk_rows - n - 1 : 0;
        }
    }
    row += draw_disks(g, row, disk_rows, m);
    draw_messages(g, row, bottom, m);
    if (m->final_line[0]) {
        enum plat_colour colour = m->errors ? PLAT_COLOUR_WARN : PLAT_COLOUR_GOOD;
        put(g, 1, bottom, colour, m->final_line, second ? (unsigned)(second - m->final_line) : g->cols - 2);
        if (second)
            put(g, 1, bottom + 1, colour, second + 1, g->cols - 2);
    }
}
