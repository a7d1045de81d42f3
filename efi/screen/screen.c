/* The screen sink: records into the model, the model into a grid, and
 * what changed in the grid to the console (screen.h). */
#include "screen_private.h"

/* The status line changes with every progress step; redrawing it more
 * often than this only costs time (the firmware mirrors the console to
 * the serial port at 115200 baud). */
#define SCREEN_REDRAW_NS 250000000ull

static struct {
    bool active;
    struct plat_screen_info info;
    const struct config *cfg;
    struct screen_model model;
    struct screen_grid want, shown; /* what should be on screen, what is */
    uint64_t last_draw_ns;
} scr;

/* Push the rows that differ: from the row's start to its last changed
 * cell, one piece per colour, so the firmware's copy of the console on
 * the serial port gets whole lines, not fragments of words. */
static void push_row(unsigned row)
{
    uint32_t *want = scr.want.ch[row], *shown = scr.shown.ch[row];
    uint8_t *wc = scr.want.colour[row], *sc = scr.shown.colour[row];
    int first = -1, last = -1;

    for (unsigned c = 0; c < scr.want.cols; c++)
        if (want[c] != shown[c] || wc[c] != sc[c]) {
            if (first < 0)
                first = (int)c;
            last = (int)c;
        }
    if (first < 0)
        return;
    for (int c = 0; c <= last;) {
        char piece[4 * SCREEN_MAX_COLS + 1];
        size_t n = 0;
        int start = c;
        uint8_t colour = wc[c];
        for (; c <= last && wc[c] == colour; c++)
            n += bm_utf8_put_bmp(piece + n, want[c]);
        piece[n] = '\0';
        plat_screen_put((unsigned)start, row, (enum plat_colour)colour, piece);
    }
    memcpy(shown, want, scr.want.cols * sizeof(*want));
    memcpy(sc, wc, scr.want.cols);
}

static void redraw(bool force)
{
    uint64_t now = plat_now_ns();

    if (!force && now - scr.last_draw_ns < SCREEN_REDRAW_NS)
        return;
    scr.last_draw_ns = now;
    screen_layout(&scr.want, &scr.model, scr.cfg, now);
    for (unsigned r = 0; r < scr.want.rows; r++)
        push_row(r);
    plat_screen_park(scr.want.rows - 1);
}

static void screen_record(struct sink *s, const char *type, const char *json, const char *human)
{
    (void)s;
    (void)human;
    screen_model_record(&scr.model, type, json, plat_now_ns());
    /* Everything shows at once but the memory engine's many points and the
     * drivers' diagnostics, which wait for the next redraw. */
    redraw(strncmp(type, "mem_", 4) && strcmp(type, "log"));
}

static void screen_text(struct sink *s, const char *human)
{
    (void)s;
    screen_model_text(&scr.model, human);
    redraw(false);
}

static void screen_progress(struct sink *s, const char *human)
{
    (void)s;
    screen_model_progress(&scr.model, human, plat_now_ns());
    redraw(false);
}

/* The picture stays on screen after the sinks close (exit=wait). */
static void screen_close(struct sink *s)
{
    (void)s;
    redraw(true);
}

struct sink *sink_screen(const struct config *c)
{
    static struct sink s = { "screen", screen_record, screen_text, screen_progress, screen_close, NULL };

    memset(&scr.want, 0, sizeof(scr.want));
    scr.active = plat_screen_open(&scr.info) == BM_OK && scr.info.positioning && scr.info.cols >= 40 &&
                 scr.info.rows >= 12;
    if (!scr.active)
        return NULL;
    scr.cfg = c;
    scr.want.cols = MIN(scr.info.cols, (unsigned)SCREEN_MAX_COLS);
    scr.want.rows = MIN(scr.info.rows, (unsigned)SCREEN_MAX_ROWS);
    scr.shown = scr.want;
    /* plat_screen_open cleared the console: blanks in the normal colour. */
    for (unsigned r = 0; r < scr.shown.rows; r++)
        for (unsigned col = 0; col < scr.shown.cols; col++)
            scr.shown.ch[r][col] = ' ';
    screen_model_reset(&scr.model, plat_now_ns());
    scr.last_draw_ns = 0;
    return &s;
}

bool screen_active(void)
{
    return scr.active;
}

void screen_json(struct json *j)
{
    json_obj_begin(j, "screen");
    json_str(j, "layout", scr.active ? "fixed" : "text");
    json_i64(j, "mode", scr.info.mode);
    json_u64(j, "cols", scr.info.cols);
    json_u64(j, "rows", scr.info.rows);
    json_u64(j, "modes", scr.info.modes);
    json_obj_end(j);
}

void screen_final_line(const char *text)
{
    if (!scr.active)
        return;
    sink_screen_text(scr.model.final_line, sizeof(scr.model.final_line), text);
    redraw(true);
}

void screen_emit_dump(void)
{
    static struct record r;
    char line[4 * SCREEN_MAX_COLS + 1];

    if (!scr.active)
        return;
    redraw(true);
    record_begin(&r, "screen");
    json_u64(&r.j, "cols", scr.shown.cols);
    json_u64(&r.j, "rows", scr.shown.rows);
    json_arr_begin(&r.j, "lines");
    for (unsigned row = 0; row < scr.shown.rows; row++) {
        size_t n = 0, keep = 0;
        for (unsigned c = 0; c < scr.shown.cols; c++) {
            uint32_t cp = scr.shown.ch[row][c];
            line[n++] = cp < 0x80 ? (char)cp : '?';
            if (cp != ' ')
                keep = n;
        }
        line[keep] = '\0';
        json_str(&r.j, NULL, line);
    }
    json_arr_end(&r.j);
    /* The error cells, so a test can see that errors stand out. */
    json_arr_begin(&r.j, "error_rows");
    for (unsigned row = 0; row < scr.shown.rows; row++)
        for (unsigned c = 0; c < scr.shown.cols; c++)
            if (scr.shown.colour[row][c] == PLAT_COLOUR_ERROR) {
                json_u64(&r.j, NULL, row);
                break;
            }
    json_arr_end(&r.j);
    record_emit(&r, NULL);
}
