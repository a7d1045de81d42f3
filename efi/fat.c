/* Minimal read-only FAT12/16/32 (fat.h). Every number read from the volume
 * is checked before it is used as an index, a sector or a count: the stick
 * may be damaged, and the fuzzer feeds it anything. */
#include "fat.h"
#include "platform.h"

#define DIRENT_BYTES 32
#define ATTR_DIR 0x10
#define ATTR_VOLUME 0x08
#define ATTR_LFN 0x0f
#define LFN_LAST 0x40
#define LFN_MAX 255

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* One sector of the volume (rel = relative to its boot sector), cached. */
static int vol_read(struct fat_vol *v, uint64_t rel, const uint8_t **out)
{
    int rc;

    if (v->sectors && rel >= v->sectors)
        return BM_EINVAL;
    if (v->cached_lba != rel) {
        v->cached_lba = UINT64_MAX;
        rc = v->read(v->ctx, v->first_lba + rel, v->sec);
        if (rc != BM_OK)
            return rc;
        v->cached_lba = rel;
    }
    *out = v->sec;
    return BM_OK;
}

/* The BPB (boot sector) and what follows from it. */
int fat_open(struct fat_vol *v, fat_read_fn read, void *ctx, uint64_t first_lba, uint64_t sectors,
             uint32_t sector_bytes)
{
    const uint8_t *b;
    uint32_t bps, spc, reserved, nfats, root_entries, total, fatsz, root_sectors;
    uint64_t data_sectors;
    int rc;

    memset(v, 0, sizeof(*v));
    v->read = read;
    v->ctx = ctx;
    v->first_lba = first_lba;
    v->sectors = sectors;
    v->cached_lba = UINT64_MAX;
    rc = vol_read(v, 0, &b);
    if (rc != BM_OK)
        return rc;
    bps = le16(b + 11);
    spc = b[13];
    reserved = le16(b + 14);
    nfats = b[16];
    root_entries = le16(b + 17);
    total = le16(b + 19) ? le16(b + 19) : le32(b + 32);
    fatsz = le16(b + 22) ? le16(b + 22) : le32(b + 36);
    if (sector_bytes < 512 || sector_bytes > FAT_SECTOR_MAX)
        return BM_EINVAL;
    if (le16(b + 510) != 0xaa55 || bps != sector_bytes || (bps != 512 && bps != 1024 && bps != 2048 && bps != 4096) || !spc ||
        (spc & (spc - 1)) || !reserved || !nfats || !fatsz || !total)
        return BM_EINVAL;
    if (sectors && total > sectors)
        return BM_EINVAL;               /* the BPB claims more than the partition holds */
    root_sectors = (root_entries * DIRENT_BYTES + bps - 1) / bps;
    if ((uint64_t)reserved + (uint64_t)nfats * fatsz + root_sectors >= total)
        return BM_EINVAL;
    data_sectors = total - ((uint64_t)reserved + (uint64_t)nfats * fatsz + root_sectors);
    v->bytes_per_sector = bps;
    v->sectors_per_cluster = spc;
    v->clusters = (uint32_t)(data_sectors / spc);
    v->type = v->clusters < 4085 ? 12 : v->clusters < 65525 ? 16 : 32;
    v->fat_sectors = fatsz;
    v->fat_lba = reserved;
    v->root_lba = reserved + (uint64_t)nfats * fatsz;
    v->root_entries = root_entries;
    v->data_lba = v->root_lba + root_sectors;
    v->sectors = total;
    if (v->type == 32) {
        v->root_cluster = le32(b + 44) & 0x0fffffff;
        if (root_entries || v->root_cluster < 2 || v->root_cluster > v->clusters + 1)
            return BM_EINVAL;
    } else if (!root_entries) {
        return BM_EINVAL;
    }
    /* The FAT must hold an entry for every cluster. */
    if ((uint64_t)fatsz * bps * 8 < (uint64_t)(v->clusters + 2) * (uint64_t)v->type)
        return BM_EINVAL;
    return BM_OK;
}

/* The FAT entry of cluster c: the next cluster, or >= 0x0ffffff8 at the end
 * (FAT12/16 end marks are widened). BM_EINVAL for a value that is neither. */
