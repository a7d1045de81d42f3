/* Option parsing and validation. Table-driven: a key is one row. */
#include "config.h"
#include "http.h"
#include "platform.h"
#include "test_fault.h"

struct key_def {
    const char *key;
    const char *accepted;   /* shown in errors and help */
    int (*set)(struct config *c, const char *value);
};

static int parse_level(const char *v, enum bm_level *out)
{
    if (!strcmp(v, "off"))
        *out = LEVEL_OFF;
    else if (!strcmp(v, "quick"))
        *out = LEVEL_QUICK;
    else if (!strcmp(v, "full"))
        *out = LEVEL_FULL;
    else
        return BM_EINVAL;
    return BM_OK;
}

static int set_mem(struct config *c, const char *v) { return parse_level(v, &c->mem); }
static int set_disk(struct config *c, const char *v) { return parse_level(v, &c->disk); }

static int set_mem_map(struct config *c, const char *v)
{
    c->mem_map_given = true;
    return parse_level(v, &c->mem_map);
}

/* A whole number from lo to hi. */
static int parse_u32_in(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t n;
    if (!bm_parse_u64(v, &n) || n < lo || n > hi)
        return BM_EINVAL;
    *out = (uint32_t)n;
    return BM_OK;
}

static int set_mem_map_ms(struct config *c, const char *v) { return parse_u32_in(v, 10, 60000, &c->mem_map_ms); }

static int set_help(struct config *c, const char *v)
{
    if (*v && strcmp(v, "1") && strcmp(v, "yes") && strcmp(v, "on"))
        return BM_EINVAL;
    c->help = true;
    return BM_OK;
}

/* A comma-separated list of ids; empty items and overlong ids are errors. */
static int parse_list(const char *v, struct id_list *l, bool allow_all)
{
    struct id_list tmp;
    const char *p = v;

    memset(&tmp, 0, sizeof(tmp));
    if (allow_all && !strcmp(v, "all")) {
        tmp.all = true;
        *l = tmp;
        return BM_OK;
    }
    if (!*v)
        return BM_EINVAL;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 0 || n >= CONFIG_ID_LEN || tmp.count >= CONFIG_MAX_LIST)
            return BM_EINVAL;
        for (size_t i = 0; i < n; i++)
            if (p[i] <= ' ' || p[i] == '=' || p[i] == '#')
                return BM_EINVAL;
        memcpy(tmp.items[tmp.count], p, n);
        tmp.items[tmp.count][n] = '\0';
        tmp.count++;
        p += n;
        if (*p == ',') {
            p++;
            if (!*p)
                return BM_EINVAL;
        }
    }
    *l = tmp;
    return BM_OK;
}

static int set_disks(struct config *c, const char *v) { return parse_list(v, &c->disks, true); }

static int set_write(struct config *c, const char *v)
{
    if (!strcmp(v, "none")) {
        memset(&c->write, 0, sizeof(c->write));
        return BM_OK;
    }
    return parse_list(v, &c->write, false);
}

static int set_driver(struct config *c, const char *v)
{
    if (!strcmp(v, "auto"))
        c->driver = DRIVER_AUTO;
    else if (!strcmp(v, "native"))
        c->driver = DRIVER_NATIVE;
    else if (!strcmp(v, "firmware"))
        c->driver = DRIVER_FIRMWARE;
    else
        return BM_EINVAL;
    return BM_OK;
}

/* Seconds from 1 to 3600 (time=, upload_timeout=). */
static int parse_seconds(const char *v, uint32_t *out)
{
    uint64_t n;
    if (!bm_parse_u64(v, &n) || n < 1 || n > 3600)
        return BM_EINVAL;
    *out = (uint32_t)n;
    return BM_OK;
}

/* "N" seconds or "Nms" milliseconds, as milliseconds in [lo_ms, hi_ms]. */
static int parse_ms_or_s(const char *v, uint32_t lo_ms, uint32_t hi_ms, uint32_t *ms)
{
    char num[16];
    size_t n = strlen(v);
    uint32_t s;

    if (n > 2 && v[n - 2] == 'm' && v[n - 1] == 's') {
        if (n - 2 >= sizeof(num))
            return BM_EINVAL;
        memcpy(num, v, n - 2);
        num[n - 2] = '\0';
        return parse_u32_in(num, lo_ms, hi_ms, ms);
    }
    if (parse_u32_in(v, (lo_ms + 999) / 1000, hi_ms / 1000, &s) != BM_OK || (uint64_t)s * 1000 < lo_ms)
        return BM_EINVAL;
    *ms = s * 1000;
    return BM_OK;
}

