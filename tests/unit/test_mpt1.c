/* The MPT driver's MPI 1.5 backend against a simulated SAS1068-like IOC
 * (efi/platform_sim.h).
 *
 * The model is written from the MPI 1.5 facts (mpi_ioc.h / mpi_init.h
 * layouts, the system interface registers) with its own byte offsets and
 * none of the driver's structures: the doorbell handshake (IOC FACTS, IOC
 * INIT, PORT FACTS, PORT ENABLE), the request FIFO, and the reply FIFO in
 * both directions (the host lends reply frames by writing it, the IOC
 * answers by reading it: context replies and address replies). It holds
 * the driver to what the chip needs:
 *   - the two low bits of a request FIFO write (the NB hint) tell the IOC
 *     how many BlockSize blocks of the frame to fetch first (Linux
 *     mptscsih_AddSGE: ((bytes - 1) >> NBShiftFactor) + 1, NBShiftFactor
 *     from mptbase GetIocFacts starting at 1); a hint that fetches less
 *     than the message is a truncated request;
 *   - the reply free FIFO holds no more frames than GlobalCredits - 1
 *     (FreeBSD mpt mpt_configure_ioc: "Do *not* exceed global credits").
 * Every rule the driver breaks is counted as a violation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "platform_sim.h"
#include "drivers/blkdev.h"
#include "drivers/mpt/mpt.h"
#include "mpt_sim.h"
#include "scsi_target.h"

#define R_DOORBELL 0x00
#define R_WRITE_SEQ 0x04
#define R_DIAG 0x08
#define R_HIS 0x30
#define R_HIM 0x34
#define R_REQUEST_FIFO 0x40
#define R_REPLY_FIFO 0x44
#define R_REQUEST_HI_PRI_FIFO 0x48

#define ST_READY 0x10000000u
#define ST_OPERATIONAL 0x20000000u
#define DB_USED 0x08000000u
#define HIS_SYS2IOC MPT_SIM_HIS_SYS2IOC /* the IOC has not yet taken the doorbell word */
#define HIS_IOC2SYS 0x00000001u
#define DIAG_WRITE_ENABLE 0x80u
#define DIAG_RESET_ADAPTER 0x04u

#define F_SCSI_IO 0x00
#define F_TASK_MGMT 0x01
#define F_IOC_INIT 0x02
#define F_IOC_FACTS 0x03
#define F_PORT_FACTS 0x05
#define F_PORT_ENABLE 0x06
#define F_MUR 0x40
#define F_HANDSHAKE 0x42

#define IOS_DEVICE_NOT_THERE 0x0043
#define FIFO_MAX 1024
#define PORT_SCSI_ID 7

static uint8_t *pa_ptr(uint64_t pa) { return (uint8_t *)(uintptr_t)pa; }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16; }
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }
static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v), put16(p + 2, (uint16_t)(v >> 16)); }

enum hs_phase { HS_IDLE, HS_START, HS_REQUEST, HS_WORKING, HS_REPLY };

struct model {
    uint32_t state, his;
    enum hs_phase phase;
    struct mpt_sim_hs_request hs;   /* the handshake's request dwords (mpt_sim.h) */
    uint16_t reply_words[64];
    unsigned reply_n, reply_i;
    /* IOC FACTS. */
    uint16_t credits, reply_depth;
    uint8_t block_dwords;       /* BlockSize */
    uint16_t frame_dwords;      /* RequestFrameSize */
    uint16_t reply_frame_bytes; /* what IOC INIT set */
    bool port_enabled;
    /* PORT ENABLE answered only this long after it came (0: at once), as
     * an IOC answers once it has discovered the port's devices; the
     * doorbell stays in use meanwhile (delivered at a register read). */
    uint64_t port_enable_ns, pe_due_ns;
    bool pe_pending;
    /* Reply free FIFO (frames lent by the host) and reply post FIFO. */
    uint32_t free_fifo[FIFO_MAX];
    unsigned free_head, free_count, max_free;
    uint32_t post_fifo[FIFO_MAX];
    unsigned post_head, post_count;
    unsigned nb_last, requests;
    bool targets[16];
    uint64_t blocks;
    struct scsi_target disk[16];    /* the SCSI disk at each target id (tests/unit/scsi_target.h) */
    char serial[16][16];
    /* Requests the IOC owns, by MsgContext (a frame is never posted twice). */
    bool outstanding[FIFO_MAX];
    uint32_t last_context;
    /* A READ that is never answered until aborted (mpi_init.h task
     * management through the high-priority FIFO, IOCCapabilities
     * HIGH_PRI_Q). */
    bool hipri;
    bool hang_armed, have_hung;
    unsigned hang_target;
    uint32_t hang_lba, hung_context;
    unsigned tm_aborts, tm_target_resets, tm_handshakes;
    uint32_t tm_last_context;
    bool tm_ignored;            /* the hung request survives task management */
    /* Diagnostic register (mpi_ioc.h MPI_WRSEQ_*: 0xff flush, then 4 b 2
     * 7 d unlocks it; RESET_ADAPTER resets the chip to READY). */
    unsigned wrseq_keys, diag_resets, ioc_inits;
    uint32_t diag;
    unsigned violations;
    char first_violation[160];
};

static void violation(struct model *m, const char *fmt, ...)
{
    va_list ap;
    if (!m->violations++) {
        va_start(ap, fmt);
        vsnprintf(m->first_violation, sizeof(m->first_violation), fmt, ap);
        va_end(ap);
    }
}

