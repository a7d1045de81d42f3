/* Files on Linux: BAREMARK_HOST_VOLUME names a folder that plays the boot
 * volume (and the results volume). */
#include "host_private.h"

static const char *volume(void) { return getenv("BAREMARK_HOST_VOLUME"); }

static void host_path(char *dst, size_t cap, const char *path)
{
    snprintf(dst, cap, "%s/%s", volume(), path[0] == '\\' ? path + 1 : path);
    for (char *p = dst; *p; p++)
        if (*p == '\\')
            *p = '/';
}

long plat_boot_file_read(const char *path, char *buf, size_t cap)
{
    char p[512];
    int fd;
    ssize_t n;

    if (!volume())
        return BM_ENODEV;
    host_path(p, sizeof(p), path);
    fd = open(p, O_RDONLY);
    if (fd < 0)
        return BM_ENODEV;
    n = read(fd, buf, cap);
    close(fd);
    return n < 0 ? BM_EIO : (long)n;
}

size_t plat_boot_file_places(char *buf, size_t cap)
{
    return (size_t)snprintf(buf, cap, "%s", volume() ? volume() : "nowhere (BAREMARK_HOST_VOLUME is not set)");
}

/* BAREMARK_HOST_MAC=52:54:00:12:34:56 plays the boot NIC. */
bool plat_boot_nic_mac(uint8_t mac[6])
{
    const char *s = getenv("BAREMARK_HOST_MAC");
    unsigned v[6];

    if (!s || sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
        return false;
    for (int i = 0; i < 6; i++)
        mac[i] = (uint8_t)v[i];
    return true;
}

/* BAREMARK_HOST_IP=10.0.0.7 plays the boot NIC's address. */
bool plat_boot_nic_ip(uint8_t ip[4])
{
    const char *s = getenv("BAREMARK_HOST_IP");
    unsigned v[4];

    if (!s || sscanf(s, "%u.%u.%u.%u", &v[0], &v[1], &v[2], &v[3]) != 4 || v[0] > 255 || v[1] > 255 || v[2] > 255 ||
        v[3] > 255)
        return false;
    for (int i = 0; i < 4; i++)
        ip[i] = (uint8_t)v[i];
    return true;
}

/* Host files come from a folder: no server to quote. */
size_t plat_boot_file_error(char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    return 0;
}

bool plat_boot_volume_writable(void) { return volume() && access(volume(), W_OK) == 0; }

const char *plat_boot_source(void) { return volume() ? "disk" : "unknown"; }

static bool results_open;

void plat_file_stored_as(const char *path, char *out, size_t cap) { bm_strlcpy(out, path, cap); }

void *plat_file_create(const char *path)
{
    char p[512];
    FILE *f;
    const char *colon = strchr(path, ':');

    if (colon)
        path = colon + 1; /* one volume on the host: labels name it too */
    /* config refuses these in out=; never leave the volume folder anyway. */
    if (!plat_boot_volume_writable() || bm_path_has_dot_part(path))
        return NULL;
    host_path(p, sizeof(p), path);
    for (char *s = p + strlen(volume()) + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    }
    f = fopen(p, "w");
    results_open = results_open || f;
    return f;
}

int plat_file_write(void *f, const void *data, size_t len)
{
    return fwrite(data, 1, len, f) == len ? BM_OK : BM_EIO;
}

int plat_file_flush(void *f) { return fflush(f) == 0 ? BM_OK : BM_EIO; }
void plat_file_close(void *f) { fclose(f); }

long plat_results_file_read(const char *path, char *buf, size_t cap)
{
    const char *colon = strchr(path, ':');

    return plat_boot_file_read(colon ? colon + 1 : path, buf, cap);
}

void plat_boot_location(struct plat_boot_location *loc)
{
    memset(loc, 0, sizeof(*loc));
    loc->has_volume = volume() != NULL;
    bm_strlcpy(loc->description, "host", sizeof(loc->description));
}

void plat_results_location(struct plat_boot_location *loc)
{
    plat_boot_location(loc);
    loc->has_volume = results_open;
}
