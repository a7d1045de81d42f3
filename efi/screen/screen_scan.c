/* The surface scan on the results screen: per disk a line with its rate
 * and MHDD's access-time buckets, the transfer-rate curve across the
 * surface as a row of characters (the slowest point of each column, so a
 * dip is not averaged away), MHDD's map below it (each column the slowest
 * read there, failed reads in the error colour), and the unreadable LBA
 * ranges in the error colour. The model part keeps what the scan and scan_bad_range records
 * say; the drawing part reads only the model. */
#include "screen_private.h"

/* ---- Model ---------------------------------------------------------------------------- */

static const char *const bucket_keys[7] = { "lt5ms", "lt20ms", "lt50ms", "lt150ms", "lt500ms", "slower", "error" };

static struct screen_scan *scan_row(struct screen_model *m, const char *id, bool add)
{
    for (unsigned i = 0; i < m->nscans; i++)
        if (!strcmp(m->scans[i].id, id))
            return &m->scans[i];
    if (!add)
        return NULL;
    if (m->nscans == SCREEN_SCANS) {
        m->scans_unkept++;
        return NULL;
    }
    memset(&m->scans[m->nscans], 0, sizeof(m->scans[0]));
    bm_strlcpy(m->scans[m->nscans].id, id, sizeof(m->scans[0].id));
    return &m->scans[m->nscans++];
}

/* The numbers of the JSON array at p (at its '['), at most max. */
static unsigned read_numbers(const char *p, float *out, unsigned max)
{
    unsigned n = 0;

    if (!p || *p != '[')
        return 0;
    p++;
    while (*p && *p != ']' && n < max) {
        char key[] = "\"x\":";
        double v;
        /* screen_json_num reads after a key: give it one over this element. */
        char buf[48];
        size_t len = 0;
        while (p[len] && p[len] != ',' && p[len] != ']' && len < 32)
            len++;
        snprintf(buf, sizeof(buf), "%s%.*s", key, (int)len, p);
        out[n++] = screen_json_num(buf, "x", &v) ? (float)v : 0;
        p += len;
        if (*p == ',')
            p++;
    }
    return n;
}

static void on_scan(struct screen_model *m, const char *json)
{
    static float worst[SCREEN_SCAN_POINTS];
    char id[24];
    const char *buckets;
    struct screen_scan *s;
    double v;

    if (!screen_json_str(json, "disk", id, sizeof(id)) || !(s = scan_row(m, id, true)))
        return;
    screen_json_str(json, "result", s->result, sizeof(s->result));
    s->mbps = screen_json_num(json, "mbps", &v) ? v : 0;
    s->min_mbps = screen_json_num(json, "min_mbps", &v) ? v : 0;
    s->max_mbps = screen_json_num(json, "max_mbps", &v) ? v : 0;
    s->npoints = read_numbers(screen_json_value(json, "curve_mbps"), s->curve_mbps, SCREEN_SCAN_POINTS);
    s->nworst = read_numbers(screen_json_value(json, "curve_worst"), worst, SCREEN_SCAN_POINTS);
    for (unsigned i = 0; i < s->nworst; i++)
        s->worst[i] = worst[i] >= 0 && worst[i] <= 6 ? (int8_t)worst[i] : -1;
    buckets = screen_json_value(json, "buckets");
    for (unsigned b = 0; buckets && b < 7; b++)
        s->buckets[b] = screen_json_num(buckets, bucket_keys[b], &v) ? bm_double_to_u64(v) : 0;
    s->bad_blocks = screen_json_num(json, "bad_blocks", &v) ? bm_double_to_u64(v) : 0;
    s->bad_ranges = screen_json_num(json, "bad_ranges", &v) ? bm_double_to_u64(v) : 0;
}

static void on_bad_range(struct screen_model *m, const char *json)
{
    char id[24];
    struct screen_scan *s;
    double first, count;

    if (!screen_json_str(json, "disk", id, sizeof(id)) || !(s = scan_row(m, id, false)) ||
        s->nbad == SCREEN_SCAN_BAD || !screen_json_num(json, "first_lba", &first) ||
        !screen_json_num(json, "count", &count))
        return;
    s->bad[s->nbad].first = bm_double_to_u64(first);
    s->bad[s->nbad].count = bm_double_to_u64(count);
    s->nbad++;
}

bool screen_model_scan_record(struct screen_model *m, const char *type, const char *json)
{
    if (!strcmp(type, "scan"))
        on_scan(m, json);
    else if (!strcmp(type, "scan_bad_range"))
        on_bad_range(m, json);
    else
        return false;
    return true;
}

/* ---- Drawing -------------------------------------------------------------------------- */

/* A title (and the map's legend), then per disk its line, curve and map,
 * and one for unreadable ranges (the maps are left out when the screen
 * has no room for all). */
unsigned screen_scan_rows(const struct screen_model *m)
{
    unsigned n = m->nscans ? 1 : 0;
    bool any_map = false;

    for (unsigned i = 0; i < m->nscans; i++) {
        n += 2 + (m->scans[i].nworst > 0) + (m->scans[i].bad_ranges > 0);
        any_map |= m->scans[i].nworst > 0;
    }
    return n + any_map + (m->scans_unkept > 0); /* any_map: the map's legend */
}

/* MHDD's map in width columns: each column the slowest read of its parts,
 * one character per bucket (< 5, 20, 50, 150, 500 ms, slower), X where a
 * read failed; a blank where no read ended. */
static const char map_chars[] = ".:-=*#X";

/* The points column c of width shows out of n: [*a, *b), at least one. */
static void column_points(unsigned c, unsigned width, unsigned n, unsigned *a, unsigned *b)
{
    *a = c * n / width;
    *b = MAX((c + 1) * n / width, *a + 1);
}