static void hs_reply(struct model *m, const uint8_t *bytes, unsigned n)
{
    for (unsigned i = 0; i < n / 2; i++)
        m->reply_words[i] = get16(bytes + 2 * i);
    m->reply_n = n / 2;
    m->reply_i = 0;
    m->phase = HS_REPLY;
    m->his |= HIS_IOC2SYS;
}

/* mpi_ioc.h MSG_IOC_FACTS_REPLY (0x50 bytes). */
static void do_ioc_facts(struct model *m)
{
    uint8_t r[0x50] = { 0 };
    put16(r + 0x00, 0x0105);
    r[0x02] = sizeof(r) / 4;
    r[0x03] = F_IOC_FACTS;
    put16(r + 0x04, 0x0c00);
    r[0x14] = 16;                       /* MaxChainDepth */
    r[0x16] = m->block_dwords;          /* BlockSize */
    put16(r + 0x18, m->reply_depth);    /* ReplyQueueDepth */
    put16(r + 0x1a, m->frame_dwords);   /* RequestFrameSize */
    put16(r + 0x1e, 0x2200);            /* ProductID */
    put16(r + 0x24, m->credits);        /* GlobalCredits */
    r[0x26] = 1;                        /* NumberOfPorts */
    r[0x2e] = 8;                        /* MaxDevices */
    r[0x2f] = 1;                        /* MaxBuses */
    put32(r + 0x34, m->hipri ? 1u : 0); /* IOCCapabilities: HIGH_PRI_Q */
    put32(r + 0x38, 0x01170000);        /* FWVersion */
    hs_reply(m, r, sizeof(r));
}

static void do_ioc_init(struct model *m)
{
    const uint8_t *q = (const uint8_t *)m->hs.dw;
    uint8_t r[20] = { 0 };

    if (q[0x00] != 0x04)
        violation(m, "IOC INIT WhoInit 0x%02x", q[0x00]);
    m->reply_frame_bytes = get16(q + 0x0c);
    if (m->reply_frame_bytes < 0x24 || m->reply_frame_bytes % 4)
        violation(m, "IOC INIT ReplyFrameSize %u", m->reply_frame_bytes);
    if (get32(q + 0x10) || get32(q + 0x14))
        violation(m, "IOC INIT high addresses not 0");
    r[0x02] = 5;
    r[0x03] = F_IOC_INIT;
    m->ioc_inits++;
    m->state = ST_OPERATIONAL;
    m->free_count = m->free_head = m->post_count = m->post_head = 0;
    hs_reply(m, r, sizeof(r));
}

static void hs_task_mgmt(struct model *m);

static void hs_request_done(struct model *m)
{
    uint8_t function = (uint8_t)(m->hs.dw[0] >> 24);
    uint8_t r[0x28] = { 0 };

    switch (function) {
    case F_IOC_FACTS: do_ioc_facts(m); return;
    case F_IOC_INIT: do_ioc_init(m); return;
    case F_TASK_MGMT: hs_task_mgmt(m); return;
    case F_PORT_FACTS:
        if (m->state != ST_OPERATIONAL)
            violation(m, "PORT FACTS before IOC INIT");
        r[0x02] = sizeof(r) / 4;
        r[0x03] = F_PORT_FACTS;
        r[0x15] = 0x30;                 /* PortType: SAS */
        put16(r + 0x16, 8);             /* MaxDevices */
        put16(r + 0x18, PORT_SCSI_ID);
        put16(r + 0x1a, 0x0008);        /* initiator */
        hs_reply(m, r, sizeof(r));
        return;
    case F_PORT_ENABLE:
        if (m->port_enable_ns && !m->pe_pending) {
            m->pe_pending = true;
            m->pe_due_ns = plat_now_ns() + m->port_enable_ns;
            m->phase = HS_WORKING;
            return;
        }
        m->pe_pending = false;
        r[0x02] = 5;
        r[0x03] = F_PORT_ENABLE;
        m->port_enabled = true;
        hs_reply(m, r, 20);
        return;
    default:
        violation(m, "handshake function 0x%02x", function);
        r[0x02] = 5;
        r[0x03] = function;
        put16(r + 0x0e, 0x0001);
        hs_reply(m, r, 20);
    }
}

/* The IOC's answer goes to the reply post FIFO. */
static void post_reply(struct model *m, uint32_t v)
{
    if (m->post_count == FIFO_MAX) {
        violation(m, "reply post FIFO overflow");
        return;
    }
    m->post_fifo[(m->post_head + m->post_count++) % FIFO_MAX] = v;
}

/* The request with this MsgContext is no longer the IOC's. */
static void retire(struct model *m, uint32_t context)
{
    if (context < FIFO_MAX)
        m->outstanding[context] = false;
}

/* An address reply in a frame the host lent us. */
static void address_reply(struct model *m, const uint8_t *reply, unsigned n)
{
    uint32_t pa;

    if (!m->free_count) {
        violation(m, "no reply frame to answer into");
        return;
    }
    pa = m->free_fifo[m->free_head];
    m->free_head = (m->free_head + 1) % FIFO_MAX;
    m->free_count--;
    memcpy(pa_ptr(pa), reply, n);
    post_reply(m, 0x80000000u | (pa >> 1));
}

static uint8_t disk_byte(unsigned target, uint64_t lba, uint32_t off)
{
    return (uint8_t)(target * 29u + lba * 5u + off * 3u);
}

