/* The MPT driver's MPI 2.0 / 2.5 backend against a simulated SAS2008-like
 * and SAS3008-like IOC (efi/platform_sim.h).
 *
 * The model is written from the MPI 2 specification's facts (register
 * offsets, doorbell handshake, message layouts as Linux mpt3sas' and
 * FreeBSD mps' mpi2*.h headers give them), with its own byte offsets and
 * none of the driver's structures: a doorbell state machine that only
 * acknowledges what a real IOC would, IOC FACTS / IOC INIT (checking the
 * fields the driver sends), request descriptors decoded on the high-dword
 * write, request frames read by SMID, the reply free queue and the reply
 * descriptor post queue in host memory, EVENT NOTIFICATION, PORT ENABLE,
 * SAS Device Page 0 by GET_NEXT_HANDLE, and a SCSI target per end device
 * (INQUIRY, VPD 00h/80h, READ CAPACITY(10/16), READ/WRITE(10/16), REPORT
 * LUNS) that fills the SGL buffers with data derived from handle and LBA.
 * Every protocol rule the driver breaks is counted as a violation, with
 * the first one's text kept for the failure message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "platform_sim.h"
#include "drivers/blkdev.h"
#include "drivers/mpt/mpt.h"
#include "mpt_sim.h"
#include "efi/disk/engine.h"
#include "efi/time_units.h"
#include "scsi_target.h"

/* ---- Facts of the MPI 2 interface (mpi2.h, mpi2_ioc.h, mpi2_init.h, mpi2_cnfg.h) ----------------------- */
#define R_DOORBELL 0x00
#define R_WRITE_SEQ 0x04
#define R_DIAG 0x08
#define R_HIS 0x30
#define R_HIM 0x34
#define R_REPLY_FREE_HOST_INDEX 0x48
#define R_REPLY_POST_HOST_INDEX 0x6c
#define R_REQ_DESC_LOW 0xc0
#define R_REQ_DESC_HIGH 0xc4

#define ST_RESET 0x00000000u
#define ST_READY 0x10000000u
#define ST_OPERATIONAL 0x20000000u
#define ST_FAULT 0x40000000u
#define DB_USED 0x08000000u
#define HIS_SYS2IOC MPT_SIM_HIS_SYS2IOC /* the IOC has not yet taken the doorbell word */
#define HIS_IOC2SYS 0x00000001u   /* the IOC wants the host at the doorbell */
#define DIAG_WRITE_ENABLE 0x80u
#define DIAG_RESET_ADAPTER 0x04u

#define F_SCSI_IO 0x00
#define F_IOC_INIT 0x02
#define F_IOC_FACTS 0x03
#define F_CONFIG 0x04
#define F_PORT_ENABLE 0x06
#define F_EVENT_NOTIFICATION 0x07
#define F_MUR 0x40
#define F_HANDSHAKE 0x42

#define IOS_SUCCESS 0x0000
#define IOS_INVALID_FUNCTION 0x0001
#define IOS_CONFIG_INVALID_PAGE 0x0022
#define IOS_DEVICE_NOT_THERE 0x0043

#define DEVINFO_END_DEVICE 0x1u
#define DEVINFO_EDGE_EXPANDER 0x2u
#define DEVINFO_SSP_INITIATOR 0x40u
#define DEVINFO_SATA_DEVICE 0x80u
#define DEVINFO_STP_TARGET 0x400u
#define DEVINFO_SSP_TARGET 0x800u

#define MODEL_MAX_CHAIN_DEPTH 8
#define MODEL_MAX_SEGS 64

/* ---- Little-endian helpers on host memory ("physical" = virtual on the host) ---------------------------------- */
static uint8_t *pa_ptr(uint64_t pa) { return (uint8_t *)(uintptr_t)pa; }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16; }
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }
static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v), put16(p + 2, (uint16_t)(v >> 16)); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v), put32(p + 4, (uint32_t)(v >> 32)); }

/* ---- The model ------------------------------------------------------------------------------------------------ */

struct sim_sas_dev {
    uint16_t handle, slot;
    uint64_t sas_address;
    uint32_t device_info;
    uint16_t flags;             /* bit 0: present */
    uint32_t block_bytes;
    uint64_t blocks;
    uint8_t access_status;      /* SAS Device Page 0 AccessStatus */
    uint8_t physdisk;           /* IR: RAID physical disk number + 1 (0: not a member) */
    uint32_t max_xfer_blocks;   /* VPD B0h maximum transfer length (0: no B0h page) */
};

enum hs_phase { HS_IDLE, HS_START, HS_REQUEST, HS_WORKING, HS_REPLY };

struct pending { uint16_t smid; uint8_t *frame; };

struct model {
    bool mpi25;
    uint16_t device_id;
    uint32_t state, fault_code;
    bool stuck;                 /* resets never leave the starting state */
    bool deaf;                  /* resets do nothing at all: the IOC keeps its queues and writes them */
    uint32_t his;
    /* Doorbell handshake. */
    enum hs_phase phase;
    struct mpt_sim_hs_request hs;   /* the handshake's request dwords (mpt_sim.h) */
    uint16_t reply_words[64];
    unsigned reply_n, reply_i;
    /* Write sequence (mpi2.h MPI2_WRSEQ_*): how many of flush, f, 4, b,
     * 2, 7, d arrived in order; 0 = not flushed (a new owner cannot know
     * where an earlier one left the sequencer, so it must flush first). */
    unsigned wrseq_keys;
    unsigned unlock_refusals;   /* complete sequences the chip ignores first */
    uint32_t diag;
    unsigned murs, diag_resets;
    bool resetting;             /* RESET_ADAPTER written, chip not back yet */
    uint64_t reset_at_ns, last_diag_read_ns;
    /* DOORBELL_USED stays set for this many doorbell reads after a
     * handshake's last word (real IOCs drop it late; mpt3sas waits with
     * _base_wait_for_doorbell_not_used). */
    unsigned used_late_reads, used_late;
    /* IOC FACTS values. */
    uint16_t credit, max_post_depth;
    uint8_t frame_dwords, reply_frame_dwords;
    /* What IOC INIT set up. */
    bool initialised;
    uint16_t init_msg_version, init_header_version, frame_size_dwords, post_depth, free_depth;
    uint64_t req_base, post_base, free_base, sense_high, reply_high, time_stamp;
    uint32_t free_ioc, free_host, post_ioc, post_host;
    uint32_t req_low;
    bool req_low_latched;       /* the low half came, the high one not yet */
    unsigned posts_whole;       /* descriptors posted with one 8-byte write to the low register */
    unsigned posts_split;       /* ...and as low then high dwords */
    bool events_masked, port_enabled;
    /* Outstanding requests (SMIDs the IOC owns). */
    bool outstanding[2048];
    unsigned n_outstanding, max_outstanding;
    uint16_t last_smid;
    unsigned scsi_ios, descriptors_after_mur;
    unsigned max_sges;          /* most SGEs one request carried */
    bool defer;                 /* hold SCSI IO replies until model_flush() */
    bool address_all;           /* answer GOOD through address replies too */
    struct pending held[2048];
    unsigned nheld;
    /* Injected behaviour. */
    uint16_t hang_handle, error_handle;
    uint64_t hang_lba, error_lba;
    bool hang_armed, error_armed;
    struct pending hung;
    bool have_hung;
    /* BUSY (08h) / TASK SET FULL (28h) for the next busy_count commands
     * to busy_handle, alternating (as a disk with a full queue answers). */
    uint16_t busy_handle;
    unsigned busy_count, busy_answered;
    /* The IOC itself answers the next ioc_busy_count SCSI IOs to
     * busy_handle with IOCStatus INSUFFICIENT_RESOURCES (0x0006) or BUSY
     * (0x0002), alternating (an IOC short of internal resources). */
    unsigned ioc_busy_count, ioc_busy_answered;
    struct scsi_target_condition cond; /* what the disks report on READ/WRITE (scsi_target.h) */
    /* What the SAS disks keep in their log pages (have_log), and the
     * SMART data the SATA disks' SATL hands out (scsi_target.h). */
    bool have_log;
    struct scsi_target_log log;
    uint8_t smart[512], smart_thr[512];
    unsigned target_rejected;   /* CDBs the targets answered CHECK CONDITION */
    /* SCSI task management (mpi2_init.h): what arrived, and whether the
     * hung request ignores it (a target that never gives a command back). */
    bool tm_ignored;
    /* Task management held unanswered (a target that takes long to
     * abort) until the test lets it go (tm_let_go). */
    bool tm_hold, have_tm_held;
    uint64_t reset_ns;          /* how long an adapter reset takes the chip (0: 100 ms) */
    uint16_t tm_held_smid;
    uint8_t tm_held_frame[0x40];
    /* The firmware numbers the devices anew after an adapter reset (every
     * handle + 0x10), as mpt3sas allows for (_scsih_search_responding_sas_devices). */
    bool renumber_on_reset;
    unsigned tm_aborts, tm_target_resets;
    uint16_t tm_last_mid;
    unsigned writes_seen;
    bool port_enable_hangs;     /* PORT ENABLE never answered */
    /* IOC INIT and PORT ENABLE answered only this long after they came
     * (0: at once), as a real IOC answers PORT ENABLE once it has
     * discovered the SAS domain; delivered when the host next reads a
     * register (model_tick). */
    uint64_t ioc_init_ns, port_enable_ns;
    bool ioc_init_pending, pe_pending;
    /* Config requests answered this long after they came (0: at once). */
    uint64_t config_late_ns, cfg_due_ns;
    /* Doorbell reply words after the first signalled this late (0: at once). */
    uint64_t word_late_ns, word_due_ns;
    bool word_pending;
    unsigned late_words;
    bool cfg_pending;
    struct pending cfg;
    unsigned cfg_late_answers;
    uint64_t ioc_init_due_ns, pe_due_ns;
    uint16_t pe_smid;
    bool port_enable_faults;    /* the IOC faults on PORT ENABLE */
    bool event_before_port_enable; /* an unsolicited event reply (SMID 0) first */
    /* The devices behind the IOC. */
    struct sim_sas_dev dev[8];
    unsigned ndev;
    bool ir;                    /* IR firmware (IOCCapabilities INTEGRATED_RAID) */
    unsigned ios_by_handle[256];
    /* Protocol errors of the driver. */
    unsigned violations;
    char first_violation[160];
};

/* Note a protocol violation by the driver. */
static void violation(struct model *m, const char *fmt, ...)
{
    va_list ap;
    if (!m->violations++) {
        va_start(ap, fmt);
        vsnprintf(m->first_violation, sizeof(m->first_violation), fmt, ap);
        va_end(ap);
    }
}

/* Queue a doorbell reply of n bytes (a whole number of dwords). */
static void hs_reply(struct model *m, const uint8_t *bytes, unsigned n)
{
    for (unsigned i = 0; i < n / 2; i++)
        m->reply_words[i] = get16(bytes + 2 * i);
    m->reply_n = n / 2;
    m->reply_i = 0;
    m->phase = HS_REPLY;
    m->his |= HIS_IOC2SYS;
}

/* IOC FACTS reply (mpi2_ioc.h MPI2_IOC_FACTS_REPLY, 64 bytes). */
static void do_ioc_facts(struct model *m)
{
    uint8_t r[64] = { 0 };

    if (m->hs.dwords != 3)
        violation(m, "IOC FACTS request of %u dwords", m->hs.dwords);
    put16(r + 0x00, m->mpi25 ? 0x0205 : 0x0200);       /* MsgVersion */
    r[0x02] = 16;                                      /* MsgLength */
    r[0x03] = F_IOC_FACTS;
    put16(r + 0x04, m->mpi25 ? 0x2300 : 0x1000);       /* HeaderVersion */
    r[0x14] = MODEL_MAX_CHAIN_DEPTH;                   /* MaxChainDepth */
    r[0x16] = 1;                                       /* NumberOfPorts */
    put16(r + 0x18, m->credit);                        /* RequestCredit */
    put16(r + 0x1a, m->device_id);                     /* ProductID */
    put32(r + 0x1c, m->ir ? 0x00001000u : 0);          /* IOCCapabilities: INTEGRATED_RAID */
    put32(r + 0x20, m->mpi25 ? 0x10000000 : 0x14000000); /* FWVersion 16.0.0.0 / 20.0.0.0 */
    put16(r + 0x24, m->frame_dwords);                  /* IOCRequestFrameSize */
    put16(r + 0x26, m->mpi25 ? 8 : 0);                 /* IOCMaxChainSegmentSize: 8 x 16 bytes (2.5 only) */
    put16(r + 0x2a, 1024);                             /* MaxTargets */
    put16(r + 0x30, 0x0003);                           /* ProtocolFlags: initiator + target */
    put16(r + 0x34, m->max_post_depth);
    r[0x36] = m->reply_frame_dwords;                   /* ReplyFrameSize */
    put16(r + 0x38, 0x00ff);                           /* MaxDevHandle */
    put16(r + 0x3c, 0x0009);                           /* MinDevHandle */
    hs_reply(m, r, sizeof(r));
}

/* IOC INIT (mpi2_ioc.h MPI2_IOC_INIT_REQUEST, 0x48 bytes): check what the
 * host asks for, take the queues, become OPERATIONAL. */
static void do_ioc_init(struct model *m)
{
    const uint8_t *q = (const uint8_t *)m->hs.dw;
    uint8_t r[20] = { 0 };
    uint16_t status = IOS_SUCCESS;
    uint64_t now_ms = (uint64_t)time(NULL) * 1000;

    if (m->hs.dwords != 0x48 / 4)
        violation(m, "IOC INIT request of %u dwords", m->hs.dwords);
    if (q[0x00] != 0x04)
        violation(m, "IOC INIT WhoInit 0x%02x, not HOST_DRIVER", q[0x00]);
    m->init_msg_version = get16(q + 0x0c);
    m->init_header_version = get16(q + 0x0e);
    m->frame_size_dwords = get16(q + 0x1a);
    m->post_depth = get16(q + 0x1c);
    m->free_depth = get16(q + 0x1e);
    m->sense_high = get32(q + 0x20);
    m->reply_high = get32(q + 0x24);
    m->req_base = get64(q + 0x28);
    m->post_base = get64(q + 0x30);
    m->free_base = get64(q + 0x38);
    m->time_stamp = get64(q + 0x40);
    if (m->init_msg_version != (m->mpi25 ? 0x0205 : 0x0200))
        violation(m, "IOC INIT MsgVersion 0x%04x", m->init_msg_version);
    if (!m->init_header_version)
        violation(m, "IOC INIT HeaderVersion 0");
    if (m->frame_size_dwords != m->frame_dwords)
        violation(m, "SystemRequestFrameSize %u dwords, IOC frames are %u", m->frame_size_dwords, m->frame_dwords);
    if (!m->post_depth || m->post_depth % 16 || m->post_depth > m->max_post_depth)
        violation(m, "ReplyDescriptorPostQueueDepth %u (max %u, multiple of 16)", m->post_depth, m->max_post_depth);
    if (!m->free_depth || m->free_depth % 16 || m->free_depth >= m->post_depth)
        violation(m, "ReplyFreeQueueDepth %u with post depth %u", m->free_depth, m->post_depth);
    if (m->req_base % 16 || m->post_base % 16 || m->free_base % 16 || !m->req_base || !m->post_base ||
        !m->free_base)
        violation(m, "IOC INIT queue addresses not 16-byte aligned");
    if (m->time_stamp + 86400000ull < now_ms || m->time_stamp > now_ms + 86400000ull)
        violation(m, "IOC INIT TimeStamp %llu ms is not now", (unsigned long long)m->time_stamp);
    for (unsigned i = 0; i < m->post_depth; i++)
        if (get64(pa_ptr(m->post_base) + 8 * i) != ~0ull)
            violation(m, "reply post queue entry %u not all ones at IOC INIT", i);
    put16(r + 0x00, 0x0004);
    r[0x02] = 5;
    r[0x03] = F_IOC_INIT;
    put16(r + 0x0e, status);
    m->initialised = true;
    m->free_ioc = 0;
    m->post_ioc = 0;
    m->state = ST_OPERATIONAL;
    hs_reply(m, r, sizeof(r));
}

