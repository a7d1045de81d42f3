/* The MegaRAID MFI transport (SAS2108 "gen2", SAS2004/2008 iMR "skinny",
 * e.g. LSI 9260, PERC H310 / LSI 9240) against a simulated controller.
 *
 * The model is written from the interface as the reference drivers use
 * it, not from baremark's driver:
 *   - Linux megaraid_sas_base.c: the firmware status word in scratch pad 0
 *     and megasas_transition_to_ready (the whole word, not only the
 *     state, is what a waiting driver watches); megasas_fire_cmd_gen2 /
 *     _skinny (frame address | (frame_count - 1) << 1 | 1 in the inbound
 *     queue port, skinny parts through IQPH then IQPL) and
 *     megasas_get_frame_count (how many 64-byte frames a frame's SGL
 *     spans); megasas_build_ldio / megasas_build_dcdb /
 *     megasas_make_sgl_skinny (skinny I/O frames carry IEEE SGEs with
 *     MFI_FRAME_SGL64 and MFI_FRAME_IEEE); megasas_issue_blocked_abort_cmd
 *     (MFI_CMD_ABORT names a frame by context and address); the reply
 *     queue of contexts with producer / consumer indices in host memory;
 *   - FreeBSD mfi.c: mfi_data_cb (MFI_FRAME_IEEE_SGL | MFI_FRAME_SGL64 on
 *     skinny I/O), mfi_send_frame (cm_extra_frames in the port).
 * Behaviour real chips have that QEMU's megasas lacks: a skinny firmware
 * takes no 32-bit SGL on I/O frames and fetches exactly 1 + count frames;
 * the status word's low bits move during a long boot while the state
 * stays; a command can hang until the host aborts it; controller info
 * limits a command by strip size times strips per I/O.
 *
 * The driver is reached only through megasas_driver and the bm_disk ops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "platform_sim.h"
#include "scsi_target.h"
#include "capture_sink.h"
#include "efi/disk/engine.h"
#include "efi/disk/health.h"
#include "efi/disk/report.h"
#include "drivers/megasas/megasas.h"
#include "drivers/megasas/megasas_internal.h"
#include "drivers/megasas/mfi.h"
#include "drivers/registry.h"

/* ---- Spec values, spelled out here ----------------------------------------------- */
#define M_STATE_FW_INIT 0x40000000u
#define M_STATE_READY 0xb0000000u
#define M_STATE_OPERATIONAL 0xc0000000u
#define M_STATE_MASK 0xf0000000u
#define M_FW_CMDS 128
#define M_FW_SGE 80
#define M_MAX_OUT 256

#define F_SGL64 0x0002
#define F_IEEE 0x0020
#define F_DONT_POST 0x0001

enum m_family { M_GEN2, M_SKINNY };

struct m_disk {
    bool logical;
    uint16_t id;
    uint32_t block;
    uint64_t blocks;
    uint8_t intf;               /* PD interface: 2 SAS, 3 SATA */
};

/* Two LDs, a SAS system drive, a SATA system drive. */
static const struct m_disk m_disks[] = {
    { true, 0, 512, 1u << 22, 0 },
    { true, 1, 512, 1u << 21, 0 },
    { false, 9, 512, 1u << 20, 2 },
    { false, 12, 512, 1u << 20, 3 },
};

/* RAID members, in the firmware's PD list but not exposed to the host:
 * reached only by PD pass-through frames. ld0 spans array 7 (pd3, a SAS
 * disk; pd5, a SATA disk behind the SATL), ld1 array 8 (pd30, a device id
 * the PD list does not have: its frames are refused). */
#define M_MEMBER_SAS 3
#define M_MEMBER_SATA 5
#define M_MEMBER_GONE 30

struct m_frame {
    uint64_t pa;
    uint32_t ctx;
    bool busy;
};

struct model {
    enum m_family family;
    uint32_t osp0;
    /* Boot: the state stays FW_INIT while the low bits move every
     * boot_step reads (each read costs a second), READY after boot_reads. */
    bool booting;
    unsigned boot_reads_done, boot_step, boot_reads;

    uint32_t iqph;
    bool inited;
    uint64_t rq_pa, prod_pa, cons_pa;
    uint32_t rq_entries, producer;

    struct m_frame out[M_MAX_OUT];
    unsigned noutstanding, max_outstanding;
    unsigned violations;
    char first_violation[256];

    /* controller info */
    uint32_t max_request_size;
    uint16_t max_strips;
    uint8_t stripe_min;

    uint64_t hold_lba;          /* reads at this LBA never finish until aborted */
    bool hold;
    bool hold_writes;           /* writes at hold_lba are held too */
    uint8_t hold_op;            /* pass-through CDBs with this operation code never finish until aborted */
    /* The PD info DCMD of this drive gets no answer (and no abort gives
     * it back) until the next PD info DCMD has been answered: then it is
     * answered too, its data written where its SGE says. */
    uint16_t hold_pd_info;
    uint64_t held_dcmd_pa;
    /* INIT is taken (the firmware goes OPERATIONAL with the reply queue
     * it names) but its frame status is never written. */
    bool init_silent;
    uint64_t init_pa;
    /* A firmware that has lost track of a held command: ABORT answers
     * "abort not possible" and the command stays the firmware's; it moves
     * its data when it finishes late (late_finish()), as real firmware
     * does with a command stuck behind a slow drive. */
    bool abort_ignored;
    /* The firmware ignores the reset request on the doorbell: it stays
     * OPERATIONAL and keeps every command it holds. */
    bool reset_ignored;
    uint8_t late_write_byte;    /* the first byte a late-finished write took from host memory */
    /* Adapter reset (Linux megasas_adp_reset_gen2): keys 0,4,b,2,7,d to the
     * write-sequence register (0xfc) unlock host diag (0xf8); its
     * RESET_ADAPTER bit then resets the chip (every command dropped, state
     * READY). diag_dead: the unlock never happens. */
    struct scsi_target_condition cond; /* what system drives report on READ/WRITE (scsi_target.h) */
    unsigned seq_pos, adapter_resets;
    uint32_t host_diag;
    bool diag_dead;
    uint64_t read_cost_ns;      /* model time each register read costs (a slow, stuck chip) */
    unsigned late_finished;
    unsigned aborts, aborted;
    /* The next busy_left system-drive reads answer SCSI status busy_status
     * (BUSY 08h / TASK SET FULL 28h) with MFI_STAT_SCSI_DONE_WITH_ERROR. */
    unsigned busy_left, busy_answers;
    uint8_t busy_status;
    unsigned reads, writes, ld_io, pd_io, posts, skinny_sgl_rejects;
    /* What the members answer (NULL: no LOG SENSE / SMART disabled), the
     * commands they got, and those refused for a device id not in the PD
     * list. */
    const struct scsi_target_log *member_log;
    const uint8_t *member_smart;
    unsigned member_cmds, pd_not_found, cfg_reads;
    uint32_t biggest_transfer;
};

static struct model m;
static struct plat_sim_dev dev;

/* Record a broken rule (the first one keeps its text). */
static void violation(const char *fmt, ...)
{
    va_list ap;

    if (!m.violations++) {
        va_start(ap, fmt);
        vsnprintf(m.first_violation, sizeof(m.first_violation), fmt, ap);
        va_end(ap);
    }
}

#define assert_model_clean() \
    do { \
        if (m.violations) \
            fail_msg("model saw %u violation(s), first: %s", m.violations, m.first_violation); \
    } while (0)

static void *host(uint64_t pa) { return (void *)(uintptr_t)pa; }
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static uint64_t pattern(uint16_t id, uint64_t lba, uint32_t word)
{
    return ((uint64_t)id << 56) ^ (lba * 0x9e3779b97f4a7c15ull) ^ word;
}

static const struct m_disk *find_disk(bool logical, uint16_t id)
{
    for (size_t i = 0; i < sizeof(m_disks) / sizeof(m_disks[0]); i++)
        if (m_disks[i].logical == logical && m_disks[i].id == id)
            return &m_disks[i];
    return NULL;
}

/* A finished frame: status into the frame, context into the reply queue
 * (Linux megasas_complete_cmd_dpc reads it there). */
static void finish(uint8_t *f, uint64_t pa, uint8_t status)
{
    volatile uint32_t *rq = host(m.rq_pa), *prod = host(m.prod_pa), *cons = host(m.cons_pa);
    uint32_t ctx = rd32(f + 0x08);

    f[2] = status;
    for (unsigned i = 0; i < M_MAX_OUT; i++)
        if (m.out[i].busy && m.out[i].pa == pa) {
            m.out[i].busy = false;
            m.noutstanding--;
            break;
        }
    if ((m.producer + 1) % m.rq_entries == *cons)
        violation("reply queue full: producer %u consumer %u of %u", m.producer, *cons, m.rq_entries);
    rq[m.producer] = ctx;
    m.producer = (m.producer + 1) % m.rq_entries;
    *prod = m.producer;
}