/* time=N seconds (1 to 3600), or time=Nms (100 to 3600000 milliseconds):
 * short windows serve the emulated test runs, where a workload's figures
 * are not the point but its records are. */
static int set_time(struct config *c, const char *v)
{
    uint32_t ms;

    if (parse_ms_or_s(v, 100, 3600000u, &ms) != BM_OK)
        return BM_EINVAL;
    c->time_ms = ms;
    c->time_s = (ms + 999) / 1000;
    return BM_OK;
}

/* warmup=N seconds (0 to 600) or Nms: the unmeasured run before each
 * workload's window, fio's ramp_time. Unset, it is a fifth of time=
 * (0.25 to 2 s, efi/disk/plan.c); longer brings an SSD nearer its steady
 * state, 0 counts the queues' filling in the figures. */
static int set_warmup(struct config *c, const char *v)
{
    if (parse_ms_or_s(v, 0, 600000u, &c->warmup_ms) != BM_OK)
        return BM_EINVAL;
    c->warmup_given = true;
    return BM_OK;
}

/* io_timeout=N seconds, 1 to 600. Whole seconds, as Linux takes them
 * (nvme_core.io_timeout, /sys/block/sdX/device/timeout): below a second a
 * healthy hard disk's slowest commands at a deep queue would already time
 * out and send the driver into recovery (Abort, COMRESET, task management)
 * on a disk that is merely busy. 600 s leaves room for drives that retry
 * a bad sector internally for minutes. */
static int set_io_timeout(struct config *c, const char *v) { return parse_u32_in(v, 1, 600, &c->io_timeout_s); }

/* upload=off|http://A.B.C.D[:PORT][/PATH] (http.h) */
static int set_upload(struct config *c, const char *v)
{
    struct http_url u;

    if (!strcmp(v, "off")) {
        c->upload[0] = '\0';
        return BM_OK;
    }
    if (http_url_parse(v, &u) != BM_OK)
        return BM_EINVAL;
    bm_strlcpy(c->upload, v, sizeof(c->upload));
    return BM_OK;
}

static int set_upload_timeout(struct config *c, const char *v) { return parse_seconds(v, &c->upload_timeout_s); }

/* upload_token=off|TOKEN: RFC 6750 b64token characters (http.h), so it goes
 * into a header line as it is and cannot end the head or start another. */
static int set_upload_token(struct config *c, const char *v)
{
    if (!strcmp(v, "off")) {
        c->upload_token[0] = '\0';
        return BM_OK;
    }
    if (!http_bearer_token_ok(v, CONFIG_TOKEN_MAX))
        return BM_EINVAL;
    bm_strlcpy(c->upload_token, v, sizeof(c->upload_token));
    return BM_OK;
}

static int set_cfg_required(struct config *c, const char *v)
{
    if (strcmp(v, "0") && strcmp(v, "1"))
        return BM_EINVAL;
    c->cfg_required = v[0] == '1';
    return BM_OK;
}