/* The medium of the disk at target id ctx. */
static void disk_read(void *ctx, uint64_t lba, uint32_t blocks, uint8_t *buf)
{
    for (uint32_t i = 0; i < blocks * 512; i++)
        buf[i] = disk_byte((unsigned)(uintptr_t)ctx, lba + i / 512, i % 512);
}

/* A SCSI IO (mpi_init.h MSG_SCSI_IO_REQUEST) as the IOC fetched it. */
static void do_scsi_io(struct model *m, const uint8_t *f)
{
    unsigned target = f[0x00];
    uint32_t context = get32(f + 0x08), data_len = get32(f + 0x28);
    const uint8_t *cdb = f + 0x18;
    uint32_t fl = get32(f + 0x30);
    uint8_t *buf = (fl & 0xffffff) ? pa_ptr(get64(f + 0x34)) : NULL;
    uint8_t reply[0x24] = { 0 }, scsi_status = 0;
    uint32_t moved = data_len, blocks;
    struct scsi_target_reply sr;
    uint64_t lba;
    bool write;

    reply[0x00] = f[0x00];
    reply[0x02] = sizeof(reply) / 4;
    reply[0x03] = F_SCSI_IO;
    put32(reply + 0x08, context);
    if ((fl & 0xffffff) != data_len)
        violation(m, "SGE length %u, DataLength %u", fl & 0xffffff, data_len);
    if (target >= 16 || !m->targets[target] || !m->port_enabled || f[0x0d]) {
        retire(m, context);
        put16(reply + 0x0e, IOS_DEVICE_NOT_THERE);
        reply[0x0d] = 0x04;
        address_reply(m, reply, sizeof(reply));
        return;
    }
    if (scsi_target_rw(cdb, &write, &lba, &blocks)) {
        if ((uint64_t)blocks * 512 != data_len)
            violation(m, "%u blocks with DataLength %u", blocks, data_len);
        if (m->hang_armed && target == m->hang_target && lba == m->hang_lba) {
            m->hang_armed = false;
            m->have_hung = true;
            m->hung_context = context;
            return; /* never answered until aborted */
        }
    }
    scsi_target_exec(&m->disk[target], cdb, buf, data_len, &sr);
    scsi_status = sr.status;
    moved = sr.moved;
    if (scsi_status == 0 && moved == data_len) {
        retire(m, context);
        post_reply(m, context & 0x7fffffffu); /* context reply */
        return;
    }
    retire(m, context);
    reply[0x0c] = scsi_status;
    put16(reply + 0x0e, scsi_status ? 0 : 0x0045);
    put32(reply + 0x14, moved);
    address_reply(m, reply, sizeof(reply));
}

/* The host posted a request frame address. */
static void do_request(struct model *m, uint32_t v)
{
    uint32_t block = m->block_dwords * 4u, frame = m->frame_dwords * 4u;
    unsigned nb = v & 3;
    uint32_t fetched = nb ? nb * block : frame;
    uint8_t f[512] = { 0 };
    const uint8_t *host = pa_ptr(v & ~3u);
    uint32_t need;

    m->requests++;
    m->nb_last = nb;
    if (m->state != ST_OPERATIONAL) {
        violation(m, "request while not operational");
        return;
    }
    /* What the IOC fetched first: the message must be in it. */
    memcpy(f, host, fetched < sizeof(f) ? fetched : sizeof(f));
    need = host[0x03] == F_SCSI_IO ? 0x3c : 0x0c;
    if (fetched < need)
        violation(m, "NB hint %u fetches %u bytes of a %u-byte request (BlockSize %u dwords)", nb, fetched, need,
                  m->block_dwords);
    if (f[0x03] != F_SCSI_IO) {
        violation(m, "request function 0x%02x", f[0x03]);
        return;
    }
    m->last_context = get32(f + 0x08);
    if (m->last_context < FIFO_MAX) {
        if (m->outstanding[m->last_context])
            violation(m, "request frame with MsgContext %u posted while the IOC still owns it", m->last_context);
        m->outstanding[m->last_context] = true;
    }
    do_scsi_io(m, f);
}

/* SCSI TASK MANAGEMENT (mpi_init.h MSG_SCSI_TASK_MGMT, 0x34 bytes):
 * ABORT TASK gives back the request whose MsgContext TaskMsgContext
 * names, TARGET RESET all of the target's; answered through the reply
 * FIFO after the requests it ended. */
static void do_task_mgmt(struct model *m, const uint8_t *f)
{
    uint8_t r[0x18] = { 0 };
    uint32_t count = 0;

    if (f[0x05] == 0x01) {
        m->tm_aborts++;
        m->tm_last_context = get32(f + 0x30);
    } else if (f[0x05] == 0x03) {
        m->tm_target_resets++;
    } else {
        violation(m, "task type 0x%02x", f[0x05]);
    }
    if (!m->tm_ignored && m->have_hung && f[0x00] == m->hang_target &&
        (f[0x05] == 0x03 || get32(f + 0x30) == m->hung_context)) {
        uint8_t t[0x24] = { 0 };
        t[0x00] = f[0x00];
        t[0x02] = sizeof(t) / 4;
        t[0x03] = F_SCSI_IO;
        put32(t + 0x08, m->hung_context);
        t[0x0d] = 0x08;                 /* SCSIState: terminated */
        put16(t + 0x0e, 0x0048);        /* IOCStatus: SCSI_TASK_TERMINATED */
        m->have_hung = false;
        retire(m, m->hung_context);
        address_reply(m, t, sizeof(t));
        count = 1;
    }
    r[0x00] = f[0x00];
    r[0x02] = sizeof(r) / 4;
    r[0x03] = F_TASK_MGMT;
    r[0x05] = f[0x05];
    put32(r + 0x08, get32(f + 0x08));
    put32(r + 0x14, count);
    address_reply(m, r, sizeof(r));
}

