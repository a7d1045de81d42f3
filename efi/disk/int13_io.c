/* INT 13h transfers with SYSLINUX's retries, halving and CHS fallback (see
 * int13_io.h). */
#include "int13_io.h"

#define AH_RESET 0x00
#define AH_CHS_READ 0x02
#define AH_CHS_WRITE 0x03
#define AH_GEOMETRY 0x08
#define AH_CHECK_EXT 0x41
#define AH_EXT_READ 0x42
#define AH_EXT_WRITE 0x43
#define AH_PARAMS 0x48
#define EDD_FIXED_DISK_ACCESS 0x1
#define CHS_MAX_CYLS 1024u         /* 10 bits of cylinder in CH and CL bits 6-7 */

/* AH=00h: reset the disk system before the next try (ldlinux.asm xint13). */
static void i13_reset(struct i13_drive *d)
{
    struct i13_regs r = { .ax = AH_RESET << 8, .dx = d->dl };

    d->intcall(d->ctx, &r);
}

/* One call with up to I13_RETRIES tries more, a reset before each; r is
 * rebuilt from in each time (a BIOS overwrites what it likes). True on
 * success (ok() decides beyond the carry flag), r holding the answer. */
static bool i13_try(struct i13_drive *d, const struct i13_regs *in, struct i13_regs *r,
                    bool (*ok)(struct i13_drive *, const struct i13_regs *), int tries)
{
    for (int i = 0; i < tries; i++) {
        if (i) {
            d->retries++;
            i13_reset(d);
        }
        *r = *in;
        d->intcall(d->ctx, r);
        if (!r->cf && (!ok || ok(d, r)))
            return true;
        d->last_error = (uint8_t)(r->ax >> 8);
    }
    return false;
}

static bool ext_answer_ok(struct i13_drive *d, const struct i13_regs *r)
{
    return r->bx == 0xaa55 && (r->cx & EDD_FIXED_DISK_ACCESS);
}

bool i13_probe(struct i13_drive *d)
{
    struct i13_regs in = { .ax = AH_CHECK_EXT << 8, .bx = 0x55aa, .dx = d->dl }, r;
    bool geometry;

    d->edd = false;
    d->spt = d->heads = d->cyls = 0;
    d->bytes_per_sector = 512;
    /* A BIOS without the extensions answers AH=01h "invalid function" (no
     * use asking again); any other failure may be a transient one. */
    for (int i = 0; i <= I13_RETRIES && !d->edd; i++) {
        if (i)
            i13_reset(d);
        r = in;
        d->intcall(d->ctx, &r);
        if (!r.cf && ext_answer_ok(d, &r)) {
            d->edd = true;
            d->edd_version = (uint8_t)(r.ax >> 8);
        } else if (!r.cf || (r.ax >> 8) == 0x01) {
            break;
        }
    }
    memset(&in, 0, sizeof(in));
    in.ax = AH_GEOMETRY << 8;
    in.dx = d->dl;
    geometry = i13_try(d, &in, &r, NULL, I13_RETRIES + 1) && (r.cx & 0x3f);
    if (geometry) {
        d->spt = r.cx & 0x3f;
        d->cyls = (uint16_t)(((r.cx >> 8) | ((r.cx & 0xc0) << 2)) + 1);
        d->heads = (uint16_t)((r.dx >> 8) + 1);
    }
    d->max_blocks = d->bounce_bytes / 512;
    if (d->max_blocks > I13_MAX_BLOCKS)
        d->max_blocks = I13_MAX_BLOCKS;
    return d->edd || geometry;
}

bool i13_params(struct i13_drive *d, unsigned len)
{
    struct i13_regs in = { .ax = AH_PARAMS << 8, .dx = d->dl, .ds = d->bounce_seg, .si = 0 }, r;

    for (int i = 0; i <= I13_RETRIES; i++) {
        if (i) {
            d->retries++;
            i13_reset(d);
        }
        memset(d->bounce, 0, len);
        d->bounce[0] = (uint8_t)len;   /* the caller's buffer size (EDD 3.0: word at offset 0) */
        d->bounce[1] = (uint8_t)(len >> 8);
        r = in;
        d->intcall(d->ctx, &r);
        if (!r.cf)
            return true;
        d->last_error = (uint8_t)(r.ax >> 8);
    }
    return false;
}

uint64_t i13_chs_sectors(const struct i13_drive *d)
{
    return (uint64_t)d->cyls * d->heads * d->spt;
}

