/* The run's identity (run_ident.h). */
#include "run_ident.h"
#include "platform.h"

/* SplitMix64's output function (Steele, Lea, Flood 2014): every input bit
 * reaches every output bit. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* FNV-1a (64 bit) over bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const uint8_t *p = data;

    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#if defined(__aarch64__)
/* Arm: the generic timer's virtual counter stands in for the TSC; there is
 * no CPUID, and RNDR (FEAT_RNG) is optional, so the jitter is the source. */
static uint64_t rdtsc(void)
{
    uint64_t v;

    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
}
#define JITTER_SOURCE "cntvct_jitter"
#else
#define JITTER_SOURCE "tsc_jitter"
static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    __asm__ __volatile__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* One RDSEED / RDRAND value; CF=0 means none was ready. Intel's DRNG
 * Software Implementation Guide (section 5.2.1) retries RDRAND 10 times;
 * RDSEED may run dry for longer, so it gets more tries with a pause. */
static bool rdseed64(uint64_t *v)
{
    for (int i = 0; i < 100; i++) {
        uint8_t ok;
        __asm__ __volatile__("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
        if (ok)
            return true;
        plat_cpu_relax();
    }
    return false;
}

static bool rdrand64(uint64_t *v)
{
    for (int i = 0; i < 10; i++) {
        uint8_t ok;
        __asm__ __volatile__("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
        if (ok)
            return true;
    }
    return false;
}
#endif

/* TSC jitter: the time a little memory work takes varies with caches,
 * interrupts, SMIs and (under an emulator) the host; the low bits of many
 * such timings, mixed, differ between two machines started together. */
static void tsc_jitter(uint64_t out[2])
{
    static volatile uint8_t scratch[4096];
    uint64_t a = rdtsc(), b = mix64(a);

    for (unsigned i = 0; i < 2048; i++) {
        uint64_t t0 = rdtsc(), d;
        for (unsigned k = 0; k < 16 + (unsigned)(a & 63); k++)
            scratch[(a + k * 67) & (sizeof(scratch) - 1)] += (uint8_t)k;
        d = rdtsc() - t0;
        a = mix64(a ^ d ^ ((uint64_t)i << 48));
        b = mix64(b + (d << 17) + rdtsc());
    }
    out[0] = a;
    out[1] = b;
}

const char *run_ident_entropy(uint64_t out[2], bool force_jitter)
{
    uint32_t r[4];
    bool has_seed = false, has_rand = false;

#if defined(__aarch64__)
    (void)r, (void)has_seed, (void)has_rand, (void)force_jitter;
#else
    if (!force_jitter) {
        cpuid(0, 0, r);
        if (r[0] >= 7) {
            uint32_t r7[4];
            cpuid(7, 0, r7);
            has_seed = (r7[1] >> 18) & 1;
        }
        cpuid(1, 0, r);
        has_rand = (r[2] >> 30) & 1;
        if (has_seed && rdseed64(&out[0]) && rdseed64(&out[1]))
            return "rdseed";
        if (has_rand && rdrand64(&out[0]) && rdrand64(&out[1]))
            return "rdrand";
    }
#endif
    tsc_jitter(out);
    return JITTER_SOURCE;
}

void run_ident_make(struct run_ident *id, const uint64_t entropy[2], const char *source, const char *uuid,
                    const char *serial, const uint8_t *mac, const uint8_t *ip)
{
    uint64_t h = 0xcbf29ce484222325ull, w0, w1;

    memset(id, 0, sizeof(*id));
    id->run_id_source = source;
    bm_strlcpy(id->uuid, uuid ? uuid : "", sizeof(id->uuid));
    bm_strlcpy(id->serial, serial ? serial : "", sizeof(id->serial));
    if (mac) {
        id->has_mac = true;
        memcpy(id->mac, mac, 6);
    }
    if (ip) {
        id->has_ip = true;
        memcpy(id->ip, ip, 4);
    }
    /* The identity is hashed with separators so "ab"+"c" and "a"+"bc" differ. */
    h = fnv1a(h, id->uuid, strlen(id->uuid) + 1);
    h = fnv1a(h, id->serial, strlen(id->serial) + 1);
    h = fnv1a(h, id->mac, id->has_mac ? 6 : 0);
    w0 = mix64(entropy[0] ^ h);
    w1 = mix64(entropy[1] ^ mix64(h + 0x9e3779b97f4a7c15ull));
    snprintf(id->run_id, sizeof(id->run_id), "%08x%08x%08x%08x", (unsigned)(w0 >> 32), (unsigned)w0,
             (unsigned)(w1 >> 32), (unsigned)w1);
}

void run_ident_mac_text(const struct run_ident *id, char *buf, size_t cap)
{
    const uint8_t *m = id->mac;

    if (!id->has_mac)
        bm_strlcpy(buf, "", cap);
    else
        snprintf(buf, cap, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

void run_ident_ip_text(const struct run_ident *id, char *buf, size_t cap)
{
    if (!id->has_ip)
        bm_strlcpy(buf, "", cap);
    else
        snprintf(buf, cap, "%u.%u.%u.%u", id->ip[0], id->ip[1], id->ip[2], id->ip[3]);
}

void run_ident_json(const struct run_ident *id, struct json *j)
{
    char mac[18], ip[16];

    run_ident_mac_text(id, mac, sizeof(mac));
    run_ident_ip_text(id, ip, sizeof(ip));
    json_str(j, "run_id", id->run_id);
    json_str(j, "run_id_source", id->run_id_source ? id->run_id_source : "");
    json_str(j, "smbios_uuid", id->uuid);
    json_str(j, "system_serial", id->serial);
    json_str(j, "mac", mac);
    json_str(j, "ip", ip);
}

/* Letters, digits, '-', '_' and '.' only (a FAT and URL safe name part);
 * "unknown" when nothing is left. */
static void name_part(char *dst, size_t cap, const char *src, size_t max)
{
    size_t n = 0;

    for (; *src && n + 1 < cap && n < max; src++) {
        char ch = *src;
        bool ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '-' ||
                  ch == '_' || ch == '.';
        dst[n++] = ok ? ch : '_';
    }
    dst[n] = '\0';
    if (!n)
        bm_strlcpy(dst, "unknown", cap);
}

size_t run_ident_upload_base(char *dst, size_t cap, const struct run_ident *id, const char *compact_time)
{
    char serial[RUN_NAME_SERIAL_MAX + 1], mac[13], when[24];
    int n;

    name_part(serial, sizeof(serial), id->serial, RUN_NAME_SERIAL_MAX);
    name_part(when, sizeof(when), compact_time, sizeof(when) - 1);
    if (id->has_mac)
        snprintf(mac, sizeof(mac), "%02x%02x%02x%02x%02x%02x", id->mac[0], id->mac[1], id->mac[2], id->mac[3],
                 id->mac[4], id->mac[5]);
    else
        bm_strlcpy(mac, "nomac", sizeof(mac));
    n = snprintf(dst, cap, "%s-%s-%s-%s", when, serial, mac, id->run_id);
    if (n < 0 || (size_t)n >= cap) {
        if (cap)
            dst[0] = '\0';
        return 0;
    }
    return (size_t)n;
}