/* Task management from the high-priority FIFO: only an IOC whose FACTS
 * offered one (IOCCapabilities HIGH_PRI_Q) has that FIFO. */
static void do_hi_pri(struct model *m, uint32_t v)
{
    const uint8_t *f = pa_ptr(v & ~3u);

    if (!m->hipri || f[0x03] != F_TASK_MGMT) {
        violation(m, "high-priority request function 0x%02x (FIFO offered: %d)", f[0x03], m->hipri);
        return;
    }
    do_task_mgmt(m, f);
}

/* Task management through the doorbell handshake (the only way into an
 * IOC without a high-priority FIFO; Linux mpt_send_handshake_request):
 * the whole 0x34-byte request, then one doorbell interrupt saying the IOC
 * took it and no reply words; the reply comes through the reply FIFO. */
static void hs_task_mgmt(struct model *m)
{
    if (m->hs.dwords != 0x34 / 4)
        violation(m, "task management handshake of %u dwords", m->hs.dwords);
    if (m->state != ST_OPERATIONAL)
        violation(m, "task management while not operational");
    m->tm_handshakes++;
    do_task_mgmt(m, (const uint8_t *)m->hs.dw);
    m->phase = HS_IDLE;
    m->his |= HIS_IOC2SYS;
}

static void hs_request_done(struct model *m);

static uint32_t model_read(void *ctx, int bar, uint32_t off)
{
    struct model *m = ctx;
    uint32_t v;

    (void)bar;
    if (m->pe_pending && m->phase == HS_WORKING && plat_now_ns() >= m->pe_due_ns)
        hs_request_done(m); /* PORT ENABLE's reply, now */
    if (mpt_sim_hs_ack_due(&m->hs, &m->his) && m->phase == HS_REQUEST && m->hs.got == m->hs.dwords)
        hs_request_done(m);
    switch (off) {
    case R_DOORBELL:
        v = m->state;
        if (m->phase != HS_IDLE && !(m->phase == HS_REPLY && m->reply_i >= m->reply_n))
            v |= DB_USED;
        if (m->phase == HS_REPLY && m->reply_i < m->reply_n)
            v = (v & ~0xffffu) | m->reply_words[m->reply_i];
        return v;
    case R_HIS:
        return mpt_sim_hs_his_read(&m->hs, &m->his);
    case R_DIAG:
        v = m->diag;
        m->diag &= ~DIAG_RESET_ADAPTER; /* the chip is back at the next look */
        return v;
    case R_REPLY_FIFO:
        if (!m->post_count)
            return 0xffffffffu;
        v = m->post_fifo[m->post_head];
        m->post_head = (m->post_head + 1) % FIFO_MAX;
        m->post_count--;
        return v;
    default:
        return 0;
    }
}

static void model_write(void *ctx, int bar, uint32_t off, uint32_t v)
{
    struct model *m = ctx;

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
            m->state = ST_READY;
            m->port_enabled = false;
            m->free_count = m->post_count = 0;
            return;
        }
        if (v >> 24 == F_HANDSHAKE) {
            if (m->phase != HS_IDLE) {
                violation(m, "handshake started while another is in phase %d", m->phase);
                return;
            }
            m->hs.dwords = (v >> 16) & 0xff;
            m->hs.got = 0;
            m->phase = HS_START;
            m->his |= HIS_IOC2SYS | HIS_SYS2IOC;
            return;
        }
        violation(m, "doorbell write 0x%08x", v);
        return;
    case R_HIS:
        if (!(m->his & HIS_IOC2SYS))
            return;
        m->his &= ~HIS_IOC2SYS;
        if (m->phase == HS_START) {
            m->phase = m->hs.dwords ? HS_REQUEST : HS_IDLE;
        } else if (m->phase == HS_REPLY) {
            if (m->reply_i < m->reply_n) {
                m->reply_i++;
                m->his |= HIS_IOC2SYS;
            } else {
                m->phase = HS_IDLE;
            }
        }
        return;
    case R_HIM:
        return;
    case R_WRITE_SEQ: {
        static const uint8_t keys[] = { 0x4, 0xb, 0x2, 0x7, 0xd };
        if (v == 0xff) {
            m->wrseq_keys = 1;
            m->diag &= ~DIAG_WRITE_ENABLE;
        } else if (m->wrseq_keys >= 1 && m->wrseq_keys <= 5 && (v & 0xf) == keys[m->wrseq_keys - 1]) {
            if (++m->wrseq_keys == 6)
                m->diag |= DIAG_WRITE_ENABLE;
        } else {
            m->wrseq_keys = 0;
        }
        return;
    }
    case R_DIAG:
        if (!(m->diag & DIAG_WRITE_ENABLE)) {
            violation(m, "diagnostic write 0x%08x while locked", v);
            return;
        }
        if (v & DIAG_RESET_ADAPTER) {
            /* The chip forgets every request, frame and FIFO entry. */
            m->diag_resets++;
            m->diag = DIAG_WRITE_ENABLE | DIAG_RESET_ADAPTER;
            m->wrseq_keys = 0;
            m->state = ST_READY;
            m->phase = HS_IDLE;
            m->his = 0;
            m->hs.ack_pending = false;
            m->port_enabled = false;
            m->pe_pending = false;
            m->have_hung = false;
            m->free_count = m->free_head = m->post_count = m->post_head = 0;
            memset(m->outstanding, 0, sizeof(m->outstanding));
        }
        return;
    case R_REQUEST_FIFO:
        do_request(m, v);
        return;
    case R_REQUEST_HI_PRI_FIFO:
        do_hi_pri(m, v);
        return;
    case R_REPLY_FIFO:
        /* A reply frame lent to the IOC: never more than GlobalCredits - 1
         * of them at once. */
        if (m->state != ST_OPERATIONAL)
            violation(m, "reply frame posted while not operational");
        if (m->free_count + 1 > (unsigned)m->credits - 1u) {
            violation(m, "reply free FIFO overflow: frame %u with GlobalCredits %u", m->free_count + 1, m->credits);
            return;
        }
        m->free_fifo[(m->free_head + m->free_count++) % FIFO_MAX] = v;
        if (m->free_count > m->max_free)
            m->max_free = m->free_count;
        return;
    default:
        violation(m, "write 0x%08x to register 0x%02x", v, off);
    }
}