/* How many 64-byte frames this frame's SGL reaches into (Linux
 * megasas_get_frame_count, from the SGL's offset and SGE size). */
static unsigned frames_needed(const uint8_t *f)
{
    uint16_t flags = rd16(f + 0x10);
    unsigned off, size = (flags & F_IEEE) ? 16 : (flags & F_SGL64) ? 12 : 8;

    switch (f[0]) {
    case 0x01: case 0x02: case 0x05: off = 0x28; break;   /* LD read/write, DCMD */
    case 0x03: case 0x04: off = 0x30; break;              /* LD/PD SCSI I/O */
    default: return 1;                                    /* INIT, ABORT: no SGL */
    }
    return (off + f[7] * size + 63) / 64;
}

/* The SGE at off as the frame's flags say it is laid out. */
static void read_sge(const uint8_t *f, unsigned off, uint64_t *addr, uint32_t *len)
{
    uint16_t flags = rd16(f + 0x10);

    if (flags & F_IEEE) {
        *addr = rd64(f + off);
        *len = rd32(f + off + 8);
    } else if (flags & F_SGL64) {
        *addr = rd64(f + off);
        *len = rd32(f + off + 8);
    } else {
        *addr = rd32(f + off);
        *len = rd32(f + off + 4);
    }
}

/* Skinny I/O frames: IEEE SGEs with SGL64 set, as Linux and FreeBSD send
 * them. A 32-bit SGL is refused with MFI_STAT_INVALID_SGL. */
static bool skinny_sgl_ok(const uint8_t *f)
{
    uint16_t flags = rd16(f + 0x10);

    if (m.family != M_SKINNY || !f[7])
        return true;
    if (!(flags & F_SGL64)) {
        violation("skinny %s frame with a 32-bit SGL (flags 0x%04x): needs SGL64 | IEEE", f[0] <= 2 ? "LD I/O" : "SCSI",
                  flags);
        m.skinny_sgl_rejects++;
        return false;
    }
    if (!(flags & F_IEEE))
        violation("skinny I/O frame without the IEEE SGL flag (flags 0x%04x)", flags);
    return true;
}

static void do_init(uint8_t *f, unsigned extra)
{
    const uint8_t *q;

    m.init_pa = (uint64_t)(uintptr_t)f;

    if (f[0] != 0x00)
        violation("first frame cmd 0x%02x is not INIT", f[0]);
    if (extra != 0)
        violation("INIT posted with %u extra frames (Linux posts 0)", extra);
    q = host(rd32(f + 0x18) | (uint64_t)rd32(f + 0x1c) << 32);
    m.rq_entries = rd32(q + 0x04);
    m.rq_pa = rd32(q + 0x08) | (uint64_t)rd32(q + 0x0c) << 32;
    m.prod_pa = rd32(q + 0x10) | (uint64_t)rd32(q + 0x14) << 32;
    m.cons_pa = rd32(q + 0x18) | (uint64_t)rd32(q + 0x1c) << 32;
    if (!m.rq_entries || m.rq_entries > M_FW_CMDS + 1 || !m.rq_pa || !m.prod_pa || !m.cons_pa)
        violation("INIT queue info: %u entries at 0x%llx", m.rq_entries, (unsigned long long)m.rq_pa);
    m.producer = 0;
    if (!m.init_silent)
        f[2] = 0x00;
    m.inited = true;
    m.osp0 = M_STATE_OPERATIONAL | (M_FW_SGE << 16) | M_FW_CMDS;
}

static uint8_t do_dcmd(uint8_t *f)
{
    uint32_t opcode = rd32(f + 0x18), len = rd32(f + 0x14);
    uint8_t *mbox = f + 0x1c;
    uint64_t addr = 0;
    uint32_t sgl_len = 0;
    uint8_t *buf;

    if (len) {
        read_sge(f, 0x28, &addr, &sgl_len);
        if (!f[7] || sgl_len != len || !addr)
            violation("DCMD 0x%08x SGL: %u SGEs, %u bytes for %u", opcode, f[7], sgl_len, len);
    }
    buf = len ? host(addr) : NULL;
    if (buf)
        memset(buf, 0, len);
    switch (opcode) {
    case 0x01010000: /* controller info */
        memcpy(buf + 0x540, "PERC H310 Mini (model)", 22);
        *(uint32_t *)(buf + 0x5bc) = m.max_request_size;
        *(uint16_t *)(buf + 0x5da) = m.max_strips;
        buf[0x5e8] = m.stripe_min;
        return 0;
    case 0x03010000: /* LD list */
        *(uint32_t *)buf = 2;
        buf[8 + 0] = 1, buf[8 + 4] = 3;
        buf[8 + 16 + 0] = 0, buf[8 + 16 + 4] = 3;
        return 0;
    case 0x02010100: /* PD list query, exposed to host */
        if (mbox[0] != 5)
            violation("PD list query type %u", mbox[0]);
        *(uint32_t *)(buf + 4) = 3;
        *(uint16_t *)(buf + 8) = 9;
        *(uint16_t *)(buf + 32) = 12;
        *(uint16_t *)(buf + 56) = 20, buf[56 + 6] = 0x0d;
        return 0;
    case 0x02020000: { /* PD info */
        uint16_t id = (uint16_t)(mbox[0] | mbox[1] << 8);
        const struct m_disk *d = find_disk(false, id);
        *(uint16_t *)buf = id;
        *(uint16_t *)(buf + 0xb8) = 0x40;
        *(uint16_t *)(buf + 0xbc) = (uint16_t)((d ? d->intf : 0) << 12);
        return 0;
    }
    case 0x04010000: { /* configuration (FreeBSD mfi_config_data): 2 arrays, 2 LDs */
        static uint8_t cfg[32 + 2 * 288 + 2 * 256];
        uint8_t *ar = cfg + 32, *ld = cfg + 32 + 2 * 288;

        memset(cfg, 0, sizeof(cfg));
        *(uint32_t *)cfg = sizeof(cfg);
        *(uint16_t *)(cfg + 4) = 2, *(uint16_t *)(cfg + 6) = 288;
        *(uint16_t *)(cfg + 8) = 2, *(uint16_t *)(cfg + 10) = 256;
        for (unsigned a = 0; a < 2; a++)
            for (unsigned r = 0; r < 32; r++)
                *(uint16_t *)(ar + a * 288 + 32 + r * 8) = 0xffff;
        ar[8] = 2, *(uint16_t *)(ar + 10) = 7;
        *(uint16_t *)(ar + 32) = M_MEMBER_SAS, *(uint16_t *)(ar + 36) = 0x18;
        *(uint16_t *)(ar + 40) = M_MEMBER_SATA, *(uint16_t *)(ar + 44) = 0x18;
        ar[288 + 8] = 1, *(uint16_t *)(ar + 288 + 10) = 8;
        *(uint16_t *)(ar + 288 + 32) = M_MEMBER_GONE, *(uint16_t *)(ar + 288 + 36) = 0x18;
        /* Listed in the order the LD list has them: ld1 first. */
        ld[0] = 1, ld[0x25] = 1, *(uint16_t *)(ld + 0x40 + 0x10) = 8;
        ld[256] = 0, ld[256 + 0x25] = 1, *(uint16_t *)(ld + 256 + 0x40 + 0x10) = 7;
        m.cfg_reads++;
        memcpy(buf, cfg, len < sizeof(cfg) ? len : sizeof(cfg));
        return 0;
    }
    case 0x01101000:
        return 0;
    default:
        violation("unexpected DCMD 0x%08x", opcode);
        return 0x02;
    }
}

/* Check a data transfer against what the firmware allows per command. */
static void check_transfer(uint32_t bytes)
{
    uint64_t limit = (uint64_t)M_FW_SGE * 4096;

    if (m.max_request_size)
        limit = MIN(limit, (uint64_t)m.max_request_size * 512);
    if (m.max_strips)
        limit = MIN(limit, ((uint64_t)1 << m.stripe_min) * m.max_strips * 512);
    if (bytes > limit)
        violation("a %u-byte command, beyond the controller's %llu-byte limit", bytes, (unsigned long long)limit);
    if (bytes > m.biggest_transfer)
        m.biggest_transfer = bytes;
}

/* Read or write blocks of a disk through the frame's SGE. */
static void move_data(const struct m_disk *d, bool read, uint64_t lba, uint32_t blocks, uint8_t *buf)
{
    if (read) {
        m.reads++;
        for (uint32_t b = 0; b < blocks; b++)
            for (uint32_t w = 0; w < d->block / 8; w++)
                ((uint64_t *)buf)[(size_t)b * d->block / 8 + w] = pattern(d->id, lba + b, w);
    } else {
        m.writes++;
    }
}

static void disk_read(void *ctx, uint64_t lba, uint32_t blocks, uint8_t *buf) { move_data(ctx, true, lba, blocks, buf); }
static void disk_write(void *ctx, uint64_t lba, uint32_t blocks, const uint8_t *buf)
{
    move_data(ctx, false, lba, blocks, (uint8_t *)buf);
}

