/* Write, read back, compare: the check burn-in teams run before a disk goes
 * into service. Driven through the tagged queue like every workload. */
#include "verify.h"
#include "../record.h"

#define VERIFY_QD 8
#define VERIFY_CHUNK_MAX (1u << 20)
#define VERIFY_TIMEOUT_NS 30000000000ull /* no completion for 30 s: give up */

void verify_fill_block(uint8_t *buf, uint32_t block_bytes, uint64_t seed, uint64_t lba)
{
    /* splitmix64 over (seed, lba, word): cheap, and no two blocks alike */
    uint64_t x = seed ^ (lba * 0x9e3779b97f4a7c15ull);
    for (uint32_t off = 0; off + 8 <= block_bytes; off += 8) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        memcpy(buf + off, &z, 8);
    }
}

/* Keep the lowest bad LBAs (chunks complete out of order). */
static void note_bad_lba(struct verify_result *v, uint64_t lba)
{
    unsigned worst = 0;

    if (v->nbad_listed < VERIFY_MAX_BAD) {
        v->bad_lba[v->nbad_listed++] = lba;
        return;
    }
    for (unsigned i = 1; i < v->nbad_listed; i++)
        if (v->bad_lba[i] > v->bad_lba[worst])
            worst = i;
    if (lba < v->bad_lba[worst])
        v->bad_lba[worst] = lba;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

struct verify_io {
    bool busy;
    uint64_t lba;
    uint64_t start_ns;
};

/* One phase over the range: op with a queue of VERIFY_QD chunks. On reads,
 * compare each chunk as it completes. */
static int verify_phase(struct bm_disk *d, enum bm_io_op op, uint8_t *bufs, uint32_t chunk_blocks, uint64_t seed,
                        struct verify_result *v)
{
    struct verify_io ios[VERIFY_QD];
    struct bm_completion comp[VERIFY_QD];
    uint32_t lb = d->lba_bytes, qd = MIN((uint32_t)VERIFY_QD, d->max_qd);
    uint64_t next = v->first_lba, end = v->first_lba + v->blocks, last_progress = plat_now_ns();
    unsigned inflight = 0;
    uint8_t *expect = plat_alloc(lb);

    if (!expect)
        return BM_ENOMEM;
    memset(ios, 0, sizeof(ios));
    while (next < end || inflight) {
        for (uint32_t t = 0; t < qd && next < end; t++) {
            uint32_t n;
            uint8_t *buf = bufs + (size_t)t * chunk_blocks * lb;
            if (ios[t].busy)
                continue;
            n = (uint32_t)MIN((uint64_t)chunk_blocks, end - next);
            if (op == BM_IO_WRITE)
                for (uint32_t b = 0; b < n; b++)
                    verify_fill_block(buf + (size_t)b * lb, lb, seed, next + b);
            int rc = d->ops->submit(d, 0, t, op, next, n, buf);
            if (rc == BM_EBUSY)
                break;
            if (rc != BM_OK) {
                snprintf(v->detail, sizeof(v->detail), "%s submit at LBA %llu: %s", op == BM_IO_WRITE ? "write" : "read",
                         (unsigned long long)next, bm_strerror(rc));
                v->status = rc;
                goto drain;
            }
            ios[t] = (struct verify_io){ true, next, plat_now_ns() };
            inflight++;
            next += n;
        }
        int got = d->ops->poll(d, 0, comp, VERIFY_QD);
        if (got > 0)
            last_progress = plat_now_ns();
        for (int i = 0; i < got; i++) {
            uint32_t t = comp[i].tag;
            if (t >= qd || !ios[t].busy)
                continue;
            ios[t].busy = false;
            inflight--;
            if (comp[i].status != BM_OK) {
                snprintf(v->detail, sizeof(v->detail), "%s at LBA %llu: %s", op == BM_IO_WRITE ? "write" : "read",
                         (unsigned long long)ios[t].lba, comp[i].detail[0] ? comp[i].detail : bm_strerror(comp[i].status));
                v->status = comp[i].status;
                goto drain;
            }
            if (op == BM_IO_READ) {
                uint32_t n = (uint32_t)MIN((uint64_t)chunk_blocks, end - ios[t].lba);
                const uint8_t *buf = bufs + (size_t)t * chunk_blocks * lb;
                for (uint32_t b = 0; b < n; b++) {
                    verify_fill_block(expect, lb, seed, ios[t].lba + b);
                    if (memcmp(expect, buf + (size_t)b * lb, lb)) {
                        note_bad_lba(v, ios[t].lba + b);
                        v->bad_blocks++;
                    }
                }
            }
        }
        if (plat_now_ns() - last_progress > VERIFY_TIMEOUT_NS && inflight) {
            snprintf(v->detail, sizeof(v->detail), "no completion for %u s", (unsigned)(VERIFY_TIMEOUT_NS / 1000000000ull));
            v->status = BM_ETIMEDOUT;
            plat_free(expect);
            return v->status; /* commands may be in flight: the caller keeps the buffers */
        }
        if (plat_abort_requested() && next < end) {
            v->status = BM_EABORT;
            end = next; /* submit nothing more; drain below */
        }
    }
    plat_free(expect);
    return v->status;
drain:
    /* Wait (bounded) for what is in flight before the buffers can go. */
    while (inflight && plat_now_ns() - last_progress < VERIFY_TIMEOUT_NS) {
        int got = d->ops->poll(d, 0, comp, VERIFY_QD);
        for (int i = 0; i < got; i++)
            if (comp[i].tag < qd && ios[comp[i].tag].busy) {
                ios[comp[i].tag].busy = false;
                inflight--;
                last_progress = plat_now_ns();
            }
    }
    plat_free(expect);
    return inflight ? BM_ETIMEDOUT : v->status;
}

int disk_verify(struct bm_disk *d, uint64_t bytes, uint64_t seed, struct verify_result *v)
{
    uint32_t lb = d->lba_bytes;
    uint32_t chunk = MIN((uint32_t)VERIFY_CHUNK_MAX, d->max_transfer_bytes);
    uint32_t chunk_blocks = chunk / lb;
    uint64_t blocks, span;
    size_t buf_bytes;
    uint8_t *bufs;
    uint64_t t0 = plat_now_ns();
    struct bm_rng rng;
    int rc;

    memset(v, 0, sizeof(*v));
    if (!lb || !chunk_blocks || d->blocks == 0) {
        snprintf(v->detail, sizeof(v->detail), "disk reports no usable block or transfer size");
        return v->status = BM_EINVAL;
    }
    blocks = MAX(bytes / lb, 1ull);
    blocks = MIN(blocks, d->blocks);
    /* A start aligned to the chunk, somewhere in the disk, different each
     * pass: over a burn-in the checks cover more of the medium. */
    bm_rng_seed(&rng, seed);
    span = (d->blocks - blocks) / chunk_blocks;
    v->first_lba = span ? bm_rng_below(&rng, span + 1) * chunk_blocks : 0;
    v->blocks = blocks;
    buf_bytes = (size_t)VERIFY_QD * chunk_blocks * lb;
    bufs = plat_alloc_pages(buf_bytes, true);
    if (!bufs)
        bufs = plat_alloc_pages(buf_bytes, false);
    if (!bufs) {
        snprintf(v->detail, sizeof(v->detail), "no memory for %zu bytes of buffers", buf_bytes);
        return v->status = BM_ENOMEM;
    }
    rc = verify_phase(d, BM_IO_WRITE, bufs, chunk_blocks, seed, v);
    if (rc == BM_OK) {
        /* Nothing of the pattern may linger in the buffers we read into. */
        memset(bufs, 0xa5, buf_bytes);
        rc = verify_phase(d, BM_IO_READ, bufs, chunk_blocks, seed, v);
    }
    v->seconds = (double)(plat_now_ns() - t0) / 1e9;
    qsort(v->bad_lba, v->nbad_listed, sizeof(v->bad_lba[0]), cmp_u64);
    if (rc == BM_ETIMEDOUT)
        plat_log("%s: verify buffers kept: a command may still be in flight", d->id);
    else
        plat_free_pages(bufs, buf_bytes);
    return rc;
}

void verify_emit_record(const struct bm_disk *d, const struct verify_result *v)
{
    static struct record r;
    char human[256];
    bool ok = v->status == BM_OK && v->bad_blocks == 0;

    record_begin(&r, "verify");
    json_str(&r.j, "disk", d->id);
    json_str(&r.j, "result", ok ? "pass" : "fail");
    json_u64(&r.j, "first_lba", v->first_lba);
    json_u64(&r.j, "blocks", v->blocks);
    json_u64(&r.j, "bytes", v->blocks * d->lba_bytes);
    json_u64(&r.j, "bad_blocks", v->bad_blocks);
    json_arr_begin(&r.j, "bad_lba");
    for (unsigned i = 0; i < v->nbad_listed; i++)
        json_u64(&r.j, NULL, v->bad_lba[i]);
    json_arr_end(&r.j);
    if (v->status != BM_OK)
        json_str(&r.j, "error", v->detail);
    json_num(&r.j, "seconds", v->seconds, 3);
    snprintf(human, sizeof(human), "%s verify %s: %llu MB at LBA %llu, %llu bad block%s%s%s", d->id,
             ok ? "passed" : "FAILED", (unsigned long long)(v->blocks * d->lba_bytes / 1000000),
             (unsigned long long)v->first_lba, (unsigned long long)v->bad_blocks, v->bad_blocks == 1 ? "" : "s",
             v->status != BM_OK ? " - " : "", v->status != BM_OK ? v->detail : "");
    record_emit(&r, human);
}