/* ---- Fixture ---------------------------------------------------------------------------------------------- */

static struct plat_sim_dev simdev;
static struct model *model;
static const struct pci_addr sim_addr = { 0, 4, 0, 0 };

/* A SAS1068E-like IOC with disks at target ids 0 and 3. */
static struct model *model_new(uint8_t block_dwords)
{
    struct model *m = calloc(1, sizeof(*m));
    m->state = ST_READY;
    m->credits = 32;
    m->reply_depth = 64;
    m->block_dwords = block_dwords;
    m->frame_dwords = 32;
    m->targets[0] = m->targets[3] = true;
    m->blocks = 1 << 20;
    for (unsigned t = 0; t < 16; t++) {
        /* An SPC-3 disk without READ CAPACITY(16), as older SAS1068E targets. */
        snprintf(m->serial[t], sizeof(m->serial[t]), "MPT1SN%02u", t);
        m->disk[t] = (struct scsi_target){ .vendor = "SIMVEND", .product = "SIM MPT1 DISK", .revision = "1.00",
                                           .serial = m->serial[t], .version = 5, .no_read_capacity_16 = true,
                                           .blocks = m->blocks, .block_bytes = 512, .read = disk_read,
                                           .ctx = (void *)(uintptr_t)t };
    }
    return m;
}

static void attach(struct model *m)
{
    model = m;
    mpt_sim_attach(&simdev, sim_addr, 0x0058 /* SAS1068E */, m, model_read, model_write, NULL);
}

static void detach(void)
{
    plat_sim_detach(&simdev);
    free(model);
    model = NULL;
}

static void assert_no_violations(void)
{
    if (model->violations)
        fail_msg("%u protocol violations, first: %s", model->violations, model->first_violation);
}

/* Probe the model through the driver's public entry; a probe that fails
 * fails the test, naming the driver's error and the model's first
 * violation. */
static void probe_model(struct bm_disk_list *list, void **ctrl)
{
    char err[200] = "";

    memset(list, 0, sizeof(*list));
    if (mpt_driver.probe(sim_addr, 0, list, ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s (model: %s)", err, model->first_violation);
}

/* Probe the model; then its first disk reads LBA 500 (tag 4), which the
 * target keeps (through task management too when tm_ignored), and the
 * read's 30 s deadline passes. The disk is returned. */
static struct bm_disk *probe_and_hang_a_read(struct bm_disk_list *list, void **ctrl, uint8_t *buf, bool tm_ignored)
{
    struct bm_disk *d;

    probe_model(list, ctrl);
    d = list->disks[0];
    model->hang_armed = true;
    model->hang_target = d->port;
    model->hang_lba = 500;
    model->tm_ignored = tm_ignored;
    assert_int_equal(d->ops->submit(d, 0, 4, BM_IO_READ, 500, 1, buf), BM_OK);
    plat_sim_advance_ns(31ull * 1000000000ull);
    return d;
}

/* After its recovery the disk reads again, no rule was broken; then
 * release, detach and free buf. */
static void read_again_and_release(struct bm_disk *d, void *ctrl, uint8_t *buf)
{
    struct bm_completion c;

    assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 8, 1, buf), BM_OK);
    assert_int_equal(mpt_poll_n(d, &c, 1), 1);
    assert_int_equal(c.status, BM_OK);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
}