/* serial=auto|off|com1..com4|0xPORT|mmio:0xADDR[,8|,32]|pl011:0xADDR|sbsa:0xADDR */
static int set_serial(struct config *c, const char *v)
{
    static const uint16_t com_ports[4] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 };
    struct plat_uart u = { PLAT_UART_IO, 0, 1, 0 };
    uint64_t n;

    if (!strcmp(v, "auto") || !strcmp(v, "off")) {
        c->serial = !strcmp(v, "auto") ? SERIAL_AUTO : SERIAL_OFF;
        return BM_OK;
    }
    if (!strncmp(v, "com", 3) && v[3] >= '1' && v[3] <= '4' && !v[4]) {
        u.base = com_ports[v[3] - '1'];
    } else if (!strncmp(v, "0x", 2)) {
        if (!bm_parse_u64(v, &n) || n == 0 || n > 0xfff8)
            return BM_EINVAL;
        u.base = n;
    } else if (!strncmp(v, "pl011:", 6) || !strncmp(v, "sbsa:", 5)) {
        /* An Arm PL011 or SBSA Generic UART (32-bit registers, memory mapped). */
        const char *a = strchr(v, ':') + 1;
        if (strncmp(a, "0x", 2) || !bm_parse_u64(a, &n) || n == 0 || n % 4)
            return BM_EINVAL;
        u = (struct plat_uart){ PLAT_UART_MMIO, n, 4, 0, v[0] == 'p' ? PLAT_UART_PL011 : PLAT_UART_SBSA };
    } else if (!strncmp(v, "mmio:", 5)) {
        char addr[24];
        const char *comma = strchr(v + 5, ',');
        size_t len = comma ? (size_t)(comma - (v + 5)) : strlen(v + 5);
        if (len == 0 || len >= sizeof(addr))
            return BM_EINVAL;
        memcpy(addr, v + 5, len);
        addr[len] = '\0';
        if (strncmp(addr, "0x", 2) || !bm_parse_u64(addr, &n) || n == 0)
            return BM_EINVAL;
        u.space = PLAT_UART_MMIO;
        u.base = n;
        if (comma && !strcmp(comma, ",32"))
            u.reg_bytes = 4;
        else if (comma && strcmp(comma, ",8"))
            return BM_EINVAL;
        if (n % u.reg_bytes)
            return BM_EINVAL;
    } else {
        return BM_EINVAL;
    }
    c->serial = SERIAL_FIXED;
    c->serial_uart = u;
    return BM_OK;
}

static int set_baud(struct config *c, const char *v)
{
    uint64_t n;
    /* The 16550 divisor is 115200 / baud and must be a whole number. */
    if (!bm_parse_u64(v, &n) || n < 50 || n > 115200 || 115200 % n != 0)
        return BM_EINVAL;
    c->baud = (uint32_t)n;
    c->baud_given = true;
    return BM_OK;
}

static int set_out(struct config *c, const char *v)
{
    if (!strcmp(v, "off")) {
        c->out_off = true;
        return BM_OK;
    }
    const char *path = v, *colon = strchr(v, ':');

    if (!*v || strlen(v) >= sizeof(c->out))
        return BM_EINVAL;
    /* Optional volume: "LABEL:\folder" or "*:\folder" (first writable). */
    if (colon) {
        size_t n = (size_t)(colon - v);
        if (n == 0 || n > 11 || (n > 1 && memchr(v, '*', n)) || !colon[1])
            return BM_EINVAL;
        for (size_t i = 0; i < n; i++)
            if (v[i] != '*' && v[i] != '_' && v[i] != '-' && v[i] != ' ' && !(v[i] >= '0' && v[i] <= '9') &&
                !(v[i] >= 'A' && v[i] <= 'Z') && !(v[i] >= 'a' && v[i] <= 'z'))
                return BM_EINVAL;
        path = colon + 1;
    }
    for (const char *p = path; *p; p++)
        if (*p < ' ' || *p == '"' || *p == '*' || *p == '?' || *p == '<' || *p == '>' || *p == '|' || *p == ':')
            return BM_EINVAL;
    /* "..\.." would leave the results volume (the host build's folder). */
    if (bm_path_has_dot_part(path))
        return BM_EINVAL;
    c->out_off = false;
    bm_strlcpy(c->out, v, sizeof(c->out));
    for (char *p = c->out; *p; p++)
        if (*p == '/')
            *p = '\\';
    return BM_OK;
}

static int set_screen_dump(struct config *c, const char *v)
{
    if (strcmp(v, "0") && strcmp(v, "1"))
        return BM_EINVAL;
    c->screen_dump = v[0] == '1';
    return BM_OK;
}

#ifdef BAREMARK_TEST_HOOKS
static int set_test_fault(struct config *c, const char *v)
{
    if (!test_fault_known(v))
        return BM_EINVAL;
    bm_strlcpy(c->test_fault, v, sizeof(c->test_fault));
    return BM_OK;
}
#endif

