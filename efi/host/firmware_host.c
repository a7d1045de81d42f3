/* Firmware tables on Linux: SMBIOS and ACPI from sysfs when readable, the
 * machine's identity and the wall clock. */
#include "host_private.h"

/* Read a whole file into a malloc'd buffer. */
static void *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    size_t cap = 65536, n = 0;
    char *buf;

    if (fd < 0)
        return NULL;
    buf = malloc(cap);
    for (;;) {
        ssize_t r;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        r = read(fd, buf + n, cap - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    *len = n;
    return buf;
}

int plat_smbios_table(const void **table, size_t *len, int *major, int *minor)
{
    static void *t;
    static size_t tlen;
    static int maj, min;
    const char *dir = getenv("BAREMARK_HOST_DMI");
    char path[512];

    if (!t) {
        size_t eplen = 0;
        uint8_t *ep;
        if (!dir)
            dir = "/sys/firmware/dmi/tables";
        snprintf(path, sizeof(path), "%s/smbios_entry_point", dir);
        ep = slurp(path, &eplen);
        if (!ep)
            return BM_ENODEV;
        if (eplen >= 9 && !memcmp(ep, "_SM3_", 5)) {
            maj = ep[7];
            min = ep[8];
        } else if (eplen >= 8 && !memcmp(ep, "_SM_", 4)) {
            maj = ep[6];
            min = ep[7];
        }
        free(ep);
        snprintf(path, sizeof(path), "%s/DMI", dir);
        t = slurp(path, &tlen);
        if (!t)
            return BM_ENODEV;
    }
    *table = t;
    *len = tlen;
    *major = maj;
    *minor = min;
    return BM_OK;
}

const void *plat_acpi_table(const char sig[4], unsigned instance)
{
    static struct {
        char name[8];
        void *data;
    } cache[16];
    char path[256];
    size_t len;
    const char *dir = getenv("BAREMARK_HOST_ACPI");

    if (!dir)
        dir = "/sys/firmware/acpi/tables";
    if (instance == 0)
        snprintf(path, sizeof(path), "%s/%.4s", dir, sig);
    else
        snprintf(path, sizeof(path), "%s/%.4s%u", dir, sig, instance);
    for (size_t i = 0; i < ARRAY_SIZE(cache); i++)
        if (cache[i].data && !strcmp(cache[i].name, path + strlen(dir) + 1))
            return cache[i].data;
    for (size_t i = 0; i < ARRAY_SIZE(cache); i++) {
        if (!cache[i].data) {
            void *d = slurp(path, &len);
            if (!d)
                return NULL;
            bm_strlcpy(cache[i].name, path + strlen(dir) + 1, sizeof(cache[i].name));
            cache[i].data = d;
            return d;
        }
    }
    return NULL;
}

void plat_firmware_info(char *buf, size_t len)
{
    char vendor[64] = "", version[64] = "";
    size_t n;
    char *v = slurp("/sys/class/dmi/id/bios_vendor", &n);
    if (v) {
        snprintf(vendor, sizeof(vendor), "%.*s", (int)n, v);
        free(v);
    }
    v = slurp("/sys/class/dmi/id/bios_version", &n);
    if (v) {
        snprintf(version, sizeof(version), "%.*s", (int)n, v);
        free(v);
    }
    snprintf(buf, len, "%s %s (Linux host build)", bm_trim(vendor), bm_trim(version));
}

/* Linux publishes EFI variables under efivarfs: 4 bytes of attributes,
 * then the value. A BIOS-booted host has none: "unknown". */
static int efivar_flag(const char *name)
{
    char path[160];
    size_t n;
    int v = -1;
    unsigned char *d;

    snprintf(path, sizeof(path), "/sys/firmware/efi/efivars/%s-8be4df61-93ca-11d2-aa0d-00e098032b8c", name);
    d = slurp(path, &n);
    if (d && n == 5)
        v = d[4];
    free(d);
    return v;
}

const char *plat_secure_boot(void)
{
    return secure_boot_state(efivar_flag("SecureBoot"), efivar_flag("SetupMode"));
}

void plat_time_iso(char *iso, size_t iso_len, char *compact, size_t compact_len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(iso, iso_len, "%Y-%m-%dT%H:%M:%SZ", &tm);
    strftime(compact, compact_len, "%Y%m%d-%H%M%S", &tm);
}
