/* Console, Esc key, start options and serial output on Linux: standard
 * error, a key a test presses, argv, and standard output. */
#include "host_private.h"

void plat_console_write(const char *s)
{
    fputs(s, stderr);
    fflush(stderr);
}

void plat_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static volatile bool sim_abort;     /* Esc, as a test presses it (platform_sim.h) */
static volatile bool sim_abort_seen;

bool plat_abort_requested(void)
{
    if (sim_abort)
        sim_abort_seen = true;
    return sim_abort;
}
void plat_sim_set_abort(bool pressed) { sim_abort = pressed, sim_abort_seen = false; }
bool plat_sim_abort_seen(void) { return sim_abort_seen; }

static char *options;
const char *plat_load_options(void) { return options ? options : ""; }

/* argv joined by spaces, however long: the options are never cut here. */
void plat_host_set_args(int argc, char **argv);
void plat_host_set_args(int argc, char **argv)
{
    size_t total = 1, n = 0;

    for (int i = 0; i < argc; i++)
        total += strlen(argv[i]) + 1;
    free(options);
    options = malloc(total);
    if (!options)
        return;
    options[0] = '\0';
    for (int i = 0; i < argc; i++)
        n += (size_t)snprintf(options + n, total - n, "%s%s", i ? " " : "", argv[i]);
}

/* Records go to standard output, as they go to the serial port on UEFI. */
int plat_serial_open(const struct plat_uart *u)
{
    (void)u;
    return BM_OK;
}

/* A second port: none, unless a unit test says one answers (platform_sim.h). */
static bool sim_serial_also;

void plat_sim_serial_also(bool answers) { sim_serial_also = answers; }

int plat_serial_open_also(const struct plat_uart *u)
{
    (void)u;
    return sim_serial_also ? BM_OK : BM_ENODEV;
}

int plat_sio_io_port(const void *path, size_t prefix_len, uint16_t *port)
{
    (void)path;
    (void)prefix_len;
    (void)port;
    return BM_ENODEV;
}

/* A Linux process has no firmware console variable. */
long plat_console_device_path(void *buf, size_t cap)
{
    (void)buf;
    (void)cap;
    return BM_ENODEV;
}

void plat_serial_write(const char *data, size_t len)
{
    /* Drop the CRs the serial line uses. */
    for (size_t i = 0; i < len; i++)
        if (data[i] != '\r')
            fputc(data[i], stdout);
    fflush(stdout);
}

/* ---- The screen grid tests read back (platform_sim.h) ---------------------------- */

#define SIM_SCREEN_MAX_COLS 256
#define SIM_SCREEN_MAX_ROWS 96

static struct {
    unsigned cols, rows;
    bool positioning;
    uint32_t ch[SIM_SCREEN_MAX_ROWS][SIM_SCREEN_MAX_COLS];
    uint8_t colour[SIM_SCREEN_MAX_ROWS][SIM_SCREEN_MAX_COLS];
} sim_screen;

static void sim_screen_clear(void)
{
    for (unsigned r = 0; r < SIM_SCREEN_MAX_ROWS; r++)
        for (unsigned c = 0; c < SIM_SCREEN_MAX_COLS; c++) {
            sim_screen.ch[r][c] = ' ';
            sim_screen.colour[r][c] = PLAT_COLOUR_NORMAL;
        }
}

void plat_sim_screen(unsigned cols, unsigned rows, bool positioning)
{
    sim_screen.cols = MIN(cols, SIM_SCREEN_MAX_COLS);
    sim_screen.rows = MIN(rows, SIM_SCREEN_MAX_ROWS);
    sim_screen.positioning = positioning && cols && rows;
    sim_screen_clear();
}

int plat_screen_open(struct plat_screen_info *info)
{
    memset(info, 0, sizeof(*info));
    info->mode = -1;
    if (!sim_screen.positioning)
        return BM_ENOTSUP;
    info->positioning = true;
    info->colour = true;
    info->cols = sim_screen.cols;
    info->rows = sim_screen.rows;
    info->mode = 0;
    info->modes = 1;
    sim_screen_clear();
    return BM_OK;
}

void plat_screen_put(unsigned col, unsigned row, enum plat_colour colour, const char *s)
{
    if (!sim_screen.positioning || row >= sim_screen.rows)
        return;
    while (*s && col < sim_screen.cols) {
        uint32_t cp;
        s += bm_utf8_next(s, &cp);
        sim_screen.ch[row][col] = cp;
        sim_screen.colour[row][col] = (uint8_t)colour;
        col++;
    }
}

void plat_screen_park(unsigned row) { (void)row; }

void plat_sim_screen_row(unsigned row, char *buf, size_t cap)
{
    size_t n = 0;

    if (!cap)
        return;
    for (unsigned c = 0; row < sim_screen.rows && c < sim_screen.cols; c++) {
        char enc[4];
        size_t len = bm_utf8_put_bmp(enc, sim_screen.ch[row][c]);
        if (n + len + 1 > cap)
            break;
        memcpy(buf + n, enc, len);
        n += len;
    }
    buf[n] = '\0';
}

enum plat_colour plat_sim_screen_colour(unsigned col, unsigned row)
{
    if (row >= sim_screen.rows || col >= sim_screen.cols)
        return PLAT_COLOUR_NORMAL;
    return (enum plat_colour)sim_screen.colour[row][col];
}

/* Nobody sits at a Linux test run's console. */
void plat_wait_key(void) {}
