/* The per-I/O CPU cost benchmark (see iobench.h). */
#include <time.h>

#include "iobench.h"
#include "drivers/nvme/nvme.h"
#include "drivers/ahci/ahci.h"
#include "efi/disk/engine.h"

#define IOBENCH_BLOCKS (1ull << 21)      /* 1 GiB of 512-byte blocks */
#define IOBENCH_QID (NVME_INSTANT_MAXQ - 1) /* the model-only queue pair */
#define IOBENCH_QSIZE 1024u
#define IOBENCH_POLL 64

static const struct pci_addr iobench_addr = { 0, 0x42, 0, 0 };

/* CPU time of this thread: a preempted benchmark is not charged for it. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int iobench_open_kind(struct iobench *b, enum iobench_kind kind, char *err, size_t errlen)
{
    static struct bm_disk_list list;
    const struct bm_driver *drv = kind == IOBENCH_AHCI ? &ahci_driver : &nvme_driver;
    int rc;

    memset(b, 0, sizeof(*b));
    memset(&list, 0, sizeof(list));
    b->kind = kind;
    engine_limit_cpus(1); /* the cost of one CPU's path, timed on this thread */
    if (kind == IOBENCH_AHCI)
        ahci_instant_attach(&b->ahci, iobench_addr, IOBENCH_BLOCKS);
    else
        nvme_instant_attach(&b->model, iobench_addr, 1, IOBENCH_BLOCKS);
    rc = drv->probe(iobench_addr, 0, &list, &b->ctrl, err, errlen);
    if (rc == BM_OK && list.count != 1)
        rc = BM_ENODEV;
    if (rc != BM_OK) {
        if (kind == IOBENCH_AHCI)
            ahci_instant_detach(&b->ahci);
        else
            nvme_instant_detach(&b->model);
        return rc;
    }
    b->disk = list.disks[0];
    return BM_OK;
}

int iobench_open(struct iobench *b, char *err, size_t errlen)
{
    return iobench_open_kind(b, IOBENCH_NVME, err, errlen);
}

void iobench_close(struct iobench *b)
{
    if (b->kind == IOBENCH_AHCI) {
        ahci_driver.release(b->ctrl);
        ahci_instant_detach(&b->ahci);
    } else {
        nvme_driver.release(b->ctrl);
        nvme_instant_detach(&b->model);
    }
}

/* A Read of 8 blocks at lba, command id cid (NVM command set 6.9). */
static void put_read(uint8_t *sqe, uint16_t cid, uint64_t lba, uint64_t buf)
{
    uint32_t nsid = 1, nlb = 7;

    memset(sqe, 0, 64);
    sqe[0] = 0x02;
    memcpy(sqe + 2, &cid, 2);
    memcpy(sqe + 4, &nsid, 4);
    memcpy(sqe + 24, &buf, 8);
    memcpy(sqe + 40, &lba, 8);
    memcpy(sqe + 48, &nlb, 4);
}

/* The model alone, on a queue pair of its own: doorbell writes through the
 * simulated MMIO routing, and batches of 32 commands. The loop's own
 * SQE writes and CQE reads are charged to the model (a slight
 * overestimate of it, so the driver's share is, if anything, low). */
