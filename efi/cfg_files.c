/* Shared and per-machine configuration files (cfg_files.h). */
#include "cfg_files.h"
#include "platform.h"

size_t cfg_name_part(char *dst, size_t cap, const char *src)
{
    size_t n = 0, max = cap - 1 < CFG_PART_MAX ? cap - 1 : CFG_PART_MAX;

    for (; *src && n < max; src++) {
        unsigned char ch = (unsigned char)*src;
        bool keep = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '-' ||
                    ch == '.' || ch == '_';
        if (!keep && n && dst[n - 1] == '_')
            continue;
        if ((!keep || ch == '_' || ch == '.') && n == 0)
            continue;
        dst[n++] = keep ? (char)ch : '_';
    }
    while (n && (dst[n - 1] == '_' || dst[n - 1] == '.'))
        n--;
    dst[n] = '\0';
    return n;
}

/* base-kind-value.cfg, when value gives a name part. */
static bool add_name(char names[CFG_LAYERS][CFG_NAME_MAX], unsigned *count, const char *base, const char *kind,
                     const char *value)
{
    char part[CFG_PART_MAX + 1];

    if (!cfg_name_part(part, sizeof(part), value))
        return false;
    snprintf(names[(*count)++], CFG_NAME_MAX, "%s-%s%s%s.cfg", base, kind, kind[0] ? "-" : "", part);
    return true;
}

unsigned cfg_file_names(const struct machine_ident *id, const char *base, char names[CFG_LAYERS][CFG_NAME_MAX])
{
    unsigned n = 0;

    snprintf(names[n++], CFG_NAME_MAX, "%s.cfg", base);
    add_name(names, &n, base, "product", id->product);
    add_name(names, &n, base, "board", id->board);
    add_name(names, &n, base, "serial", id->serial);
    add_name(names, &n, base, "uuid", id->uuid);
    if (id->has_mac) {
        char mac[18];
        const uint8_t *m = id->mac;
        /* PXELINUX's pxelinux.cfg/01-88-99-aa-bb-cc-dd, without the ARP type. */
        snprintf(mac, sizeof(mac), "%02x-%02x-%02x-%02x-%02x-%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
        add_name(names, &n, base, "", mac);
    }
    return n;
}

/* A text file into text (NUL-terminated): 0 when it is there, 1 when there
 * is none, BM_EINVAL with err filled when it cannot be read whole, is too
 * large, or holds a NUL byte (which would hide the rest of it from the
 * parser). */
static int read_text_file(cfg_read_fn read, const char *name, char *text, size_t cap, char *err, size_t errlen)
{
    char path[CFG_NAME_MAX + 16];
    long n;
    unsigned nul;

    snprintf(path, sizeof(path), "\\baremark\\%.*s", CFG_NAME_MAX - 1, name);
    n = read(path, text, cap - 1);
    if (n == BM_ENODEV)
        return 1;
    if (n == BM_ENOSPC || n >= (long)cap - 1) {
        snprintf(err, errlen, "%s: file too large (at most %lu bytes)", name, (unsigned long)cap - 2);
        return BM_EINVAL;
    }
    if (n < 0) {
        char why[160];
        /* A boot server's own words (a TFTP error) say more than the code. */
        if (plat_boot_file_error(why, sizeof(why)))
            snprintf(err, errlen, "%s: cannot read it: %s", name, why);
        else
            snprintf(err, errlen, "%s: cannot read it: %s", name, bm_strerror((int)n));
        return BM_EINVAL;
    }
    nul = config_nul_line(text, (size_t)n);
    if (nul) {
        snprintf(err, errlen, "%s line %u: a NUL byte (the file must be text)", name, nul);
        return BM_EINVAL;
    }
    text[n] = '\0';
    return 0;
}

/* Every file of one kind, in order: parse(name, text) for those found. */
static int load_layers(struct config *c, const struct machine_ident *id, const char *base, cfg_read_fn read,
                       struct cfg_load_log *log, char *err, size_t errlen)
{
    static char text[65536];
    char names[CFG_LAYERS][CFG_NAME_MAX];
    unsigned n = cfg_file_names(id, base, names);

    for (unsigned i = 0; i < n; i++) {
        int rc = read_text_file(read, names[i], text, sizeof(text), err, errlen);
        if (rc < 0)
            return BM_EINVAL;
        if (rc == 1) {
            bm_strlcpy(log->missing_names[log->missing++], names[i], CFG_NAME_MAX);
            continue;
        }
        if (!strcmp(base, "limits") ? limits_parse_named(&c->limits, names[i], text, err, errlen) != BM_OK
                                    : config_parse_named(c, names[i], text, err, errlen) != BM_OK)
            return BM_EINVAL;
        bm_strlcpy(log->applied_names[log->applied++], names[i], CFG_NAME_MAX);
    }
    return BM_OK;
}

int cfg_load_options(struct config *c, const struct machine_ident *id, const char *args, cfg_read_fn read,
                     struct cfg_load_log *log, char *err, size_t errlen)
{
    memset(log, 0, sizeof(*log));
    config_defaults(c);
    if (load_layers(c, id, "baremark", read, log, err, errlen) != BM_OK)
        return BM_EINVAL;
    bm_strlcpy(c->args, args, sizeof(c->args));
    config_redact_args(c->args, sizeof(c->args));
    if (config_parse_args(c, args, err, errlen) != BM_OK)
        return BM_EINVAL;
    /* Limits are options too: a bad file stops the run before it starts. */
    if (load_layers(c, id, "limits", read, log, err, errlen) != BM_OK)
        return BM_EINVAL;
    for (unsigned i = 0; c->cfg_required && i < log->missing; i++)
        if (!strcmp(log->missing_names[i], "baremark.cfg")) {
            snprintf(err, errlen, "cfg_required=1 and baremark.cfg was not found: nothing was run");
            return BM_ENODEV;
        }
    return BM_OK;
}