/* A whole handshake request arrived. */
static void hs_request_done(struct model *m)
{
    uint8_t function = (uint8_t)(m->hs.dw[0] >> 24);

    switch (function) {
    case F_IOC_FACTS: do_ioc_facts(m); break;
    case F_IOC_INIT:
        if (m->ioc_init_ns) {
            /* Working on it: DOORBELL_USED stays set, no reply word yet. */
            m->phase = HS_WORKING;
            m->ioc_init_pending = true;
            m->ioc_init_due_ns = plat_now_ns() + m->ioc_init_ns;
            break;
        }
        do_ioc_init(m);
        break;
    default: {
        uint8_t r[20] = { 0 };
        r[0x02] = 5;
        r[0x03] = function;
        put16(r + 0x0e, IOS_INVALID_FUNCTION);
        violation(m, "handshake function 0x%02x", function);
        hs_reply(m, r, sizeof(r));
    }
    }
}

/* Forget everything the host set up (message unit reset / adapter reset). */
static void model_reset(struct model *m, uint32_t state)
{
    if (m->deaf)
        return;
    m->initialised = false;
    m->events_masked = m->port_enabled = false;
    memset(m->outstanding, 0, sizeof(m->outstanding));
    m->n_outstanding = 0;
    m->nheld = 0;
    m->have_hung = false;
    m->ioc_init_pending = m->pe_pending = false;
    m->cfg_pending = false;
    m->word_pending = false;
    m->hs.ack_pending = false;
    m->phase = HS_IDLE;
    m->his = 0;
    if (!m->stuck)
        m->state = state;
}

/* ---- Replies through the queues ---------------------------------------------------------------------------------- */

/* Write one reply descriptor where the IOC's post index is. */
static void post_descriptor(struct model *m, uint32_t lo, uint32_t hi)
{
    uint8_t *d = pa_ptr(m->post_base) + 8 * m->post_ioc;

    if (get64(d) != ~0ull) {
        violation(m, "reply post queue full at %u (host index %u)", m->post_ioc, m->post_host);
        return;
    }
    put32(d + 4, hi);
    put32(d, lo);
    m->post_ioc = (m->post_ioc + 1) % m->post_depth;
}

/* The request of smid is finished (as far as the IOC is concerned). */
static void retire(struct model *m, uint16_t smid)
{
    if (!m->outstanding[smid])
        violation(m, "reply for SMID %u that is not outstanding", smid);
    m->outstanding[smid] = false;
    m->n_outstanding--;
}

/* A success descriptor: SCSI IO done, GOOD, everything moved. */
static void reply_success(struct model *m, uint16_t smid)
{
    retire(m, smid);
    post_descriptor(m, 0x00 | (uint32_t)smid << 16, 0);
}

/* An address reply: take a frame from the reply free queue, fill it. */
static void reply_frame(struct model *m, uint16_t smid, const uint8_t *bytes, unsigned n)
{
    uint32_t addr;

    if (m->free_ioc == m->free_host) {
        violation(m, "reply free queue empty (index %u)", m->free_ioc);
        return;
    }
    addr = get32(pa_ptr(m->free_base) + 4 * m->free_ioc);
    m->free_ioc = (m->free_ioc + 1) % m->free_depth;
    if (!addr) {
        violation(m, "reply free queue entry is 0");
        return;
    }
    memcpy(pa_ptr((uint64_t)m->reply_high << 32 | addr), bytes, n);
    if (smid)
        retire(m, smid);
    post_descriptor(m, 0x01 | (uint32_t)smid << 16, addr);
}

/* A default reply (header + IOCStatus) for a non-SCSI request. */
static void reply_status(struct model *m, uint16_t smid, uint8_t function, uint16_t status, uint8_t *r, unsigned n)
{
    r[0x02] = (uint8_t)(n / 4);
    r[0x03] = function;
    put16(r + 0x0e, status);
    reply_frame(m, smid, r, n);
}

/* ---- SAS Device Page 0 ------------------------------------------------------------------------------------------ */

static const struct sim_sas_dev *find_next(struct model *m, uint16_t after)
{
    const struct sim_sas_dev *best = NULL;
    for (unsigned i = 0; i < m->ndev; i++)
        if ((after == 0xffff || m->dev[i].handle > after) && (!best || m->dev[i].handle < best->handle))
            best = &m->dev[i];
    return best;
}

/* RAID Physical Disk Page 0 (mpi2_cnfg.h MPI2_CONFIG_PAGE_RD_PDISK_0,
 * 0x78 bytes, page type 0x0A, version 5) by GET_NEXT_PHYSDISKNUM: only
 * IR firmware has it. */
static void do_config_physdisk(struct model *m, uint16_t smid, const uint8_t *f)
{
    uint8_t r[0x18] = { 0 };
    uint8_t action = f[0x00];
    uint32_t page_address = get32(f + 0x18), fl = get32(f + 0x1c);
    const struct sim_sas_dev *d = NULL;
    uint8_t *p;

    r[0x00] = action;
    r[0x14] = 0x05, r[0x15] = 0x78 / 4, r[0x16] = 0, r[0x17] = 0x0a;
    if (!m->ir) {
        reply_status(m, smid, F_CONFIG, IOS_CONFIG_INVALID_PAGE, r, sizeof(r));
        return;
    }
    if (action == 0x00) {
        reply_status(m, smid, F_CONFIG, IOS_SUCCESS, r, sizeof(r));
        return;
    }
    if (action != 0x01 || f[0x15] != 0x78 / 4 || (fl & 0xffffff) < 0x78 || (page_address & 0xf0000000u)) {
        violation(m, "RAID Physical Disk Page 0 request: action %u, length %u, SGE 0x%08x, address 0x%08x", action,
                  f[0x15], fl, page_address);
        reply_status(m, smid, F_CONFIG, 0x0020, r, sizeof(r));
        return;
    }
    for (unsigned i = 0; i < m->ndev; i++) {
        unsigned num = m->dev[i].physdisk;
        if (num && ((page_address & 0xff) == 0xff || num - 1 > (page_address & 0xff)) &&
            (!d || num < d->physdisk))
            d = &m->dev[i];
    }
    if (!d) {
        reply_status(m, smid, F_CONFIG, IOS_CONFIG_INVALID_PAGE, r, sizeof(r));
        return;
    }
    p = pa_ptr(get64(f + 0x20));
    memset(p, 0, 0x78);
    p[0x00] = 0x05, p[0x01] = 0x78 / 4, p[0x03] = 0x0a;
    put16(p + 0x04, d->handle);
    p[0x07] = (uint8_t)(d->physdisk - 1);
    p[0x50] = 0x07;                 /* PhysDiskState: optimal */
    reply_status(m, smid, F_CONFIG, IOS_SUCCESS, r, sizeof(r));
}

/* RAID Volume Page 0 (mpi2_cnfg.h MPI2_CONFIG_PAGE_RAID_VOL_0, type 0x08,
 * version 0x0A) by GET_NEXT_HANDLE: one RAID1 volume of the members. */
static void do_config_volume(struct model *m, uint16_t smid, const uint8_t *f)
{
    enum { LEN = 0x28 + 2 * 4, VOLUME = 0x00f0 };
    uint8_t r[0x18] = { 0 };
    uint32_t page_address = get32(f + 0x18);
    uint8_t *p;

    r[0x00] = f[0x00];
    r[0x14] = 0x0a, r[0x15] = LEN / 4, r[0x17] = 0x08;
    if (!m->ir) {
        reply_status(m, smid, F_CONFIG, IOS_CONFIG_INVALID_PAGE, r, sizeof(r));
        return;
    }
    if (f[0x00] == 0x00) {
        reply_status(m, smid, F_CONFIG, IOS_SUCCESS, r, sizeof(r));
        return;
    }
    if (f[0x00] != 0x01 || f[0x15] != LEN / 4 || (page_address & 0xf0000000u)) {
        violation(m, "RAID Volume Page 0 request: action %u, length %u, address 0x%08x", f[0x00], f[0x15],
                  page_address);
        reply_status(m, smid, F_CONFIG, 0x0020, r, sizeof(r));
        return;
    }
    if ((page_address & 0xffff) != 0xffff && (page_address & 0xffff) >= VOLUME) {
        reply_status(m, smid, F_CONFIG, IOS_CONFIG_INVALID_PAGE, r, sizeof(r));
        return;
    }
    p = pa_ptr(get64(f + 0x20));
    memset(p, 0, LEN);
    p[0x00] = 0x0a, p[0x01] = LEN / 4, p[0x03] = 0x08;
    put16(p + 0x04, VOLUME);
    p[0x06] = 0x05;                 /* optimal */
    p[0x07] = 0x02;                 /* RAID1 */
    put64(p + 0x10, (1ull << 32) + 4095);
    put16(p + 0x1c, 512);
    p[0x24] = 2;
    reply_status(m, smid, F_CONFIG, IOS_SUCCESS, r, sizeof(r));
}

/* CONFIG request (mpi2_cnfg.h MPI2_CONFIG_REQUEST) for SAS Device Page 0. */
static void do_config(struct model *m, uint16_t smid, const uint8_t *f)
{
    uint8_t r[0x18] = { 0 };
    uint8_t action = f[0x00];
    uint32_t page_address = get32(f + 0x18), fl = get32(f + 0x1c);
    uint64_t buf = get64(f + 0x20);
    const struct sim_sas_dev *d;
    uint8_t *p;

    r[0x00] = action;
    if (f[0x17] == 0x08) {
        do_config_volume(m, smid, f);
        return;
    }
    if (f[0x17] == 0x0a) {
        do_config_physdisk(m, smid, f);
        return;
    }
    if (f[0x17] != 0x0f || f[0x06] != 0x12) {
        violation(m, "config page type 0x%02x ext 0x%02x", f[0x17], f[0x06]);
        reply_status(m, smid, F_CONFIG, 0x0021, r, sizeof(r));
        return;
    }
    /* The extended header of the page. */
    r[0x14] = 0x08;                 /* PageVersion */
    r[0x16] = 0;                    /* PageNumber */
    r[0x17] = 0x0f;                 /* PageType: extended */
    put16(r + 0x04, 0x38 / 4);      /* ExtPageLength */
    r[0x06] = 0x12;                 /* ExtPageType: SAS device */
    if (action == 0x00) {
        reply_status(m, smid, F_CONFIG, IOS_SUCCESS, r, sizeof(r));
        return;
    }
    if (action != 0x01) {
        violation(m, "config action 0x%02x", action);
        reply_status(m, smid, F_CONFIG, 0x0020, r, sizeof(r));
        return;
    }
    if (get16(f + 0x04) != 0x38 / 4)
        violation(m, "READ_CURRENT with ExtPageLength %u", get16(f + 0x04));
    /* Page buffer: a 64-bit simple SGE, IOC to host, end of list. */
    if ((fl >> 24 & 0x30) != 0x10 || !(fl >> 24 & 0x02) || !(fl >> 24 & 0x01) || (fl >> 24 & 0x04) ||
        (fl & 0xffffff) < 0x38)
        violation(m, "config page SGE flags/length 0x%08x", fl);
    if ((page_address & 0xf0000000u) == 0)
        d = m->port_enabled ? find_next(m, (uint16_t)page_address) : NULL;
    else {
        d = NULL;
        for (unsigned i = 0; i < m->ndev; i++)
            if (m->dev[i].handle == (uint16_t)page_address)
                d = &m->dev[i];
    }
    if (!d) {
        reply_status(m, smid, F_CONFIG, IOS_CONFIG_INVALID_PAGE, r, sizeof(r));
        return;
    }
    p = pa_ptr(buf);
    memset(p, 0, 0x38);
    p[0x00] = 0x08, p[0x03] = 0x0f, put16(p + 0x04, 0x38 / 4), p[0x06] = 0x12;
    put16(p + 0x08, d->slot);
    put16(p + 0x0a, 0x0001);        /* EnclosureHandle */
    put64(p + 0x0c, d->sas_address);
    put16(p + 0x14, 0x0001);        /* ParentDevHandle */
    p[0x17] = d->access_status;     /* AccessStatus */
    put16(p + 0x18, d->handle);
    put32(p + 0x1c, d->device_info);
    put16(p + 0x20, d->flags);
    reply_status(m, smid, F_CONFIG, IOS_SUCCESS, r, sizeof(r));
}

/* ---- SCSI target ------------------------------------------------------------------------------------------------ */

/* The byte a disk holds at (handle, lba, offset in block). */
static uint8_t disk_byte(uint16_t handle, uint64_t lba, uint32_t off)
{
    return (uint8_t)(handle * 31u + lba * 7u + off * 13u + (off >> 8));
}

static const struct sim_sas_dev *dev_by_handle(struct model *m, uint16_t h)
{
    for (unsigned i = 0; i < m->ndev; i++)
        if (m->dev[i].handle == h && m->dev[i].device_info & (DEVINFO_SSP_TARGET | DEVINFO_SATA_DEVICE))
            return &m->dev[i];
    return NULL;
}

struct seg { uint64_t pa; uint32_t len; };

/* Walk a SCSI IO's SGL (mpi2.h / mpi2_init.h): simple elements in the
 * frame from 0x60, a chain element where ChainOffset says (dwords for MPI
 * SGEs, 16-byte units for IEEE SGEs), chain segments no longer than the
 * IOC allows, each naming where its own chain element is. Fills segs;
 * returns their count. */
static unsigned parse_sgl(struct model *m, const uint8_t *f, struct seg *segs, uint32_t *total)
{
    const uint8_t *seg = f;
    uint32_t esz = m->mpi25 ? 16 : 12, seg_bytes = m->frame_size_dwords * 4u, pos = 0x60;
    uint32_t chain_at = f[0x02] * (m->mpi25 ? 16u : 4u), seg_limit = m->mpi25 ? 8 * 16 : seg_bytes;
    uint32_t control = get32(f + 0x3c), prev_flags = 0;
    unsigned n = 0, depth = 0;
    bool write = (control & 0x03000000u) == 0x01000000u;

    *total = 0;
    for (;;) {
        const uint8_t *e = seg + pos;
        bool chain;
        uint8_t flags;

        if (pos + esz > seg_bytes || n == MODEL_MAX_SEGS) {
            violation(m, "SGL runs past its segment (offset %u of %u)", pos, seg_bytes);
            return n;
        }
        flags = m->mpi25 ? e[15] : e[3];
        chain = m->mpi25 ? (flags & 0x80) : (flags & 0x30) == 0x30;
        if (chain) {
            uint32_t len = m->mpi25 ? get32(e + 8) : get16(e);
            uint8_t next = m->mpi25 ? e[14] : e[2];
            if (pos != chain_at)
                violation(m, "chain element at 0x%x, expected at 0x%x", pos, chain_at);
            if (!m->mpi25 && (!(flags & 0x02) || !(prev_flags & 0x80)))
                violation(m, "MPI chain flags 0x%02x after element flags 0x%02x", flags, prev_flags);
            if (m->mpi25 && (flags & 0x03))
                violation(m, "IEEE chain flags 0x%02x", flags);
            if (!len || len > seg_limit || len % esz)
                violation(m, "chain segment of %u bytes (limit %u)", len, seg_limit);
            if (++depth > MODEL_MAX_CHAIN_DEPTH)
                violation(m, "chain depth %u", depth);
            seg = pa_ptr(m->mpi25 ? get64(e) : get64(e + 4));
            seg_bytes = len;
            pos = 0;
            chain_at = next * (m->mpi25 ? 16u : 4u);
            continue;
        }
        if (m->mpi25) {
            if (flags & 0x03)
                violation(m, "IEEE SGE flags 0x%02x: not a system address", flags);
            segs[n].pa = get64(e);
            segs[n].len = get32(e + 8);
        } else {
            uint32_t fl = get32(e);
            if ((flags & 0x30) != 0x10)
                violation(m, "MPI SGE flags 0x%02x: not a simple element", flags);
            if ((fl & 0xffffff) && !(flags & 0x02))
                violation(m, "MPI SGE flags 0x%02x: not 64-bit", flags);
            if ((fl & 0xffffff) && !!(flags & 0x04) != write)
                violation(m, "SGE direction 0x%02x with control 0x%08x", flags, control);
            segs[n].pa = get64(e + 4);
            segs[n].len = fl & 0xffffff;
        }
        *total += segs[n].len;
        n++;
        if (m->mpi25 ? (flags & 0x40) : (flags & 0x01)) {
            if (!m->mpi25 && (flags & 0xc0) != 0xc0)
                violation(m, "MPI end of list without last element/end of buffer (0x%02x)", flags);
            if (pos + esz == chain_at && chain_at)
                violation(m, "end of list where ChainOffset names a chain");
            return n;
        }
        prev_flags = flags;
        pos += esz;
    }
}