static int fat_next(struct fat_vol *v, uint32_t c, uint32_t *next)
{
    uint64_t off = v->type == 12 ? (uint64_t)c + c / 2 : (uint64_t)c * (uint64_t)(v->type / 8);
    const uint8_t *s;
    uint8_t bytes[4];
    uint32_t val;
    unsigned need = v->type == 12 ? 2 : (unsigned)v->type / 8;
    int rc;

    /* A FAT12 entry may straddle two sectors: read byte by byte. */
    for (unsigned i = 0; i < need; i++) {
        uint64_t sec = (off + i) / v->bytes_per_sector;
        if (sec >= v->fat_sectors)
            return BM_EINVAL;
        rc = vol_read(v, v->fat_lba + sec, &s);
        if (rc != BM_OK)
            return rc;
        bytes[i] = s[(off + i) % v->bytes_per_sector];
    }
    if (v->type == 12) {
        val = le16(bytes);
        val = (c & 1) ? val >> 4 : val & 0xfff;
        if (val >= 0xff8)
            val = 0x0ffffff8;
    } else if (v->type == 16) {
        val = le16(bytes);
        if (val >= 0xfff8)
            val = 0x0ffffff8;
    } else {
        val = le32(bytes) & 0x0fffffff;
    }
    if (val >= 0x0ffffff8) {
        *next = val;
        return BM_OK;
    }
    if (val < 2 || val > v->clusters + 1)
        return BM_EINVAL;       /* free, bad or out of range in the middle of a chain */
    *next = val;
    return BM_OK;
}

static uint64_t cluster_lba(const struct fat_vol *v, uint32_t c)
{
    return v->data_lba + (uint64_t)(c - 2) * v->sectors_per_cluster;
}

/* Walk a chain from first: visit(sector) for each of its sectors in order,
 * at most max_sectors (UINT64_MAX: to the chain's end, a directory). A
 * chain with more clusters than its data can fill (a file) or than the
 * largest directory has (65536 entries, FAT spec) loops or is damaged. */
typedef int (*sector_fn)(struct fat_vol *v, uint64_t rel, void *arg);

static int walk_chain(struct fat_vol *v, uint32_t first, uint64_t max_sectors, sector_fn visit, void *arg)
{
    uint64_t cluster_bytes = (uint64_t)v->bytes_per_sector * v->sectors_per_cluster;
    uint64_t max_steps = max_sectors == UINT64_MAX ? (65536ull * DIRENT_BYTES + cluster_bytes - 1) / cluster_bytes
                                                   : max_sectors / v->sectors_per_cluster + 1;
    uint32_t c = first, steps = 0, mark = first;
    uint64_t done = 0, power = 1, lam = 0;
    int rc;

    if (c < 2 || c > v->clusters + 1)
        return BM_EINVAL;
    while (done < max_sectors) {
        for (uint32_t i = 0; i < v->sectors_per_cluster && done < max_sectors; i++, done++) {
            rc = visit(v, cluster_lba(v, c) + i, arg);
            if (rc != BM_OK)
                return rc;      /* BM_EABORT: the visitor found what it wanted */
        }
        if (done >= max_sectors)
            break;
        if (++steps > v->clusters || steps > max_steps)
            return BM_EINVAL;   /* longer than anything it can hold */
        rc = fat_next(v, c, &c);
        if (rc != BM_OK)
            return rc;
        if (c >= 0x0ffffff8)
            return max_sectors == UINT64_MAX ? BM_OK : BM_EINVAL;  /* shorter than the file's size */
        /* A loop, found as soon as it closes (Brent's cycle detection: the
         * cluster at each power-of-two step is the mark). */
        if (c == mark)
            return BM_EINVAL;
        if (++lam == power) {
            mark = c;
            power *= 2;
            lam = 0;
        }
    }
    return BM_OK;
}

/* ---- Directories ---------------------------------------------------------------- */

struct dir_search {
    const char *name;
    size_t name_len;
    struct fat_file *out;
    bool found;
    char lfn[LFN_MAX + 1];
    unsigned lfn_len;           /* 0: no long name pending */
    uint8_t lfn_sum;
    bool end;                   /* a 0 entry: no more entries */
};