/* What the firmware answers for an LD, or what a system PD answers
 * itself, as a SCSI target (tests/unit/scsi_target.h); its medium is
 * move_data()'s. */
static struct scsi_target disk_target(const struct m_disk *d, char *serial, size_t serial_len)
{
    snprintf(serial, serial_len, "SN-%s%u", d->logical ? "LD" : "PD", d->id);
    return (struct scsi_target){ .vendor = d->logical ? "DELL" : "SEAGATE",
                                 .product = d->logical ? "PERC H310 Mini" : "ST2000NM0023",
                                 .revision = d->logical ? "2.12" : "GS0F", .serial = serial,
                                 .blocks = d->blocks, .block_bytes = d->block, .read = disk_read, .write = disk_write,
                                 .ctx = (void *)d, .cond = d->logical ? NULL : &m.cond };
}

static void do_ld_io(uint8_t *f, uint64_t pa)
{
    const struct m_disk *d = find_disk(true, f[4]);
    uint64_t lba = rd32(f + 0x20) | (uint64_t)rd32(f + 0x24) << 32, addr;
    uint32_t blocks = rd32(f + 0x14), len;
    bool read = f[0] == 0x01;

    m.ld_io++;
    if (!skinny_sgl_ok(f)) {
        finish(f, pa, 0x3c); /* invalid SGL */
        return;
    }
    read_sge(f, 0x28, &addr, &len);
    if (!d || f[7] != 1 || len != blocks * 512 || lba + blocks > d->blocks) {
        violation("LD %s: target %u, %u SGEs, %u bytes for %u blocks at %llu", read ? "read" : "write", f[4], f[7],
                  len, blocks, (unsigned long long)lba);
        finish(f, pa, 0x03);
        return;
    }
    check_transfer(len);
    if (m.hold && (read || m.hold_writes) && lba == m.hold_lba)
        return; /* hung until aborted, or finished late (late_finish) */
    move_data(d, read, lba, blocks, host(addr));
    finish(f, pa, 0x00);
}

/* A pass-through frame the target answered: GOOD, or its status and
 * sense (MFI_STAT_SCSI_DONE_WITH_ERROR). */
static void finish_scsi(uint8_t *f, uint64_t pa, const struct scsi_target_reply *sr, uint8_t *sense)
{
    if (sr->status != SCSI_TARGET_GOOD) {
        memset(sense, 0, SCSI_TARGET_SENSE_BYTES);
        memcpy(sense, sr->sense, sr->sense_len);
        f[3] = sr->status;
        finish(f, pa, 0x2d);
        return;
    }
    finish(f, pa, 0x00);
}

/* A PD pass-through frame to a RAID member: it answers as the disk it
 * is; anything but INQUIRY, LOG SENSE and ATA PASS-THROUGH(16) SMART
 * READ DATA / THRESHOLDS (the read-only health commands) is a violation:
 * a host must not go around the RAID layer. */
static void do_member(uint8_t *f, uint64_t pa)
{
    const uint8_t *cdb = f + 0x20;
    uint32_t len = rd32(f + 0x14), sge_len = 0;
    uint64_t addr = 0;
    uint8_t *sense = host(rd32(f + 0x18) | (uint64_t)rd32(f + 0x1c) << 32);
    bool sata = f[4] == M_MEMBER_SATA;
    char serial[16];
    struct scsi_target t;
    struct scsi_target_reply sr;

    m.member_cmds++;
    if (!(cdb[0] == 0x12 || cdb[0] == 0x4d || (cdb[0] == 0x85 && cdb[14] == 0xb0 && (cdb[4] == 0xd0 || cdb[4] == 0xd1))))
        violation("RAID member pd%u sent opcode 0x%02x", f[4], cdb[0]);
    if (f[7])
        read_sge(f, 0x30, &addr, &sge_len);
    if (len && (sge_len != len || !(f[0x10] & 0x10)))
        violation("member pd%u: data_len %u, SGE %u, flags 0x%02x", f[4], len, sge_len, f[0x10]);
    snprintf(serial, sizeof(serial), "SN-PD%u", f[4]);
    t = (struct scsi_target){ .vendor = sata ? "ATA" : "SEAGATE", .product = sata ? "ST2000NM0055" : "ST4000NM0023",
                              .revision = "SN04", .serial = serial, .blocks = 1u << 20, .block_bytes = 512,
                              .sat = sata, .smart_data = sata ? m.member_smart : NULL,
                              .log = sata ? NULL : m.member_log };
    scsi_target_exec(&t, cdb, host(addr), len, &sr);
    finish_scsi(f, pa, &sr, sense);
}

static void do_scsi(uint8_t *f, uint64_t pa)
{
    bool logical = f[0] == 0x03;
    const struct m_disk *d = find_disk(logical, f[4]);
    const uint8_t *cdb = f + 0x20;
    uint32_t len = rd32(f + 0x14), sge_len = 0;
    uint64_t addr = 0, lba = 0;
    uint32_t blocks = 0;
    bool write;
    struct scsi_target t;
    struct scsi_target_reply sr;
    char serial[16];
    uint8_t *sense = host(rd32(f + 0x18) | (uint64_t)rd32(f + 0x1c) << 32);
    uint8_t *buf;

    if (!logical)
        m.pd_io++;
    if (!logical && (f[4] == M_MEMBER_SAS || f[4] == M_MEMBER_SATA)) {
        do_member(f, pa);
        return;
    }
    if (!d) {
        if (!logical)
            m.pd_not_found++;
        finish(f, pa, 0x0c);
        return;
    }
    if (!skinny_sgl_ok(f)) {
        finish(f, pa, 0x3c);
        return;
    }
    if (f[7])
        read_sge(f, 0x30, &addr, &sge_len);
    buf = host(addr);
    if (m.hold_op && cdb[0] == m.hold_op)
        return; /* hung until aborted, or finished late (late_finish) */
    if (scsi_target_rw(cdb, &write, &lba, &blocks) && blocks) {
        bool read = !write;
        if (sge_len != blocks * d->block || len != sge_len || lba + blocks > d->blocks)
            violation("PD %s of %u blocks at %llu: SGE %u, data_len %u", read ? "READ" : "WRITE", blocks,
                      (unsigned long long)lba, sge_len, len);
        check_transfer(sge_len);
        if (m.busy_left && read) {
            m.busy_left--;
            m.busy_answers++;
            f[3] = m.busy_status;
            finish(f, pa, 0x2d);
            return;
        }
        if (m.hold && read && lba == m.hold_lba)
            return;
    }
    t = disk_target(d, serial, sizeof(serial));
    scsi_target_exec(&t, cdb, buf, len, &sr);
    finish_scsi(f, pa, &sr, sense);
}

/* MFI_CMD_ABORT: give back the named frame (status "aborted": the SCSI
 * I/O failed status here), then answer the abort itself. */
static void do_abort(uint8_t *f, uint64_t pa)
{
    uint32_t ctx = rd32(f + 0x18);
    uint64_t target = rd32(f + 0x20) | (uint64_t)rd32(f + 0x24) << 32;
    bool found = false;

    m.aborts++;
    for (unsigned i = 0; i < M_MAX_OUT; i++)
        if (m.out[i].busy && m.out[i].pa == target) {
            if (m.out[i].ctx != ctx)
                violation("ABORT context %u for the frame with context %u", ctx, m.out[i].ctx);
            if (m.abort_ignored)
                break;
            finish(host(target), target, 0x2e);
            m.aborted++;
            found = true;
            break;
        }
    finish(f, pa, found ? 0x00 : 0x05 /* abort not possible */);
}

/* The firmware finishes every LD I/O it held, late: a read's data goes
 * into the buffer its SGE names now, a write takes its bytes from there
 * now (DMA happens when the firmware gets to it, not when it was posted). */
static void late_finish(void)
{
    for (unsigned i = 0; i < M_MAX_OUT; i++) {
        uint8_t *f = host(m.out[i].pa);
        uint64_t addr, lba;
        uint32_t len;

        if (m.out[i].busy && (f[0] == 0x03 || f[0] == 0x04) && m.hold_op && f[0x20] == m.hold_op) {
            /* A held pass-through: its data lands where its SGE says, now. */
            read_sge(f, 0x30, &addr, &len);
            memset(host(addr), 0x5a, len);
            m.late_finished++;
            finish(f, m.out[i].pa, 0x00);
            continue;
        }
        if (!m.out[i].busy || (f[0] != 0x01 && f[0] != 0x02))
            continue;
        read_sge(f, 0x28, &addr, &len);
        lba = rd32(f + 0x20) | (uint64_t)rd32(f + 0x24) << 32;
        if (f[0] == 0x02)
            m.late_write_byte = *(uint8_t *)host(addr);
        move_data(find_disk(true, f[4]), f[0] == 0x01, lba, rd32(f + 0x14), host(addr));
        m.late_finished++;
        finish(f, m.out[i].pa, 0x00);
    }
}