/* Copy len bytes of a staging buffer to or from the SGL's segments. */
static void sgl_copy(const struct seg *segs, unsigned n, uint8_t *staging, uint32_t len, bool to_host)
{
    uint32_t off = 0;
    for (unsigned i = 0; i < n && off < len; i++) {
        uint32_t k = MIN(segs[i].len, len - off);
        if (to_host)
            memcpy(pa_ptr(segs[i].pa), staging + off, k);
        else
            memcpy(staging + off, pa_ptr(segs[i].pa), k);
        off += k;
    }
}

/* The medium of the device ctx (a struct sim_sas_dev). */
static void disk_read(void *ctx, uint64_t lba, uint32_t blocks, uint8_t *buf)
{
    const struct sim_sas_dev *d = ctx;

    for (uint32_t b = 0; b < blocks; b++)
        for (uint32_t i = 0; i < d->block_bytes; i++)
            buf[(size_t)b * d->block_bytes + i] = disk_byte(d->handle, lba + b, i);
}

/* Answer a SCSI IO: data into the SGL's buffers, then a success descriptor
 * or an address reply with status and sense. */
static void scsi_answer(struct model *m, uint16_t smid, const uint8_t *f)
{
    uint16_t handle = get16(f + 0x00);
    uint32_t data_len = get32(f + 0x1c), control = get32(f + 0x3c);
    const uint8_t *cdb = f + 0x40;
    const struct sim_sas_dev *d = dev_by_handle(m, handle);
    uint8_t reply[0x30] = { 0 }, sense[SCSI_TARGET_SENSE_BYTES] = { 0 };
    uint8_t scsi_status = 0;
    uint32_t moved = data_len, blocks;
    struct scsi_target_reply sr = { 0 };
    bool write, injected = false;
    uint64_t lba;
    uint8_t *buf;
    bool have_sense = false;
    struct seg segs[MODEL_MAX_SEGS];
    unsigned nsegs;
    uint32_t sge_total;

    /* The SGL at SGLOffset0 (24 dwords = 0x60), chains followed. */
    if (f[0x14] != 0x60 / 4)
        violation(m, "SGLOffset0 %u", f[0x14]);
    nsegs = parse_sgl(m, f, segs, &sge_total);
    if (sge_total != data_len)
        violation(m, "SGL of %u bytes, DataLength %u", sge_total, data_len);
    if (nsegs > m->max_sges)
        m->max_sges = nsegs;
    buf = data_len ? calloc(1, data_len) : NULL;
    if (buf && (control & 0x03000000u) == 0x01000000u)
        sgl_copy(segs, nsegs, buf, data_len, false);

    if (handle < 256)
        m->ios_by_handle[handle]++;
    if (d && d->physdisk && (cdb[0] == 0x2a || cdb[0] == 0x8a))
        violation(m, "WRITE to IR RAID member handle 0x%04x", handle);
    if (!d || !m->port_enabled) {
        put16(reply + 0x0e, IOS_DEVICE_NOT_THERE);
        reply[0x0d] = 0x04;     /* no SCSI status */
        free(buf);
        goto address_reply;
    }
    if (scsi_target_rw(cdb, &write, &lba, &blocks)) {
        unsigned cdb_len = cdb[0] >= 0x80 ? 16 : 10;

        if ((get16(f + 0x24) & 0x1f) != cdb_len)
            violation(m, "IoFlags CDB length %u for opcode 0x%02x", get16(f + 0x24) & 0x1f, cdb[0]);
        if ((control & 0x03000000u) != (write ? 0x01000000u : 0x02000000u))
            violation(m, "control 0x%08x for opcode 0x%02x", control, cdb[0]);
        if ((uint64_t)blocks * d->block_bytes != data_len)
            violation(m, "%u blocks of %u bytes with DataLength %u", blocks, d->block_bytes, data_len);
        if (cdb_len == 10 && d->blocks > 0xffffffffull)
            violation(m, "READ/WRITE(10) on a disk of %llu blocks", (unsigned long long)d->blocks);
        if (m->hang_armed && handle == m->hang_handle && lba == m->hang_lba && lba + blocks <= d->blocks) {
            /* Never answered until the test says so. */
            m->hang_armed = false;
            m->hung.smid = smid;
            m->hung.frame = (uint8_t *)f;
            m->have_hung = true;
            free(buf);
            return;
        }
        if (m->busy_count && handle == m->busy_handle && lba + blocks <= d->blocks) {
            sr.status = m->busy_count-- % 2 ? SCSI_TARGET_BUSY : SCSI_TARGET_TASK_SET_FULL;
            m->busy_answered++;
            injected = true;
        } else if (m->error_armed && handle == m->error_handle && lba == m->error_lba && lba + blocks <= d->blocks) {
            /* Unrecovered read error: CHECK CONDITION, MEDIUM ERROR 11/00. */
            scsi_target_fail(&sr, SCSI_TARGET_KEY_MEDIUM_ERROR, 0x11, 0x00);
            injected = true;
        } else if (write && lba + blocks <= d->blocks) {
            m->writes_seen++;
        }
    }
    if (!injected) {
        char serial[16], product[17];
        struct scsi_target t = { .vendor = "SIMVEND", .product = product, .revision = "1.00", .serial = serial,
                                 .naa = 0x5000c50000000000ull | handle, .blocks = d->blocks,
                                 .block_bytes = d->block_bytes, .read = disk_read, .ctx = (void *)d,
                                 .cond = &m->cond, .max_xfer_blocks = d->max_xfer_blocks };

        snprintf(serial, sizeof(serial), "SIMSN%04X", handle);
        snprintf(product, sizeof(product), "%s", (d->device_info & DEVINFO_SATA_DEVICE) ? "SIM SATA" : "SIM SAS");
        if (d->device_info & DEVINFO_SATA_DEVICE) {
            t.sat = true;       /* the IOC's SATL (SAT-3) */
            t.smart_data = m->smart;
            t.smart_thresholds = m->smart_thr;
        } else if (m->have_log) {
            t.log = &m->log;
        }
        scsi_target_exec(&t, cdb, buf, data_len, &sr);
        m->target_rejected += sr.status == SCSI_TARGET_CHECK_CONDITION;
    }
    scsi_status = sr.status;
    moved = sr.moved;
    if (sr.sense_len) {
        memcpy(sense, sr.sense, sizeof(sense));
        have_sense = true;
    }
    if (buf && moved && (control & 0x03000000u) == 0x02000000u)
        sgl_copy(segs, nsegs, buf, moved, true);
    free(buf);
    if (scsi_status == 0 && moved == data_len && !m->address_all) {
        reply_success(m, smid);
        return;
    }
    /* SCSI IO reply (mpi2_init.h MPI2_SCSI_IO_REPLY). */
    reply[0x0c] = scsi_status;
    put16(reply + 0x0e, moved < data_len && scsi_status == 0 ? 0x0045 : IOS_SUCCESS); /* underrun */
    put32(reply + 0x14, moved);
    if (have_sense) {
        uint32_t sense_len = MIN((uint32_t)sizeof(sense), (uint32_t)f[0x12]);
        memcpy(pa_ptr(m->sense_high << 32 | get32(f + 0x0c)), sense, sense_len);
        reply[0x0d] |= 0x01;    /* autosense valid */
        put32(reply + 0x18, sense_len);
    }
address_reply:
    put16(reply + 0x00, handle);
    reply[0x02] = sizeof(reply) / 4;
    reply[0x03] = F_SCSI_IO;
    reply_frame(m, smid, reply, sizeof(reply));
}

/* A SCSI IO request frame: check the fixed fields, answer now or later. */
static void do_scsi_io(struct model *m, uint16_t smid, uint16_t desc_handle, uint8_t *f)
{
    m->scsi_ios++;
    if (get16(f + 0x00) != desc_handle)
        violation(m, "descriptor DevHandle 0x%04x, frame 0x%04x", desc_handle, get16(f + 0x00));
    if (f[0x12] < 18)
        violation(m, "SenseBufferLength %u", f[0x12]);
    if (f[0x07] != 0x00)
        violation(m, "MsgFlags 0x%02x: sense not in system memory", f[0x07]);
    if (m->ioc_busy_count && get16(f + 0x00) == m->busy_handle) {
        uint8_t reply[0x30] = { 0 };

        put16(reply + 0x00, desc_handle);
        reply[0x02] = sizeof(reply) / 4;
        reply[0x03] = F_SCSI_IO;
        put16(reply + 0x0e, m->ioc_busy_count-- % 2 ? 0x0006 : 0x0002);
        m->ioc_busy_answered++;
        reply_frame(m, smid, reply, sizeof(reply));
        return;
    }
    if (m->defer && m->port_enabled) {
        m->held[m->nheld].smid = smid;
        m->held[m->nheld].frame = f;
        m->nheld++;
        return;
    }
    scsi_answer(m, smid, f);
}

/* Answer every held SCSI IO, newest first (out of order on purpose). */
static void model_flush(struct model *m)
{
    while (m->nheld) {
        struct pending p = m->held[--m->nheld];
        scsi_answer(m, p.smid, p.frame);
    }
}

/* The IOC gives up a request: a SCSI IO reply with IOCStatus
 * SCSI_TASK_TERMINATED and SCSIState TERMINATED. */
static void terminate(struct model *m, uint16_t smid, uint16_t handle)
{
    uint8_t reply[0x30] = { 0 };

    put16(reply + 0x00, handle);
    reply[0x02] = sizeof(reply) / 4;
    reply[0x03] = F_SCSI_IO;
    reply[0x0d] = 0x08;
    put16(reply + 0x0e, 0x0048);
    reply_frame(m, smid, reply, sizeof(reply));
}

/* SCSI TASK MANAGEMENT (MPI2_SCSI_TASK_MANAGE_REQUEST, 0x34 bytes): ABORT
 * TASK gives back the request TaskMID names, TARGET RESET every request
 * of the device; both are answered after the requests they ended. */
static void do_task_mgmt(struct model *m, uint16_t smid, const uint8_t *f)
{
    uint8_t r[0x1c] = { 0 };
    uint16_t handle = get16(f + 0x00), mid = get16(f + 0x30);
    uint8_t type = f[0x05];
    uint32_t count = 0;

    if (m->tm_hold) {
        if (m->have_tm_held)
            violation(m, "task management SMID %u while SMID %u is still unanswered", smid, m->tm_held_smid);
        m->have_tm_held = true;
        m->tm_held_smid = smid;
        memcpy(m->tm_held_frame, f, sizeof(m->tm_held_frame));
        return;
    }

    if (type == 0x01) {
        m->tm_aborts++;
        m->tm_last_mid = mid;
        if (!m->tm_ignored && m->have_hung && m->hung.smid == mid && get16(m->hung.frame) == handle) {
            m->have_hung = false;
            terminate(m, mid, handle);
            count = 1;
        }
    } else if (type == 0x03) {
        m->tm_target_resets++;
        if (!m->tm_ignored && m->have_hung && get16(m->hung.frame) == handle) {
            m->have_hung = false;
            terminate(m, m->hung.smid, handle);
            count++;
        }
    } else {
        violation(m, "task type 0x%02x", type);
    }
    put16(r + 0x00, handle);
    r[0x02] = sizeof(r) / 4;
    r[0x03] = 0x01;
    r[0x05] = type;
    put32(r + 0x14, count);
    reply_frame(m, smid, r, sizeof(r));
}

/* The held task management is answered now (and does what it asks). */
static void tm_let_go(struct model *m)
{
    m->tm_hold = false;
    if (m->have_tm_held) {
        m->have_tm_held = false;
        do_task_mgmt(m, m->tm_held_smid, m->tm_held_frame);
    }
}

/* The host posted a request descriptor (the high dword just arrived). */
static void do_descriptor(struct model *m, uint32_t lo, uint32_t hi)
{
    uint8_t type = lo & 0x1e;
    uint16_t smid = (uint16_t)(lo >> 16), handle = (uint16_t)(hi >> 16);
    uint8_t *f;

    if (!m->initialised || m->state != ST_OPERATIONAL) {
        m->descriptors_after_mur++;
        violation(m, "request descriptor while not operational");
        return;
    }
    if (smid == 0 || smid > m->credit) {
        violation(m, "SMID %u outside 1..%u", smid, m->credit);
        return;
    }
    if (m->outstanding[smid]) {
        violation(m, "SMID %u reused while the IOC still owns it", smid);
        return;
    }
    m->outstanding[smid] = true;
    m->last_smid = smid;
    if (++m->n_outstanding > m->max_outstanding)
        m->max_outstanding = m->n_outstanding;
    f = pa_ptr(m->req_base + (uint64_t)smid * m->frame_size_dwords * 4);
    if (type == 0x00) {
        if (f[0x03] != F_SCSI_IO)
            violation(m, "SCSI IO descriptor for function 0x%02x", f[0x03]);
        do_scsi_io(m, smid, handle, f);
        return;
    }
    if (type == 0x06) {
        /* High priority: task management only (MPI 2: such requests go
         * through the high-priority descriptor). */
        if (f[0x03] != 0x01)
            violation(m, "high-priority descriptor for function 0x%02x", f[0x03]);
        else
            do_task_mgmt(m, smid, f);
        return;
    }
    if (type != 0x08) {
        violation(m, "request descriptor type 0x%02x", type);
        return;
    }
    switch (f[0x03]) {
    case F_EVENT_NOTIFICATION: {
        uint8_t r[0x1c] = { 0 };
        m->events_masked = get32(f + 0x14) == ~0u && get32(f + 0x18) == ~0u && get32(f + 0x1c) == ~0u &&
                           get32(f + 0x20) == ~0u;
        reply_status(m, smid, F_EVENT_NOTIFICATION, IOS_SUCCESS, r, sizeof(r));
        break;
    }
    case F_PORT_ENABLE: {
        uint8_t r[0x14] = { 0 };
        if (m->port_enable_hangs)
            return;
        if (m->port_enable_ns) {
            m->pe_pending = true;
            m->pe_smid = smid;
            m->pe_due_ns = plat_now_ns() + m->port_enable_ns;
            return;
        }
        if (m->port_enable_faults) {
            m->state = ST_FAULT;
            m->fault_code = 0x5854;
            return;
        }
        if (m->event_before_port_enable) {
            /* EVENT NOTIFICATION reply for a SAS discovery event
             * (mpi2_ioc.h: Event 0x0016 at 0x14), not tied to a request. */
            uint8_t ev[0x24] = { 0 };
            put16(ev + 0x00, 2);    /* EventDataLength, dwords */
            ev[0x02] = sizeof(ev) / 4;
            ev[0x03] = F_EVENT_NOTIFICATION;
            put16(ev + 0x14, 0x0016);
            reply_frame(m, 0, ev, sizeof(ev));
        }
        m->port_enabled = true;
        reply_status(m, smid, F_PORT_ENABLE, IOS_SUCCESS, r, sizeof(r));
        break;
    }
    case F_CONFIG:
        if (m->config_late_ns) {
            if (m->cfg_pending)
                violation(m, "config request 0x%04x while 0x%04x is still being answered", smid, m->cfg.smid);
            m->cfg_pending = true;
            m->cfg = (struct pending){ smid, f };
            m->cfg_due_ns = plat_now_ns() + m->config_late_ns;
            return;
        }
        do_config(m, smid, f);
        break;
    default: {
        uint8_t r[0x14] = { 0 };
        violation(m, "default descriptor for function 0x%02x", f[0x03]);
        reply_status(m, smid, f[0x03], IOS_INVALID_FUNCTION, r, sizeof(r));
    }
    }
}

/* ---- Register access ------------------------------------------------------------------------------------------- */

/* An adapter reset takes the chip 100 ms; then RESET_ADAPTER clears and
 * the IOC is READY (its write-sequence position lost). */
