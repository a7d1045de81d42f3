/* The stick we booted from, on a legacy BIOS: which INT 13h drive it is,
 * its FAT volume (efi/fat.c over INT 13h reads), \baremark\baremark.cfg on
 * it, and the preallocated results file \baremark\results\bios.jsonl that
 * boot/mkimage.sh puts there and we overwrite in place.
 *
 * The boot drive: boot/mkimage.sh writes a fresh GPT disk GUID and passes
 * it on the SYSLINUX APPEND line (baremark_stick=GUID); the drive whose
 * GPT header carries it is the stick. Without that word (another loader),
 * the one drive whose FAT volume holds bios.jsonl is. Two candidates or
 * none: the boot disk stays unknown, and every disk counts as the boot disk.
 *
 * The HTML report goes the same way into the preallocated
 * \baremark\results\bios.html (an older stick without it gets none).
 *
 * Writes: only these files' own data sectors (their cluster chains as
 * fat_extents() lists them, read once at start), never the FAT or a
 * directory, never past a file's size less its final '\n'. */
#include "bios_private.h"
#include "../disk/part_table.h"
#include "../fat.h"
#include "../jsonl_tail.h"

#define RESULTS_EXTENTS_MAX 64
#define RESULTS_FLUSH_NS 2000000000ull  /* at most this much of the file is only in memory */
#define INITRD_MAX (64u * 1024)
#define ZP_RAMDISK_IMAGE 0x218
#define ZP_RAMDISK_SIZE 0x21c

static struct bios_drive *stick;
static bool looked;
static char stick_why[200];             /* how the stick was found, or why not */
static struct fat_vol *vol;             /* the stick's FAT volume, NULL if none */

/* A preallocated file: where its sectors are. */
struct stick_file {
    const char *path;
    struct fat_extent ext[RESULTS_EXTENTS_MAX];
    unsigned next;
    uint32_t size;                      /* 0 if not usable */
};

static struct stick_file results_file = { BIOS_RESULTS_PATH }, report_file = { BIOS_REPORT_PATH };
static char initrd[INITRD_MAX + 1];
static uint32_t initrd_len;

static int drive_read(void *ctx, uint64_t lba, void *buf)
{
    uint8_t st;
    return bios_drive_rw(ctx, false, lba, 1, buf, &st);
}

/* "XXXXXXXX-XXXX-..." of the GPT header's disk GUID (part_table.c), or
 * false without a GPT. */
static bool gpt_guid(struct bios_drive *d, uint8_t *sec, char *out, size_t len)
{
    uint8_t st;

    return bios_drive_rw(d, false, 1, 1, sec, &st) == BM_OK && part_gpt_disk_guid(sec, out, len);
}

/* The drive's FAT volume: the first GPT or MBR partition that opens as
 * FAT (part_table.c), else a FAT on the whole drive (a "superfloppy" stick). */
static bool find_volume(struct bios_drive *d, uint8_t *sec, struct fat_vol *v)
{
    struct part_span parts[PART_MAX];
    unsigned n;

    if (d->params.bytes_per_sector != 512)
        return false;
    n = part_table_read(drive_read, d, d->params.sectors, sec, parts, PART_MAX);
    for (unsigned i = 0; i < n; i++)
        if (fat_open(v, drive_read, d, parts[i].first_lba, parts[i].sectors, 512) == BM_OK)
            return true;
    return fat_open(v, drive_read, d, 0, d->params.sectors, 512) == BM_OK;
}

/* Which drive is the stick (see the top). */
static struct bios_drive *pick_stick(struct bios_drive *ds, unsigned n, uint8_t *sec, struct fat_vol *v)
{
    const char *want = bios_stick_guid();
    struct bios_drive *found = NULL;
    unsigned hits = 0;
    char guid[40];
    struct fat_file f;