/* A frame address arrived in the inbound queue port. */
static void take_frame(uint32_t lo, uint32_t hi)
{
    uint64_t pa = ((uint64_t)hi << 32) | (lo & ~0xfu);
    unsigned extra = (lo >> 1) & 7, need, i;
    uint8_t *f = host(pa);

    m.posts++;
    if (!(lo & 1))
        violation("queue port write 0x%08x without bit 0", lo);
    if (!m.inited) {
        do_init(f, extra);
        return;
    }
    need = frames_needed(f);
    if (extra != need - 1)
        violation("frame cmd 0x%02x posted with count %u; it spans %u frame(s), so the count is %u "
                  "(Linux megasas_fire_cmd_*: frame_count - 1)",
                  f[0], extra, need, need - 1);
    for (i = 0; i < M_MAX_OUT; i++)
        if (m.out[i].busy && m.out[i].pa == pa) {
            violation("frame at 0x%llx posted again while the firmware still owns it", (unsigned long long)pa);
            return;
        }
    for (i = 0; i < M_MAX_OUT && m.out[i].busy; i++)
        ;
    if (i == M_MAX_OUT || m.noutstanding >= M_FW_CMDS) {
        violation("more frames outstanding than the firmware's %u commands", M_FW_CMDS);
        return;
    }
    m.out[i] = (struct m_frame){ pa, rd32(f + 0x08), true };
    if (++m.noutstanding > m.max_outstanding)
        m.max_outstanding = m.noutstanding;
    if (rd16(f + 0x10) & F_DONT_POST)
        violation("frame cmd 0x%02x with DONT_POST_IN_REPLY_QUEUE after INIT", f[0]);
    switch (f[0]) {
    case 0x01: case 0x02: do_ld_io(f, pa); break;
    case 0x03: case 0x04: do_scsi(f, pa); break;
    case 0x05:
        if (m.hold_pd_info && rd32(f + 0x18) == 0x02020000 && (f[0x1c] | f[0x1d] << 8) == m.hold_pd_info) {
            m.hold_pd_info = 0;
            m.held_dcmd_pa = pa;
            break;
        }
        finish(f, pa, do_dcmd(f));
        if (m.held_dcmd_pa && rd32(f + 0x18) == 0x02020000) {
            uint64_t held = m.held_dcmd_pa;

            m.held_dcmd_pa = 0;
            finish(host(held), held, do_dcmd(host(held)));
            m.late_finished++;
        }
        break;
    case 0x06: do_abort(f, pa); break;
    default:
        violation("frame cmd 0x%02x", f[0]);
        finish(f, pa, 0x01);
    }
}

/* The chip drops every command it holds (reset): no reply for any. */
static void drop_outstanding(void)
{
    for (unsigned i = 0; i < M_MAX_OUT; i++)
        m.out[i].busy = false;
    m.noutstanding = 0;
}

static uint32_t m_read(void *ctx, int bar, uint32_t off)
{
    (void)ctx, (void)bar;
    plat_sim_advance_ns(m.read_cost_ns);
    if (off == 0xf8 && m.family == M_GEN2)
        return m.host_diag;
    if (off != 0xb0)
        return 0;
    if (m.booting) {
        /* Each look costs a second; the low bits count progress. */
        plat_sim_advance_ns(1000000000ull);
        if (++m.boot_reads_done >= m.boot_reads) {
            m.booting = false;
            m.osp0 = M_STATE_READY | (M_FW_SGE << 16) | M_FW_CMDS;
        } else {
            m.osp0 = M_STATE_FW_INIT | (m.boot_reads_done / m.boot_step);
        }
    }
    return m.osp0;
}

static void m_write(void *ctx, int bar, uint32_t off, uint32_t v)
{
    uint32_t doorbell = m.family == M_SKINNY ? 0x00 : 0x20;

    (void)ctx, (void)bar;
    if (off == doorbell) {
        if ((v & 0x2) && (m.osp0 & M_STATE_MASK) == M_STATE_OPERATIONAL && !m.reset_ignored) {
            m.osp0 = M_STATE_READY | (M_FW_SGE << 16) | M_FW_CMDS;
            m.inited = false;
            if (v & 0x1)
                drop_outstanding(); /* MFI_INIT_ABORT: every command aborted */
        }
        return;
    }
    if (m.family == M_GEN2 && off == 0xfc) {
        static const uint32_t keys[] = { 0x0, 0x4, 0xb, 0x2, 0x7, 0xd };
        m.seq_pos = v == keys[m.seq_pos] ? m.seq_pos + 1 : v == keys[0] ? 1 : 0;
        if (m.seq_pos == 6 && !m.diag_dead) {
            m.host_diag |= 0x80;
            m.seq_pos = 0;
        }
        return;
    }
    if (m.family == M_GEN2 && off == 0xf8) {
        if (!(m.host_diag & 0x80)) {
            violation("host diag written 0x%08x while locked", v);
            return;
        }
        if (v & 0x4) {
            m.adapter_resets++;
            drop_outstanding();
            m.osp0 = M_STATE_READY | (M_FW_SGE << 16) | M_FW_CMDS;
            m.inited = false;
            m.host_diag = 0;
        }
        return;
    }
    if (m.family == M_SKINNY) {
        if (off == 0x40)
            violation("skinny part written through the 32-bit IQP");
        if (off == 0xc4)
            m.iqph = v;
        if (off == 0xc0) {
            take_frame(v, m.iqph);
            m.iqph = 0;
        }
    } else if (off == 0x40) {
        take_frame(v, 0);
    }
}

static struct pci_addr model_attach(uint16_t device, enum m_family family)
{
    struct pci_addr a = { 0, 5, 0, 0 };

    memset(&m, 0, sizeof(m));
    memset(&dev, 0, sizeof(dev));
    m.family = family;
    m.osp0 = M_STATE_READY | (M_FW_SGE << 16) | M_FW_CMDS;
    m.max_request_size = 2048;  /* 1 MiB */
    dev.addr = a;
    dev.ctx = &m;
    dev.mmio_read32 = m_read;
    dev.mmio_write32 = m_write;
    dev.config[0] = 0x00, dev.config[1] = 0x10;
    dev.config[2] = (uint8_t)device, dev.config[3] = (uint8_t)(device >> 8);
    dev.config[0x0b] = 0x01, dev.config[0x0a] = 0x04;
    /* gen2: BAR0 I/O, BAR1 memory (Linux megasas_init_fw takes the first
     * memory BAR); skinny: BAR0 memory. */
    if (family == M_SKINNY) {
        dev.config[0x10] = 0x04;
        dev.bar_size[0] = 0x40000;
    } else {
        dev.config[0x10] = 0x01;
        dev.config[0x14] = 0x04;
        dev.bar_size[1] = 0x40000;
    }
    plat_sim_attach(&dev);
    return a;
}

static void *probe(uint16_t device, enum m_family family, struct bm_disk_list *list)
{
    char err[160] = "";
    void *ctrl = NULL;
    struct pci_addr a = model_attach(device, family);

    memset(list, 0, sizeof(*list));
    assert_ptr_equal(registry_find(0x1000, device, 0x010400), &megasas_driver);
    if (megasas_driver.probe(a, 0, list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_non_null(ctrl);
    return ctrl;
}

static void release(void *ctrl)
{
    megasas_driver.release(ctrl);
    assert_int_equal(m.osp0 & M_STATE_MASK, M_STATE_READY);
    assert_model_clean();
    plat_sim_detach(&dev);
}

static int reap(struct bm_disk *d, struct bm_completion *out, int n)
{
    int got = 0;

    for (int spin = 0; spin < 100000 && got < n; spin++)
        got += d->ops->poll(d, 0, out + got, n - got);
    return got;
}

static bool pattern_ok(const uint8_t *buf, uint16_t id, uint64_t lba, uint32_t blocks)
{
    for (uint32_t b = 0; b < blocks; b++)
        for (uint32_t w = 0; w < 512 / 8; w++)
            if (((const uint64_t *)buf)[(size_t)b * 64 + w] != pattern(id, lba + b, w))
                return false;
    return true;
}

/* Reads and writes on every disk, data checked. */
static void check_io(struct bm_disk_list *list)
{
    uint8_t *buf = plat_alloc_pages(64 * 1024, false);
    struct bm_completion done[8];

    assert_int_equal(list->count, 4);
    for (unsigned i = 0; i < list->count; i++) {
        struct bm_disk *d = list->disks[i];
        uint16_t id = (uint16_t)(i == 0 ? 0 : i == 1 ? 1 : i == 2 ? 9 : 12);

        assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 4096 + i, 16, buf), BM_OK);
        assert_int_equal(reap(d, done, 1), 1);
        assert_int_equal(done[0].status, BM_OK);
        assert_true(pattern_ok(buf, id, 4096 + i, 16));
        assert_int_equal(d->ops->submit(d, 0, 2, BM_IO_WRITE, 77, 8, buf), BM_OK);
        assert_int_equal(reap(d, done, 1), 1);
        assert_int_equal(done[0].status, BM_OK);
    }
    assert_true(m.ld_io >= 4 && m.pd_io >= 4 && m.writes == 4);
    plat_free_pages(buf, 64 * 1024);
    assert_model_clean();
}

