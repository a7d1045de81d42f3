/* The per-machine configuration files served over TFTP/HTTP or found on
 * the stick (cfg_files.c): the machine's identity (SMBIOS strings, MAC)
 * and every file's text come from the input, split at NUL bytes: product,
 * board, serial, uuid, MAC (6 bytes), the command line, then one text per
 * file looked up in order. Aborts if a file name could leave \baremark\
 * (a '/', '\' or ".." from an identity value). */
#include "fuzz.h"
#include "cfg_files.h"

static const uint8_t *g_rest;
static size_t g_left;

/* The next NUL-terminated piece of the input (or what is left). */
static size_t next_piece(const uint8_t **p)
{
    const uint8_t *z = memchr(g_rest, 0, g_left);
    size_t len = z ? (size_t)(z - g_rest) : g_left;

    *p = g_rest;
    g_rest += len + (z ? 1 : 0);
    g_left -= len + (z ? 1 : 0);
    return len;
}

static long fake_read(const char *path, char *buf, size_t cap)
{
    const uint8_t *p;
    size_t len;

    if (strncmp(path, "\\baremark\\", 10) || strchr(path + 10, '\\') || strchr(path + 10, '/') ||
        bm_path_has_dot_part(path + 10))
        abort();
    if (!g_left)
        return BM_ENODEV;
    len = next_piece(&p);
    if (len == 1 && p[0] == 'E')
        return BM_EIO;
    len = len < cap ? len : cap;
    memcpy(buf, p, len);
    return (long)len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct config c;
    static struct cfg_load_log log;
    struct machine_ident id;
    char *fields[4] = { id.product, id.board, id.serial, id.uuid };
    size_t caps[4] = { sizeof(id.product), sizeof(id.board), sizeof(id.serial), sizeof(id.uuid) };
    const uint8_t *p;
    char err[160], *args;
    size_t len;

    g_rest = data;
    g_left = n;
    memset(&id, 0, sizeof(id));
    for (int i = 0; i < 4; i++) {
        len = next_piece(&p);
        len = len < caps[i] - 1 ? len : caps[i] - 1;
        memcpy(fields[i], p, len);
    }
    len = next_piece(&p);
    id.has_mac = len >= 6;
    memcpy(id.mac, p, len < 6 ? len : 6);
    len = next_piece(&p);
    args = fuzz_cstr(p, len);
    memset(&log, 0, sizeof(log));
    (void)cfg_load_options(&c, &id, args, fake_read, &log, err, sizeof(err));
    free(args);
    return 0;
}