    for (unsigned i = 0; i < n; i++) {
        bool hit;
        if (want[0])
            hit = gpt_guid(&ds[i], sec, guid, sizeof(guid)) && !bm_strcasecmp(guid, want);
        else
            hit = find_volume(&ds[i], sec, v) && fat_lookup(v, BIOS_RESULTS_PATH, &f) == BM_OK;
        if (hit) {
            found = &ds[i];
            hits++;
        }
    }
    if (hits == 1)
        return found;
    if (want[0])
        snprintf(stick_why, sizeof(stick_why),
                 "%s INT 13h drive carries the GPT disk GUID %s from the loader: the boot disk is unknown",
                 hits ? "more than one" : "no", want);
    else
        snprintf(stick_why, sizeof(stick_why),
                 "%s INT 13h drive holds %s (and the loader named no baremark_stick=): the boot disk is unknown",
                 hits ? "more than one" : "no", BIOS_RESULTS_PATH);
    return NULL;
}

/* A preallocated file's sectors, when it is there and sound; BM_OK or why not. */
static int find_file(struct stick_file *sf)
{
    struct fat_file f;
    int rc = fat_lookup(vol, sf->path, &f);

    if (rc == BM_OK && (f.dir || f.size < 2))
        rc = BM_EINVAL;
    if (rc == BM_OK)
        rc = fat_extents(vol, &f, sf->ext, RESULTS_EXTENTS_MAX, &sf->next);
    if (rc == BM_OK)
        sf->size = f.size;
    return rc;
}

/* The results file (and the report's beside it). */
static void find_results(void)
{
    size_t n;
    int rc = find_file(&results_file);

    if (rc != BM_OK) {
        n = strlen(stick_why);
        snprintf(stick_why + n, sizeof(stick_why) - n, "; %s: %s, no results file on the stick", BIOS_RESULTS_PATH,
                 rc == BM_ENODEV ? "not there (make image preallocates it)" : bm_strerror(rc));
        return;
    }
    rc = find_file(&report_file);
    if (rc != BM_OK) {
        n = strlen(stick_why);
        snprintf(stick_why + n, sizeof(stick_why) - n, "; %s: %s, no HTML report", BIOS_REPORT_PATH,
                 rc == BM_ENODEV ? "not there (an older image)" : bm_strerror(rc));
    }
}

struct bios_drive *bios_stick(void)
{
    struct bios_drive *ds;
    unsigned n;
    uint8_t *sec;
    char where[120];

    if (looked)
        return stick;
    looked = true;
    n = bios_drives(&ds);
    sec = plat_alloc(512);
    vol = plat_alloc(sizeof(*vol));
    if (!sec || !vol)
        return NULL;
    stick = pick_stick(ds, n, sec, vol);
    if (stick) {
        stick->boot = true;
        bios_drive_describe(stick, where, sizeof(where));
        snprintf(stick_why, sizeof(stick_why), "booted from %s (%s)", where,
                 bios_stick_guid()[0] ? "its GPT disk GUID is the loader's baremark_stick=" : "it holds bios.jsonl");
        if (find_volume(stick, sec, vol))
            find_results();
        else
            bm_strlcpy(stick_why + strlen(stick_why), "; no FAT volume on it", sizeof(stick_why) - strlen(stick_why));
    }
    if (!stick || !vol->read) {
        plat_free(vol);
        vol = NULL;
    }
    plat_free(sec);
    return stick;
}

/* The drives and the stick as log records, once (the scan ran before the
 * records' sink was there). */