/* One extended request of n blocks (n <= max_blocks), with the retries. */
static bool ext_once(struct i13_drive *d, bool write, uint64_t lba, uint32_t n, struct i13_regs *r)
{
    struct i13_regs in = { .ax = (uint16_t)((write ? AH_EXT_WRITE : AH_EXT_READ) << 8), .dx = d->dl,
                           .ds = d->dap_seg, .si = d->dap_off };
    bool ok = false;

    for (int i = 0; i <= I13_RETRIES && !ok; i++) {
        if (i) {
            d->retries++;
            i13_reset(d);
        }
        /* Rebuilt each time: the BIOS writes the count it moved into it. */
        memset(d->dap, 0, I13_DAP_BYTES);
        d->dap[0] = I13_DAP_BYTES;
        d->dap[2] = (uint8_t)n;
        d->dap[4] = 0;                  /* buffer offset 0, segment bounce_seg */
        d->dap[6] = (uint8_t)d->bounce_seg;
        d->dap[7] = (uint8_t)(d->bounce_seg >> 8);
        memcpy(d->dap + 8, &lba, 8);
        *r = in;
        d->intcall(d->ctx, r);
        ok = !r->cf && d->dap[2] == n;  /* the BIOS writes back the count it moved */
        if (!ok)
            d->last_error = r->cf ? (uint8_t)(r->ax >> 8) : 0xbb;   /* 0xbb: "undefined error" */
    }
    return ok;
}

/* One CHS request of n blocks, inside one track, with the retries. */
static bool chs_once(struct i13_drive *d, bool write, uint64_t lba, uint32_t n, struct i13_regs *r)
{
    uint32_t per_cyl = (uint32_t)d->heads * d->spt;
    uint32_t c = (uint32_t)(lba / per_cyl), h = (uint32_t)(lba / d->spt % d->heads), s = (uint32_t)(lba % d->spt) + 1;
    struct i13_regs in = {
        .ax = (uint16_t)((write ? AH_CHS_WRITE : AH_CHS_READ) << 8 | n),
        /* INT 13h AH=02h: CH cylinder bits 0-7, CL bits 6-7 cylinder bits 8-9, CL bits 0-5 sector (1-based), DH head */
        .cx = (uint16_t)((c & 0xff) << 8 | (c >> 2 & 0xc0) | s),
        .dx = (uint16_t)(h << 8 | d->dl),
        .es = d->bounce_seg,
        .bx = 0,
    };

    return i13_try(d, &in, r, NULL, I13_RETRIES + 1) && (r->ax & 0xff) == n;
}

/* n blocks at lba through CHS, track by track: false when CHS cannot reach
 * them or the BIOS failed. */
static bool chs_rw(struct i13_drive *d, bool write, uint64_t lba, uint32_t n, uint8_t *b, uint32_t bps)
{
    struct i13_regs r;

    if (!d->spt || lba >= i13_chs_sectors(d) || n > i13_chs_sectors(d) - lba)
        return false;
    while (n) {
        uint32_t k = d->spt - (uint32_t)(lba % d->spt);  /* not across a track (SYSLINUX chs_rdwr_sectors) */
        if (k > n)
            k = n;
        if (k > d->max_blocks)
            k = d->max_blocks;
        if (write)
            memcpy(d->bounce, b, (size_t)k * bps);
        if (!chs_once(d, write, lba, k, &r)) {
            if (k == 1)
                return false;
            d->max_blocks = k / 2;  /* halved as the extended requests are */
            d->halvings++;
            continue;
        }
        if (!write)
            memcpy(b, d->bounce, (size_t)k * bps);
        b += (size_t)k * bps;
        lba += k;
        n -= k;
    }
    return true;
}

int i13_rw(struct i13_drive *d, bool write, uint64_t lba, uint32_t count, void *buf, uint8_t *status)
{
    uint8_t *b = buf;
    uint32_t bps = d->bytes_per_sector ? d->bytes_per_sector : 512;
    struct i13_regs r;

    *status = 0;
    if (d->max_blocks > d->bounce_bytes / bps)
        d->max_blocks = d->bounce_bytes / bps;
    if (!d->max_blocks)
        return BM_EINVAL;
    if (!d->edd) {
        if (!d->spt || lba >= i13_chs_sectors(d) || count > i13_chs_sectors(d) - lba)
            return BM_EINVAL;
        if (chs_rw(d, write, lba, count, b, bps))
            return BM_OK;
        *status = d->last_error;
        return BM_EIO;
    }
    while (count) {
        uint32_t n = count < d->max_blocks ? count : d->max_blocks;
        if (write)
            memcpy(d->bounce, b, (size_t)n * bps);
        if (!ext_once(d, write, lba, n, &r)) {
            if (n > 1) {
                /* Halve it, and keep the smaller size (SYSLINUX maxtransfer). */
                d->max_blocks = n / 2;
                d->halvings++;
                continue;
            }
            /* One block failed every try: some BIOSes claim EDD and cannot
             * do it; CHS, if it reaches that far, and if it works, for good. */
            if (d->spt && chs_rw(d, write, lba, count, b, bps)) {
                d->chs_fallbacks++;
                d->edd = false;
                return BM_OK;
            }
            *status = d->last_error;
            return BM_EIO;
        }
        if (!write)
            memcpy(b, d->bounce, (size_t)n * bps);
        b += (size_t)n * bps;
        lba += n;
        count -= n;
    }
    return BM_OK;
}