/* Probe, then reads at depth 16 on both disks, data checked. */
static void check_probe_and_reads(uint8_t block_dwords)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    enum { QD = 16 };
    uint8_t *bufs[QD];

    attach(model_new(block_dwords));
    probe_model(&list, &ctrl);
    assert_no_violations();
    assert_int_equal(list.count, 2);
    assert_true(model->max_free <= model->credits - 1u);
    for (int t = 0; t < QD; t++)
        bufs[t] = plat_alloc_pages(4096, false);
    for (unsigned k = 0; k < list.count; k++) {
        struct bm_disk *d = list.disks[k];
        struct bm_completion out[QD];
        unsigned target = d->port;

        assert_true(d->max_qd <= 64);
        assert_true(d->max_qd < model->credits);
        for (int t = 0; t < QD; t++)
            assert_int_equal(d->ops->submit(d, 0, (uint32_t)t, BM_IO_READ, 100u + 8u * t, 8, bufs[t]), BM_OK);
        assert_int_equal(mpt_poll_n(d, out, QD), QD);
        for (int i = 0; i < QD; i++)
            assert_int_equal(out[i].status, BM_OK);
        for (int t = 0; t < QD; t++)
            for (uint32_t i = 0; i < 4096; i++)
                if (bufs[t][i] != disk_byte(target, 100u + 8u * t + i / 512, i % 512))
                    fail_msg("target %u tag %d byte %u wrong", target, t, i);
    }
    assert_no_violations();
    for (int t = 0; t < QD; t++)
        plat_free_pages(bufs[t], 4096);
    mpt_driver.release(ctrl);
    detach();
}

/* BlockSize 2 dwords (8-byte blocks): Linux's NBShiftFactor is 3 and a
 * 60-byte SCSI IO gets hint 8 & 3 = 0 (the whole frame); one bit short, a
 * shift of 2 asks for 3 blocks, 24 bytes, and the IOC fetches half a
 * request. */
static void test_nb_hint_covers_request_small_blocks(void **state) { (void)state; check_probe_and_reads(2); }

/* BlockSize 8 dwords (as an FC909 reports it, Linux log "NBShiftFactor=5
 * BlockSize=8"): the 60-byte SCSI IO's hint is exactly 2, as mptbase
 * computes it. */
static void test_nb_hint_as_mptbase_computes(void **state)
{
    (void)state;
    check_probe_and_reads(8);
}

/* The last request's hint on the 8-dword model. */
static void test_nb_hint_value(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    struct bm_completion c;
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *d;

    (void)state;
    attach(model_new(8));
    probe_model(&list, &ctrl);
    d = list.disks[0];
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 0, 8, buf), BM_OK);
    assert_int_equal(model->nb_last, 2);
    assert_int_equal(mpt_poll_n(d, &c, 1), 1);
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
}

/* ReplyQueueDepth above GlobalCredits: the host lends at most
 * GlobalCredits - 1 reply frames, and keeps no more requests outstanding
 * than it has frames for their replies. */
static void test_reply_frames_within_credits(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;

    (void)state;
    attach(model_new(8));
    probe_model(&list, &ctrl);
    assert_int_equal(model->max_free, model->credits - 1u);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
}

/* A READ the target holds until it is aborted: at the timeout the engine
 * gets BM_ETIMEDOUT, the driver sends ABORT TASK naming the request's
 * MsgContext (through the high-priority FIFO when the IOC has one, else
 * through the doorbell handshake), and the frame is used again only after
 * the IOC gave the request back. */
static void check_timeout_aborts(bool hipri)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    struct bm_completion c[4];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *d;
    uint32_t hung;
    bool reused = false;

    attach(model_new(8));
    model->hipri = hipri;
    probe_model(&list, &ctrl);
    d = list.disks[0];
    model->hang_armed = true;
    model->hang_target = d->port;
    model->hang_lba = 500;
    assert_int_equal(d->ops->submit(d, 0, 4, BM_IO_READ, 500, 8, buf), BM_OK);
    assert_true(model->have_hung);
    hung = model->hung_context;
    assert_int_equal(d->ops->poll(d, 0, c, 4), 0);
    plat_sim_advance_ns(31ull * 1000000000ull);
    assert_int_equal(mpt_poll_n(d, c, 4), 1);
    assert_int_equal(c[0].tag, 4);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_int_equal(model->tm_aborts, 1);
    assert_int_equal(model->tm_handshakes, hipri ? 0 : 1);
    assert_int_equal(model->tm_last_context, hung);
    assert_int_equal(model->tm_target_resets, 0);
    assert_false(model->have_hung);
    for (int i = 0; i < 100 && !reused; i++) {
        assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 8, 8, buf), BM_OK);
        reused = model->last_context == hung;
        assert_int_equal(mpt_poll_n(d, c, 1), 1);
        assert_int_equal(c[0].status, BM_OK);
    }
    assert_true(reused);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
}

static void test_timeout_aborts_the_command(void **state) { (void)state; check_timeout_aborts(true); }

/* The same on an IOC without a high-priority request FIFO (IOC FACTS
 * without HIGH_PRI_Q): ABORT TASK goes through the doorbell handshake as
 * Linux mptscsih_IssueTaskMgmt sends it there (mpt_send_handshake_request). */
static void test_timeout_aborts_through_handshake_without_high_priority_fifo(void **state)
{
    (void)state;
    check_timeout_aborts(false);
}

/* MPI 1: PORT ENABLE never answered after the host reset. As Linux
 * mptbase (SendPortEnable's 300 s, then mpt_do_ioc_recovery fails) the
 * IOC is given up once the 300 s have passed, not sooner: the wait is
 * looked at on each poll (none holds the CPU), the record names PORT
 * ENABLE and the wait that ran out, the held command (the diagnostic
 * reset took it from the IOC) comes back, and new commands fail at once. */