void bios_stick_report(void)
{
    static bool done;
    struct bios_drive *ds;
    unsigned n;
    char what[120];

    if (done)
        return;
    done = true;
    n = bios_drives(&ds);
    for (unsigned i = 0; i < n; i++) {
        const struct edd_params *p = &ds[i].params;

        bios_drive_describe(&ds[i], what, sizeof(what));
        if (ds[i].io.edd)
            plat_diag("int13", "%s: %llu sectors of %u bytes, EDD %u.%u%s", what, (unsigned long long)p->sectors,
                      p->bytes_per_sector, ds[i].edd_version >> 4, ds[i].edd_version & 0xf,
                      p->removable ? ", removable" : "");
        else
            plat_diag("int13", "%s: %llu sectors of %u bytes, no EDD: CHS %u cylinders, %u heads, %u sectors%s", what,
                      (unsigned long long)p->sectors, p->bytes_per_sector, ds[i].io.cyls, ds[i].io.heads,
                      ds[i].io.spt, p->removable ? ", removable" : "");
        bios_drive_note_errors(&ds[i]);
    }
    bios_stick();
    plat_diag("stick", "%s; the BIOS calls so far used at most %u bytes of the %u-byte real-mode stack", stick_why,
              (unsigned)bios_rm_stack_peak(), (unsigned)(BIOS_RM_STACK_TOP - BIOS_RM_STACK_LO));
}

/* ---- Files: baremark.cfg ----------------------------------------------------- */

void bios_initrd_init(const uint8_t *zero_page)
{
    uint32_t at, len;

    memcpy(&at, zero_page + ZP_RAMDISK_IMAGE, 4);
    memcpy(&len, zero_page + ZP_RAMDISK_SIZE, 4);
    if (!at || !len)
        return;
    if (len > INITRD_MAX)
        len = INITRD_MAX + 1;   /* too large: cfg_files says so */
    else
        memcpy(initrd, (const void *)(uintptr_t)at, len);
    initrd_len = len;
}

static long copy_out(const char *src, uint32_t n, char *buf, size_t cap)
{
    if (n > cap)
        return BM_ENOSPC;
    memcpy(buf, src, n);
    return (long)n;
}

/* The stick's \baremark\NAME, then its root, then (baremark.cfg only) the
 * loader's initrd. */
long bios_stick_file_read(const char *path, char *buf, size_t cap)
{
    struct fat_file f;
    const char *base = strrchr(path, '\\') ? strrchr(path, '\\') + 1 : path;

    if (bios_stick() && vol) {
        if (fat_lookup(vol, path, &f) == BM_OK || fat_lookup(vol, base, &f) == BM_OK) {
            if (f.dir)
                return BM_EINVAL;
            if (f.size > cap)
                return BM_ENOSPC;
            return fat_read(vol, &f, buf, cap);
        }
    }
    if (initrd_len && !bm_strcasecmp(base, "baremark.cfg"))
        return initrd_len > INITRD_MAX ? BM_ENOSPC : copy_out(initrd, initrd_len, buf, cap);
    return BM_ENODEV;
}

bool bios_results_available(void) { return bios_stick() && vol && results_file.size && !stick->retired; }

/* ---- The results file -------------------------------------------------------- */

/* Every run keeps its records: a run appends after the runs before it
 * (jsonl_tail.c finds where they end), so a stick carried along a rack
 * holds every machine's records, each run beginning with its "run"
 * record. The HTML report (bios.html) is the last run's, written whole. A
 * run starts only with RESULTS_MIN_ROOM left, and stops writing when the
 * file is full (serial has everything). Each write is read back and
 * compared; a failed or differing write is tried again (RESULTS_SYNC_TRIES
 * flushes) before the file is given up. */
#define RESULTS_MIN_ROOM (64u * 1024)       /* less than this left: this run's records are not written */
#define RESULTS_SYNC_TRIES 3
#define RESULTS_RETRY_PAUSE_NS 200000000ull   /* between tries of a failed flush */
#define SYNC_CHUNK 64u                      /* sectors per write (and read back) */

struct stick_results {
    struct stick_file *file;
    char *img;                  /* the whole file in memory: records, spaces, a final '\n' */
    uint8_t *check;             /* SYNC_CHUNK sectors: a write read back */
    bool append;                /* keep what earlier runs wrote (bios.jsonl) */
    uint32_t base;              /* where this run's records begin */
    unsigned runs_before;       /* earlier runs in the file */
    uint32_t pos;               /* bytes written so far */
    uint32_t dirty_lo, dirty_hi;    /* byte range not yet on the stick */
    uint64_t flushed_ns;
    unsigned failed_syncs;      /* flushes in a row that could not write */
    bool syncing;
    bool closing;               /* the final flush (the end record is written) */
    bool stopped;
};