static int set_exit(struct config *c, const char *v)
{
    if (!strcmp(v, "wait"))
        c->exit = EXIT_WAIT;
    else if (!strcmp(v, "return"))
        c->exit = EXIT_RETURN;
    else if (!strcmp(v, "reboot"))
        c->exit = EXIT_REBOOT;
    else if (!strcmp(v, "shutdown"))
        c->exit = EXIT_SHUTDOWN;
    else
        return BM_EINVAL;
    return BM_OK;
}

/* Size with an optional K/M/G suffix (binary), at least 4 KiB. */
static int parse_size(const char *v, uint64_t *out)
{
    char num[32];
    size_t n = strlen(v);
    uint64_t mult = 1, x;

    if (n == 0 || n >= sizeof(num))
        return BM_EINVAL;
    memcpy(num, v, n + 1);
    switch (num[n - 1]) {
    case 'K': case 'k': mult = 1ull << 10; num[n - 1] = '\0'; break;
    case 'M': case 'm': mult = 1ull << 20; num[n - 1] = '\0'; break;
    case 'G': case 'g': mult = 1ull << 30; num[n - 1] = '\0'; break;
    }
    if (!bm_parse_u64(num, &x) || x == 0 || x > (1ull << 40) / mult)
        return BM_EINVAL;
    x *= mult;
    if (x < 4096)
        return BM_EINVAL;
    *out = x;
    return BM_OK;
}

static int set_mem_max(struct config *c, const char *v) { return parse_size(v, &c->mem_max_bytes); }

static int set_verify(struct config *c, const char *v)
{
    if (!strcmp(v, "off")) {
        c->verify_bytes = 0;
        return BM_OK;
    }
    return parse_size(v, &c->verify_bytes);
}

/* scan=on|off */
static int set_scan(struct config *c, const char *v)
{
    if (strcmp(v, "on") && strcmp(v, "off"))
        return BM_EINVAL;
    c->scan = v[1] == 'n';
    return BM_OK;
}

/* scan_range=FIRST-LAST or FIRST- (to the end): LBAs, inclusive, as MHDD's
 * start and end LBA; the disk's end is applied per disk (efi/disk/scan.c). */
static int set_scan_range(struct config *c, const char *v)
{
    const char *dash = strchr(v, '-');
    char first[24];
    uint64_t a, b = UINT64_MAX;
    size_t n;

    if (!dash || dash == v || (size_t)(dash - v) >= sizeof(first))
        return BM_EINVAL;
    n = (size_t)(dash - v);
    memcpy(first, v, n);
    first[n] = '\0';
    if (!bm_parse_u64(first, &a))
        return BM_EINVAL;
    if (dash[1] && (!bm_parse_u64(dash + 1, &b) || b < a || b == UINT64_MAX))
        return BM_EINVAL;
    c->scan_range_set = true;
    c->scan_first_lba = a;
    c->scan_last_lba = b;
    return BM_OK;
}

static int set_passes(struct config *c, const char *v) { return parse_u32_in(v, 1, 1000000, &c->passes); }
/* duration=N (minutes), or Ns / Nm / Nh: a burn-in rack sets minutes or
 * hours; seconds serve short soak checks (and the emulated test runs). */
static int set_duration(struct config *c, const char *v)
{
    char num[16];
    size_t n = strlen(v);
    uint32_t unit = 60, val;

    if (n && (v[n - 1] == 's' || v[n - 1] == 'm' || v[n - 1] == 'h')) {
        unit = v[n - 1] == 's' ? 1 : v[n - 1] == 'm' ? 60 : 3600;
        n--;
    }
    if (!n || n >= sizeof(num))
        return BM_EINVAL;
    memcpy(num, v, n);
    num[n] = '\0';
    /* At most 1,000,000 minutes, whatever the unit. */
    if (parse_u32_in(num, 1, 1000000u * 60u / unit, &val) != BM_OK)
        return BM_EINVAL;
    c->duration_s = val * unit;
    return BM_OK;
}

static int set_min_mbps(struct config *c, const char *v) { return limits_parse_option(&c->limits, "min_mbps", v); }
static int set_min_iops(struct config *c, const char *v) { return limits_parse_option(&c->limits, "min_iops", v); }
static int set_max_lat_us(struct config *c, const char *v) { return limits_parse_option(&c->limits, "max_lat_us", v); }