static void measure_nvme(struct iobench *b, uint64_t commands)
{
    struct nvme_instant *m = &b->model;
    volatile uint8_t *bar = m->dev.bar_window[0];
    uint8_t *sq = plat_alloc_pages(IOBENCH_QSIZE * 64, false), *cq = plat_alloc_pages(IOBENCH_QSIZE * 16, false);
    uint8_t *buf = plat_alloc_pages(4096, false);
    uint32_t sq_tail = 0, cq_head = 0, phase = 1, sq_db = 0x1000 + 8 * IOBENCH_QID, cq_db = sq_db + 4;
    uint64_t t0, batches = commands / 32 + 1, rounds = commands;

    m->cq[IOBENCH_QID] = (struct nvme_instant_queue){ .live = true, .base = cq, .size = IOBENCH_QSIZE, .phase = 1 };
    m->sq[IOBENCH_QID] = (struct nvme_instant_queue){ .live = true, .base = sq, .size = IOBENCH_QSIZE,
                                                      .cqid = IOBENCH_QID };
    t0 = cpu_ns();
    for (uint64_t i = 0; i < rounds; i++)
        mmio_write32(bar, cq_db, cq_head);
    b->doorbell_ns = (double)(cpu_ns() - t0) / (double)rounds;
    t0 = cpu_ns();
    for (uint64_t i = 0; i < rounds; i++)
        (void)mmio_read32(bar, 0x1c); /* CSTS */
    b->read_ns = (double)(cpu_ns() - t0) / (double)rounds;

    t0 = cpu_ns();
    for (uint64_t i = 0; i < batches; i++) {
        for (unsigned k = 0; k < 32; k++) {
            put_read(sq + 64 * sq_tail, (uint16_t)k, (i * 32 + k) * 8 % IOBENCH_BLOCKS, plat_virt_to_phys(buf));
            sq_tail = (sq_tail + 1) & (IOBENCH_QSIZE - 1);
        }
        mmio_write32(bar, sq_db, sq_tail);
        for (unsigned k = 0; k < 32; k++) {
            volatile uint16_t *st = (volatile uint16_t *)(cq + 16 * cq_head + 14);
            if ((*st & 1) != phase)
                abort();              /* an instant controller completed it */
            if (++cq_head == IOBENCH_QSIZE) {
                cq_head = 0;
                phase ^= 1;
            }
        }
        mmio_write32(bar, cq_db, cq_head);
    }
    b->command_ns = ((double)(cpu_ns() - t0) / (double)batches - 2 * b->doorbell_ns) / 32;
    m->sq[IOBENCH_QID].live = m->cq[IOBENCH_QID].live = false;
    plat_free_pages(sq, IOBENCH_QSIZE * 64);
    plat_free_pages(cq, IOBENCH_QSIZE * 16);
    plat_free_pages(buf, 4096);
}

/* An FPDMA read of 8 sectors at lba in slot s (ACS-3 7.22; FIS SATA 3.x
 * 10.5.5), its command table at table with one PRD entry for buf. */
static void put_fpdma(uint8_t *hdr, uint8_t *table, unsigned s, uint64_t lba, uint64_t buf)
{
    uint64_t tp = plat_virt_to_phys(table);
    uint32_t dw0 = 5 | 1u << 16, ctba = (uint32_t)tp, ctbau = (uint32_t)(tp >> 32), dbc = 4095;

    memcpy(hdr + 32 * s, &dw0, 4);
    memset(hdr + 32 * s + 4, 0, 28);
    memcpy(hdr + 32 * s + 8, &ctba, 4);
    memcpy(hdr + 32 * s + 12, &ctbau, 4);
    memset(table, 0, 20);
    table[0] = 0x27, table[1] = 0x80, table[2] = 0x60, table[3] = 8;
    table[4] = (uint8_t)lba, table[5] = (uint8_t)(lba >> 8), table[6] = (uint8_t)(lba >> 16), table[7] = 0x40;
    table[8] = (uint8_t)(lba >> 24), table[9] = (uint8_t)(lba >> 32), table[10] = (uint8_t)(lba >> 40);
    table[12] = (uint8_t)(s << 3);
    memcpy(table + 0x80, &buf, 8);
    memcpy(table + 0x8c, &dbc, 4);
}

/* The AHCI model alone, on its benchmark-only port: register writes and
 * reads, and batches of 32 queued reads (one PxSACT and one PxCI write
 * each). As for NVMe, building the commands is charged to the model. */