static void test_port_enable_never_answered_gives_up_named(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char rec[192] = "";
    struct bm_completion c[8];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *d;
    uint64_t pe_started = 0, t0;
    int got = 0;

    (void)state;
    attach(model_new(8));
    model->hipri = true;
    d = probe_and_hang_a_read(&list, &ctrl, buf, true);
    model->port_enable_ns = 400ull * 1000000000ull; /* later than any bound */
    for (int i = 0; i < 20000 && !got; i++) {
        plat_sim_advance_ns(100ull * 1000000ull);
        t0 = plat_now_ns();
        got = d->ops->poll(d, 0, c, 4);
        if (plat_now_ns() - t0 >= 500ull * 1000000ull)
            fail_msg("a poll held the CPU %llu ms", (unsigned long long)((plat_now_ns() - t0) / 1000000ull));
        if (model->pe_pending && !pe_started)
            pe_started = plat_now_ns();
    }
    assert_int_equal(got, 1);
    assert_int_equal(c[0].tag, 4);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_true(pe_started != 0);
    assert_true(plat_now_ns() - pe_started >= 300ull * 1000000000ull);
    d->ops->recovery(d, rec, sizeof(rec));
    if (!strstr(rec, "host reset gave up in PORT ENABLE after ") || !strstr(rec, "PORT ENABLE: no ") ||
        !strstr(rec, " within 300000 ms"))
        fail_msg("give-up not named with its part and wait: \"%s\"", rec);
    assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 8, 1, buf), BM_EIO);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 4096);
}

/* Poll d every 50 ms of model time, each call numbered for the model's
 * per-call counts (model->hs.call), until the read probe_and_hang_a_read
 * held comes back alone, timed out (1000 s at most). The polls after
 * which a request dword was still not taken. */
static unsigned poll_numbered_until_the_held_read_is_back(struct bm_disk *d, struct bm_completion *c)
{
    unsigned polls_acking = 0;
    int got = 0;

    for (int i = 0; i < 20000 && !got; i++) {
        plat_sim_advance_ns(50ull * 1000000ull);
        model->hs.call++;
        got = d->ops->poll(d, 0, c, 4);
        polls_acking += model->hs.ack_pending;
    }
    assert_int_equal(got, 1);
    assert_int_equal(c[0].tag, 4);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    return polls_acking;
}

/* After the host reset the IOC takes each handshake request dword 2 s
 * after it was written (mptbase WaitForDoorbellAck allows 5 s a dword;
 * IOC FACTS, IOC INIT, PORT FACTS and PORT ENABLE all go through the
 * doorbell on MPI 1): the dwords go out one per poll, each once the one
 * before was taken (the model refuses a dword written earlier), so no
 * poll waits for the IOC (at most one dword written and HIS read at most
 * twice while a dword is not taken, in any one call), and the IOC still
 * comes back OPERATIONAL with its port enabled and the held command
 * back. Fails on bb53c35, where each dword's acknowledgement is waited
 * for inside the poll (it reads HIS for the 2 s). */
static void test_host_reset_request_dwords_taken_late_are_steps(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    struct bm_completion c[8];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *d;
    unsigned polls_acking;

    (void)state;
    attach(model_new(8));
    model->hipri = true; /* task management outside the doorbell: only the host reset handshakes */
    d = probe_and_hang_a_read(&list, &ctrl, buf, true);
    model->hs.ack_late_ns = 2ull * 1000000000ull;
    model->hs.max_dwords_in_call = 0; /* the probe's handshakes are not poll()'s */
    polls_acking = poll_numbered_until_the_held_read_is_back(d, c);
    assert_int_equal(model->diag_resets, 1);
    assert_true(model->hs.late_acks >= 10);
    if (model->hs.max_dwords_in_call > 1 || model->hs.max_his_waits_in_call > 2)
        fail_msg("one poll wrote %u request dwords and read HIS %u times while a dword was not taken",
                 model->hs.max_dwords_in_call, model->hs.max_his_waits_in_call);
    assert_true(polls_acking >= 10 * model->hs.late_acks); /* 2 s a dword, a poll every 50 ms */
    assert_true(model->port_enabled);
    read_again_and_release(d, ctrl, buf);
}

/* ABORT TASK through the doorbell (no high-priority FIFO), and the IOC
 * never takes its fifth dword: the handshake ends once that dword's 5 s
 * have passed without any poll waiting for it, the step fails as
 * mptscsih_IssueTaskMgmt's "TaskMgmt handshake FAILED" does, and the
 * recovery escalates: TARGET RESET cannot have the doorbell (still in
 * use), so the IOC host reset takes the command back (the diagnostic
 * reset also ends the stuck handshake), and the disk carries on. Fails
 * on bb53c35, where the dword's 5 s are waited for inside one poll. */
static void test_tm_handshake_dword_never_taken_escalates(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char rec[192] = "";
    struct bm_completion c[8];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *d;

    (void)state;
    attach(model_new(8));
    d = probe_and_hang_a_read(&list, &ctrl, buf, false);
    model->hs.ack_never_fn = F_TASK_MGMT;
    model->hs.ack_never_dword = 5;
    poll_numbered_until_the_held_read_is_back(d, c);
    if (!strstr(c[0].detail, "(host reset)"))
        fail_msg("completion does not name the step: \"%s\"", c[0].detail);
    if (model->hs.max_his_waits_in_call > 2)
        fail_msg("one poll read HIS %u times waiting for the dword", model->hs.max_his_waits_in_call);
    assert_int_equal(model->tm_handshakes, 0);  /* no task management was ever taken */
    assert_int_equal(model->diag_resets, 1);
    d->ops->recovery(d, rec, sizeof(rec));
    if (!strstr(rec, "last recovery: host reset, "))
        fail_msg("recovery not named: \"%s\"", rec);
    assert_true(model->port_enabled);
    read_again_and_release(d, ctrl, buf);
}