/* spd=on|force|off (the values of enum spd_mode, in that order) */
static int set_spd(struct config *c, const char *v)
{
    static const char *const modes[] = { "on", "force", "off" };
    for (uint8_t i = 0; i < ARRAY_SIZE(modes); i++)
        if (!strcmp(v, modes[i])) {
            c->spd = i;
            return BM_OK;
        }
    return BM_EINVAL;
}

static const struct key_def keys[] = {
    { "help", "help (no value)", set_help },
    { "mem", "off, quick or full", set_mem },
    { "disk", "off, quick or full", set_disk },
    { "disks", "all, or a comma-separated list of disk ids or serials", set_disks },
    { "write", "none, or a comma-separated list of disk serials", set_write },
    { "driver", "auto, native or firmware", set_driver },
    { "time", "seconds from 1 to 3600, or milliseconds like 300ms (100ms to 3600000ms)", set_time },
    { "warmup", "seconds from 0 to 600, or milliseconds like 50ms, of unmeasured run before each disk workload "
                "(default a fifth of time=, 0.25 to 2 s)", set_warmup },
    { "io_timeout", "seconds from 1 to 600 (default 30): how long one read or write may go unanswered before "
                    "the driver reports it timed out and recovers", set_io_timeout },
    { "serial", "auto (the firmware console's port: ACPI SPCR, else ConOut, else com1), off, com1..com4, "
                "an I/O port like 0x2f8, mmio:0xADDR[,32] (32: registers 4 bytes apart), pl011:0xADDR or sbsa:0xADDR (Arm)", set_serial },
    { "baud", "a divisor of 115200 (115200, 57600, 38400, 19200, 9600, ...)", set_baud },
    { "out", "off, a folder on the boot volume like \\baremark\\results, or LABEL:\\folder / *:\\folder for another FAT volume (no . or .. in the path)", set_out },
    { "exit", "wait (keep the results on screen until a key is pressed, then return to the firmware; a BIOS PC restarts), "
              "return, reboot or shutdown", set_exit },
    { "screen_dump", "0 or 1 (a diagnostic: the final results screen as a \"screen\" record)", set_screen_dump },
    { "mem_max", "a size of at least 4K, like 64M or 1G (largest memory working set)", set_mem_max },
    { "mem_map", "off, quick (8 regions) or full (32 regions): latency and bandwidth across physical memory",
      set_mem_map },
    { "mem_map_ms", "milliseconds from 10 to 60000 of measuring per memory map region", set_mem_map_ms },
    { "verify", "off, or a size like 256M: write, read back and compare that much of each disk write= allows",
      set_verify },
    { "scan", "on or off: the surface scan, every selected disk read front to back (read-only)", set_scan },
    { "scan_range", "FIRST-LAST or FIRST- (LBAs, inclusive; FIRST-: to the disk's end): what scan=on reads",
      set_scan_range },
    { "passes", "a number of passes from 1 to 1000000", set_passes },
    { "duration", "minutes from 1 to 1000000, or a number of seconds, minutes or hours like 90s, 30m, 12h "
                  "(repeat passes until then)", set_duration },
    { "min_mbps", "a positive number (all tests) or TEST:N[,TEST:N...], e.g. SEQ1M-Q8T1:1500", set_min_mbps },
    { "min_iops", "a positive number (all tests) or TEST:N[,TEST:N...], e.g. RND4K-Q32T1:50000", set_min_iops },
    { "max_lat_us", "a positive number (all tests) or TEST:N[,TEST:N...] on the p99 latency", set_max_lat_us },
    { "spd", "on, force or off (force: enable an SMBus host the firmware left off for the SPD read; "
             "off: do not touch the SMBus, e.g. where a BMC shares it)", set_spd },
    { "upload", "off, or http://A.B.C.D[:PORT][/PATH]: PUT the results file there at the end (and after each "
                "burn-in pass)", set_upload },
    { "upload_timeout", "seconds from 1 to 3600 for one upload, retries included (default 30)", set_upload_timeout },
    { "upload_token", "off, or the rack's token (letters, digits and -._~+/ then optional '=', at most 128): sent "
                      "as \"Authorization: Bearer TOKEN\" with every upload, never shown", set_upload_token },
    { "cfg_required", "0 or 1 (1: a missing baremark.cfg is an error: nothing runs, the error is uploaded)",
      set_cfg_required },
#ifdef BAREMARK_TEST_HOOKS
    { "test_fault", "ud, gp, pf or de (test builds only: raise that CPU exception after the inventory)",
      set_test_fault },
#endif
};