static void model_tick(struct model *m)
{
    uint64_t now = plat_now_ns();

    if (m->ioc_init_pending && now >= m->ioc_init_due_ns) {
        m->ioc_init_pending = false;
        do_ioc_init(m);
    }
    if (m->word_pending && now >= m->word_due_ns) {
        m->word_pending = false;
        m->late_words++;
        m->his |= HIS_IOC2SYS;
    }
    if (mpt_sim_hs_ack_due(&m->hs, &m->his) && m->phase == HS_REQUEST && m->hs.got == m->hs.dwords)
        hs_request_done(m);
    if (m->cfg_pending && now >= m->cfg_due_ns) {
        m->cfg_pending = false;
        m->cfg_late_answers++;
        do_config(m, m->cfg.smid, m->cfg.frame);
    }
    if (m->pe_pending && now >= m->pe_due_ns) {
        uint8_t r[0x14] = { 0 };
        m->pe_pending = false;
        m->port_enabled = true;
        reply_status(m, m->pe_smid, F_PORT_ENABLE, IOS_SUCCESS, r, sizeof(r));
    }
    if (m->resetting && plat_now_ns() - m->reset_at_ns >= (m->reset_ns ? m->reset_ns : 100 * NS_PER_MS)) {
        m->resetting = false;
        m->diag &= ~DIAG_RESET_ADAPTER;
        if (!m->stuck)
            m->state = ST_READY;
    }
}

static uint32_t model_read(void *ctx, int bar, uint32_t off)
{
    struct model *m = ctx;
    uint32_t v;

    (void)bar;
    switch (off) {
    case R_DOORBELL:
        model_tick(m);
        if (m->stuck || (m->port_enable_hangs && m->initialised))
            plat_sim_advance_ns(NS_PER_S); /* a dead IOC: let the driver's deadlines pass */
        v = m->state | (m->state == ST_FAULT ? m->fault_code : 0);
        if (m->phase != HS_IDLE && !(m->phase == HS_REPLY && m->reply_i >= m->reply_n))
            v |= DB_USED;
        if (m->used_late && (m->phase == HS_IDLE || (m->phase == HS_REPLY && m->reply_i >= m->reply_n))) {
            m->used_late--;
            v |= DB_USED;
        }
        if (m->phase == HS_REPLY && m->reply_i < m->reply_n)
            v = (v & ~0xffffu) | m->reply_words[m->reply_i];
        return v;
    case R_HIS:
        model_tick(m);
        return mpt_sim_hs_his_read(&m->hs, &m->his);
    case R_DIAG: {
        /* mpi2.h Hard Reset delay timings: while the chip resets, the
         * host reads HostDiagnostic no sooner than 50 ms after
         * RESET_ADAPTER and then no more often than every 50 ms. */
        uint64_t now = plat_now_ns();
        if (m->resetting) {
            if (now - m->reset_at_ns < 50 * NS_PER_MS)
                violation(m, "HostDiagnostic read %llu ms after RESET_ADAPTER",
                          (unsigned long long)((now - m->reset_at_ns) / NS_PER_MS));
            else if (m->last_diag_read_ns > m->reset_at_ns && now - m->last_diag_read_ns < 50 * NS_PER_MS)
                violation(m, "HostDiagnostic read %llu ms after the previous read during reset",
                          (unsigned long long)((now - m->last_diag_read_ns) / NS_PER_MS));
            m->last_diag_read_ns = now;
        }
        model_tick(m);
        return m->diag;
    }
    default:
        return 0;
    }
}

static void model_write(void *ctx, int bar, uint32_t off, uint32_t v)
{
    struct model *m = ctx;
    static const uint8_t keys[] = { 0x0, 0xf, 0x4, 0xb, 0x2, 0x7, 0xd };

    (void)bar;
    switch (off) {
    case R_DOORBELL:
        if (m->phase == HS_REQUEST) {
            switch (mpt_sim_hs_dword(&m->hs, &m->his, v)) {
            case MPT_SIM_DWORD_REFUSED:
                violation(m, "request dword %u written before the IOC took the one before", m->hs.got + 1);
                return;
            case MPT_SIM_DWORD_HELD:
                return;
            case MPT_SIM_DWORD_TAKEN:
                if (m->hs.got == m->hs.dwords)
                    hs_request_done(m);
                return;
            }
        }
        if (v >> 24 == F_MUR) {
            m->murs++;
            model_reset(m, ST_READY);
            return;
        }
        if (v >> 24 == F_HANDSHAKE) {
            if (m->used_late) {
                violation(m, "handshake started while DOORBELL_USED is still set");
                return;
            }
            if (m->state == ST_FAULT || m->state == ST_RESET) {
                violation(m, "handshake in state 0x%08x", m->state);
                return;
            }
            m->hs.dwords = (v >> 16) & 0xff;
            m->hs.got = 0;
            m->phase = HS_START;
            m->his |= HIS_IOC2SYS | HIS_SYS2IOC;
            return;
        }
        violation(m, "doorbell write 0x%08x in phase %d", v, m->phase);
        return;
    case R_HIS:
        /* Any write clears the IOC-to-system doorbell interrupt. */
        if (!(m->his & HIS_IOC2SYS))
            return;
        m->his &= ~HIS_IOC2SYS;
        if (m->phase == HS_START) {
            m->phase = m->hs.dwords ? HS_REQUEST : HS_IDLE;
        } else if (m->phase == HS_REPLY) {
            if (m->reply_i < m->reply_n) {
                if (++m->reply_i == m->reply_n)
                    m->used_late = m->used_late_reads;
                if (m->word_late_ns && m->reply_i < m->reply_n) {
                    /* A slow IOC: the next word comes later. */
                    m->word_pending = true;
                    m->word_due_ns = plat_now_ns() + m->word_late_ns;
                    return;
                }
                m->his |= HIS_IOC2SYS; /* next word, or "done" after the last */
            } else {
                m->phase = HS_IDLE;
            }
        }
        return;
    case R_WRITE_SEQ:
        /* The flush key restarts the sequence (and locks the register);
         * then exactly f 4 b 2 7 d; any other value needs a new flush. */
        if ((v & 0xf) == keys[0]) {
            m->wrseq_keys = 1;
            m->diag &= ~DIAG_WRITE_ENABLE;
        } else if (m->wrseq_keys >= 1 && m->wrseq_keys < 7 && (v & 0xf) == keys[m->wrseq_keys]) {
            if (++m->wrseq_keys == 7) {
                if (m->unlock_refusals) {
                    m->unlock_refusals--;
                    m->wrseq_keys = 0;
                } else {
                    m->diag |= DIAG_WRITE_ENABLE;
                }
            }
        } else {
            m->wrseq_keys = 0;
        }
        return;
    case R_DIAG:
        if (!(m->diag & DIAG_WRITE_ENABLE)) {
            violation(m, "diagnostic write 0x%08x while locked", v);
            return;
        }
        if (v & DIAG_RESET_ADAPTER) {
            m->diag_resets++;
            m->wrseq_keys = 0;
            m->diag = DIAG_WRITE_ENABLE | DIAG_RESET_ADAPTER;
            m->resetting = true;
            m->reset_at_ns = plat_now_ns();
            model_reset(m, ST_RESET);
            if (m->renumber_on_reset)
                for (unsigned i = 0; i < m->ndev; i++)
                    m->dev[i].handle = (uint16_t)(m->dev[i].handle + 0x10);
        }
        return;
    case R_HIM:
        return;
    case R_REPLY_FREE_HOST_INDEX:
        if (v >= m->free_depth)
            violation(m, "ReplyFreeHostIndex %u >= depth %u", v, m->free_depth);
        m->free_host = v % (m->free_depth ? m->free_depth : 1);
        return;
    case R_REPLY_POST_HOST_INDEX:
        if ((v & 0xffffff) >= m->post_depth)
            violation(m, "ReplyPostHostIndex %u >= depth %u", v, m->post_depth);
        m->post_host = v & 0xffffff;
        return;
    case R_REQ_DESC_LOW:
        m->req_low = v;
        m->req_low_latched = true;
        return;
    case R_REQ_DESC_HIGH:
        if (!m->req_low_latched)
            violation(m, "RequestDescriptorPostHigh written without the low half");
        m->req_low_latched = false;
        m->posts_split++;
        do_descriptor(m, m->req_low, v);
        return;
    default:
        violation(m, "write 0x%08x to register 0x%02x", v, off);
    }
}

/* An 8-byte write: a whole request descriptor, at the low register only
 * (mpt3sas _base_writeq: writeq to RequestDescriptorPostLow). */
static void model_write64(void *ctx, int bar, uint32_t off, uint64_t v)
{
    struct model *m = ctx;

    (void)bar;
    if (off != R_REQ_DESC_LOW) {
        violation(m, "8-byte write to register 0x%02x", off);
        return;
    }
    if (m->req_low_latched)
        violation(m, "8-byte descriptor while the low half of another waits");
    m->req_low_latched = false;
    m->posts_whole++;
    do_descriptor(m, (uint32_t)v, (uint32_t)(v >> 32));
}

/* ---- Test fixture ----------------------------------------------------------------------------------------------- */

static struct plat_sim_dev simdev;
static struct model *model;
static const struct pci_addr sim_addr = { 0, 3, 0, 0 };

/* A SAS2008-like (MPI 2.0) or SAS3008-like (MPI 2.5) IOC with five
 * devices: a SAS disk of more than 2^32 512-byte blocks (READ(16)), a
 * SATA disk, an expander, another initiator, and a SAS disk with
 * 4096-byte blocks in slot 5. */
static struct model *model_new(bool mpi25, uint32_t state)
{
    struct model *m = calloc(1, sizeof(*m));

    m->mpi25 = mpi25;
    m->device_id = mpi25 ? 0x0097 : 0x0072;
    m->state = state;
    m->credit = mpi25 ? 200 : 100;
    m->max_post_depth = mpi25 ? 256 : 4096;  /* the SAS3008 model forces smaller queues */
    m->frame_dwords = 32;
    m->reply_frame_dwords = 32;
    m->used_late_reads = 2;
    m->dev[0] = (struct sim_sas_dev){ 0x0009, 0, 0x5000c50000000001ull, DEVINFO_END_DEVICE | DEVINFO_SSP_TARGET,
                                      1, 512, (1ull << 32) + 4096 };
    m->dev[1] = (struct sim_sas_dev){ 0x000a, 1, 0x4433221100000002ull,
                                      DEVINFO_END_DEVICE | DEVINFO_SATA_DEVICE | DEVINFO_STP_TARGET, 1, 512, 1 << 20 };
    m->dev[2] = (struct sim_sas_dev){ 0x000b, 2, 0x500605b000000003ull, DEVINFO_EDGE_EXPANDER, 1, 0, 0 };
    m->dev[3] = (struct sim_sas_dev){ 0x000c, 3, 0x500605b000000004ull, DEVINFO_END_DEVICE | DEVINFO_SSP_INITIATOR,
                                      1, 0, 0 };
    m->dev[4] = (struct sim_sas_dev){ 0x000e, 5, 0x5000c50000000005ull, DEVINFO_END_DEVICE | DEVINFO_SSP_TARGET,
                                      1, 4096, 1 << 18 };
    m->ndev = 5;
    return m;
}

/* Put a model on the simulated PCI bus at a. */
static void attach_at(struct model *m, struct plat_sim_dev *sd, struct pci_addr a)
{
    mpt_sim_attach(sd, a, m->device_id, m, model_read, model_write, model_write64);
}

static void attach(struct model *m)
{
    model = m;
    attach_at(m, &simdev, sim_addr);
}

static void detach(void)
{
    plat_sim_detach(&simdev);
    free(model);
    model = NULL;
}

/* Probe the simulated controller through the driver's public entry. */
static int probe(struct bm_disk_list *list, void **ctrl, char *err, size_t errlen)
{
    memset(list, 0, sizeof(*list));
    assert_true(mpt_driver.match(0x1000, model->device_id, 0x010700));
    return mpt_driver.probe(sim_addr, 0, list, ctrl, err, errlen);
}

static void assert_no_violations(void)
{
    if (model->violations)
        fail_msg("%u protocol violations, first: %s", model->violations, model->first_violation);
}

static struct bm_disk *disk_by_model(struct bm_disk_list *l, const char *prefix, uint32_t lba_bytes)
{
    for (unsigned i = 0; i < l->count; i++)
        if (!strncmp(l->disks[i]->model, prefix, strlen(prefix)) && l->disks[i]->lba_bytes == lba_bytes)
            return l->disks[i];
    return NULL;
}

static bool block_ok(const uint8_t *buf, uint16_t handle, uint64_t lba, uint32_t bytes)
{
    for (uint32_t i = 0; i < bytes; i++)
        if (buf[i] != disk_byte(handle, lba, i))
            return false;
    return true;
}

/* A test's end: the model saw no protocol violation; the driver lets
 * the IOC go, the model leaves the bus and buf (one page) is freed. */
static void release_checked(void *ctrl, uint8_t *buf)
{
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
}

/* A new model (MPI 2.5 when mpi25) attached READY and probed; its disk
 * whose model name starts with prefix, of lba_bytes blocks. */