static struct stick_results results = { &results_file, .append = true }, report = { &report_file };
static bool results_open;
static char run_name[96];                   /* this run's file name as the UEFI build would make it */
static char pending_note[240];              /* said at the first flush: after the run record */

/* The file sector idx (0-based) as a device LBA, through the extents. */
static uint64_t file_lba(const struct stick_file *sf, uint32_t idx)
{
    for (unsigned i = 0; i < sf->next; i++) {
        if (idx < sf->ext[i].count)
            return sf->ext[i].lba + idx;
        idx -= (uint32_t)sf->ext[i].count;
    }
    return UINT64_MAX;
}

/* The whole file from the stick into r->img, extent run by extent run. */
static int file_load(struct stick_results *r)
{
    uint32_t sectors = (r->file->size + 511) / 512;
    uint8_t st = 0, *tmp = plat_alloc(512);
    int rc = BM_OK;

    if (!tmp)
        return BM_ENOMEM;
    for (uint32_t s = 0; s < sectors && rc == BM_OK;) {
        uint64_t lba = file_lba(r->file, s);
        uint32_t n = 1;
        while (s + n < sectors && n < SYNC_CHUNK && file_lba(r->file, s + n) == lba + n)
            n++;
        if (lba == UINT64_MAX)
            return BM_EINVAL;
        if ((s + n) * 512 <= r->file->size) {
            rc = bios_drive_rw(stick, false, lba, n, r->img + (size_t)s * 512, &st);
        } else {
            /* The file's last, partial sector. */
            rc = bios_drive_rw(stick, false, lba + n - 1, 1, tmp, &st);
            if (rc == BM_OK && n > 1)
                rc = bios_drive_rw(stick, false, lba, n - 1, r->img + (size_t)s * 512, &st);
            if (rc == BM_OK)
                memcpy(r->img + (size_t)(s + n - 1) * 512, tmp, r->file->size - (s + n - 1) * 512);
        }
        s += n;
    }
    plat_free(tmp);
    return rc;
}

/* The file ready to be written from where this run begins: blank from
 * there (spaces, a final '\n'). The first time, for an appending file,
 * what earlier runs wrote is read from the stick and kept. */
static bool file_begin(struct stick_results *r)
{
    uint32_t size = r->file->size;

    if (!bios_stick() || !vol || !size || stick->retired)
        return false;
    if (!r->img) {
        r->img = plat_alloc(size);
        r->check = plat_alloc(SYNC_CHUNK * 512);
        if (!r->img || !r->check)
            return false;
        r->base = 0;
        r->pos = size; /* the whole file is written the first time: it holds another boot's bytes */
        if (r->append) {
            struct jsonl_tail t;
            int rc = file_load(r);
            if (rc != BM_OK) {
                plat_log("results file: %s: cannot read what earlier runs wrote (%s): this run's records are not "
                         "written to it, so as not to lose theirs (serial has them)", r->file->path, bm_strerror(rc));
                return false;
            }
            jsonl_tail_scan(r->img, size, &t);
            r->base = t.end;
            r->runs_before = t.runs;
            r->pos = t.end + t.cut_bytes;   /* a cut last line is blanked on the stick */
            if (t.cut_bytes)
                snprintf(pending_note, sizeof(pending_note),
                         "%s: the last %u bytes of an earlier run were a cut line (no newline): blanked",
                         r->file->path, (unsigned)t.cut_bytes);
        }
    }
    if (r->append && size - 1 - r->base < RESULTS_MIN_ROOM) {
        plat_log("results file: %s is full (%u runs in it, %u bytes left, %u needed to start): this run's records "
                 "are on serial and the screen only; copy the file off the stick and put a blank one on it",
                 r->file->path, r->runs_before, (unsigned)(size - 1 - r->base), RESULTS_MIN_ROOM);
        return false;
    }
    memset(r->img + r->base, ' ', size - 1 - r->base);
    r->img[size - 1] = '\n';
    r->dirty_lo = r->base;
    r->dirty_hi = r->pos > r->base ? r->pos : r->base;
    r->pos = r->base;
    /* The results' first record (the run record) goes to the stick at once. */
    r->flushed_ns = r->append ? 0 : plat_now_ns();
    r->stopped = false;
    r->closing = false;
    r->failed_syncs = 0;
    return true;
}