/* ---- Tests ---------------------------------------------------------------------- */

/* SAS2008 iMR (PERC H310, LSI 9240): I/O frames carry IEEE SGEs with
 * SGL64 set, and every frame goes to IQPH/IQPL with a frame count of 0
 * (one frame: frames - 1). The model refuses the 32-bit SGL and the wrong
 * count an older driver sent. */
static void test_skinny_frames_use_ieee_sgl64_and_count_zero(void **state)
{
    struct bm_disk_list list;
    void *ctrl;

    (void)state;
    ctrl = probe(0x0073, M_SKINNY, &list);
    assert_model_clean();
    assert_int_equal(m.skinny_sgl_rejects, 0);
    check_io(&list);
    release(ctrl);
}

/* The SAS2004 (1000:0071) is driven the same way. */
static void test_sas2004_is_skinny_too(void **state)
{
    struct bm_disk_list list;
    void *ctrl;

    (void)state;
    ctrl = probe(0x0071, M_SKINNY, &list);
    check_io(&list);
    release(ctrl);
}

/* SAS2108 (LSI 9260, PERC H700): the 32-bit inbound queue port, the same
 * frame count rule. */
static void test_gen2_frames_count_zero(void **state)
{
    struct bm_disk_list list;
    void *ctrl;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    check_io(&list);
    release(ctrl);
}

/* The largest command: strip size x strips per I/O from controller info
 * (64 KiB strips, 4 per I/O: 256 KiB), below max_request_size (1 MiB) and
 * the SGE limit (80 x 4 KiB); a bigger submit is refused, never sent. */
static void test_max_transfer_is_capped_by_strips_and_sges(void **state)
{
    struct bm_disk_list list;
    struct pci_addr a = model_attach(0x0079, M_GEN2);
    uint8_t *buf = plat_alloc_pages(1u << 20, false);
    struct bm_completion done[2];
    char err[160] = "";
    void *ctrl = NULL;

    (void)state;
    memset(&list, 0, sizeof(list));
    m.stripe_min = 7;           /* 128 sectors */
    m.max_strips = 4;
    if (megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    for (unsigned i = 0; i < list.count; i++)
        assert_int_equal(list.disks[i]->max_transfer_bytes, 256 * 1024);
    assert_int_equal(list.disks[0]->ops->submit(list.disks[0], 0, 0, BM_IO_READ, 0, 2048, buf), BM_EINVAL);
    assert_int_equal(list.disks[0]->ops->submit(list.disks[0], 0, 0, BM_IO_READ, 0, 512, buf), BM_OK);
    assert_int_equal(reap(list.disks[0], done, 1), 1);
    assert_int_equal(done[0].status, BM_OK);
    assert_int_equal(m.biggest_transfer, 256 * 1024);
    plat_free_pages(buf, 1u << 20);
    release(ctrl);

    /* No strip figures (older firmware): the SGE limit, 80 x 4 KiB. */
    ctrl = probe(0x0073, M_SKINNY, &list);
    assert_int_equal(list.disks[0]->max_transfer_bytes, M_FW_SGE * 4096);
    release(ctrl);
}

/* Queue depth per drive kind as Linux sets it: LDs and SAS drives deep,
 * a SATA system drive 32 (MEGASAS_SATA_QD). */
static void test_sata_system_drive_gets_queue_depth_32(void **state)
{
    struct bm_disk_list list;
    void *ctrl;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    assert_int_equal(list.count, 4);
    assert_non_null(strstr(list.disks[3]->id, "p12"));
    assert_int_equal(list.disks[3]->max_qd, 32);
    assert_int_equal(list.disks[2]->max_qd, M_FW_CMDS - 2);
    assert_int_equal(list.disks[0]->max_qd, M_FW_CMDS - 2);
    release(ctrl);
}

/* A firmware whose state stays FW_INIT for 400 s while the low bits of
 * its status word count progress every 100 s: the wait restarts on each
 * change (Linux compares the whole word) and the probe succeeds. */
static void test_ready_wait_restarts_when_status_word_moves(void **state)
{
    struct bm_disk_list list;
    struct pci_addr a = model_attach(0x0073, M_SKINNY);
    uint64_t t0 = plat_now_ns();
    char err[160] = "";
    void *ctrl = NULL;

    (void)state;
    memset(&list, 0, sizeof(list));
    m.booting = true;
    m.boot_step = 100;
    m.boot_reads = 400;
    m.osp0 = M_STATE_FW_INIT;
    if (megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_true(plat_now_ns() - t0 >= 400ull * 1000000000ull);
    assert_int_equal(list.count, 4);
    release(ctrl);
}

/* A status word that never changes still fails at the per-change deadline
 * and names the state. */
static void test_ready_wait_gives_up_on_a_frozen_status_word(void **state)
{
    struct bm_disk_list list = { .count = 0 };
    struct pci_addr a = model_attach(0x0073, M_SKINNY);
    char err[160] = "";
    void *ctrl = NULL;

    (void)state;
    m.booting = true;
    m.boot_step = 1000000;
    m.boot_reads = 1000000;
    m.osp0 = M_STATE_FW_INIT;
    assert_int_equal(megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)), BM_ETIMEDOUT);
    assert_non_null(strstr(err, "FW_INIT"));
    assert_null(ctrl);
    assert_int_equal(dev.releases, 1);
    plat_sim_detach(&dev);
}

/* A read the firmware never finishes: at the 30 s deadline the engine gets
 * BM_ETIMEDOUT and the firmware gets an MFI ABORT naming that frame; the
 * frame is never reposted before the firmware gave it back, and
 * afterwards the whole pool works again. */
static void test_hung_read_is_aborted_before_its_frame_is_reused(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[128];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *ld;
    void *ctrl;
    unsigned ok = 0;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    ld = list.disks[0];
    m.hold = true;
    m.hold_lba = 4242;
    assert_int_equal(ld->ops->submit(ld, 0, 3, BM_IO_READ, 4242, 1, buf), BM_OK);
    assert_int_equal(ld->ops->poll(ld, 0, done, 4), 0);
    plat_sim_advance_ns(31ull * 1000000000ull);
    assert_int_equal(reap(ld, done, 1), 1);
    assert_int_equal(done[0].tag, 3);
    assert_int_equal(done[0].status, BM_ETIMEDOUT);
    assert_int_equal(m.aborts, 1);
    assert_int_equal(m.aborted, 1);
    /* The next poll takes both answers (the aborted frame's and the
     * abort's) and produces no second completion for tag 3. */
    assert_int_equal(ld->ops->poll(ld, 0, done, 4), 0);
    m.hold = false;
    /* Every frame the disk may use, at once: the aborted one included. */
    for (uint32_t tag = 0; tag < ld->max_qd; tag++)
        assert_int_equal(ld->ops->submit(ld, 0, tag, BM_IO_READ, 100 + tag, 1, buf), BM_OK);
    for (int spin = 0; spin < 100 && ok < ld->max_qd; spin++) {
        int n = ld->ops->poll(ld, 0, done, 128);
        for (int i = 0; i < n; i++)
            assert_int_equal(done[i].status, BM_OK);
        ok += (unsigned)n;
    }
    assert_int_equal(ok, ld->max_qd);
    assert_int_equal(m.noutstanding, 0);
    plat_free_pages(buf, 4096);
    release(ctrl);
}

/* io_timeout=2 (bm_set_io_timeout_ns before the probe, as discovery does):
 * a held read is still the firmware's 1.5 s in, and at 2.5 s it has been
 * aborted and comes back timed out, naming 2000 ms, not the default 30 s. */
static void test_io_timeout_option_sets_the_command_deadline(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[4];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *ld;
    void *ctrl;

    (void)state;
    bm_set_io_timeout_ns(2ull * 1000000000ull);
    ctrl = probe(0x0079, M_GEN2, &list);
    ld = list.disks[0];
    m.hold = true;
    m.hold_lba = 4242;
    assert_int_equal(ld->ops->submit(ld, 0, 3, BM_IO_READ, 4242, 1, buf), BM_OK);
    plat_sim_advance_ns(1500000000ull);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ld->ops->poll(ld, 0, done, 4), 0);
    assert_int_equal(m.aborts, 0);
    plat_sim_advance_ns(1000000000ull);
    assert_int_equal(reap(ld, done, 1), 1);
    assert_int_equal(done[0].tag, 3);
    assert_int_equal(done[0].status, BM_ETIMEDOUT);
    assert_non_null(strstr(done[0].detail, "no completion in 2000 ms"));
    assert_int_equal(m.aborts, 1);
    m.hold = false;
    plat_free_pages(buf, 4096);
    release(ctrl);
}

/* Back to the default command timeout for the tests after. */
static int default_io_timeout(void **state)
{
    (void)state;
    bm_set_io_timeout_ns(0);
    return 0;
}