static struct bm_disk *probe_disk(bool mpi25, struct bm_disk_list *list, void **ctrl, const char *prefix,
                                  uint32_t lba_bytes)
{
    char err[160] = "";
    struct bm_disk *d;

    attach(model_new(mpi25, ST_READY));
    assert_int_equal(probe(list, ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(list, prefix, lba_bytes);
    assert_non_null(d);
    return d;
}

/* ---- Tests ------------------------------------------------------------------------------------------------------ */

/* Probe finds the three end devices (not the expander, not the
 * initiator), with names, sizes and serials from the SCSI layer. */
static void check_probe_and_discovery(bool mpi25)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";
    struct bm_disk *big, *sata, *k4;

    attach(model_new(mpi25, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    assert_no_violations();
    assert_true(model->events_masked);
    assert_true(model->port_enabled);
    assert_int_equal(list.count, 3);
    big = disk_by_model(&list, "SIMVEND SIM SAS", 512);
    sata = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    k4 = disk_by_model(&list, "SIMVEND SIM SAS", 4096);
    assert_non_null(big);
    assert_non_null(sata);
    assert_non_null(k4);
    assert_int_equal(big->blocks, (1ull << 32) + 4096);
    assert_int_equal(k4->blocks, 1 << 18);
    assert_string_equal(big->serial, "SIMSN0009");
    assert_string_equal(sata->serial, "SIMSN000A");
    assert_string_equal(k4->serial, "SIMSN000E");
    /* Named by enclosure slot. */
    assert_non_null(strstr(big->id, "s0"));
    assert_non_null(strstr(sata->id, "s1"));
    assert_non_null(strstr(k4->id, "s5"));
    assert_int_equal(k4->port, 5);
    assert_string_equal(big->driver, "mpt");
    assert_true(big->max_qd >= 32);
    /* The queues IOC INIT named are the sizes the driver keeps to. */
    assert_true(model->post_depth <= model->max_post_depth);
    mpt_driver.release(ctrl);
    assert_true(model->murs >= 1);
    assert_int_equal(model->state, ST_READY);
    assert_no_violations();
    detach();
}

static void test_probe_sas2008(void **state) { (void)state; check_probe_and_discovery(false); }
static void test_probe_sas3008(void **state) { (void)state; check_probe_and_discovery(true); }

/* Queue depth >= 32 on two disks at once: every command outstanding in
 * the IOC together, answered out of order, data checked block by block;
 * several rounds so both queues wrap. */
static void check_deep_queue(bool mpi25)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";
    struct bm_disk *disks[2];
    enum { QD = 32, ROUNDS = 12, BLOCKS = 8 };
    uint8_t *bufs[2][QD];
    uint64_t lbas[2][QD];

    attach(model_new(mpi25, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    disks[0] = disk_by_model(&list, "SIMVEND SIM SAS", 512);   /* READ(16): > 2^32 blocks */
    disks[1] = disk_by_model(&list, "SIMVEND SIM SAS", 4096);  /* READ(10), 4 KiB blocks */
    assert_non_null(disks[0]);
    assert_non_null(disks[1]);
    for (int k = 0; k < 2; k++)
        for (int t = 0; t < QD; t++)
            bufs[k][t] = plat_alloc_pages(BLOCKS * 4096, false);
    model->defer = true;
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < 2; k++)
            for (int t = 0; t < QD; t++) {
                struct bm_disk *d = disks[k];
                lbas[k][t] = (d->blocks - BLOCKS) / (QD * ROUNDS) * (uint64_t)(round * QD + t) + (uint64_t)t;
                if (k == 0 && round % 2)
                    lbas[k][t] += 1ull << 32;  /* beyond 32-bit LBAs */
                if (lbas[k][t] + BLOCKS > d->blocks)
                    lbas[k][t] = d->blocks - BLOCKS;
                memset(bufs[k][t], 0xee, BLOCKS * d->lba_bytes);
                assert_int_equal(d->ops->submit(d, 0, (uint32_t)t, BM_IO_READ, lbas[k][t], BLOCKS, bufs[k][t]),
                                 BM_OK);
            }
        assert_int_equal(model->nheld, 2 * QD);
        assert_true(model->n_outstanding >= 2 * QD);
        /* Every other round through reply frames: more of them than the
         * free queue holds, so each must be given back. */
        model->address_all = round % 2 == 0;
        model_flush(model);
        for (int k = 0; k < 2; k++) {
            struct bm_completion out[QD];
            bool seen[QD] = { false };
            struct bm_disk *d = disks[k];
            uint16_t handle = d->lba_bytes == 4096 ? 0x000e : 0x0009;

            assert_int_equal(mpt_poll_n(d, out, QD), QD);
            for (int i = 0; i < QD; i++) {
                assert_int_equal(out[i].status, BM_OK);
                assert_true(out[i].tag < QD);
                assert_false(seen[out[i].tag]);
                seen[out[i].tag] = true;
            }
            for (int t = 0; t < QD; t++)
                for (int b = 0; b < BLOCKS; b++)
                    assert_true(block_ok(bufs[k][t] + (size_t)b * d->lba_bytes, handle, lbas[k][t] + b,
                                         d->lba_bytes));
        }
        assert_int_equal(model->n_outstanding, 0);
    }
    assert_true(model->max_outstanding >= 2 * QD);
    assert_true(model->scsi_ios >= 2 * QD * ROUNDS);
    assert_no_violations();
    for (int k = 0; k < 2; k++)
        for (int t = 0; t < QD; t++)
            plat_free_pages(bufs[k][t], BLOCKS * 4096);
    mpt_driver.release(ctrl);
    detach();
}

static void test_deep_queue_sas2008(void **state) { (void)state; check_deep_queue(false); }
static void test_deep_queue_sas3008(void **state) { (void)state; check_deep_queue(true); }

/* Each request is posted with one MMIO write, the whole 64-bit request
 * descriptor (mpt3sas on 64-bit kernels); one descriptor names one SMID,
 * so requests cannot share a post. The model refuses a descriptor at the
 * high register, or a high half without its low half. */
static void test_each_request_is_posted_with_one_8_byte_write_and_a_wrong_post_is_refused(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    struct bm_completion c[16];
    uint8_t *buf = plat_alloc_pages(16 * 4096, false);
    struct bm_disk *d;
    unsigned whole;

    (void)state;
    d = probe_disk(false, &list, &ctrl, "SIMVEND SIM SATA", 512);
    whole = model->posts_whole;
    for (uint32_t t = 0; t < 16; t++)
        assert_int_equal(d->ops->submit(d, 0, t, BM_IO_READ, 8 * t, 8, buf + 4096 * t), BM_OK);
    assert_int_equal(mpt_poll_n(d, c, 16), 16);
    assert_int_equal(model->posts_whole, whole + 16);
    assert_int_equal(model->posts_split, 0);
    assert_no_violations();

    mmio_write64_whole(simdev.bar_window[1], R_REQ_DESC_HIGH, 0x0009000000010000ull);
    assert_int_equal(model->violations, 1);
    assert_non_null(strstr(model->first_violation, "8-byte write to register 0xc4"));
    model->violations = 0;
    mmio_write32(simdev.bar_window[1], R_REQ_DESC_HIGH, 0x00090000u);
    assert_true(model->violations >= 1);
    assert_non_null(strstr(model->first_violation, "without the low half"));
    model->violations = 0;
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 16 * 4096);
}

/* A write carries a host-to-IOC SGE (checked by the model). */
static void test_write_direction(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    struct bm_completion c;
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(4096, false);

    (void)state;
    d = probe_disk(false, &list, &ctrl, "SIMVEND SIM SATA", 512);
    assert_int_equal(d->ops->submit(d, 0, 3, BM_IO_WRITE, 100, 8, buf), BM_OK);
    assert_int_equal(mpt_poll_n(d, &c, 1), 1);
    assert_int_equal(c.status, BM_OK);
    assert_int_equal(model->writes_seen, 1);
    release_checked(ctrl, buf);
}

/* CHECK CONDITION with sense: BM_EIO and the sense decoded in detail. */
static void test_check_condition_sense(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    struct bm_completion c;
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(4096, false);

    (void)state;
    d = probe_disk(true, &list, &ctrl, "SIMVEND SIM SATA", 512);
    model->error_armed = true;
    model->error_handle = 0x000a;
    model->error_lba = 777;
    assert_int_equal(d->ops->submit(d, 0, 5, BM_IO_READ, 777, 1, buf), BM_OK);
    assert_int_equal(mpt_poll_n(d, &c, 1), 1);
    assert_int_equal(c.tag, 5);
    assert_int_equal(c.status, BM_EIO);
    assert_non_null(strstr(c.detail, "MEDIUM ERROR"));
    assert_non_null(strstr(c.detail, "11/00"));
    /* The next command on the same disk is fine. */
    assert_int_equal(d->ops->submit(d, 0, 5, BM_IO_READ, 778, 1, buf), BM_OK);
    assert_int_equal(mpt_poll_n(d, &c, 1), 1);
    assert_int_equal(c.status, BM_OK);
    assert_true(block_ok(buf, 0x000a, 778, 512));
    release_checked(ctrl, buf);
}

/* A request the target never gives back, not for ABORT TASK nor for
 * TARGET RESET: the engine gets BM_ETIMEDOUT at the deadline, then the
 * driver resets the IOC as Linux mpt3sas_base_hard_reset_handler does
 * (diagnostic reset; IOC INIT with the reply queues posted again; events
 * masked and PORT ENABLE again). A command another disk had in flight
 * ends with an error (the reset took it from the IOC); the hung SMID is
 * free again (the reset IOC owns nothing, the model would count a reuse
 * of a SMID it still owns); every disk of the controller carries on. */
static void test_request_surviving_target_reset_resets_the_ioc(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";
    struct bm_completion c[4];
    struct bm_disk *d, *other;
    uint16_t hung_smid;
    uint8_t *buf = plat_alloc_pages(4096, false), *buf2 = plat_alloc_pages(4096, false);
    uint8_t *many = plat_alloc_pages(4096, false);
    struct bm_completion c8[8];
    uint64_t t0;
    bool reused = false;

    (void)state;
    attach(model_new(false, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SAS", 512);
    other = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    assert_non_null(d);
    assert_non_null(other);
    assert_int_equal(model->diag_resets, 0);
    model->hang_armed = true;
    model->hang_handle = 0x0009;
    model->hang_lba = 4242;
    model->tm_ignored = true;
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 4242, 1, buf), BM_OK);
    assert_true(model->have_hung);
    hung_smid = model->hung.smid;
    assert_int_equal(d->ops->poll(d, 0, c, 4), 0);
    /* 20 s later the other disk starts a command the IOC is still working
     * on when the hung one times out. */
    plat_sim_advance_ns(20 * NS_PER_S);
    model->defer = true;
    assert_int_equal(other->ops->submit(other, 0, 3, BM_IO_READ, 77, 1, buf2), BM_OK);
    assert_int_equal(model->nheld, 1);
    model->defer = false;
    plat_sim_advance_ns(11 * NS_PER_S);
    t0 = plat_now_ns();
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].tag, 0);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    /* ABORT TASK for it, then TARGET RESET: neither got it back... */
    assert_int_equal(model->tm_aborts, 1);
    assert_int_equal(model->tm_last_mid, hung_smid);
    assert_int_equal(model->tm_target_resets, 1);
    /* ...so the IOC was reset and brought back, within a bounded time. */
    assert_int_equal(model->diag_resets, 1);
    assert_true(plat_now_ns() - t0 < 5 * NS_PER_S);
    assert_int_equal(model->state, ST_OPERATIONAL);
    assert_true(model->initialised);
    assert_true(model->events_masked);
    assert_true(model->port_enabled);
    assert_false(model->diag & DIAG_WRITE_ENABLE);
    /* The other disk's command was the IOC's: it ends with an error. */
    assert_int_equal(mpt_poll_n(other, c, 1), 1);
    assert_int_equal(c[0].tag, 3);
    assert_int_equal(c[0].status, BM_EIO);
    /* Both disks carry on; the hung SMID is used again (eight commands
     * at once take the few frames freed last, the hung one among them). */
    for (uint32_t t = 0; t < 8; t++) {
        assert_int_equal(d->ops->submit(d, 0, t, BM_IO_READ, 1000u + t, 1, many + 512u * t), BM_OK);
        reused |= model->last_smid == hung_smid;
    }
    assert_int_equal(mpt_poll_n(d, c8, 8), 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(c8[i].status, BM_OK);
        assert_true(block_ok(many + 512u * c8[i].tag, 0x0009, 1000u + c8[i].tag, 512));
    }
    assert_true(reused);
    assert_int_equal(other->ops->submit(other, 0, 3, BM_IO_READ, 77, 1, buf2), BM_OK);
    assert_int_equal(mpt_poll_n(other, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(block_ok(buf2, 0x000a, 77, 512));
    assert_int_equal(d->ops->poll(d, 0, c, 4), 0);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
    plat_free_pages(buf2, 4096);
    plat_free_pages(many, 4096);
}

/* After the IOC reset the firmware gives the devices new handles: the
 * driver finds each disk again by SAS address (mpt3sas
 * _scsih_search_responding_sas_devices) and its commands reach the right
 * device under the new handle. */
static void test_handles_followed_across_ioc_reset(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";
    struct bm_completion c[4];
    struct bm_disk *d, *k4;
    uint8_t *buf = plat_alloc_pages(4096, false);

    (void)state;
    attach(model_new(false, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SAS", 512);
    k4 = disk_by_model(&list, "SIMVEND SIM SAS", 4096);
    assert_non_null(k4);
    model->hang_armed = true;
    model->hang_handle = 0x0009;
    model->hang_lba = 4242;
    model->tm_ignored = true;
    model->renumber_on_reset = true;
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 4242, 1, buf), BM_OK);
    plat_sim_advance_ns(31 * NS_PER_S);
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_int_equal(model->diag_resets, 1);
    assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 5, 1, buf), BM_OK);
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(block_ok(buf, 0x0019, 5, 512));
    assert_int_equal(k4->ops->submit(k4, 0, 0, BM_IO_READ, 6, 1, buf), BM_OK);
    assert_int_equal(mpt_poll_n(k4, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(block_ok(buf, 0x001e, 6, 4096));
    release_checked(ctrl, buf);
}

/* A disk that hangs command after command: each one costs an IOC reset,
 * but after MPT_MAX_HOST_RESETS (4) the controller is given up and its
 * disks' new commands end with an error at once instead of costing a
 * minute each. The command that timed out on the given-up IOC is never
 * handed back (the IOC still owns its buffer): only release's reset ends
 * it. */
static void test_host_resets_are_limited(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";
    struct bm_completion c[4];
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(4096, false);

    (void)state;
    attach(model_new(false, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SAS", 512);
    model->tm_ignored = true;
    for (unsigned i = 0; i < 5; i++) {
        model->hang_armed = true;
        model->hang_handle = 0x0009;
        model->hang_lba = 4242;
        assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 4242, 1, buf), BM_OK);
        plat_sim_advance_ns(31 * NS_PER_S);
        assert_int_equal(mpt_poll_n(d, c, 1), i < 4 ? 1 : 0);
        if (i < 4)
            assert_int_equal(c[0].status, BM_ETIMEDOUT);
        assert_int_equal(model->diag_resets, i < 4 ? i + 1 : 4);
    }
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 1, 1, buf), BM_EIO);
    assert_no_violations();
    /* The request it still holds is taken back on release. */
    mpt_driver.release(ctrl);
    assert_int_equal(model->diag_resets, 5);
    detach();
    plat_free_pages(buf, 4096);
}

/* The IOC faults while a request is outstanding: at its timeout the
 * driver sends no task management to a faulted IOC but resets it (mpt3sas
 * _base_fault_reset_work -> mpt3sas_base_hard_reset_handler) and the
 * disks carry on. */
static void test_fault_with_request_outstanding_resets_the_ioc(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";
    struct bm_completion c[4];
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(4096, false);

    (void)state;
    attach(model_new(true, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    model->hang_armed = true;
    model->hang_handle = 0x000a;
    model->hang_lba = 99;
    assert_int_equal(d->ops->submit(d, 0, 2, BM_IO_READ, 99, 1, buf), BM_OK);
    model->state = ST_FAULT;
    model->fault_code = 0x2622;
    plat_sim_advance_ns(31 * NS_PER_S);
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_int_equal(model->tm_aborts + model->tm_target_resets, 0);
    assert_int_equal(model->diag_resets, 1);
    assert_int_equal(model->state, ST_OPERATIONAL);
    assert_true(model->port_enabled);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, (uint64_t)i, 1, buf), BM_OK);
        assert_int_equal(mpt_poll_n(d, c, 1), 1);
        assert_int_equal(c[0].status, BM_OK);
        assert_true(block_ok(buf, 0x000a, (uint64_t)i, 512));
    }
    release_checked(ctrl, buf);
}

/* A request the target holds until it is aborted (as a hung disk does):
 * on the timeout the driver sends ABORT TASK naming its SMID, the IOC
 * gives the request back (TASK TERMINATED), the engine sees one
 * BM_ETIMEDOUT, and only then is the SMID used again; no TARGET RESET. */
static void test_timeout_aborts_the_command(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";
    struct bm_completion c[4];
    struct bm_disk *d;
    uint16_t hung_smid;
    uint8_t *buf = plat_alloc_pages(4096, false);
    bool reused = false;

    (void)state;
    attach(model_new(true, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    model->hang_armed = true;
    model->hang_handle = 0x000a;
    model->hang_lba = 99;
    assert_int_equal(d->ops->submit(d, 0, 7, BM_IO_READ, 99, 1, buf), BM_OK);
    hung_smid = model->hung.smid;
    assert_int_equal(d->ops->poll(d, 0, c, 4), 0);
    assert_int_equal(model->tm_aborts, 0);
    plat_sim_advance_ns(31 * NS_PER_S);
    assert_int_equal(mpt_poll_n(d, c, 4), 1);
    assert_int_equal(c[0].tag, 7);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_int_equal(model->tm_aborts, 1);
    assert_int_equal(model->tm_last_mid, hung_smid);
    assert_int_equal(model->tm_target_resets, 0);
    assert_false(model->have_hung);
    /* No second completion for the terminated request, and its SMID is
     * free again. */
    for (int i = 0; i < 300 && !reused; i++) {
        assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 10, 1, buf), BM_OK);
        reused = model->last_smid == hung_smid;
        assert_int_equal(mpt_poll_n(d, c, 1), 1);
        assert_int_equal(c[0].tag, 1);
        assert_int_equal(c[0].status, BM_OK);
    }
    assert_true(reused);
    assert_int_equal(d->ops->poll(d, 0, c, 4), 0);
    release_checked(ctrl, buf);
}

/* A recovery step that takes long (the target answers ABORT TASK only
 * 20 s later) does not hold the controller: each poll() returns at once
 * (Linux runs error handling in its own thread, scsi_error_handler, and
 * mpt3sas_scsih_issue_tm sleeps, it does not spin under the host lock),
 * the other disk's commands complete meanwhile, the disk says which step
 * is under way and for how long (bm_disk_ops.recovery, which the engine
 * puts in a stalled disk's record), and the timed-out command's
 * completion names the step that got it back. Fails on the synchronous
 * recovery: the first poll after the timeout spins in the 30 s task
 * management wait. */