static void measure_ahci(struct iobench *b, uint64_t commands)
{
    volatile uint8_t *bar = b->ahci.dev.bar_window[5];
    unsigned n = AHCI_INSTANT_BENCH_PORT;
    uint8_t *mem = plat_alloc_pages(16384, false), *hdr = mem, *tables = mem + 4096, *buf = mem + 12288;
    uint64_t t0, batches = commands / 32 + 1, rounds = commands;
    uint64_t phys;

    if (!mem)
        abort();                      /* 16 KiB: the host has it */
    phys = plat_virt_to_phys(mem);
    mmio_write32(bar, ahci_instant_reg(n, 0x00), (uint32_t)phys);
    mmio_write32(bar, ahci_instant_reg(n, 0x04), (uint32_t)(phys >> 32));
    mmio_write32(bar, ahci_instant_reg(n, 0x08), (uint32_t)(phys + 1024));
    mmio_write32(bar, ahci_instant_reg(n, 0x0c), (uint32_t)((phys + 1024) >> 32));
    mmio_write32(bar, ahci_instant_reg(n, 0x18), 0x11); /* FRE, ST */
    t0 = cpu_ns();
    for (uint64_t i = 0; i < rounds; i++)
        mmio_write32(bar, ahci_instant_reg(n, 0x10), 0); /* PxIS: clears nothing */
    b->doorbell_ns = (double)(cpu_ns() - t0) / (double)rounds;
    t0 = cpu_ns();
    for (uint64_t i = 0; i < rounds; i++)
        (void)mmio_read32(bar, ahci_instant_reg(n, 0x34)); /* PxSACT */
    b->read_ns = (double)(cpu_ns() - t0) / (double)rounds;

    t0 = cpu_ns();
    for (uint64_t i = 0; i < batches; i++) {
        for (unsigned s = 0; s < 32; s++)
            put_fpdma(hdr, tables + 256 * s, s, (i * 32 + s) * 8 % IOBENCH_BLOCKS, plat_virt_to_phys(buf));
        mmio_write32(bar, ahci_instant_reg(n, 0x34), ~0u);
        mmio_write32(bar, ahci_instant_reg(n, 0x38), ~0u);
        if (mmio_read32(bar, ahci_instant_reg(n, 0x38)) != 0)
            abort();                  /* an instant HBA completed them */
    }
    b->command_ns = ((double)(cpu_ns() - t0) / (double)batches - 2 * b->doorbell_ns - b->read_ns) / 32;
    mmio_write32(bar, ahci_instant_reg(n, 0x18), 0);
    plat_free_pages(mem, 16384);
}

void iobench_measure_model(struct iobench *b, uint64_t commands)
{
    if (b->kind == IOBENCH_AHCI)
        measure_ahci(b, commands);
    else
        measure_nvme(b, commands);
}

/* The model's counters the cost is made of. */
struct iobench_counts {
    uint64_t writes, reads, commands, rings;
};

static struct iobench_counts counts_now(const struct iobench *b)
{
    const struct nvme_instant *m = &b->model;
    const struct ahci_instant *a = &b->ahci;

    if (b->kind == IOBENCH_AHCI)
        return (struct iobench_counts){ a->reg_writes, a->reg_reads, a->io_done, a->ci_writes };
    return (struct iobench_counts){ m->sq_doorbells + m->cq_doorbells, m->reg_reads, m->io_done, m->sq_doorbells };
}

/* What happened since *since was taken. */
static struct iobench_counts counts_since(const struct iobench *b, const struct iobench_counts *since)
{
    struct iobench_counts now = counts_now(b);

    return (struct iobench_counts){ now.writes - since->writes, now.reads - since->reads,
                                    now.commands - since->commands, now.rings - since->rings };
}

/* The model's cost since the counters in *since were taken, in ns. */
static double model_cost(const struct iobench *b, const struct iobench_counts *since)
{
    struct iobench_counts d = counts_since(b, since);

    return b->doorbell_ns * (double)d.writes + b->read_ns * (double)d.reads + b->command_ns * (double)d.commands;
}