/* Poll a disk for a while, 1 s of model time per poll. */
static int poll_for(struct bm_disk *d, struct bm_completion *out, int max, unsigned polls)
{
    int got = 0;

    for (unsigned i = 0; i < polls && got < max; i++) {
        got += d->ops->poll(d, 0, out + got, max - got);
        plat_sim_advance_ns(1000000000ull);
    }
    return got;
}

/* A read the firmware keeps past its deadline (and does not give back on
 * ABORT) finishes 40 s late, DMAing into its buffer then. The engine must
 * not have had the command back before that: it would have freed or
 * reused the buffer (poisoned here as the engine's next use would),
 * and the late data would land in it. As Linux, which completes a
 * timed-out command to its owner only from scsi_eh_flush_done_q(), once
 * an abort or reset got it back. */
static void test_timed_out_read_is_not_handed_back_while_the_firmware_owns_its_buffer(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[4];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *ld;
    void *ctrl;
    bool handed_back_early;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    ld = list.disks[0];
    m.hold = true;
    m.hold_lba = 4242;
    m.abort_ignored = true;
    assert_int_equal(ld->ops->submit(ld, 0, 3, BM_IO_READ, 4242, 1, buf), BM_OK);
    plat_sim_advance_ns(31ull * 1000000000ull);
    handed_back_early = poll_for(ld, done, 4, 10) > 0;
    if (handed_back_early)
        memset(buf, 0xa5, 4096); /* the engine reuses the buffer it got back */
    assert_int_equal(m.aborts, 1);
    m.hold = false;
    late_finish();
    assert_int_equal(m.late_finished, 1);
    if (handed_back_early)
        fail_msg("tag 3 was completed while the firmware still owned its buffer: the late read overwrote a "
                 "buffer the engine had reused");
    /* Given back now: one BM_ETIMEDOUT completion naming the timeout. */
    assert_int_equal(poll_for(ld, done, 4, 3), 1);
    assert_int_equal(done[0].tag, 3);
    assert_int_equal(done[0].status, BM_ETIMEDOUT);
    assert_non_null(strstr(done[0].detail, "30000 ms"));
    assert_true(pattern_ok(buf, 0, 4242, 1));
    plat_free_pages(buf, 4096);
    release(ctrl);
}

/* The driver's own commands have the same rule. A system drive's LOG
 * SENSE (health, between workloads) that the firmware keeps past its 10 s
 * and whose abort the firmware refuses finishes late, DMAing its data
 * then. The SCSI layer frees its buffer as soon as the command returns
 * BM_ETIMEDOUT, so the data must go to memory the controller keeps: had
 * the frame named the SCSI layer's buffer, the late DMA would land in
 * freed pages (on the host: unmapped, a crash). As Linux, whose
 * scsi_execute() returns only once the error handler got the command
 * back (scsi_eh_flush_done_q). Fails on 7bd1414 with a segmentation fault
 * in late_finish(). */
static void test_timed_out_health_command_keeps_the_memory_the_firmware_may_still_write(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[4];
    struct bm_health h;
    struct bm_disk *pd;
    void *ctrl;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    pd = list.disks[2];
    m.hold_op = 0x4d; /* LOG SENSE */
    m.abort_ignored = true;
    assert_int_equal(pd->ops->health(pd, &h), BM_ETIMEDOUT);
    assert_int_equal(m.aborts, 1);
    late_finish();
    assert_int_equal(m.late_finished, 1);
    /* The late answer frees the frame: the firmware holds nothing. */
    m.hold_op = 0;
    assert_int_equal(pd->ops->poll(pd, 0, done, 4), 0);
    assert_int_equal(m.noutstanding, 0);
    release(ctrl);
}

/* A DCMD the firmware answers late, right after the next one: PD info
 * for pd9 gets no answer within its 60 s (the abort is refused), pd12's
 * is answered, then pd9's, into the memory its SGE names. Had both named
 * the one DCMD buffer, pd12 would be set up from pd9's info (a SAS
 * drive's queue depth instead of the SATA drive's 32). Each DCMD moves
 * its data through pages of its own, and the unanswered one's are kept
 * (Linux megasas_get_pd_info and the other DCMD callers skip
 * megasas_return_cmd() for a DCMD_TIMEOUT and reset or kill the adapter
 * before its buffer is used again). Fails on 7bd1414: pd12 gets queue
 * depth 126. */
static void test_late_dcmd_does_not_write_into_the_next_dcmd_data(void **state)
{
    struct bm_disk_list list = { .count = 0 };
    struct pci_addr a = model_attach(0x0079, M_GEN2);
    char err[160] = "";
    void *ctrl = NULL;
    struct bm_disk *pd12 = NULL;

    (void)state;
    m.hold_pd_info = 9;
    m.abort_ignored = true;
    if (megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_int_equal(m.late_finished, 1);
    for (unsigned i = 0; i < list.count; i++) {
        assert_null(strstr(list.disks[i]->id, "p9"));   /* its info never came in time */
        if (strstr(list.disks[i]->id, "p12"))
            pd12 = list.disks[i];
    }
    assert_non_null(pd12);
    assert_int_equal(pd12->max_qd, 32);
    release(ctrl);
}

/* A firmware that takes MFI INIT (it goes OPERATIONAL with our reply
 * queue) but never writes the INIT frame's status, ignores the reset
 * request and cannot be adapter-reset: the probe fails, and the frames and
 * reply queue the firmware was handed must stay allocated, as release
 * keeps them (test_release_keeps_memory_a_firmware_that_will_not_stop_may_write;
 * nvme_teardown): the firmware may write the INIT status and its reply
 * queue producer at any time. Fails on 7bd1414, whose probe error path
 * freed them whatever the stop said: the late writes then crash. */
static void test_failed_init_keeps_memory_a_firmware_that_will_not_stop_may_write(void **state)
{
    struct bm_disk_list list = { .count = 0 };
    struct pci_addr a = model_attach(0x0079, M_GEN2);
    char err[160] = "";
    void *ctrl = NULL;

    (void)state;
    m.init_silent = true;
    m.reset_ignored = true;
    m.diag_dead = true;
    assert_int_equal(megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)), BM_ETIMEDOUT);
    assert_non_null(strstr(err, "MFI INIT"));
    assert_null(ctrl);
    assert_int_equal(m.osp0 & M_STATE_MASK, M_STATE_OPERATIONAL);
    /* The firmware gets to INIT at last, and to its reply queue. */
    ((volatile uint8_t *)(uintptr_t)m.init_pa)[2] = 0x00;
    *(volatile uint32_t *)(uintptr_t)m.prod_pa = 0;
    assert_int_equal(list.count, 0);
    plat_sim_detach(&dev);
}

/* The same for a write: had the engine got it back at the deadline, it
 * would have refilled the buffer for its next write, and the firmware's
 * late DMA would send those bytes to the block of the timed-out write. */
static void test_timed_out_write_does_not_send_a_reused_buffer(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[4];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *ld;
    void *ctrl;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    ld = list.disks[0];
    m.hold = true;
    m.hold_writes = true;
    m.hold_lba = 777;
    m.abort_ignored = true;
    memset(buf, 0x11, 4096);
    assert_int_equal(ld->ops->submit(ld, 0, 5, BM_IO_WRITE, 777, 1, buf), BM_OK);
    plat_sim_advance_ns(31ull * 1000000000ull);
    if (poll_for(ld, done, 4, 10) > 0)
        memset(buf, 0x22, 4096); /* the engine's next write */
    late_finish();
    assert_int_equal(m.late_finished, 1);
    assert_int_equal(m.late_write_byte, 0x11);
    assert_int_equal(poll_for(ld, done, 4, 3), 1);
    assert_int_equal(done[0].status, BM_ETIMEDOUT);
    plat_free_pages(buf, 4096);
    release(ctrl);
}

/* Release with a read the firmware holds and a firmware that ignores the
 * reset request and cannot be reset: the frames, sense buffers and reply
 * queue must stay allocated (as nvme_teardown keeps a controller's queues
 * that did not stop): the firmware then finishes the read late and writes
 * its status, sense and reply-queue entry into that memory. Freed, those
 * writes would land in memory the next owner uses (here: unmapped, a
 * crash). */
static void test_release_keeps_memory_a_firmware_that_will_not_stop_may_write(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[4];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *ld;
    void *ctrl;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    ld = list.disks[0];
    m.hold = true;
    m.hold_lba = 4242;
    m.abort_ignored = true;
    assert_int_equal(ld->ops->submit(ld, 0, 3, BM_IO_READ, 4242, 1, buf), BM_OK);
    plat_sim_advance_ns(31ull * 1000000000ull);
    assert_int_equal(poll_for(ld, done, 4, 3), 0);
    m.reset_ignored = true;
    m.diag_dead = true;
    m.read_cost_ns = 1000000000ull; /* 1 s */
    megasas_driver.release(ctrl);
    assert_int_equal(m.osp0 & M_STATE_MASK, M_STATE_OPERATIONAL);
    assert_int_equal(m.adapter_resets, 0);
    /* The firmware finishes late, into memory that must still be ours. */
    m.hold = false;
    late_finish();
    assert_int_equal(m.late_finished, 1);
    assert_true(pattern_ok(buf, 0, 4242, 1));
    assert_model_clean();
    plat_sim_detach(&dev);
    plat_free_pages(buf, 4096);
}