static uint8_t short_sum(const uint8_t *e)
{
    uint8_t sum = 0;
    for (int i = 0; i < 11; i++)
        sum = (uint8_t)(((sum & 1) << 7) + (sum >> 1) + e[i]);
    return sum;
}

static char lower(char ch) { return ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch; }

static bool same_name(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen)
        return false;
    for (size_t i = 0; i < alen; i++)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

/* A long-name entry: its 13 UCS-2 characters go to their place in lfn
 * (non-ASCII as '?', so such a name matches no ASCII path). */
static void lfn_piece(struct dir_search *s, const uint8_t *e)
{
    static const uint8_t at[13] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };
    unsigned seq = e[0] & 0x1f;

    if (e[0] & LFN_LAST) {
        s->lfn_len = 0;
        s->lfn_sum = e[13];
    } else if (!s->lfn_len || s->lfn_sum != e[13]) {
        s->lfn_len = 0;
        return;
    }
    if (!seq || seq * 13 > LFN_MAX) {
        s->lfn_len = 0;
        return;
    }
    for (unsigned i = 0; i < 13; i++) {
        uint16_t ch = le16(e + at[i]);
        unsigned pos = (seq - 1) * 13 + i;
        if (ch == 0 || ch == 0xffff) {
            if (e[0] & LFN_LAST)
                s->lfn_len = pos;
            break;
        }
        s->lfn[pos] = ch < 0x80 ? (char)ch : '?';
        if ((e[0] & LFN_LAST) && pos + 1 > s->lfn_len)
            s->lfn_len = pos + 1;
    }
}

/* One 8.3 entry against the name sought: its long name (when the pending
 * one belongs to it) or the short name "NAME.EXT". */
static void short_entry(struct dir_search *s, const uint8_t *e)
{
    char sn[13];
    size_t n = 0;
    bool lfn_ok = s->lfn_len && s->lfn_sum == short_sum(e);

    for (int i = 0; i < 8 && e[i] != ' '; i++)
        sn[n++] = (char)(i == 0 && e[0] == 0x05 ? 0xe5 : e[i]);
    if (e[8] != ' ') {
        sn[n++] = '.';
        for (int i = 8; i < 11 && e[i] != ' '; i++)
            sn[n++] = (char)e[i];
    }
    if ((lfn_ok && same_name(s->lfn, s->lfn_len, s->name, s->name_len)) || same_name(sn, n, s->name, s->name_len)) {
        s->found = true;
        s->out->dir = (e[11] & ATTR_DIR) != 0;
        s->out->size = le32(e + 28);
        s->out->first_cluster = (uint32_t)le16(e + 26) | (uint32_t)le16(e + 20) << 16;
    }
    s->lfn_len = 0;
}

static int dir_sector(struct fat_vol *v, uint64_t rel, void *arg)
{
    struct dir_search *s = arg;
    const uint8_t *sec;
    int rc = vol_read(v, rel, &sec);

    if (rc != BM_OK)
        return rc;
    for (uint32_t off = 0; off < v->bytes_per_sector; off += DIRENT_BYTES) {
        uint8_t e[DIRENT_BYTES];
        memcpy(e, sec + off, sizeof(e));    /* sec[] is reused by the next read */
        if (e[0] == 0) {
            s->end = true;
            return BM_EABORT;
        }
        if (e[0] == 0xe5) {
            s->lfn_len = 0;
            continue;
        }
        if ((e[11] & 0x3f) == ATTR_LFN) {
            lfn_piece(s, e);
            continue;
        }
        if (e[11] & ATTR_VOLUME) {
            s->lfn_len = 0;
            continue;
        }
        short_entry(s, e);
        if (s->found)
            return BM_EABORT;
    }
    return BM_OK;
}