/* This run's name as the UEFI build names its file: TIME-SERIAL.jsonl. */
static void name_run(const char *path)
{
    const char *base = strrchr(path, '\\') ? strrchr(path, '\\') + 1 : path;

    bm_strlcpy(run_name, base, sizeof(run_name));
}

void *bios_results_create(const char *path)
{
    if (results_open || !file_begin(&results))
        return NULL;
    name_run(path);
    results_open = true;
    return &results;
}

/* The report is written whole again each time (the page after each burn-in
 * pass, then at the end): what the previous page had past the new one's
 * end turns back to spaces. */
void *bios_report_create(void) { return file_begin(&report) ? &report : NULL; }

/* Where this run's records are, for people and the records:
 * "\baremark\results\bios.jsonl run 3, 3.7 MiB left (TIME-SERIAL.jsonl)". */
void bios_results_describe(char *out, size_t cap)
{
    uint32_t left;

    if (!results_open) {
        bm_strlcpy(out, BIOS_RESULTS_PATH, cap);
        return;
    }
    left = results.file->size - 1 - results.pos;
    snprintf(out, cap, "%s run %u, %u.%u MiB left (%s)", BIOS_RESULTS_PATH, results.runs_before + 1,
             (unsigned)(left >> 20), (unsigned)(((uint64_t)(left & 0xfffff) * 10) >> 20), run_name);
}

/* n sectors at lba written from buf, then read back and compared. */
static int write_checked(struct stick_results *r, uint64_t lba, uint32_t n, const char *buf, uint8_t *st)
{
    int rc = bios_drive_rw(stick, true, lba, n, (void *)buf, st);

    if (rc != BM_OK) {
        plat_diag("stick", "%s: INT 13h write of %u sectors at LBA %llu failed (status %02xh)", r->file->path, n,
                  (unsigned long long)lba, *st);
        return rc;
    }
    rc = bios_drive_rw(stick, false, lba, n, r->check, st);
    if (rc != BM_OK) {
        plat_diag("stick", "%s: INT 13h read-back of %u sectors at LBA %llu failed (status %02xh)", r->file->path, n,
                  (unsigned long long)lba, *st);
        return rc;
    }
    if (memcmp(r->check, buf, (size_t)n * 512)) {
        uint32_t at = 0;
        while (r->check[at] == (uint8_t)buf[at])
            at++;
        plat_diag("stick", "%s: what was written at LBA %llu reads back different (sector +%u, byte %u): the stick "
                  "kept something else",
                  r->file->path, (unsigned long long)lba, at / 512, at % 512);
        return BM_EIO;
    }
    return BM_OK;
}

/* Write the dirty sectors, a run of consecutive LBAs per request, each
 * read back. */
static int results_sync_once(struct stick_results *r)
{
    uint32_t first = r->dirty_lo / 512, last = (r->dirty_hi + 511) / 512;
    uint8_t st = 0;

    if (r->dirty_hi <= r->dirty_lo)
        return BM_OK;
    if (stick->retired)
        return BM_EPERM;
    for (uint32_t s = first; s < last;) {
        uint64_t lba = file_lba(r->file, s);
        uint32_t n = 1;
        int rc;
        while (s + n < last && n < SYNC_CHUNK && file_lba(r->file, s + n) == lba + n)
            n++;
        if (lba == UINT64_MAX)
            return BM_EINVAL;
        rc = write_checked(r, lba, n, r->img + (size_t)s * 512, &st);
        if (rc != BM_OK)
            return rc;
        /* Written: what is left dirty starts after it. */
        s += n;
        r->dirty_lo = MIN(s * 512, r->dirty_hi);
    }
    r->dirty_lo = r->dirty_hi = 0;
    r->flushed_ns = plat_now_ns();
    return BM_OK;
}