/* The same firmware, but the adapter reset works: release waits (bounded)
 * for the held read, then escalates from the ignored reset request to the
 * adapter reset through the host diagnostic register (Linux
 * megasas_adp_reset_gen2: the unlock keys, then RESET_ADAPTER), and the
 * firmware ends READY holding nothing. */
static void test_release_resets_the_adapter_when_the_firmware_stays_operational(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[4];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *ld;
    void *ctrl;
    uint64_t t0;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    ld = list.disks[0];
    m.hold = true;
    m.hold_lba = 4242;
    m.abort_ignored = true;
    assert_int_equal(ld->ops->submit(ld, 0, 3, BM_IO_READ, 4242, 1, buf), BM_OK);
    plat_sim_advance_ns(31ull * 1000000000ull);
    assert_int_equal(poll_for(ld, done, 4, 3), 0);
    m.reset_ignored = true;
    m.read_cost_ns = 1000000000ull; /* 1 s */
    t0 = plat_now_ns();
    megasas_driver.release(ctrl);
    assert_int_equal(m.adapter_resets, 1);
    assert_int_equal(m.noutstanding, 0);
    assert_int_equal(m.osp0 & M_STATE_MASK, M_STATE_READY);
    /* Bounded: the 10 s wait for outstanding commands, the 180 s wait for
     * the ignored reset request, and the adapter reset. */
    assert_true(plat_now_ns() - t0 < 230ull * 1000000000ull);
    assert_model_clean();
    plat_sim_detach(&dev);
    plat_free_pages(buf, 4096);
}

/* One read of a system drive, polled in 10 ms steps of model time until
 * it completes (at most 40 s); how long it took goes to *ms. */
static struct bm_completion pd_read(struct bm_disk *pd, uint8_t *buf, uint64_t lba, uint64_t *ms)
{
    struct bm_completion c = { .status = 1 };
    uint64_t t0 = plat_now_ns();

    assert_int_equal(pd->ops->submit(pd, 0, 0, BM_IO_READ, lba, 16, buf), BM_OK);
    for (int i = 0; i < 4000 && c.status == 1; i++) {
        if (pd->ops->poll(pd, 0, &c, 1) == 1)
            break;
        plat_sim_advance_ns(10ull * 1000000ull);
    }
    *ms = (plat_now_ns() - t0) / 1000000ull;
    return c;
}

/* Sense decides, by the one table MFI, Fusion and MPT share (Linux
 * scsi_check_sense / scsi_io_completion_action): RECOVERED ERROR is
 * success (the data is there), UNIT ATTENTION (what every disk reports
 * after our TARGET RESET or a controller reset) is sent again, NOT READY
 * 04/01 is waited for, and everything else fails with the decoded sense;
 * a condition that never clears ends within the command's 30 s. */
static void test_sense_decides_recovered_unit_attention_becoming_ready_and_errors(void **state)
{
    struct bm_disk_list list;
    uint8_t *buf = plat_alloc_pages(8192, false);
    struct bm_completion c;
    struct bm_disk *pd;
    uint64_t ms;
    void *ctrl;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    pd = list.disks[2];
    m.cond = (struct scsi_target_condition){ SCSI_TARGET_KEY_RECOVERED_ERROR, 0x18, 0x00, 1, 0 };
    c = pd_read(pd, buf, 300, &ms);
    assert_int_equal(c.status, BM_OK);
    assert_true(pattern_ok(buf, 9, 300, 16));
    assert_int_equal(m.cond.reported, 1);

    memset(buf, 0, 8192);
    m.cond = (struct scsi_target_condition){ SCSI_TARGET_KEY_UNIT_ATTENTION, 0x29, 0x00, 1, 0 };
    c = pd_read(pd, buf, 400, &ms);
    assert_int_equal(c.status, BM_OK);
    assert_true(pattern_ok(buf, 9, 400, 16));
    assert_int_equal(m.cond.reported, 1);

    m.cond = (struct scsi_target_condition){ SCSI_TARGET_KEY_NOT_READY, 0x04, 0x01, 5, 0 };
    c = pd_read(pd, buf, 500, &ms);
    assert_int_equal(c.status, BM_OK);
    assert_true(pattern_ok(buf, 9, 500, 16));
    assert_int_equal(m.cond.reported, 5);

    m.cond = (struct scsi_target_condition){ SCSI_TARGET_KEY_NOT_READY, 0x04, 0x02, 1, 0 };
    c = pd_read(pd, buf, 600, &ms);
    assert_int_equal(c.status, BM_EIO);
    assert_non_null(strstr(c.detail, "NOT READY 04/02"));

    m.cond = (struct scsi_target_condition){ SCSI_TARGET_KEY_MEDIUM_ERROR, 0x11, 0x00, 1, 0 };
    c = pd_read(pd, buf, 700, &ms);
    assert_int_equal(c.status, BM_EIO);
    assert_non_null(strstr(c.detail, "MEDIUM ERROR 11/00"));

    /* A unit attention that never clears: bounded by the 30 s timeout. */
    m.cond = (struct scsi_target_condition){ SCSI_TARGET_KEY_UNIT_ATTENTION, 0x29, 0x00, 1000000, 0 };
    c = pd_read(pd, buf, 800, &ms);
    assert_int_equal(c.status, BM_EIO);
    assert_non_null(strstr(c.detail, "UNIT ATTENTION 29/00"));
    assert_true(ms <= 30000);
    m.cond.left = 0;
    assert_int_equal(m.noutstanding, 0);
    plat_free_pages(buf, 8192);
    release(ctrl);
}

/* The engine reads a system drive that answers some reads RECOVERED
 * ERROR: those reads are done with their data (Linux scsi_check_sense:
 * RECOVERED_ERROR is SUCCESS), the test does not fail, and its
 * disk_result record carries the exact count ("recovered"), and the
 * end of the run says the disk's total; a test without any has no such
 * field. */
static void test_recovered_reads_are_done_and_the_records_count_them(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    static const struct engine_timing tm = { 5000000ull, 40000000ull, 5000000000ull };
    struct bm_disk_list list;
    struct disk_job job;
    struct disk_test t;
    struct bm_disk *pd;
    char why[160], disk[48];
    void *ctrl;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    pd = list.disks[2];
    snprintf(disk, sizeof(disk), "\"disk\":\"%s\"", pd->id);
    memset(&t, 0, sizeof(t));
    bm_strlcpy(t.name, "RND4K-Q4T1", sizeof(t.name));
    t.op = BM_IO_READ;
    t.random = true;
    t.bs = 4096;
    t.qd = 4;
    t.threads = 1;
    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;

    m.cond = (struct scsi_target_condition){ SCSI_TARGET_KEY_RECOVERED_ERROR, 0x18, 0x00, 7, 0 };
    assert_int_equal(engine_job_prepare(&job, pd, &t, 1, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&job, 1, &tm, "test", NULL), BM_OK);
    assert_int_equal(job.status, BM_OK);
    assert_int_equal(m.cond.reported, 7);
    assert_true(job.ios > 0);
    assert_int_equal(job.recovered, 7);
    assert_int_equal(report_result(&job, 0), BM_OK);
    engine_job_free(&job);
    assert_int_equal(count_records("disk_result", disk, "\"recovered\":7"), 1);

    /* The next test meets none: no count in its record. */
    nrecs = 0;
    assert_int_equal(engine_job_prepare(&job, pd, &t, 2, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&job, 1, &tm, "test", NULL), BM_OK);
    assert_int_equal(job.status, BM_OK);
    assert_int_equal(job.recovered, 0);
    assert_int_equal(report_result(&job, 0), BM_OK);
    engine_job_free(&job);
    assert_int_equal(count_records("disk_result", disk, NULL), 1);
    assert_int_equal(count_records("disk_result", "\"recovered\"", NULL), 0);

    /* The end of the run: the disk's total, in a note since this drive
     * has no health log to read (the model answers no LOG SENSE). */
    nrecs = 0;
    snprintf(disk, sizeof(disk), "\"where\":\"%s\"", pd->id);
    disk_emit_health(pd, "after");
    assert_int_equal(count_records("health", NULL, NULL), 0);
    assert_int_equal(count_records("note", disk, "7 commands completed after the drive corrected an error"), 1);
    sinks_reset();
    assert_int_equal(m.noutstanding, 0);
    release(ctrl);
}

/* A system drive answering BUSY, then TASK SET FULL, to pass-through
 * reads: each read is posted again after a back-off (Linux
 * megasas_complete_cmd hands the SCSI status to the midlayer, which
 * requeues) and completes with its data, never as an error. */