/* Look name up in the directory dir (NULL = root). */
static int dir_find(struct fat_vol *v, const struct fat_file *dir, const char *name, size_t len, struct fat_file *out)
{
    struct dir_search s;
    int rc = BM_OK;

    memset(&s, 0, sizeof(s));
    s.name = name;
    s.name_len = len;
    s.out = out;
    if (!dir && v->type != 32) {
        uint64_t n = ((uint64_t)v->root_entries * DIRENT_BYTES + v->bytes_per_sector - 1) / v->bytes_per_sector;
        for (uint64_t i = 0; i < n && rc == BM_OK; i++)
            rc = dir_sector(v, v->root_lba + i, &s);
    } else {
        uint32_t first = dir ? dir->first_cluster : v->root_cluster;
        if (dir && !first && v->type != 32)
            return dir_find(v, NULL, name, len, out);  /* ".." to the root */
        rc = walk_chain(v, first, UINT64_MAX, dir_sector, &s);
    }
    if (s.found)
        return BM_OK;
    return rc == BM_OK || rc == BM_EABORT ? BM_ENODEV : rc;
}

int fat_lookup(struct fat_vol *v, const char *path, struct fat_file *f)
{
    struct fat_file cur = { 0, 0, true };
    bool at_root = true;
    int rc;

    for (const char *p = path; *p;) {
        const char *q;
        while (*p == '\\' || *p == '/')
            p++;
        if (!*p)
            break;
        for (q = p; *q && *q != '\\' && *q != '/'; q++)
            ;
        if (!cur.dir)
            return BM_ENODEV;
        rc = dir_find(v, at_root ? NULL : &cur, p, (size_t)(q - p), &cur);
        if (rc != BM_OK)
            return rc;
        at_root = false;
        p = q;
    }
    if (at_root)
        return BM_EINVAL;
    *f = cur;
    return BM_OK;
}

/* ---- Files ---------------------------------------------------------------------- */

static uint64_t file_sectors(const struct fat_vol *v, const struct fat_file *f)
{
    return ((uint64_t)f->size + v->bytes_per_sector - 1) / v->bytes_per_sector;
}

struct read_ctx {
    uint8_t *buf;
    size_t cap, done;
    uint32_t size;
};

static int read_sector(struct fat_vol *v, uint64_t rel, void *arg)
{
    struct read_ctx *r = arg;
    const uint8_t *sec;
    size_t n = v->bytes_per_sector;
    int rc;

    if (r->done >= r->cap || r->done >= r->size)
        return BM_EABORT;
    rc = vol_read(v, rel, &sec);
    if (rc != BM_OK)
        return rc;
    if (n > r->cap - r->done)
        n = r->cap - r->done;
    if (n > r->size - r->done)
        n = r->size - r->done;
    memcpy(r->buf + r->done, sec, n);
    r->done += n;
    return BM_OK;
}

long fat_read(struct fat_vol *v, const struct fat_file *f, void *buf, size_t cap)
{
    struct read_ctx r = { buf, cap, 0, f->size };
    int rc;

    if (f->dir)
        return BM_EINVAL;
    if (!f->size || !cap)
        return 0;
    rc = walk_chain(v, f->first_cluster, file_sectors(v, f), read_sector, &r);
    if (rc != BM_OK && rc != BM_EABORT)
        return rc;
    return (long)r.done;
}

struct extent_ctx {
    struct fat_extent *ext;
    unsigned max, n;
};

static int extent_sector(struct fat_vol *v, uint64_t rel, void *arg)
{
    struct extent_ctx *x = arg;
    uint64_t lba = v->first_lba + rel;

    if (x->n && x->ext[x->n - 1].lba + x->ext[x->n - 1].count == lba) {
        x->ext[x->n - 1].count++;
        return BM_OK;
    }
    if (x->n == x->max)
        return BM_ENOSPC;
    x->ext[x->n].lba = lba;
    x->ext[x->n].count = 1;
    x->n++;
    return BM_OK;
}

int fat_extents(struct fat_vol *v, const struct fat_file *f, struct fat_extent *ext, unsigned max, unsigned *n)
{
    struct extent_ctx x = { ext, max, 0 };
    int rc;

    *n = 0;
    if (f->dir)
        return BM_EINVAL;
    if (!f->size)
        return BM_OK;
    rc = walk_chain(v, f->first_cluster, file_sectors(v, f), extent_sector, &x);
    if (rc != BM_OK)
        return rc;
    *n = x.n;
    return BM_OK;
}