static void test_long_recovery_step_does_not_hold_the_controller(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "", rec[128] = "";
    struct bm_completion c[4];
    struct bm_disk *d, *other;
    uint8_t *buf = plat_alloc_pages(4096, false), *buf2 = plat_alloc_pages(4096, false);
    uint64_t t0;

    (void)state;
    attach(model_new(true, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    other = disk_by_model(&list, "SIMVEND SIM SAS", 512);
    assert_non_null(d);
    assert_non_null(other);
    model->hang_armed = true;
    model->hang_handle = 0x000a;
    model->hang_lba = 99;
    model->tm_hold = true;
    assert_int_equal(d->ops->submit(d, 0, 5, BM_IO_READ, 99, 1, buf), BM_OK);
    plat_sim_advance_ns(31 * NS_PER_S);
    /* The poll that finds it overdue sends ABORT TASK and returns. */
    t0 = plat_now_ns();
    assert_int_equal(d->ops->poll(d, 0, c, 4), 0);
    assert_true(plat_now_ns() - t0 < NS_PER_S);
    assert_true(model->have_tm_held);
    assert_int_equal(model->tm_aborts, 0); /* held, not yet carried out */
    /* 20 s of ABORT TASK: the other disk's commands go on. */
    for (int i = 0; i < 20; i++) {
        plat_sim_advance_ns(NS_PER_S);
        t0 = plat_now_ns();
        assert_int_equal(d->ops->poll(d, 0, c, 4), 0);
        assert_true(plat_now_ns() - t0 < NS_PER_S);
        assert_int_equal(other->ops->submit(other, 0, 1, BM_IO_READ, 300u + (unsigned)i, 1, buf2), BM_OK);
        assert_int_equal(mpt_poll_n(other, c, 1), 1);
        assert_int_equal(c[0].status, BM_OK);
        assert_true(block_ok(buf2, 0x0009, 300u + (unsigned)i, 512));
    }
    /* The record names the step and how long it has taken. */
    assert_non_null(d->ops->recovery);
    d->ops->recovery(d, rec, sizeof(rec));
    if (!strstr(rec, "ABORT TASK") || !strstr(rec, "so far"))
        fail_msg("recovery under way not named: \"%s\"", rec);
    {
        unsigned long long ms = 0;
        const char *p = strstr(rec, ", ");
        assert_non_null(p);
        assert_int_equal(sscanf(p, ", %llu ms so far", &ms), 1);
        assert_true(ms >= 20000 && ms < 22000);
    }
    /* Still within its 30 s bound: no TARGET RESET yet. */
    assert_int_equal(model->tm_target_resets, 0);
    tm_let_go(model);
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].tag, 5);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    if (!strstr(c[0].detail, "(ABORT TASK)"))
        fail_msg("completion does not name the step: \"%s\"", c[0].detail);
    assert_int_equal(model->tm_aborts, 1);
    assert_int_equal(model->tm_target_resets, 0);
    assert_int_equal(model->diag_resets, 0);
    /* Once the poll after the answer has run: the last recovery and its time. */
    assert_int_equal(d->ops->poll(d, 0, c, 4), 0);
    d->ops->recovery(d, rec, sizeof(rec));
    if (!strstr(rec, "last recovery: ABORT TASK, 2"))
        fail_msg("last recovery not named with its time: \"%s\"", rec);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
    plat_free_pages(buf2, 4096);
}

/* The IOC host reset in parts: a chip that takes 5 s to come out of its
 * diagnostic reset does not hold poll() for those 5 s (each poll looks at
 * HostDiagnostic once, at most every 256 ms, as mpt3sas _base_diag_reset
 * reads it, instead of sleeping in it); meanwhile the controller's disks
 * take no new command (BM_EBUSY: the IOC is not OPERATIONAL), the disk
 * names the part under way, and the command comes back naming the host
 * reset. Fails on the synchronous host reset: the poll that starts it
 * returns only once the IOC is OPERATIONAL again. */
static void test_host_reset_in_parts_does_not_hold_poll(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "", rec[128] = "";
    struct bm_completion c[4];
    struct bm_disk *d, *other;
    uint8_t *buf = plat_alloc_pages(4096, false), *buf2 = plat_alloc_pages(4096, false);
    bool named = false;
    int got = 0;
    uint64_t t0;

    (void)state;
    attach(model_new(false, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SAS", 512);
    other = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    model->hang_armed = true;
    model->hang_handle = 0x0009;
    model->hang_lba = 4242;
    model->tm_ignored = true;
    model->reset_ns = 5 * NS_PER_S;
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 4242, 1, buf), BM_OK);
    plat_sim_advance_ns(31 * NS_PER_S);
    /* ABORT TASK and TARGET RESET are answered at once but give nothing
     * back; then the diagnostic reset starts (RESET_ADAPTER once the
     * unlock's 100 ms have passed between polls). */
    for (int i = 0; i < 100 && !model->diag_resets; i++) {
        plat_sim_advance_ns(10 * NS_PER_MS);
        t0 = plat_now_ns();
        got += d->ops->poll(d, 0, c, 4);
        assert_true(plat_now_ns() - t0 < NS_PER_S);
    }
    assert_int_equal(model->diag_resets, 1);
    assert_int_equal(model->tm_aborts, 1);
    assert_int_equal(model->tm_target_resets, 1);
    assert_int_equal(got, 0);
    /* 5 s of chip reset, looked at in 100 ms steps; then the bring-up,
     * a handshake dword per poll. */
    for (int i = 0; i < 1000 && !got; i++) {
        plat_sim_advance_ns(100 * NS_PER_MS);
        t0 = plat_now_ns();
        got = d->ops->poll(d, 0, c, 4);
        assert_true(plat_now_ns() - t0 < NS_PER_S);
        if (!got && model->state != ST_OPERATIONAL) {
            assert_int_equal(other->ops->submit(other, 0, 1, BM_IO_READ, 7, 1, buf2), BM_EBUSY);
            d->ops->recovery(d, rec, sizeof(rec));
            named |= strstr(rec, "host reset: diagnostic reset") != NULL || strstr(rec, "host reset: READY") != NULL;
        }
    }
    if (!named)
        fail_msg("the host reset's part was never named: \"%s\"", rec);
    assert_int_equal(got, 1);
    assert_int_equal(c[0].tag, 0);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    if (!strstr(c[0].detail, "(host reset)"))
        fail_msg("completion does not name the step: \"%s\"", c[0].detail);
    assert_int_equal(model->state, ST_OPERATIONAL);
    assert_true(model->port_enabled);
    /* The disks carry on. */
    assert_int_equal(other->ops->submit(other, 0, 1, BM_IO_READ, 7, 1, buf2), BM_OK);
    assert_int_equal(mpt_poll_n(other, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(block_ok(buf2, 0x000a, 7, 512));
    d->ops->recovery(d, rec, sizeof(rec));
    if (!strstr(rec, "last recovery: host reset, "))
        fail_msg("last recovery not named: \"%s\"", rec);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
    plat_free_pages(buf2, 4096);
}

/* Start a host reset of the model's IOC: the SAS disk d's command at LBA
 * 4242 hangs through ABORT TASK and TARGET RESET and times out. */
static void start_host_reset(struct bm_disk *d, uint8_t *buf)
{
    model->hang_armed = true;
    model->hang_handle = 0x0009;
    model->hang_lba = 4242;
    model->tm_ignored = true;
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 4242, 1, buf), BM_OK);
    plat_sim_advance_ns(31 * NS_PER_S);
}

/* A second IOC (SAS3008-like, at 0:4.0) whose first disk a test polls in
 * the loop that polls the model's disk, as one engine CPU serves two
 * controllers. Tests keep it static: the simulated bus holds a pointer
 * to its simdev until second_ioc_down. */
struct second_ioc {
    struct plat_sim_dev simdev;
    struct model *m;
    struct bm_disk_list list;
    void *ctrl;
};

/* Put the second IOC on the bus and probe it; its first disk. */
static struct bm_disk *second_ioc_up(struct second_ioc *b)
{
    const struct pci_addr addr_b = { 0, 4, 0, 0 };
    char err[160] = "";

    b->m = model_new(true, ST_READY);
    b->ctrl = NULL;
    attach_at(b->m, &b->simdev, addr_b);
    memset(&b->list, 0, sizeof(b->list));
    assert_int_equal(mpt_driver.probe(addr_b, 1, &b->list, &b->ctrl, err, sizeof(err)), BM_OK);
    assert_non_null(b->list.disks[0]);
    return b->list.disks[0];
}

/* The second IOC saw no protocol violation; release it and take it off
 * the bus. */
static void second_ioc_down(struct second_ioc *b)
{
    if (b->m->violations)
        fail_msg("other controller: %s", b->m->first_violation);
    mpt_driver.release(b->ctrl);
    plat_sim_detach(&b->simdev);
    free(b->m);
    b->m = NULL;
}

/* After the diagnostic reset the IOC hands each doorbell reply word
 * after the first 300 ms late (IOC FACTS: 32 words, IOC INIT: 10): the
 * words are read as they come, across polls, so no poll holds the CPU
 * for a handshake, and the bring-up still ends OPERATIONAL with the held
 * command back. Fails when a reply is read inside one poll, each word
 * waited for (up to 5 s): that poll takes every word's 300 ms. */
