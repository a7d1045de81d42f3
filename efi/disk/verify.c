/* Write, read back, compare: the check burn-in teams run before a disk goes
 * into service. Each phase is an engine sweep (engine.c), driven through
 * the tagged queue like every workload; this file owns the pattern, the
 * comparison and the words of its failures. */
#include "verify.h"
#include "engine.h"

#define VERIFY_QD 8
#define VERIFY_CHUNK_MAX (1u << 20)

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

struct verify_ctx {
    struct verify_result *v;
    uint64_t seed;
    uint32_t lba_bytes;
    uint8_t *expect;      /* one block of the pattern */
    uint64_t stall_ns;    /* no completion for this long: the disk is given up */
};

/* Before a write: the pattern of every block of the I/O. */
static void verify_fill(void *ctx, uint64_t lba, uint32_t blocks, uint8_t *buf)
{
    struct verify_ctx *x = ctx;

    for (uint32_t b = 0; b < blocks; b++)
        verify_fill_block(buf + (size_t)b * x->lba_bytes, x->lba_bytes, x->seed, lba + b);
}

/* After a read: compare each block with its pattern. */
static void verify_check(void *ctx, uint64_t lba, uint32_t blocks, const uint8_t *buf)
{
    struct verify_ctx *x = ctx;

    for (uint32_t b = 0; b < blocks; b++) {
        verify_fill_block(x->expect, x->lba_bytes, x->seed, lba + b);
        if (memcmp(x->expect, buf + (size_t)b * x->lba_bytes, x->lba_bytes)) {
            note_bad_lba(x->v, lba + b);
            x->v->bad_blocks++;
        }
    }
}

static const struct engine_io_hooks verify_hooks = { verify_fill, verify_check };

/* The verify record's words for the sweep's first failure (a stall in the
 * engine's: how many commands, how long, what the driver's recovery did). */
static void word_failure(const struct disk_job *j, struct verify_result *v)
{
    const char *op = j->test.op == BM_IO_WRITE ? "write" : "read";

    v->status = j->status;
    switch (j->fail_at) {
    case ENGINE_FAIL_SUBMIT:
        snprintf(v->detail, sizeof(v->detail), "%s submit at LBA %llu: %s", op, (unsigned long long)j->fail_lba,
                 bm_strerror(j->status));
        break;
    case ENGINE_FAIL_COMPLETION:
        snprintf(v->detail, sizeof(v->detail), "%s at LBA %llu: %s", op, (unsigned long long)j->fail_lba,
                 j->fail_device[0] ? j->fail_device : bm_strerror(j->status));
        break;
    default:
        bm_strlcpy(v->detail, j->detail, sizeof(v->detail));
        break;
    }
}

/* One phase over the range: op with a queue of VERIFY_QD chunks, as an
 * engine sweep. On reads each chunk is compared as it completes. Returns
 * BM_OK, the I/O error, BM_ETIMEDOUT when commands may still be in flight
 * (the engine then keeps their buffers) or BM_EABORT on Esc. */
static int verify_phase(struct bm_disk *d, enum bm_io_op op, uint32_t chunk_blocks, struct verify_ctx *x)
{
    const struct engine_timing tm = { 0, 0, x->stall_ns };
    struct verify_result *v = x->v;
    struct disk_job j;
    char why[160], label[64];
    bool stuck;
    int rc;

    rc = engine_job_prepare_sweep(&j, d, op, v->first_lba, v->blocks, chunk_blocks, VERIFY_QD, &verify_hooks, x,
                                  why, sizeof(why));
    if (rc == BM_ENOMEM) {
        snprintf(v->detail, sizeof(v->detail), "no memory for %zu bytes of buffers",
                 (size_t)VERIFY_QD * chunk_blocks * d->lba_bytes);
        return v->status = rc;
    }
    if (rc != BM_OK) {
        bm_strlcpy(v->detail, why, sizeof(v->detail));
        return v->status = rc;
    }
    snprintf(label, sizeof(label), "%.23s verify %s", d->id, op == BM_IO_WRITE ? "write" : "read");
    rc = engine_run(&j, 1, &tm, label, NULL);
    if (j.status != BM_OK)
        word_failure(&j, v);
    stuck = j.stuck;
    engine_job_free(&j);
    if (rc == BM_EABORT)
        return v->status = BM_EABORT;
    return stuck ? BM_ETIMEDOUT : v->status;
}

int disk_verify(struct bm_disk *d, uint64_t bytes, uint64_t seed, uint64_t stall_ns, struct verify_result *v)
{
    uint32_t lb = d->lba_bytes;
    uint32_t chunk = MIN((uint32_t)VERIFY_CHUNK_MAX, d->max_transfer_bytes);
    uint32_t chunk_blocks = lb ? chunk / lb : 0;
    uint64_t blocks, span;
    uint64_t t0 = plat_now_ns();
    struct verify_ctx x;
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
    x = (struct verify_ctx){ v, seed, lb, plat_alloc(lb), stall_ns };
    if (!x.expect) {
        snprintf(v->detail, sizeof(v->detail), "no memory for one block");
        return v->status = BM_ENOMEM;
    }
    rc = verify_phase(d, BM_IO_WRITE, chunk_blocks, &x);
    if (rc == BM_OK)
        rc = verify_phase(d, BM_IO_READ, chunk_blocks, &x);
    plat_free(x.expect);
    v->seconds = (double)(plat_now_ns() - t0) / 1e9;
    qsort(v->bad_lba, v->nbad_listed, sizeof(v->bad_lba[0]), bm_cmp_u64);
    return rc;
}