static void map_text(char *out, unsigned width, const struct screen_scan *s)
{
    unsigned n = s->nworst, a, b;

    for (unsigned c = 0; c < width; c++) {
        int w = -1;
        column_points(c, width, n, &a, &b);
        for (unsigned i = a; i < b && i < n; i++)
            w = MAX(w, (int)s->worst[i]);
        out[c] = w < 0 ? ' ' : map_chars[w];
    }
    out[width] = '\0';
}

/* The curve in width columns: each column the slowest of its points, as
 * one of ten characters from the fastest point's rate down. */
static void curve_text(char *out, unsigned width, const struct screen_scan *s)
{
    static const char levels[] = " .:-=+*#%@";
    unsigned n = s->npoints, a, b;

    for (unsigned c = 0; c < width; c++) {
        double lo = -1;
        column_points(c, width, n, &a, &b);
        for (unsigned i = a; i < b && i < n; i++)
            if (lo < 0 || s->curve_mbps[i] < lo)
                lo = s->curve_mbps[i];
        if (lo < 0 || s->max_mbps <= 0)
            out[c] = ' ';
        else
            out[c] = levels[MIN(bm_double_to_u32(lo / s->max_mbps * 9 + 0.5), 9u)];
    }
    out[width] = '\0';
}

unsigned screen_draw_scan(struct screen_grid *g, unsigned row, unsigned max_rows, const struct screen_model *m)
{
    unsigned used = 0, width = g->cols > 2 ? g->cols - 2 : 0;
    /* The maps only when every row fits: the rate, the curve and the
     * unreadable ranges come first. */
    bool maps = max_rows >= screen_scan_rows(m);
    char line[320];

    if (!m->nscans || max_rows < 3 || width < 40)
        return 0;
    snprintf(line, sizeof(line), "Surface scan: %u disk%s, MB/s across the surface (each column its slowest point)",
             m->nscans + m->scans_unkept, m->nscans + m->scans_unkept == 1 ? "" : "s");
    screen_put(g, 1, row + used++, PLAT_COLOUR_LABEL, line, width);
    if (maps)
        screen_put(g, 1, row + used++, PLAT_COLOUR_LABEL,
                   "map: each column its slowest read  . <5 ms  : <20  - <50  = <150  * <500  # slower  X failed",
                   width);
    for (unsigned i = 0; i < m->nscans && used + 2 <= max_rows; i++) {
        const struct screen_scan *s = &m->scans[i];
        bool bad = s->bad_ranges > 0, stopped = !strcmp(s->result, "stopped");
        unsigned head, curve_cols;

        snprintf(line, sizeof(line),
                 "%-10.10s %8.1f MB/s (%.0f-%.0f) <5ms %llu <20 %llu <50 %llu <150 %llu <500 %llu slower %llu"
                 " err %llu%s",
                 s->id, s->mbps, s->min_mbps, s->max_mbps, (unsigned long long)s->buckets[0],
                 (unsigned long long)s->buckets[1], (unsigned long long)s->buckets[2],
                 (unsigned long long)s->buckets[3], (unsigned long long)s->buckets[4],
                 (unsigned long long)s->buckets[5], (unsigned long long)s->buckets[6], stopped ? "  STOPPED" : "");
        screen_put(g, 1, row + used++, stopped ? PLAT_COLOUR_ERROR : PLAT_COLOUR_VALUE, line, width);
        head = (unsigned)snprintf(line, sizeof(line), "%10s |", "");
        curve_cols = MIN(width > head + 1 ? width - head - 1 : 0, (unsigned)sizeof(line) - head - 2);
        curve_text(line + head, curve_cols, s);
        bm_strlcpy(line + head + curve_cols, "|", sizeof(line) - head - curve_cols);
        screen_put(g, 1, row + used++, PLAT_COLOUR_NORMAL, line, width);
        if (maps && s->nworst) {
            snprintf(line, sizeof(line), "%10s |", "map");
            map_text(line + head, curve_cols, s);
            bm_strlcpy(line + head + curve_cols, "|", sizeof(line) - head - curve_cols);
            screen_put(g, 1, row + used, PLAT_COLOUR_NORMAL, line, width);
            /* the failed parts in the error colour */
            for (unsigned k = 0; k < curve_cols; k++)
                if (line[head + k] == 'X')
                    screen_put(g, 1 + head + k, row + used, PLAT_COLOUR_ERROR, "X", 1);
            used++;
        }
        if (bad && used < max_rows) {
            size_t len = (size_t)snprintf(line, sizeof(line), "%10s unreadable: %llu block%s in %llu range%s:", "",
                                          (unsigned long long)s->bad_blocks, s->bad_blocks == 1 ? "" : "s",
                                          (unsigned long long)s->bad_ranges, s->bad_ranges == 1 ? "" : "s");
            for (unsigned k = 0; k < s->nbad && len < sizeof(line); k++)
                len += (size_t)snprintf(line + len, sizeof(line) - len, " LBA %llu-%llu",
                                        (unsigned long long)s->bad[k].first,
                                        (unsigned long long)(s->bad[k].first + s->bad[k].count - 1));
            if (s->bad_ranges > s->nbad && len < sizeof(line))
                snprintf(line + len, sizeof(line) - len, " ...");
            screen_put(g, 1, row + used++, PLAT_COLOUR_ERROR, line, width);
        }
    }
    if (m->scans_unkept && used < max_rows) {
        snprintf(line, sizeof(line), "  ... %u more disks in the results file", m->scans_unkept);
        screen_put(g, 1, row + used++, PLAT_COLOUR_NORMAL, line, width);
    }
    return used;
}
