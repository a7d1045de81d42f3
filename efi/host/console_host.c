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