void config_defaults(struct config *c)
{
    memset(c, 0, sizeof(*c));
    c->mem = LEVEL_QUICK;
    c->disk = LEVEL_QUICK;
    c->disks.all = true;
    c->driver = DRIVER_AUTO;
    c->time_s = 5;
    c->time_ms = 5000;
    c->io_timeout_s = 30;
    c->serial = SERIAL_AUTO;
    c->baud = 115200;
    bm_strlcpy(c->out, "\\baremark\\results", sizeof(c->out));
    c->exit = EXIT_WAIT;
    c->passes = 1;
    c->upload_timeout_s = 30;
}

static const struct key_def *find_key(const char *key)
{
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
        if (!strcmp(keys[i].key, key))
            return &keys[i];
    return NULL;
}

int config_set(struct config *c, const char *key, const char *value, char *err, size_t errlen)
{
    const struct key_def *k = find_key(key);

    if (!k) {
        char known[256];
        size_t n = 0;
        for (size_t i = 0; i < ARRAY_SIZE(keys) && n < sizeof(known); i++)
            n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s", i ? " " : "", keys[i].key);
        snprintf(err, errlen, "unknown option '%s' (known: %s)", key, known);
        return BM_EINVAL;
    }
    if (k->set(c, value) != BM_OK) {
        if (config_key_secret(key))
            snprintf(err, errlen, "bad value for option '%s' (not shown: it is a secret): expected %s", key,
                     k->accepted);
        else
            snprintf(err, errlen, "bad value '%s' for option '%s': expected %s", value, key, k->accepted);
        return BM_EINVAL;
    }
    return BM_OK;
}

/* Split "key=value" (in place) and apply it. */
static int apply_word(struct config *c, char *word, char *err, size_t errlen)
{
    char *eq = strchr(word, '=');
    char *key, *value;

    if (!eq) {
        if (!strcmp(word, "help"))
            return config_set(c, "help", "", err, errlen);
        snprintf(err, errlen, "malformed option '%s': expected key=value", word);
        return BM_EINVAL;
    }
    *eq = '\0';
    key = bm_trim(word);
    value = bm_trim(eq + 1);
    if (!*key) {
        snprintf(err, errlen, "malformed option '=%s': the key is missing", value);
        return BM_EINVAL;
    }
    return config_set(c, key, value, err, errlen);
}

int config_parse_file(struct config *c, const char *text, char *err, size_t errlen)
{
    return config_parse_named(c, "baremark.cfg", text, err, errlen);
}