/* A failed flush is tried again (at the next flush, or now, after a pause,
 * when final) before the file is given up: a USB stick behind a BIOS's
 * SMM emulation fails now and then. */
static int results_sync(struct stick_results *r, bool final)
{
    int rc;

    if (r->syncing)
        return BM_OK;   /* a record the sync itself emitted: written with the next one */
    r->syncing = true;
    for (;;) {
        rc = results_sync_once(r);
        if (!r->closing)
            bios_drive_note_errors(stick);  /* not after the end record */
        if (rc == BM_OK) {
            if (r->failed_syncs)
                plat_diag("stick", "%s: written after %u failed tries", r->file->path, r->failed_syncs);
            r->failed_syncs = 0;
            break;
        }
        if (rc == BM_EPERM && stick->retired) {
            /* A native driver took the stick's controller: bios_drive_retire()
             * said so then ("its results file gets nothing more"); saying it
             * again at the close would put a record after the end record. */
            r->stopped = true;
            break;
        }
        if (rc == BM_EPERM || ++r->failed_syncs >= RESULTS_SYNC_TRIES) {
            plat_diag("stick", "%s: could not be written (%s, %u tries): file output stopped (serial has everything)",
                      r->file->path, bm_strerror(rc), r->failed_syncs);
            break;
        }
        if (!final) {
            rc = BM_OK;     /* kept dirty: tried again at the next flush a pause from now */
            r->flushed_ns = plat_now_ns() - RESULTS_FLUSH_NS + RESULTS_RETRY_PAUSE_NS;
            break;
        }
        plat_delay_ns(RESULTS_RETRY_PAUSE_NS);
    }
    r->syncing = false;
    return rc;
}

int bios_results_write(void *f, const void *data, size_t len)
{
    struct stick_results *r = f;
    uint32_t size = r->file->size;

    if (r->stopped)
        return BM_ENOSPC;
    if (len > size - 1 - r->pos) {
        /* The final '\n' stays: the file reads as records then one blank line. */
        r->stopped = true;
        results_sync(r, true);
        plat_log(r == &report ? "report: %s is full (%u bytes); the page is cut there"
                              : "results file: %s is full (%u bytes); the rest of the records are on serial and "
                                "the screen only",
                 r->file->path, (unsigned)size);
        return BM_ENOSPC;
    }
    if (r->dirty_hi <= r->dirty_lo)
        r->dirty_lo = r->pos;
    memcpy(r->img + r->pos, data, len);
    r->pos += (uint32_t)len;
    r->dirty_hi = MAX(r->dirty_hi, r->pos);
    return BM_OK;
}

/* Called after every record: to the stick at most every RESULTS_FLUSH_NS. */
int bios_results_flush(void *f, bool now)
{
    struct stick_results *r = f;

    if (pending_note[0] && r == &results) {
        plat_diag("stick", "%s", pending_note);    /* held by record.c until this record reached every sink */
        pending_note[0] = '\0';
    }
    if (!now && r->flushed_ns && plat_now_ns() - r->flushed_ns < RESULTS_FLUSH_NS)
        return BM_OK;
    r->closing = now;   /* plat_file_close: the last flush */
    return results_sync(r, now);
}

/* Everything so far to the stick, now: native drivers are about to take
 * controllers, and the stick's may be one of them. */
void bios_results_sync_now(void)
{
    if (results_open && !results.stopped && !stick->retired)
        results_sync(&results, true);
}

/* Where the results go, for the write-safety rules. */
bool bios_results_is_open(void) { return results_open; }