static void test_handshake_reply_words_are_read_across_polls(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    struct bm_completion c[4];
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(4096, false);
    int got = 0;
    uint64_t t0;

    (void)state;
    d = probe_disk(false, &list, &ctrl, "SIMVEND SIM SAS", 512);
    start_host_reset(d, buf);
    model->word_late_ns = 300 * NS_PER_MS;
    for (int i = 0; i < 4000 && !got; i++) {
        plat_sim_advance_ns(50 * NS_PER_MS);
        t0 = plat_now_ns();
        got = d->ops->poll(d, 0, c, 4);
        if (plat_now_ns() - t0 >= 500 * NS_PER_MS)
            fail_msg("a poll held the CPU %llu ms (%u late words so far)",
                     (unsigned long long)((plat_now_ns() - t0) / NS_PER_MS), model->late_words);
    }
    assert_int_equal(got, 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_true(model->late_words >= 40);   /* IOC FACTS and IOC INIT replies, word by word */
    assert_int_equal(model->state, ST_OPERATIONAL);
    assert_true(model->port_enabled);
    release_checked(ctrl, buf);
}

/* The host reset's diagnostic reset on a chip that ignores its first
 * three write sequences (mpt3sas mpt3sas_base_unlock_and_get_host_diagnostic
 * and FreeBSD mps_diag_reset try up to 20, 100 ms apart): the keys go out
 * again on later polls and the 50 ms before HostDiagnostic may be read
 * pass between polls too, so no poll holds its CPU (and the queue lock)
 * more than a few ms, and the reset still ends OPERATIONAL with the held
 * command back. Fails on 7bd1414, where the unlock's 100 ms waits and the
 * first-read delay are waited inside one poll (450 ms here). */
static void test_diag_reset_unlock_retries_are_not_waited_in_a_poll(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";
    struct bm_completion c[4];
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(4096, false);
    uint64_t t0, longest = 0;
    int got = 0;

    (void)state;
    attach(model_new(false, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SAS", 512);
    assert_non_null(d);
    start_host_reset(d, buf);
    model->unlock_refusals = 3;
    for (int i = 0; i < 4000 && !got; i++) {
        plat_sim_advance_ns(10 * NS_PER_MS);
        t0 = plat_now_ns();
        got = d->ops->poll(d, 0, c, 4);
        longest = MAX(longest, plat_now_ns() - t0);
    }
    if (longest > 5 * NS_PER_MS)
        fail_msg("a poll held the CPU %llu ms", (unsigned long long)(longest / NS_PER_MS));
    assert_int_equal(got, 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_int_equal(model->unlock_refusals, 0);
    assert_int_equal(model->diag_resets, 1);
    assert_int_equal(model->state, ST_OPERATIONAL);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
}

/* After the diagnostic reset the IOC takes each handshake request dword
 * 3 s after it was written (IOC FACTS: 3 dwords, IOC INIT: 18), as mptbase
 * WaitForDoorbellAck and mpt3sas _base_wait_for_doorbell_ack allow 5 s a
 * dword. The dwords go out one per poll, each once the one before was
 * taken (the model refuses a dword written earlier), so no poll waits
 * for the IOC: in any one call at most one dword is written and HIS is
 * looked at no more than twice while a dword is not yet taken, a disk of
 * another controller polled by the same loop keeps completing reads, the
 * recovery names IOC INIT while its dwords go out, and the bring-up
 * still ends OPERATIONAL with the held command back. Fails on bb53c35,
 * where the request dwords are written inside one poll, each
 * acknowledgement waited for there (that poll reads HIS for 3 s). */
static void test_handshake_request_dwords_are_written_across_polls(void **state)
{
    static struct second_ioc b;
    struct bm_disk_list list;
    void *ctrl = NULL;
    char rec[192] = "";
    struct bm_completion c[4];
    struct bm_disk *d, *other;
    uint8_t *buf = plat_alloc_pages(4096, false), *buf2 = plat_alloc_pages(4096, false);
    unsigned reads_during_acks = 0;
    bool named_init = false;
    int got = 0;

    (void)state;
    d = probe_disk(false, &list, &ctrl, "SIMVEND SIM SAS", 512);
    other = second_ioc_up(&b);
    start_host_reset(d, buf);
    model->hs.ack_late_ns = 3 * NS_PER_S;
    model->hs.max_dwords_in_call = 0; /* the probe's handshakes are not poll()'s */
    for (int i = 0; i < 4000 && !got; i++) {
        bool acking;

        plat_sim_advance_ns(50 * NS_PER_MS);
        model->hs.call++;
        got = d->ops->poll(d, 0, c, 4);
        acking = model->hs.ack_pending;
        if (acking && model->hs.got && (uint8_t)(model->hs.dw[0] >> 24) == F_IOC_INIT) {
            d->ops->recovery(d, rec, sizeof(rec));
            named_init |= strstr(rec, "host reset: IOC INIT") != NULL;
        }
        /* The other controller's disk, from the same loop. */
        assert_int_equal(other->ops->submit(other, 0, 0, BM_IO_READ, 100u + (unsigned)i, 1, buf2), BM_OK);
        assert_int_equal(mpt_poll_n(other, c + 2, 1), 1);
        assert_int_equal(c[2].status, BM_OK);
        reads_during_acks += acking;
    }
    assert_int_equal(got, 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_true(model->hs.late_acks >= 3 + 18);    /* IOC FACTS and IOC INIT, dword by dword */
    if (model->hs.max_dwords_in_call > 1 || model->hs.max_his_waits_in_call > 2)
        fail_msg("one poll wrote %u request dwords and read HIS %u times while a dword was not taken",
                 model->hs.max_dwords_in_call, model->hs.max_his_waits_in_call);
    if (reads_during_acks < 100)
        fail_msg("the other controller completed %u reads while dwords waited to be taken", reads_during_acks);
    if (!named_init)
        fail_msg("IOC INIT never named while its dwords went out: \"%s\"", rec);
    assert_int_equal(model->state, ST_OPERATIONAL);
    assert_true(model->port_enabled);
    assert_no_violations();
    second_ioc_down(&b);
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
    plat_free_pages(buf2, 4096);
}

/* After the diagnostic reset the IOC never takes IOC INIT's fourth
 * request dword. The handshake ends once that dword's 5 s have passed
 * (mpt3sas _base_wait_for_doorbell_ack: 5 s; the host reset then fails,
 * as mpt3sas_base_hard_reset_handler does when _base_send_ioc_init
 * fails): no poll waits meanwhile, the record names the part and the
 * dword, the held command (the diagnostic reset took it from the IOC)
 * comes back, new commands fail at once, and release resets the IOC
 * again. Fails on bb53c35: the dword's 5 s are waited for inside one
 * poll and the error names neither the part nor the dword. */
static void test_request_dword_never_taken_ends_named_not_hung(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char rec[192] = "";
    struct bm_completion c[4];
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(4096, false);
    int got = 0;

    (void)state;
    d = probe_disk(false, &list, &ctrl, "SIMVEND SIM SAS", 512);
    start_host_reset(d, buf);
    model->hs.ack_never_fn = F_IOC_INIT;
    model->hs.ack_never_dword = 4;
    for (int i = 0; i < 4000 && !got; i++) {
        plat_sim_advance_ns(50 * NS_PER_MS);
        model->hs.call++;
        got = d->ops->poll(d, 0, c, 4);
    }
    assert_int_equal(got, 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_true(model->hs.ack_pending);            /* the dword was never taken */
    if (model->hs.max_his_waits_in_call > 2)
        fail_msg("one poll read HIS %u times waiting for the dword", model->hs.max_his_waits_in_call);
    d->ops->recovery(d, rec, sizeof(rec));
    if (!strstr(rec, "host reset gave up in IOC INIT after ") ||
        !strstr(rec, "request dword 4 of 18 not acknowledged within 5000 ms"))
        fail_msg("give-up not named with its part and dword: \"%s\"", rec);
    assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 5, 1, buf), BM_EIO);
    assert_no_violations();
    mpt_driver.release(ctrl);
    assert_int_equal(model->diag_resets, 2);
    detach();
    plat_free_pages(buf, 4096);
}

/* After the host reset the disks' devices are looked up again (SAS
 * Device Page 0, mpt3sas _scsih_search_responding_sas_devices), and the
 * IOC answers each config request 1 s late with handles renumbered: each
 * page is a step of the recovery, posted and looked at again on later
 * polls, so no poll holds the CPU while the IOC works, the recovery names
 * the part, the held command comes back, and the disk then reads through
 * its new handle. Fails when the pages are read inside one poll (15 s
 * each at most: here that poll takes every page's second). */
static void test_device_pages_after_reset_are_steps(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char rec[192] = "";
    struct bm_completion c[4];
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(4096, false);
    bool named = false;
    int got = 0;
    uint64_t t0;

    (void)state;
    d = probe_disk(false, &list, &ctrl, "SIMVEND SIM SAS", 512);
    model->config_late_ns = NS_PER_S;
    model->renumber_on_reset = true;
    start_host_reset(d, buf);
    for (int i = 0; i < 4000 && !got; i++) {
        plat_sim_advance_ns(50 * NS_PER_MS);
        t0 = plat_now_ns();
        got = d->ops->poll(d, 0, c, 4);
        if (plat_now_ns() - t0 >= 500 * NS_PER_MS)
            fail_msg("a poll held the CPU %llu ms (config request pending %d, %u answered late)",
                     (unsigned long long)((plat_now_ns() - t0) / NS_PER_MS), model->cfg_pending,
                     model->cfg_late_answers);
        if (model->cfg_pending) {
            d->ops->recovery(d, rec, sizeof(rec));
            named |= strstr(rec, "host reset: SAS Device Page 0") != NULL;
        }
    }
    assert_int_equal(got, 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_true(model->cfg_late_answers >= 2); /* the header and at least one page */
    if (!named)
        fail_msg("the device walk was never named in the recovery: \"%s\"", rec);
    /* The disk reads through its new handle. */
    model->config_late_ns = 0;
    model->hang_armed = false;
    assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 7, 1, buf), BM_OK);
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(block_ok(buf, 0x0019, 7, 512));
    release_checked(ctrl, buf);
}

/* After the IOC's diagnostic reset, IOC INIT answers 2 s and PORT ENABLE
 * 5 s after they came (a real IOC answers PORT ENABLE once it has
 * discovered its SAS domain; Linux mpt3sas_port_enable allows 300 s).
 * Each is posted and looked at again on later polls: no poll holds the
 * CPU while the IOC works on them, and a disk of another controller
 * polled by the same loop (one engine CPU) keeps completing reads while
 * this IOC is in IOC INIT and in PORT ENABLE. The held command comes
 * back only once the IOC is OPERATIONAL with its ports enabled, naming
 * the host reset. Fails when IOC INIT and PORT ENABLE are waited for in
 * one poll: that poll takes their whole time. */
static void test_port_enable_in_steps_lets_another_controller_run(void **state)
{
    static struct second_ioc b;
    struct bm_disk_list list;
    void *ctrl = NULL;
    char rec[192] = "";
    struct bm_completion c[4];
    struct bm_disk *d, *other;
    uint8_t *buf = plat_alloc_pages(4096, false), *buf2 = plat_alloc_pages(4096, false);
    unsigned during_init = 0, during_pe = 0, reads_b = 0;
    bool named_pe = false;
    int got = 0;
    uint64_t t0;

    (void)state;
    d = probe_disk(false, &list, &ctrl, "SIMVEND SIM SAS", 512);
    other = second_ioc_up(&b);
    model->ioc_init_ns = 2 * NS_PER_S;
    model->port_enable_ns = 5 * NS_PER_S;
    start_host_reset(d, buf);
    for (int i = 0; i < 2000 && !got; i++) {
        plat_sim_advance_ns(50 * NS_PER_MS);
        t0 = plat_now_ns();
        got = d->ops->poll(d, 0, c, 4);
        if (plat_now_ns() - t0 >= 500 * NS_PER_MS)
            fail_msg("a poll held the CPU %llu ms (IOC INIT pending %d, PORT ENABLE pending %d)",
                     (unsigned long long)((plat_now_ns() - t0) / NS_PER_MS), model->ioc_init_pending,
                     model->pe_pending);
        if (model->pe_pending) {
            d->ops->recovery(d, rec, sizeof(rec));
            named_pe |= strstr(rec, "host reset: PORT ENABLE") != NULL;
        }
        /* The other controller's disk, from the same loop. */
        assert_int_equal(other->ops->submit(other, 0, 0, BM_IO_READ, 100u + reads_b, 1, buf2), BM_OK);
        assert_int_equal(mpt_poll_n(other, c + 2, 1), 1);
        assert_int_equal(c[2].status, BM_OK);
        reads_b++;
        during_init += model->ioc_init_pending;
        during_pe += model->pe_pending;
    }
    assert_int_equal(got, 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    if (!strstr(c[0].detail, "(host reset)"))
        fail_msg("completion does not name the step: \"%s\"", c[0].detail);
    if (during_init < 10 || during_pe < 50)
        fail_msg("the other controller completed %u reads during IOC INIT, %u during PORT ENABLE", during_init,
                 during_pe);
    if (!named_pe)
        fail_msg("PORT ENABLE never named as the part under way: \"%s\"", rec);
    assert_int_equal(model->state, ST_OPERATIONAL);
    assert_true(model->port_enabled);
    assert_int_equal(model->diag_resets, 1);
    /* The disk carries on. */
    assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 5, 1, buf), BM_OK);
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(block_ok(buf, 0x0009, 5, 512));
    assert_no_violations();
    second_ioc_down(&b);
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
    plat_free_pages(buf2, 4096);
}

/* PORT ENABLE never answered after the host reset: the recovery gives
 * the IOC up once PORT ENABLE's 300 s bound is past (not sooner, not
 * much later), the disk's record names the part and its time, the
 * timed-out command (the diagnostic reset took it from the IOC) comes
 * back, new commands fail at once, and the frame PORT ENABLE went out in
 * is never used again (the model counts a SMID reused while it owns
 * it); release resets the IOC before freeing its queues. Fails when
 * PORT ENABLE is waited for inside one poll and its timeout is reported
 * without the part. */
static void test_port_enable_never_answered_gives_up_named_and_bounded(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "", rec[192] = "";
    struct bm_completion c[4];
    struct bm_disk *d, *sata;
    uint8_t *buf = plat_alloc_pages(4096, false);
    uint64_t t0, pe_started = 0;
    int got = 0;

    (void)state;
    attach(model_new(false, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SAS", 512);
    sata = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    model->port_enable_ns = 400 * NS_PER_S; /* later than any bound */
    start_host_reset(d, buf);
    t0 = plat_now_ns();
    for (int i = 0; i < 20000 && !got; i++) {
        plat_sim_advance_ns(100 * NS_PER_MS);
        got = d->ops->poll(d, 0, c, 4);
        if (model->pe_pending && !pe_started)
            pe_started = plat_now_ns();
    }
    assert_int_equal(got, 1);
    assert_true(pe_started != 0);
    /* Bounded: PORT ENABLE's 300 s, and not much more. */
    assert_true(plat_now_ns() - pe_started >= 300 * NS_PER_S);
    assert_true(plat_now_ns() - t0 < 320 * NS_PER_S);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    d->ops->recovery(d, rec, sizeof(rec));
    if (!strstr(rec, "host reset gave up in PORT ENABLE after ") || !strstr(rec, "no answer within 300000 ms"))
        fail_msg("give-up not named with its part and time: \"%s\"", rec);
    assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 5, 1, buf), BM_EIO);
    assert_int_equal(sata->ops->submit(sata, 0, 1, BM_IO_READ, 5, 1, buf), BM_EIO);
    assert_true(model->pe_pending); /* the IOC still holds PORT ENABLE's frame */
    assert_no_violations();
    mpt_driver.release(ctrl);
    assert_int_equal(model->diag_resets, 2);
    detach();
    plat_free_pages(buf, 4096);
}

/* Is the page at pa still the driver's (mapped), so the IOC's write there
 * lands in memory nobody else was given? */
static bool page_mapped(uint64_t pa)
{
    return msync((void *)(uintptr_t)(pa & ~4095ull), 4096, MS_ASYNC) == 0;
}

/* Release on an IOC that no reset stops (message unit reset and the
 * diagnostic reset both ignored, queues kept): the request frames, reply
 * post and free queues it can still write are kept, as nvme_teardown and
 * megasas release do, and the IOC's late write into its reply post queue
 * lands in them. Fails when release frees the queues after a failed
 * reset (the late write then hits unmapped memory). */
static void test_release_keeps_queues_of_an_ioc_that_did_not_stop(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";
    uint64_t post, req, free_q;

    (void)state;
    attach(model_new(false, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    post = model->post_base;
    req = model->req_base;
    free_q = model->free_base;
    model->deaf = true;
    model->stuck = true;
    mpt_driver.release(ctrl);
    assert_int_equal(model->murs, 1);
    if (!page_mapped(post) || !page_mapped(req) || !page_mapped(free_q))
        fail_msg("queues freed while the IOC was not stopped (post %s, request %s, free %s)",
                 page_mapped(post) ? "kept" : "freed", page_mapped(req) ? "kept" : "freed",
                 page_mapped(free_q) ? "kept" : "freed");
    /* The message unit reset failed: the diagnostic reset was tried (as
     * mpt3sas _base_make_ioc_ready escalates to _base_diag_reset). */
    assert_int_equal(model->diag_resets, 1);
    /* The IOC writes a reply descriptor after release: into kept memory. */
    post_descriptor(model, 0x00010003, 0);
    detach();
}

/* An IOC that stays in FAULT (or RESET) through every reset: probe fails
 * with the state in its message, in bounded (simulated) time. */
static void check_stuck(uint32_t state, const char *name)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct model *m = model_new(false, state);

    m->stuck = true;
    m->fault_code = 0x2622;
    attach(m);
    assert_int_not_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    assert_null(ctrl);
    assert_int_equal(list.count, 0);
    if (!strstr(err, name))
        fail_msg("probe error does not name %s: %s", name, err);
    assert_non_null(strstr(err, "doorbell"));
    assert_int_equal(simdev.claims, simdev.releases);
    detach();
}

static void test_stuck_in_fault(void **state) { (void)state; check_stuck(ST_FAULT, "FAULT"); }
static void test_stuck_in_reset(void **state) { (void)state; check_stuck(ST_RESET, "RESET"); }

/* An IOC some earlier owner left OPERATIONAL is reset before IOC INIT. */
static void test_operational_ioc_is_reset_first(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";

    (void)state;
    attach(model_new(true, ST_OPERATIONAL));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    assert_true(model->murs >= 1);
    assert_int_equal(list.count, 3);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
}

/* An IOC found in FAULT gets the MPI 2 diagnostic reset: flush key 0
 * then f 4 b 2 7 d, retried when the chip ignores a sequence (the model
 * refuses the first), HostDiagnostic read only at the delays mpi2.h
 * allows, the register locked again with the flush key; then the probe
 * goes on. The model checks every key exactly and the read timing. */
static void check_diag_reset_from_fault(bool mpi25)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct model *m = model_new(mpi25, ST_FAULT);

    m->fault_code = 0x2622;
    m->unlock_refusals = 1;
    attach(m);
    if (probe(&list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_int_equal(model->diag_resets, 1);
    assert_int_equal(model->unlock_refusals, 0);
    assert_false(model->diag & DIAG_WRITE_ENABLE);  /* locked again */
    assert_int_equal(model->wrseq_keys, 1);          /* by the flush key */
    assert_int_equal(list.count, 3);
    assert_no_violations();
    mpt_driver.release(ctrl);
    assert_no_violations();
    detach();
}

static void test_diag_reset_keys_sas2008(void **state) { (void)state; check_diag_reset_from_fault(false); }
static void test_diag_reset_keys_sas3008(void **state) { (void)state; check_diag_reset_from_fault(true); }

/* DOORBELL_USED that clears only a few reads after a handshake's last
 * word: the next handshake (IOC INIT after IOC FACTS) waits for it. */
static void test_doorbell_used_clears_late(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct model *m = model_new(false, ST_READY);

    (void)state;
    m->used_late_reads = 5;
    attach(m);
    if (probe(&list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_int_equal(list.count, 3);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
}

/* A SATA drive whose SAS Device Page 0 says SATA_NEEDS_INITIALIZATION
 * (AccessStatus 0x02) is a disk like any other (mpt3sas
 * _scsih_check_access_status), with a diagnostic saying so. */
static char diag_log[4096];
static void diag_capture(const char *where, const char *message)
{
    size_t used = strlen(diag_log);
    snprintf(diag_log + used, sizeof(diag_log) - used, "%s: %s\n", where, message);
}

static void test_sata_needs_initialization_is_used(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct model *m = model_new(false, ST_READY);

    (void)state;
    m->dev[1].access_status = 0x02;
    attach(m);
    diag_log[0] = '\0';
    plat_set_diag_sink(diag_capture);
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    plat_set_diag_sink(NULL);
    assert_int_equal(list.count, 3);
    assert_non_null(disk_by_model(&list, "SIMVEND SIM SATA", 512));
    assert_non_null(strstr(diag_log, "0000:03:00.0: s1: SATA drive the IOC still initialises (AccessStatus 0x02)"));
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
}

/* IR firmware: the disks RAID Physical Disk Page 0 names are volume
 * members. They are not listed (never read or written natively), each is
 * named in a diagnostic, and the probe's message says they were left
 * out; the other disks carry on with their per-device queue depths
 * (SATA 32, SAS 254 as mpt3sas). */
static void test_ir_members_hidden(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct model *m = model_new(true, ST_READY);
    struct bm_disk *sata;

    (void)state;
    m->ir = true;
    m->dev[0].physdisk = 1;   /* handle 0x0009, slot 0 */
    m->dev[4].physdisk = 2;   /* handle 0x000e, slot 5 */
    attach(m);
    diag_log[0] = '\0';
    plat_set_diag_sink(diag_capture);
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    plat_set_diag_sink(NULL);
    assert_int_equal(list.count, 1);
    sata = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    assert_non_null(sata);
    assert_int_equal(sata->max_qd, 32);
    assert_int_equal(model->ios_by_handle[0x0009], 0);
    assert_int_equal(model->ios_by_handle[0x000e], 0);
    assert_non_null(strstr(diag_log, "s0 (handle 0x0009"));
    assert_non_null(strstr(diag_log, "is IR RAID physical disk 0: hidden"));
    assert_non_null(strstr(diag_log, "s5 (handle 0x000e"));
    assert_non_null(strstr(err, "RAID volume members not listed: s0, s5"));
    /* The volume itself is named (nothing the firmware shows goes missing). */
    assert_non_null(strstr(err, "IR RAID volumes not benchmarked natively: RAID1 volume 0x00f0 (2 disks)"));
    assert_non_null(strstr(diag_log, "IR RAID volume handle 0x00f0: RAID1 of 2 disks, 4294971392 x 512-byte"));
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
}

/* Sense decides through the table MPT shares with MFI and Fusion (Linux
 * scsi_check_sense): RECOVERED ERROR completes with its data as success
 * (counted on the disk: bm_disk.recovered), a UNIT ATTENTION (29/00 after a reset) and NOT READY 04/01 are sent
 * again, MEDIUM ERROR fails with the decoded sense. */
static void test_sense_recovered_unit_attention_and_becoming_ready(void **state)
{
    static const struct { uint8_t key, asc, ascq; unsigned left; int status; } steps[] = {
        { SCSI_TARGET_KEY_RECOVERED_ERROR, 0x17, 0x01, 1, BM_OK },
        { SCSI_TARGET_KEY_UNIT_ATTENTION, 0x29, 0x00, 1, BM_OK },
        { SCSI_TARGET_KEY_NOT_READY, 0x04, 0x01, 3, BM_OK },
        { SCSI_TARGET_KEY_MEDIUM_ERROR, 0x11, 0x00, 1, BM_EIO },
    };
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct bm_completion c[4];
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(8192, false);

    (void)state;
    attach(model_new(false, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SAS", 512);
    for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
        int got = 0;

        model->cond = (struct scsi_target_condition){ steps[i].key, steps[i].asc, steps[i].ascq, steps[i].left, 0 };
        memset(buf, 0, 8192);
        assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 5000 + i, 8, buf), BM_OK);
        for (int spins = 0; got < 1 && spins < 100000; spins++) {
            plat_sim_advance_ns(NS_PER_MS);
            got += d->ops->poll(d, 0, c, 4);
        }
        assert_int_equal(got, 1);
        assert_int_equal(c[0].status, steps[i].status);
        assert_int_equal(model->cond.reported, steps[i].left);
        if (steps[i].status == BM_OK)
            assert_true(block_ok(buf, 0x0009, 5000 + i, 512));
        else
            assert_non_null(strstr(c[0].detail, "MEDIUM ERROR 11/00"));
        /* Only the RECOVERED ERROR is counted on the disk, for the engine's records. */
        assert_int_equal(bm_disk_recovered(d), 1);
    }
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 8192);
}

/* A disk answering BUSY and TASK SET FULL: the commands are sent again
 * after a back-off (not failed), complete with the right data, and the
 * disk takes no new command while it is blocked. A disk that never stops
 * being busy: BM_ETIMEDOUT at the command's deadline, slot freed. */
static void test_busy_and_task_set_full_retried(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct bm_completion c[4];
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(8192, false);
    int got = 0;

    (void)state;
    attach(model_new(false, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    model->busy_handle = 0x000a;
    model->busy_count = 4;
    assert_int_equal(d->ops->submit(d, 0, 2, BM_IO_READ, 4000, 8, buf), BM_OK);
    assert_int_equal(model->busy_answered, 1);
    /* Once the BUSY is seen the disk is blocked: a second command waits
     * for the back-off. */
    assert_int_equal(d->ops->poll(d, 0, c, 4), 0);
    assert_int_equal(d->ops->submit(d, 0, 3, BM_IO_READ, 4100, 8, buf + 4096), BM_EBUSY);
    for (int spins = 0; got < 1 && spins < 1000000; spins++)
        got += d->ops->poll(d, 0, c, 4);
    assert_int_equal(got, 1);
    assert_int_equal(c[0].tag, 2);
    assert_int_equal(c[0].status, BM_OK);
    assert_int_equal(model->busy_answered, 4);
    assert_true(block_ok(buf, 0x000a, 4000, 512));
    assert_no_violations();
    /* Busy for good. */
    model->busy_count = 1000000;
    assert_int_equal(d->ops->submit(d, 0, 3, BM_IO_READ, 4100, 8, buf), BM_OK);
    got = 0;
    for (int spins = 0; got < 1 && spins < 100000; spins++) {
        plat_sim_advance_ns(50 * NS_PER_MS);
        got += d->ops->poll(d, 0, c, 4);
    }
    assert_int_equal(got, 1);
    assert_int_not_equal(c[0].status, BM_OK);
    assert_non_null(strstr(c[0].detail, "BUSY"));
    model->busy_count = 0;
    plat_sim_advance_ns(NS_PER_S);
    assert_int_equal(d->ops->submit(d, 0, 3, BM_IO_READ, 4100, 8, buf), BM_OK);
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_int_equal(model->n_outstanding, 0);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 8192);
}

/* Queue depths per device as mpt3sas sets them: SAS 254, SATA 32 (all
 * below what the controller's slots allow). */
/* The IOC itself says busy (IOCStatus INSUFFICIENT_RESOURCES / BUSY):
 * the shared table's BUSY disposition, as for a target's BUSY (mpt3sas
 * _scsih_io_done: SAM_STAT_BUSY; Linux scsi_decide_disposition
 * ADD_TO_MLQUEUE): sent again after the back-off until it goes through,
 * and an IOC busy for good ends the command at its 30 s deadline with
 * the IOC status named, no later. */
static void test_ioc_busy_takes_the_shared_busy_disposition(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct bm_completion c[4];
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(4096, false);
    uint64_t t0;
    int got = 0;

    (void)state;
    attach(model_new(true, ST_READY));
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    model->busy_handle = 0x000a;
    model->ioc_busy_count = 3;
    assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 600, 8, buf), BM_OK);
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_int_equal(model->ioc_busy_answered, 3);
    assert_true(block_ok(buf, 0x000a, 600, 512));
    model->ioc_busy_count = 1000000;
    t0 = plat_now_ns();
    assert_int_equal(d->ops->submit(d, 0, 2, BM_IO_READ, 700, 1, buf), BM_OK);
    for (int spins = 0; got < 1 && spins < 100000; spins++) {
        plat_sim_advance_ns(50 * NS_PER_MS);
        got += d->ops->poll(d, 0, c, 4);
    }
    assert_int_equal(got, 1);
    assert_int_not_equal(c[0].status, BM_OK);
    assert_true(plat_now_ns() - t0 <= 31 * NS_PER_S);
    assert_true(model->ioc_busy_answered > 10);
    model->ioc_busy_count = 0;
    assert_int_equal(model->n_outstanding, 0);
    release_checked(ctrl, buf);
}

static void test_queue_depth_per_device_type(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct model *m = model_new(false, ST_READY);

    (void)state;
    m->credit = 1000;
    attach(m);
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    assert_int_equal(disk_by_model(&list, "SIMVEND SIM SATA", 512)->max_qd, 32);
    assert_int_equal(disk_by_model(&list, "SIMVEND SIM SAS", 512)->max_qd, 254);
    mpt_driver.release(ctrl);
    detach();
}

/* An unsolicited reply (SMID 0) is handed back and changes nothing. */
static void test_unsolicited_event_reply(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[160] = "";
    struct model *m = model_new(false, ST_READY);

    (void)state;
    m->event_before_port_enable = true;
    attach(m);
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    assert_int_equal(list.count, 3);
    /* Its frame came back: the free queue is as full as the host left it
     * after the probe's own replies. */
    assert_int_equal((model->free_host + model->free_depth - model->free_ioc) % model->free_depth,
                     model->free_depth - 1u);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
}

/* PORT ENABLE that never comes back: the probe gives up at its deadline
 * with the register it watched in the message, and resets the IOC. */
static void test_port_enable_timeout(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct model *m = model_new(true, ST_READY);

    (void)state;
    m->port_enable_hangs = true;
    attach(m);
    assert_int_not_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    if (!strstr(err, "PORT ENABLE") || !strstr(err, "ReplyPostHostIndex"))
        fail_msg("unexpected probe error: %s", err);
    print_message("probe error: %s\n", err);
    assert_null(ctrl);
    assert_true(model->murs >= 1);
    assert_int_equal(model->state, ST_READY);
    assert_int_equal(simdev.claims, simdev.releases);
    detach();
}

/* An IOC that faults while discovering: the probe stops waiting at once
 * and says so, then resets the IOC. */
static void test_fault_during_port_enable(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char err[200] = "";
    struct model *m = model_new(false, ST_READY);
    uint64_t t0 = plat_now_ns();

    (void)state;
    m->port_enable_faults = true;
    attach(m);
    assert_int_not_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    if (!strstr(err, "PORT ENABLE") || !strstr(err, "FAULT") || !strstr(err, "0x40005854"))
        fail_msg("unexpected probe error: %s", err);
    assert_true(plat_now_ns() - t0 < 5 * NS_PER_S);
    assert_int_equal(model->diag_resets, 1);  /* a faulted IOC needs the hard reset */
    assert_int_equal(model->state, ST_READY);
    detach();
}

/* 1 MiB reads and writes at queue depth 32: SGLs through chain segments
 * (64 KiB per SGE), data checked; both SGL formats. */
static void check_large_transfers(bool mpi25)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    struct bm_disk *d;
    enum { QD = 32, BYTES = 1 << 20 };
    uint8_t *bufs[QD];
    struct bm_completion out[QD];

    d = probe_disk(mpi25, &list, &ctrl, "SIMVEND SIM SATA", 512);
    assert_true(d->max_transfer_bytes >= BYTES);
    for (int t = 0; t < QD; t++)
        bufs[t] = plat_alloc_pages(BYTES, false);
    model->defer = true;
    for (int round = 0; round < 3; round++) {
        enum bm_io_op op = round == 1 ? BM_IO_WRITE : BM_IO_READ;
        for (int t = 0; t < QD; t++) {
            memset(bufs[t], 0xee, BYTES);
            assert_int_equal(d->ops->submit(d, 0, (uint32_t)t, op, (uint64_t)t * 4096 + round, BYTES / 512, bufs[t]),
                             BM_OK);
        }
        assert_int_equal(model->nheld, QD);
        model_flush(model);
        assert_int_equal(mpt_poll_n(d, out, QD), QD);
        for (int i = 0; i < QD; i++)
            assert_int_equal(out[i].status, BM_OK);
        if (op == BM_IO_READ)
            for (int t = 0; t < QD; t++)
                for (int b = 0; b < BYTES / 512; b++)
                    assert_true(block_ok(bufs[t] + (size_t)b * 512, 0x000a, (uint64_t)t * 4096 + round + b, 512));
    }
    assert_int_equal(model->writes_seen, QD);
    assert_true(model->max_sges >= 16);       /* chained, not one element */
    assert_no_violations();
    for (int t = 0; t < QD; t++)
        plat_free_pages(bufs[t], BYTES);
    mpt_driver.release(ctrl);
    detach();
}

/* A LUN whose block limits page (VPD B0h) allows 128 KiB per command
 * behind an IOC that takes 1 MiB or more: the disk's transfer limit is
 * the LUN's, so the engine's 1 MiB reads go out as 128 KiB commands and
 * the target refuses none (it answers ILLEGAL REQUEST to longer ones).
 * Then health before and after: LOG SENSE for the SAS disk, SMART through
 * the SATL for the SATA one. */
static void test_small_max_transfer_lun_and_health(void **state)
{
    static const struct engine_timing timing = { 20000000ull, 150000000ull, 5000000000ull };
    struct disk_test t = { "SEQ1M-Q2T1", BM_IO_READ, false, 1u << 20, 2, 1 };
    struct bm_disk_list list;
    struct disk_job job;
    struct bm_health h;
    struct bm_disk *d, *sata;
    void *ctrl = NULL;
    char err[160] = "";
    (void)state;

    attach(model_new(true, ST_READY));
    model->dev[4].max_xfer_blocks = 32;  /* 4096-byte blocks: 128 KiB */
    model->have_log = true;
    model->log = (struct scsi_target_log){ .temperature = 41, .ie = true, .bg_scan = true,
                                           .power_on_minutes = 600, .medium_errors = 1 };
    model->smart[2] = 194;               /* attribute 194, 33 C */
    model->smart[2 + 3] = 67;
    model->smart[2 + 5] = 33;
    assert_int_equal(probe(&list, &ctrl, err, sizeof(err)), BM_OK);
    d = disk_by_model(&list, "SIMVEND SIM SAS", 4096);
    sata = disk_by_model(&list, "SIMVEND SIM SATA", 512);
    assert_non_null(d);
    assert_non_null(sata);
    assert_int_equal(d->max_transfer_bytes, 32 * 4096);
    assert_true(sata->max_transfer_bytes >= 1u << 20);
    assert_string_equal(d->wwn, "naa.5000c5000000000e");
    model->target_rejected = 0;

    engine_limit_cpus(1);
    assert_int_equal(engine_job_prepare(&job, d, &t, 7, err, sizeof(err)), BM_OK);
    assert_int_equal(job.pieces, 8);
    assert_int_equal(engine_run(&job, 1, &timing, "split", NULL), BM_OK);
    assert_int_equal(job.status, BM_OK);
    assert_true(job.ios > 0);
    assert_int_equal(model->target_rejected, 0);
    engine_job_free(&job);
    engine_limit_cpus(0);

    bm_health_init(&h, "");
    assert_int_equal(d->ops->health(d, &h), BM_OK);
    assert_string_equal(h.source, "scsi_log");
    assert_int_equal(h.temperature_c, 41);
    assert_int_equal(h.smart_passed, 1);
    assert_int_equal(h.power_on_hours, 10);
    assert_int_equal(h.media_errors, 1);
    bm_health_init(&h, "");
    assert_int_equal(sata->ops->health(sata, &h), BM_OK);
    assert_string_equal(h.source, "sat_ata_smart");
    assert_int_equal(h.temperature_c, 33);
    assert_int_equal(h.nattrs, 1);
    assert_int_equal(h.smart_passed, 1);
    assert_int_equal(model->target_rejected, 0);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
}

static void test_large_transfers_sas2008(void **state) { (void)state; check_large_transfers(false); }
static void test_large_transfers_sas3008(void **state) { (void)state; check_large_transfers(true); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_sas2008),
        cmocka_unit_test(test_probe_sas3008),
        cmocka_unit_test(test_deep_queue_sas2008),
        cmocka_unit_test(test_deep_queue_sas3008),
        cmocka_unit_test(test_large_transfers_sas2008),
        cmocka_unit_test(test_large_transfers_sas3008),
        cmocka_unit_test(test_small_max_transfer_lun_and_health),
        cmocka_unit_test(test_write_direction),
        cmocka_unit_test(test_each_request_is_posted_with_one_8_byte_write_and_a_wrong_post_is_refused),
        cmocka_unit_test(test_check_condition_sense),
        cmocka_unit_test(test_request_surviving_target_reset_resets_the_ioc),
        cmocka_unit_test(test_fault_with_request_outstanding_resets_the_ioc),
        cmocka_unit_test(test_handles_followed_across_ioc_reset),
        cmocka_unit_test(test_host_resets_are_limited),
        cmocka_unit_test(test_timeout_aborts_the_command),
        cmocka_unit_test(test_release_keeps_queues_of_an_ioc_that_did_not_stop),
        cmocka_unit_test(test_device_pages_after_reset_are_steps),
        cmocka_unit_test(test_handshake_reply_words_are_read_across_polls),
        cmocka_unit_test(test_diag_reset_unlock_retries_are_not_waited_in_a_poll),
        cmocka_unit_test(test_handshake_request_dwords_are_written_across_polls),
        cmocka_unit_test(test_request_dword_never_taken_ends_named_not_hung),
        cmocka_unit_test(test_stuck_in_fault),
        cmocka_unit_test(test_stuck_in_reset),
        cmocka_unit_test(test_operational_ioc_is_reset_first),
        cmocka_unit_test(test_unsolicited_event_reply),
        cmocka_unit_test(test_port_enable_timeout),
        cmocka_unit_test(test_fault_during_port_enable),
        cmocka_unit_test(test_diag_reset_keys_sas2008),
        cmocka_unit_test(test_diag_reset_keys_sas3008),
        cmocka_unit_test(test_doorbell_used_clears_late),
        cmocka_unit_test(test_sata_needs_initialization_is_used),
        cmocka_unit_test(test_ir_members_hidden),
        cmocka_unit_test(test_queue_depth_per_device_type),
        cmocka_unit_test(test_busy_and_task_set_full_retried),
        cmocka_unit_test(test_ioc_busy_takes_the_shared_busy_disposition),
        cmocka_unit_test(test_long_recovery_step_does_not_hold_the_controller),
        cmocka_unit_test(test_host_reset_in_parts_does_not_hold_poll),
        cmocka_unit_test(test_port_enable_in_steps_lets_another_controller_run),
        cmocka_unit_test(test_port_enable_never_answered_gives_up_named_and_bounded),
        cmocka_unit_test(test_sense_recovered_unit_attention_and_becoming_ready),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