/* MPI 1: after the host reset, PORT ENABLE (a doorbell handshake whose
 * reply comes once the port's devices are discovered) answers 5 s late:
 * the handshake is posted and its reply looked for on later polls, so no
 * poll holds the CPU (mptbase allows it 300 s), the disk names the part
 * under way, and the held command comes back once the IOC is
 * OPERATIONAL with its port enabled. Fails when PORT ENABLE's handshake
 * is waited for inside one poll. */
static void test_port_enable_after_reset_is_a_step(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    char rec[192] = "";
    struct bm_completion c[8];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct bm_disk *d;
    bool named = false;
    int got = 0;
    uint64_t t0;

    (void)state;
    attach(model_new(8));
    d = probe_and_hang_a_read(&list, &ctrl, buf, true);
    model->port_enable_ns = 5ull * 1000000000ull;
    for (int i = 0; i < 2000 && !got; i++) {
        plat_sim_advance_ns(50ull * 1000000ull);
        t0 = plat_now_ns();
        got = d->ops->poll(d, 0, c, 4);
        if (plat_now_ns() - t0 >= 500ull * 1000000ull)
            fail_msg("a poll held the CPU %llu ms (PORT ENABLE pending %d)",
                     (unsigned long long)((plat_now_ns() - t0) / 1000000ull), model->pe_pending);
        if (model->pe_pending) {
            d->ops->recovery(d, rec, sizeof(rec));
            named |= strstr(rec, "host reset: PORT ENABLE") != NULL;
        }
    }
    assert_int_equal(got, 1);
    assert_int_equal(c[0].tag, 4);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    if (!named)
        fail_msg("PORT ENABLE never named as the part under way: \"%s\"", rec);
    assert_true(model->port_enabled);
    assert_int_equal(model->diag_resets, 1);
    read_again_and_release(d, ctrl, buf);
}

/* A READ the target keeps through ABORT TASK and TARGET RESET (both sent
 * by handshake, no high-priority FIFO): the IOC gets a diagnostic reset
 * and is brought back (Linux mptscsih_IssueTaskMgmt -> mpt_HardResetHandler:
 * IOC INIT, reply frames lent again, PORT ENABLE), the held frame is free
 * again and both disks carry on. */
static void test_request_surviving_target_reset_resets_the_ioc(void **state)
{
    struct bm_disk_list list;
    void *ctrl = NULL;
    struct bm_completion c[8];
    uint8_t *buf = plat_alloc_pages(8 * 4096, false);
    struct bm_disk *d;
    uint32_t hung;
    bool reused = false;

    (void)state;
    attach(model_new(8));
    probe_model(&list, &ctrl);
    assert_int_equal(model->ioc_inits, 1);
    d = list.disks[0];
    model->hang_armed = true;
    model->hang_target = d->port;
    model->hang_lba = 500;
    model->tm_ignored = true;
    assert_int_equal(d->ops->submit(d, 0, 4, BM_IO_READ, 500, 8, buf), BM_OK);
    hung = model->hung_context;
    plat_sim_advance_ns(31ull * 1000000000ull);
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].tag, 4);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_int_equal(model->tm_handshakes, 2);
    assert_int_equal(model->tm_target_resets, 1);
    assert_int_equal(model->diag_resets, 1);
    assert_int_equal(model->ioc_inits, 2);
    assert_true(model->port_enabled);
    assert_int_equal(model->free_count, model->credits - 1u);
    for (uint32_t t = 0; t < 8; t++) {
        assert_int_equal(d->ops->submit(d, 0, t, BM_IO_READ, 8u * t, 8, buf + 4096u * t), BM_OK);
        reused |= model->last_context == hung;
    }
    assert_int_equal(mpt_poll_n(d, c, 8), 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(c[i].status, BM_OK);
        for (uint32_t b = 0; b < 4096; b++)
            if (buf[4096u * c[i].tag + b] != disk_byte(d->port, 8u * c[i].tag + b / 512, b % 512))
                fail_msg("tag %u byte %u wrong after the reset", c[i].tag, b);
    }
    assert_true(reused);
    d = list.disks[1];
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 0, 8, buf), BM_OK);
    assert_int_equal(mpt_poll_n(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_no_violations();
    mpt_driver.release(ctrl);
    detach();
    plat_free_pages(buf, 8 * 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nb_hint_covers_request_small_blocks),
        cmocka_unit_test(test_nb_hint_as_mptbase_computes),
        cmocka_unit_test(test_nb_hint_value),
        cmocka_unit_test(test_reply_frames_within_credits),
        cmocka_unit_test(test_timeout_aborts_the_command),
        cmocka_unit_test(test_timeout_aborts_through_handshake_without_high_priority_fifo),
        cmocka_unit_test(test_request_surviving_target_reset_resets_the_ioc),
        cmocka_unit_test(test_port_enable_after_reset_is_a_step),
        cmocka_unit_test(test_host_reset_request_dwords_taken_late_are_steps),
        cmocka_unit_test(test_tm_handshake_dword_never_taken_escalates),
        cmocka_unit_test(test_port_enable_never_answered_gives_up_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