/* The driver alone at QD qd for about n I/Os: CPU ns per I/O, model included. */
static double driver_loop(struct iobench *b, uint32_t qd, uint64_t n, double *model_ns_per_io)
{
    struct bm_disk *d = b->disk;
    struct bm_completion cq[IOBENCH_POLL];
    uint8_t *buf = plat_alloc_pages((size_t)qd * 4096, false);
    uint64_t lba = 0, done = 0, inflight = 0, t0;
    struct iobench_counts before;

    if (!buf)
        return 0;
    before = counts_now(b);
    t0 = cpu_ns();
    for (uint32_t t = 0; t < qd; t++, inflight++)
        d->ops->submit(d, 0, t, BM_IO_READ, lba = (lba + 8 * 7919) & (IOBENCH_BLOCKS - 1), 8, buf + t * 4096);
    if (d->ops->flush)
        d->ops->flush(d, 0);
    while (inflight) {
        int k = d->ops->poll(d, 0, cq, IOBENCH_POLL);
        for (int i = 0; i < k; i++) {
            uint32_t t = cq[i].tag;
            done++;
            inflight--;
            if (done + inflight >= n)
                continue;
            lba = (lba + 8 * 7919) & (IOBENCH_BLOCKS - 1);
            if (d->ops->submit(d, 0, t, BM_IO_READ, lba, 8, buf + (size_t)t * 4096) == BM_OK)
                inflight++;
        }
        if (d->ops->flush)
            d->ops->flush(d, 0);
    }
    t0 = cpu_ns() - t0;
    *model_ns_per_io = model_cost(b, &before) / (double)done;
    plat_free_pages(buf, (size_t)qd * 4096);
    return (double)t0 / (double)done;
}

int iobench_row(struct iobench *b, uint32_t qd, bool hist, uint64_t measure_ns, struct iobench_row *row)
{
    struct disk_test t = { .op = BM_IO_READ, .random = true, .bs = 4096, .qd = qd, .threads = 1 };
    struct engine_timing tm = { .warmup_ns = 0, .measure_ns = measure_ns, .stall_ns = 10ull * 1000000000ull };
    struct disk_job job;
    struct iobench_counts before, d;
    double raw, drv_raw, drv_model = 0;
    char why[160];
    uint64_t t0;
    int rc;

    memset(row, 0, sizeof(*row));
    row->qd = qd;
    row->hist = hist;
    snprintf(t.name, sizeof(t.name), "RND4K-Q%uT1", qd);
    rc = engine_job_prepare(&job, b->disk, &t, 42, why, sizeof(why));
    if (rc != BM_OK)
        return rc;
    if (!hist) {
        plat_free(job.hist);
        job.hist = NULL;
    }
    before = counts_now(b);
    t0 = cpu_ns();
    rc = engine_run(&job, 1, &tm, "iobench", NULL);
    t0 = cpu_ns() - t0;
    row->ios = job.live_bytes / 4096;
    if (rc != BM_OK || job.status != BM_OK || !row->ios) {
        engine_job_free(&job);
        return rc != BM_OK ? rc : BM_EIO;
    }
    raw = (double)t0 / (double)row->ios;
    row->model_ns = model_cost(b, &before) / (double)row->ios;
    d = counts_since(b, &before);
    row->sq_per_doorbell = (double)d.commands / (double)MAX(1, d.rings);
    row->reads_per_io = (double)d.reads / (double)row->ios;
    row->writes_per_io = (double)d.writes / (double)row->ios;
    engine_job_free(&job);

    drv_raw = driver_loop(b, qd, row->ios, &drv_model);
    row->full_ns = raw - row->model_ns;
    row->driver_ns = drv_raw - drv_model;
    row->engine_ns = row->full_ns - row->driver_ns;
    return BM_OK;
}

void iobench_print_header(FILE *f, const struct iobench *b)
{
    fprintf(f, "per-I/O CPU cost, 4 KiB random reads, engine + %s driver against an instant controller\n",
            b->kind == IOBENCH_AHCI ? "AHCI (NCQ)" : "NVMe");
    fprintf(f, "(model subtracted: %.1f ns per register write, %.1f ns per register read, %.1f ns per command, "
               "measured alone)\n",
            b->doorbell_ns, b->read_ns, b->command_ns);
    fprintf(f, "%5s  %-4s  %10s  %9s  %9s  %9s  %10s  %12s  %6s  %6s\n", "QD", "hist", "ns/IO", "engine", "driver",
            "model", "cmds/ring", "I/Os", "rd/IO", "wr/IO");
}

void iobench_print_row(FILE *f, const struct iobench_row *r)
{
    fprintf(f, "%5u  %-4s  %10.1f  %9.1f  %9.1f  %9.1f  %10.1f  %12llu  %6.2f  %6.2f\n", r->qd, r->hist ? "on" : "off",
            r->full_ns, r->engine_ns, r->driver_ns, r->model_ns, r->sq_per_doorbell, (unsigned long long)r->ios,
            r->reads_per_io, r->writes_per_io);
}