static void test_busy_and_task_set_full_pass_through_reads_are_retried(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[2];
    uint8_t *buf = plat_alloc_pages(2 * 8192, false);
    struct bm_disk *pd;
    void *ctrl;
    int got = 0;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    pd = list.disks[2];
    m.busy_left = 4;
    m.busy_status = 0x08;
    assert_int_equal(pd->ops->submit(pd, 0, 0, BM_IO_READ, 300, 16, buf), BM_OK);
    for (int spin = 0; spin < 20000 && got < 1; spin++) {
        if (m.busy_answers == 2)
            m.busy_status = 0x28;
        got += pd->ops->poll(pd, 0, done, 1);
        plat_sim_advance_ns(1000000ull);
    }
    assert_int_equal(got, 1);
    assert_int_equal(done[0].status, BM_OK);
    assert_true(pattern_ok(buf, 9, 300, 16));
    assert_int_equal(m.busy_answers, 4);
    assert_int_equal(m.noutstanding, 0);
    plat_free_pages(buf, 2 * 8192);
    release(ctrl);
}

/* One ATA SMART attribute in a READ DATA block (id, flags, value, worst, raw). */
static void put_attr(uint8_t *data, unsigned i, uint8_t id, uint8_t value, uint64_t raw)
{
    uint8_t *a = data + 2 + 12 * i;

    a[0] = id, a[3] = value, a[4] = value;
    for (int b = 0; b < 6; b++)
        a[5 + b] = (uint8_t)(raw >> (8 * b));
}

/* A logical drive's member disks: found in the configuration (spans ->
 * arrays -> drives), each read through PD pass-through frames (INQUIRY for
 * its serial, LOG SENSE for a SAS disk, SAT SMART for a SATA one) and
 * named by device id; a member whose device id the firmware refuses gets
 * a note, and a system drive has no members. Fails before member health
 * existed (the LD had no health of any kind). */
static void test_logical_drive_member_health_through_pd_pass_through(void **state)
{
    static uint8_t smart[512];
    struct scsi_target_log log = { .temperature = 39, .ie = true, .bg_scan = true, .power_on_minutes = 600 * 60 };
    struct bm_disk_list list;
    struct bm_member who;
    struct bm_health h;
    struct bm_disk *ld0, *ld1, *pd9;
    void *ctrl;

    (void)state;
    ctrl = probe(0x0079, M_GEN2, &list);
    ld0 = list.disks[0], ld1 = list.disks[1], pd9 = list.disks[2];
    assert_string_equal(ld0->id, "megasas0d0");
    assert_string_equal(ld1->id, "megasas0d1");
    assert_int_equal(ld0->ops->health(ld0, &h), BM_ENOTSUP);
    assert_non_null(ld0->ops->member_health);
    put_attr(smart, 0, 9, 97, 23456);
    put_attr(smart, 1, 194, 70, 34);
    m.member_log = &log;
    m.member_smart = smart;

    memset(&who, 0, sizeof(who));
    bm_health_init(&h, "");
    assert_int_equal(ld0->ops->member_health(ld0, 0, &who, &h), BM_OK);
    assert_int_equal(m.cfg_reads, 2);   /* header, then the whole of it */
    assert_string_equal(who.name, "pd3");
    assert_int_equal(who.device_id, M_MEMBER_SAS);
    assert_string_equal(who.serial, "SN-PD3");
    assert_string_equal(h.source, "scsi_log");
    assert_int_equal(h.temperature_c, 39);
    assert_int_equal(h.smart_passed, 1);
    assert_int_equal(h.power_on_hours, 600);

    memset(&who, 0, sizeof(who));
    bm_health_init(&h, "");
    assert_int_equal(ld0->ops->member_health(ld0, 1, &who, &h), BM_OK);
    assert_string_equal(who.name, "pd5");
    assert_string_equal(who.serial, "SN-PD5");
    assert_string_equal(h.source, "sat_ata_smart");
    assert_int_equal(h.temperature_c, 34);
    assert_int_equal(h.power_on_hours, 23456);

    memset(&who, 0, sizeof(who));
    assert_int_equal(ld0->ops->member_health(ld0, 2, &who, &h), BM_ENODEV);
    assert_string_equal(who.name, "");

    /* pd30 is not in the firmware's PD list: its frame is refused, the
     * member is named with why, and the list ends after it. */
    memset(&who, 0, sizeof(who));
    assert_int_not_equal(ld1->ops->member_health(ld1, 0, &who, &h), BM_OK);
    assert_string_equal(who.name, "pd30");
    assert_int_equal(who.device_id, M_MEMBER_GONE);
    assert_non_null(strstr(who.note, "device not found"));
    assert_int_equal(m.pd_not_found, 1);
    memset(&who, 0, sizeof(who));
    assert_int_equal(ld1->ops->member_health(ld1, 1, &who, &h), BM_ENODEV);

    /* A system drive's health is its own. */
    memset(&who, 0, sizeof(who));
    assert_int_equal(pd9->ops->member_health(pd9, 0, &who, &h), BM_ENODEV);
    assert_true(m.member_cmds > 0);
    m.member_log = NULL;
    m.member_smart = NULL;
    release(ctrl);
}

/* The configuration as FreeBSD mfiutil walks it (arrays of array_size
 * bytes, then LDs of log_drv_size), and as QEMU's megasas_dcmd_cfg_read
 * fills it (the sizes of all arrays and all LDs in those fields); a reply
 * cut short is malformed, not read past. */
static void test_config_members_per_entry_and_qemu_total_sizes(void **state)
{
    static uint8_t cfg[32 + 3 * 288 + 3 * 256];
    uint16_t ids[8];
    unsigned n;

    (void)state;
    for (int qemu = 0; qemu < 2; qemu++) {
        memset(cfg, 0, sizeof(cfg));
        *(uint32_t *)cfg = sizeof(cfg);
        *(uint16_t *)(cfg + 4) = 3, *(uint16_t *)(cfg + 6) = (uint16_t)(qemu ? 3 * 288 : 288);
        *(uint16_t *)(cfg + 8) = 3, *(uint16_t *)(cfg + 10) = (uint16_t)(qemu ? 3 * 256 : 256);
        for (unsigned a = 0; a < 3; a++) {
            uint8_t *ar = cfg + 32 + a * 288, *ld = cfg + 32 + 3 * 288 + a * 256;

            ar[8] = 1, *(uint16_t *)(ar + 10) = (uint16_t)(0x100 * a);
            *(uint16_t *)(ar + 32) = (uint16_t)(0x100 * a);
            ld[0] = (uint8_t)a, ld[0x25] = 1, *(uint16_t *)(ld + 0x40 + 0x10) = (uint16_t)(0x100 * a);
        }
        for (unsigned a = 0; a < 3; a++) {
            assert_int_equal(mfi_config_ld_members(cfg, sizeof(cfg), (uint8_t)a, ids, 8, &n), BM_OK);
            assert_int_equal(n, 1);
            assert_int_equal(ids[0], 0x100 * a);
        }
        assert_int_equal(mfi_config_ld_members(cfg, sizeof(cfg), 7, ids, 8, &n), BM_ENODEV);
        assert_int_equal(mfi_config_ld_members(cfg, 32 + 3 * 288 + 100, 2, ids, 8, &n), BM_EINVAL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skinny_frames_use_ieee_sgl64_and_count_zero),
        cmocka_unit_test(test_sas2004_is_skinny_too),
        cmocka_unit_test(test_gen2_frames_count_zero),
        cmocka_unit_test(test_max_transfer_is_capped_by_strips_and_sges),
        cmocka_unit_test(test_sata_system_drive_gets_queue_depth_32),
        cmocka_unit_test(test_ready_wait_restarts_when_status_word_moves),
        cmocka_unit_test(test_ready_wait_gives_up_on_a_frozen_status_word),
        cmocka_unit_test(test_hung_read_is_aborted_before_its_frame_is_reused),
        cmocka_unit_test_teardown(test_io_timeout_option_sets_the_command_deadline, default_io_timeout),
        cmocka_unit_test(test_busy_and_task_set_full_pass_through_reads_are_retried),
        cmocka_unit_test(test_timed_out_read_is_not_handed_back_while_the_firmware_owns_its_buffer),
        cmocka_unit_test(test_timed_out_write_does_not_send_a_reused_buffer),
        cmocka_unit_test(test_timed_out_health_command_keeps_the_memory_the_firmware_may_still_write),
        cmocka_unit_test(test_failed_init_keeps_memory_a_firmware_that_will_not_stop_may_write),
        cmocka_unit_test(test_late_dcmd_does_not_write_into_the_next_dcmd_data),
        cmocka_unit_test(test_release_keeps_memory_a_firmware_that_will_not_stop_may_write),
        cmocka_unit_test(test_sense_decides_recovered_unit_attention_becoming_ready_and_errors),
        cmocka_unit_test(test_recovered_reads_are_done_and_the_records_count_them),
        cmocka_unit_test(test_release_resets_the_adapter_when_the_firmware_stays_operational),
        cmocka_unit_test(test_logical_drive_member_health_through_pd_pass_through),
        cmocka_unit_test(test_config_members_per_entry_and_qemu_total_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