int config_parse_named(struct config *c, const char *name, const char *text, char *err, size_t errlen)
{
    unsigned lineno = 0;
    const char *p = text;

    while (*p) {
        char line[CONFIG_LINE_MAX + 1];
        char msg[CONFIG_ERR_LEN];
        const char *end = p;
        size_t n, real;
        char *s, *hash;

        while (*end && *end != '\n')
            end++;
        n = (size_t)(end - p);
        lineno++;
        if (n >= sizeof(line)) {
            /* The whole line's length, without a CR of a CRLF line end. */
            real = n - (p[n - 1] == '\r');
            snprintf(err, errlen, "%s line %u: line too long (%lu bytes, at most %u)", name, lineno,
                     (unsigned long)real, (unsigned)CONFIG_LINE_MAX);
            return BM_EINVAL;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        p = *end ? end + 1 : end;
        hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        s = bm_trim(line);
        if (!*s)
            continue;
        if (!strchr(s, '=') && strcmp(s, "help")) {
            snprintf(err, errlen, "%s line %u: malformed line '%s': expected key=value", name, lineno,
                     strstr(s, "upload_token") ? "upload_token " CONFIG_HIDDEN : s);
            return BM_EINVAL;
        }
        {
            const char *eq = strchr(s, '=');
            size_t used = strlen(c->file_args), klen = eq ? (size_t)(eq - s) : strlen(s);
            char key[64];
            /* The key as apply_word trims it: a secret's value is not kept. */
            snprintf(key, sizeof(key), "%.*s", (int)(klen < sizeof(key) ? klen : sizeof(key) - 1), s);
            if (config_key_secret(bm_trim(key)))
                snprintf(c->file_args + used, sizeof(c->file_args) - used, "%s%s=%s", used ? " " : "", bm_trim(key),
                         CONFIG_HIDDEN);
            else
                snprintf(c->file_args + used, sizeof(c->file_args) - used, "%s%s", used ? " " : "", s);
        }
        if (apply_word(c, s, msg, sizeof(msg)) != BM_OK) {
            snprintf(err, errlen, "%s line %u: %s", name, lineno, msg);
            return BM_EINVAL;
        }
    }
    return BM_OK;
}

unsigned config_nul_line(const char *text, size_t len)
{
    const char *nul = memchr(text, '\0', len);
    unsigned line = 1;

    if (!nul)
        return 0;
    for (const char *p = text; p < nul; p++)
        line += *p == '\n';
    return line;
}

int config_parse_args(struct config *c, const char *args, char *err, size_t errlen)
{
    static char buf[CONFIG_ARGS_MAX + 1];
    size_t len = strlen(args);
    char *p;
    bool first = true;

    if (len > CONFIG_ARGS_MAX) {
        snprintf(err, errlen, "command line too long (%lu bytes, at most %u): no option was applied",
                 (unsigned long)len, (unsigned)CONFIG_ARGS_MAX);
        return BM_EINVAL;
    }
    bm_strlcpy(buf, args, sizeof(buf));
    p = buf;
    for (;;) {
        char *word;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            break;
        word = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            p++;
        if (*p)
            *p++ = '\0';
        /* The UEFI shell and iPXE put the image's own name first. */
        if (first && !strchr(word, '=') && strcmp(word, "help")) {
            first = false;
            continue;
        }
        first = false;
        if (apply_word(c, word, err, errlen) != BM_OK)
            return BM_EINVAL;
    }
    return BM_OK;
}

bool config_key_secret(const char *key)
{
    return !strcmp(key, "upload_token");
}

void config_redact_args(char *args, size_t cap)
{
    static char out[CONFIG_ARGS_MAX + 1];
    size_t n = 0;
    const char *p = args;

    while (*p && n + 1 < sizeof(out)) {
        const char *w = p, *eq;
        size_t wl = 0;
        char key[64];

        while (w[wl] && w[wl] != ' ' && w[wl] != '\t' && w[wl] != '\r' && w[wl] != '\n')
            wl++;
        eq = memchr(w, '=', wl);
        snprintf(key, sizeof(key), "%.*s", (int)(eq && (size_t)(eq - w) < sizeof(key) ? eq - w : 0), w);
        if (eq && config_key_secret(key))
            n += (size_t)snprintf(out + n, sizeof(out) - n, "%s=%s", key, CONFIG_HIDDEN);
        else
            n += (size_t)snprintf(out + n, sizeof(out) - n, "%.*s", (int)wl, w);
        p += wl;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
            if (n + 1 < sizeof(out))
                out[n++] = *p;
            p++;
        }
        if (n >= sizeof(out))
            n = sizeof(out) - 1;
        out[n] = '\0';
    }
    out[n < sizeof(out) ? n : sizeof(out) - 1] = '\0';
    bm_strlcpy(args, out, cap);
}

static bool list_has(const struct id_list *l, const char *s)
{
    if (!s || !*s)
        return false;
    for (unsigned i = 0; i < l->count; i++)
        if (!strcmp(l->items[i], s))
            return true;
    return false;
}

bool config_disk_selected(const struct config *c, const char *id, const char *serial)
{
    return c->disks.all || list_has(&c->disks, id) || list_has(&c->disks, serial);
}

bool config_write_allowed(const struct config *c, const char *serial)
{
    return list_has(&c->write, serial);
}

const char *config_help_text(void)
{
    static char text[4096];
    size_t len = 0;

    if (text[0])
        return text;
    len += (size_t)snprintf(text + len, sizeof(text) - len,
                            "baremark options (key=value; command line overrides %s):\n", CONFIG_FILE_PATH);
    for (size_t i = 0; i < ARRAY_SIZE(keys) && len < sizeof(text); i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "  %-8s %s\n", keys[i].key, keys[i].accepted);
    return text;
}
