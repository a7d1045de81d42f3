/* The MegaRAID Fusion transport (SAS2208 / SAS3108 / SAS3008) against a
 * simulated controller.
 *
 * The model below is written from the interface as Linux
 * megaraid_sas_fusion.[ch] / megaraid_sas.h and FreeBSD mrsas describe it,
 * not from baremark's driver: firmware state in scratch pad 0, request
 * descriptors taken when their high half is written to 0xc4, request
 * frames at base + SMID * 256, an MFI INIT frame carrying the MPI2 IOC
 * INIT, DCMDs as MFI frames behind a chain SGE of a pass-through request,
 * LD/system-PD I/O as LD IO requests with a RAID context, and reply
 * descriptors posted into the host's queue. It checks what the driver
 * sends and records the first thing that breaks the rules; every test
 * asserts the model saw no violation.
 *
 * The driver is reached only through its public face: megasas_driver's
 * match/probe/release and the bm_disk submit/poll ops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "platform_sim.h"
#include "scsi_target.h"
#include "drivers/megasas/megasas.h"
#include "drivers/megasas/megasas_regs.h"
#include "drivers/megasas/mfi.h"
#include "drivers/megasas/fusion.h"
#include "drivers/registry.h"
#include "drivers/scsi/scsi_spc.h"

/* ---- Layouts against the offsets Linux megaraid_sas_fusion.h prints ------------------ */

static void test_request_frame_layout(void **state)
{
    (void)state;
    assert_int_equal(offsetof(struct fusion_io_request, dev_handle), 0x00);
    assert_int_equal(offsetof(struct fusion_io_request, chain_offset), 0x02);
    assert_int_equal(offsetof(struct fusion_io_request, function), 0x03);
    assert_int_equal(offsetof(struct fusion_io_request, msg_flags), 0x07);
    assert_int_equal(offsetof(struct fusion_io_request, sense_buffer_low), 0x0c);
    assert_int_equal(offsetof(struct fusion_io_request, sgl_flags), 0x10);
    assert_int_equal(offsetof(struct fusion_io_request, sense_buffer_length), 0x12);
    assert_int_equal(offsetof(struct fusion_io_request, sgl_offset0), 0x14);
    assert_int_equal(offsetof(struct fusion_io_request, skip_count), 0x18);
    assert_int_equal(offsetof(struct fusion_io_request, data_length), 0x1c);
    assert_int_equal(offsetof(struct fusion_io_request, io_flags), 0x24);
    assert_int_equal(offsetof(struct fusion_io_request, eedp_flags), 0x26);
    assert_int_equal(offsetof(struct fusion_io_request, lun), 0x34);
    assert_int_equal(offsetof(struct fusion_io_request, control), 0x3c);
    assert_int_equal(offsetof(struct fusion_io_request, cdb), 0x40);
    assert_int_equal(offsetof(struct fusion_io_request, raid_context), 0x60);
    assert_int_equal(offsetof(struct fusion_io_request, sgl), 0x80);
    assert_int_equal(sizeof(struct fusion_io_request), 256);
    assert_int_equal(sizeof(struct fusion_sge), 16);
    assert_int_equal(offsetof(struct fusion_sge, len), 0x08);
    assert_int_equal(offsetof(struct fusion_sge, next_chain_offset), 0x0e);
    assert_int_equal(offsetof(struct fusion_sge, flags), 0x0f);
}

static void test_raid_context_layout(void **state)
{
    (void)state;
    assert_int_equal(sizeof(struct fusion_raid_context), 32);
    assert_int_equal(offsetof(struct fusion_raid_context, timeout_value), 0x02);
    assert_int_equal(offsetof(struct fusion_raid_context, reg_lock_flags), 0x04);
    assert_int_equal(offsetof(struct fusion_raid_context, virtual_disk_tgt_id), 0x06);
    assert_int_equal(offsetof(struct fusion_raid_context, reg_lock_row_lba), 0x08);
    assert_int_equal(offsetof(struct fusion_raid_context, reg_lock_length), 0x10);
    assert_int_equal(offsetof(struct fusion_raid_context, ex_status), 0x16);
    assert_int_equal(offsetof(struct fusion_raid_context, status), 0x17);
    assert_int_equal(offsetof(struct fusion_raid_context, raid_flags), 0x18);
    assert_int_equal(offsetof(struct fusion_raid_context, num_sge), 0x19);
    assert_int_equal(offsetof(struct fusion_raid_context, config_seq_num), 0x1a);
    assert_int_equal(offsetof(struct fusion_raid_context, num_sge_ext), 0x1e);
}

static void test_ioc_init_and_descriptor_layout(void **state)
{
    (void)state;
    assert_int_equal(offsetof(struct fusion_ioc_init, who_init), 0x00);
    assert_int_equal(offsetof(struct fusion_ioc_init, function), 0x03);
    assert_int_equal(offsetof(struct fusion_ioc_init, msg_version), 0x0c);
    assert_int_equal(offsetof(struct fusion_ioc_init, header_version), 0x0e);
    assert_int_equal(offsetof(struct fusion_ioc_init, host_page_size), 0x16);
    assert_int_equal(offsetof(struct fusion_ioc_init, host_msix_vectors), 0x17);
    assert_int_equal(offsetof(struct fusion_ioc_init, system_request_frame_size), 0x1a);
    assert_int_equal(offsetof(struct fusion_ioc_init, reply_descriptor_post_queue_depth), 0x1c);
    assert_int_equal(offsetof(struct fusion_ioc_init, reply_free_queue_depth), 0x1e);
    assert_int_equal(offsetof(struct fusion_ioc_init, sense_buffer_address_high), 0x20);
    assert_int_equal(offsetof(struct fusion_ioc_init, system_request_frame_base_address), 0x28);
    assert_int_equal(offsetof(struct fusion_ioc_init, reply_descriptor_post_queue_address), 0x30);
    assert_int_equal(offsetof(struct fusion_ioc_init, reply_free_queue_address), 0x38);
    assert_int_equal(offsetof(struct fusion_ioc_init, time_stamp), 0x40);
    assert_int_equal(sizeof(struct fusion_ioc_init), 0x48);
    assert_int_equal(sizeof(struct fusion_request_desc), 8);
    assert_int_equal(offsetof(struct fusion_request_desc, smid), 0x02);
    assert_int_equal(offsetof(struct fusion_request_desc, lmid), 0x04);
    assert_int_equal(offsetof(struct fusion_request_desc, dev_handle), 0x06);
    assert_int_equal(sizeof(struct fusion_reply_desc), 8);
    assert_int_equal(offsetof(struct fusion_reply_desc, smid), 0x02);
    /* Register offsets (megasas_register_set, MPI2 reply post host index). */
    assert_int_equal(MFI_REG_DOORBELL, 0x00);
    assert_int_equal(MFI_REG_OSP0, 0xb0);
    assert_int_equal(MFI_REG_OSP1, 0xb4);
    assert_int_equal(MFI_REG_IQPL, 0xc0);
    assert_int_equal(MFI_REG_IQPH, 0xc4);
    assert_int_equal(FUSION_REG_REPLY_POST_HOST_INDEX, 0x6c);
    /* MFI INIT driver_operations (Linux union MFI_CAPABILITIES). */
    assert_int_equal(FUSION_INIT_DRV_OPS_OFFSET, 0x04);
    assert_int_equal(MFI_CAP_FP_REMOTE_LUN, 0x0001);
    assert_int_equal(MFI_CAP_MAX_255LDS, 0x0008);
    assert_int_equal(MFI_CAP_SECURITY_PROTOCOL_CMDS_FW, 0x0040);
    assert_int_equal(MFI_CAP_EXT_IO_SIZE, 0x0100);
    assert_int_equal(MFI_CAP_FP_RLBYPASS, 0x0400);
    assert_int_equal(MFI_CAP_PD_MAP_TARGET_ID, 0x1000);
    assert_int_equal(MFI_CAP_FW_EXPOSED_DEV_LIST, 0x8000);
    /* MR_TASK_MANAGE_REQUEST: MPI2 SCSI task management, then tmReqFlags. */
    assert_int_equal(offsetof(struct fusion_tm_request, function), 0x03);
    assert_int_equal(offsetof(struct fusion_tm_request, task_type), 0x05);
    assert_int_equal(offsetof(struct fusion_tm_request, lun), 0x0c);
    assert_int_equal(offsetof(struct fusion_tm_request, task_mid), 0x30);
    assert_int_equal(offsetof(struct fusion_tm_request, tm_req_flags), 0x34);
    /* Controller info adapterOperations3 and the JBOD sequence map
     * (MR_PD_CFG_SEQ_NUM_SYNC with MAX_PHYSICAL_DEVICES entries). */
    assert_int_equal(offsetof(struct mfi_ctrl_info, adapter_operations3), 0x7e8);
    assert_int_equal(sizeof(struct mfi_ctrl_info), 2048);
    assert_int_equal(sizeof(struct mfi_jbod_map), 2056);
    assert_int_equal(offsetof(struct mfi_jbod_map, seq[1].dev_handle), 0x08 + 8 + 2);
}

/* ---- The device model ------------------------------------------------------------------ */

/* Spec values the model uses, spelled out here rather than taken from
 * the driver's headers where they describe behaviour. */
#define M_STATE_FW_INIT 0x40000000u
#define M_STATE_READY 0xb0000000u
#define M_STATE_OPERATIONAL 0xc0000000u
#define M_STATE_FAULT 0xf0000000u
#define M_STATE_MASK 0xf0000000u
#define M_FW_CMDS 128               /* scratch pad 0 bits 15:0 */
#define M_FW_SGE 64                 /* scratch pad 0 bits 23:16 */
#define M_MAX_SMID 1024
/* support_fp_remote_lun, support_ndrive_r1_lb, security_protocol_cmds_fw,
 * support_fp_rlbypass, support_qd_throttling, support_pd_map_target_id
 * (Linux MFI_CAPABILITIES, set by megasas_ioc_init_fusion). */
#define M_CAPS_REQUIRED ((1u << 0) | (1u << 4) | (1u << 6) | (1u << 10) | (1u << 11) | (1u << 12))

enum m_gen { M_THUNDERBOLT, M_INVADER };

struct m_disk {
    bool logical;
    uint16_t id;
    uint32_t block;
    uint64_t blocks;
};

/* Two LDs and one JBOD drive with 4096-byte blocks. */
static const struct m_disk m_disks[] = {
    { true, 0, 512, 1u << 20 },
    { true, 3, 512, 3u << 20 },
    { false, 9, 4096, 1u << 18 },
};

struct model {
    enum m_gen gen;
    uint32_t osp0;
    bool stuck;                 /* firmware never leaves its state; each read costs a second */
    /* Boot: FW_INIT whose low bits move every boot_step reads (a second
     * each), READY after boot_reads. */
    bool booting;
    unsigned boot_reads_done, boot_step, boot_reads;
    uint32_t lo;                /* IQPL latch */
    bool lo_written;
    unsigned posts_whole;       /* descriptors posted with one 8-byte write to IQPL */
    unsigned posts_split;       /* ...and as IQPL then IQPH dwords */
    bool inited;
    uint64_t req_base, reply_base;
    uint32_t depth, post_idx;
    uint32_t host_index, host_index_writes;
    unsigned violations;
    char first_violation[256];

    bool outstanding[M_MAX_SMID];
    unsigned noutstanding, max_outstanding;
    bool defer;                 /* keep completions until model_flush() */
    uint16_t pending[M_MAX_SMID];
    unsigned npending;

    uint64_t hold_lba;          /* reads at this LBA are never answered (until released) */
    bool hold;
    uint16_t held[16];
    unsigned nheld;
    uint64_t medium_error_lba, offline_lba;
    bool medium_error, offline;

    uint32_t hang_dcmd;         /* this DCMD opcode is never answered (until released) */
    unsigned dcmd_ctrl_info, dcmd_ld_list, dcmd_pd_list, dcmd_pd_info, dcmd_flush;
    unsigned reads, writes, ld_requests, pd_requests;
    bool reset_to_ready;
    uint32_t caps;              /* driver capabilities IOC INIT announced */
    unsigned dcmd_aborts;       /* hung DCMDs given back by an MFI ABORT */
    uint32_t max_request_size;  /* controller info, sectors */
    uint16_t max_strips;
    uint8_t stripe_min;

    /* JBOD sequence map (Linux MR_PD_CFG_SEQ_NUM_SYNC): controller info
     * adapterOperations3.useSeqNumJbodFP, PD 9's device handle and
     * configuration sequence number, and whether it takes TMs. */
    bool seq_map;
    uint16_t pd_seq;
    bool pd_tm_capable;
    unsigned dcmd_jbod_map, fp_requests, seq_mismatches;
    /* Task management (MPI2 SCSI task management, high-priority). */
    bool ignore_abort;          /* ABORT_TASK answers but leaves the task hung */
    unsigned tm_aborts, tm_target_resets, tm_requests;
    /* BUSY / TASK SET FULL: the next busy_left system-drive reads get
     * SCSI status busy_status. */
    unsigned busy_left, busy_answers;
    uint8_t busy_status;
    /* The log pages the system drives keep (NULL: no LOG SENSE). */
    const struct scsi_target_log *pd_log;
    /* MFI PD SCSI I/O frames through the pass-through function (smartctl
     * -d megaraid,N as Linux megasas_mgmt_fw_ioctl sends them): what the
     * array member pd10 answers, the frames it took, and those refused
     * for a device id not in the PD list (pd11, which ld0's array names). */
    const struct scsi_target_log *member_log;
    unsigned member_cmds, pd_not_found, cfg_reads;
    /* Release: the reset request (doorbell 7) ignored, and the host
     * diagnostic register (MPI2 WriteSequence 0x04, HostDiagnostic 0x08;
     * Linux megasas_adp_reset_fusion) that the adapter reset uses. */
    bool reset_ignored;
    bool diag_dead;             /* the write sequence never unlocks HostDiagnostic */
    uint32_t diag;              /* DRWE 0x80, RESET_ADAPTER 0x04 */
    unsigned seq_pos, seq_writes, adapter_resets;
    unsigned status_reads;      /* OSP0 and HostDiagnostic reads (a wait for the firmware reads them again and again) */
};

#define M_PD9_HANDLE 0x0021     /* PD 9's SAS device handle behind the firmware */

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

/* Deterministic content of a block: every 8-byte word names its disk,
 * LBA and position. */
static uint64_t pattern(uint16_t id, uint64_t lba, uint32_t word)
{
    return ((uint64_t)id << 56) ^ (lba * 0x9e3779b97f4a7c15ull) ^ word;
}

/* Host memory at a "physical" address (identity on the host build). */
static void *host(uint64_t pa) { return (void *)(uintptr_t)pa; }

static const struct m_disk *find_disk(bool logical, uint16_t id)
{
    for (size_t i = 0; i < sizeof(m_disks) / sizeof(m_disks[0]); i++)
        if (m_disks[i].logical == logical && m_disks[i].id == id)
            return &m_disks[i];
    return NULL;
}

/* Put a reply descriptor for smid into the host's queue. */
static void post_reply(uint16_t smid)
{
    volatile uint64_t *q = host(m.reply_base);

    if (q[m.post_idx] != ~0ull)
        violation("reply queue entry %u not given back (0x%016llx) before reuse", m.post_idx,
                  (unsigned long long)q[m.post_idx]);
    /* SCSI IO success type (0), MSI-x 0, SMID at bits 31:16. */
    q[m.post_idx] = (uint64_t)smid << 16;
    m.post_idx = (m.post_idx + 1) % m.depth;
    m.outstanding[smid] = false;
    m.noutstanding--;
}

/* A finished request: answer now or later. */
static void complete(uint16_t smid)
{
    if (m.defer)
        m.pending[m.npending++] = smid;
    else
        post_reply(smid);
}

/* Answer every deferred request, last first. */
static void model_flush(void)
{
    while (m.npending)
        post_reply(m.pending[--m.npending]);
}

/* Answer the requests held back as "hung". */
static void model_release_held(void)
{
    while (m.nheld)
        post_reply(m.held[--m.nheld]);
}

/* IOC INIT: an MFA descriptor pointing at an MFI INIT frame. */
static void do_ioc_init(uint64_t desc)
{
    uint8_t *frame = host(desc & ~0xffull);
    const struct fusion_ioc_init *ioc;
    uint64_t ioc_pa;
    const volatile uint64_t *q;

    if ((desc & 0xff) != (0x1 << 1)) {
        violation("first descriptor 0x%016llx is not an MFA descriptor", (unsigned long long)desc);
        return;
    }
    if (frame[0] != 0x00 /* MFI_CMD_INIT */ || frame[2] != 0xff)
        violation("INIT frame cmd 0x%02x cmd_status 0x%02x", frame[0], frame[2]);
    if (!(*(uint16_t *)(frame + 0x10) & 0x0001))
        violation("INIT frame without DONT_POST_IN_REPLY_QUEUE");
    if (*(uint32_t *)(frame + 0x14) != 0x48)
        violation("INIT frame data length %u, not sizeof(MPI2_IOC_INIT_REQUEST)", *(uint32_t *)(frame + 0x14));
    ioc_pa = *(uint32_t *)(frame + 0x18) | ((uint64_t) * (uint32_t *)(frame + 0x1c) << 32);
    ioc = host(ioc_pa);
    if (ioc->function != 0x02 || ioc->who_init != 0x04 || ioc->msg_version != 0x0200 ||
        ioc->header_version != 0x1000)
        violation("IOC INIT function 0x%02x who 0x%02x version 0x%04x/0x%04x", ioc->function, ioc->who_init,
                  ioc->msg_version, ioc->header_version);
    if (ioc->system_request_frame_size != 256 / 4)
        violation("IOC INIT frame size %u dwords", ioc->system_request_frame_size);
    m.depth = ioc->reply_descriptor_post_queue_depth;
    if (m.depth < M_FW_CMDS || m.depth % 16)
        violation("reply queue depth %u (must be a multiple of 16 covering %u commands)", m.depth, M_FW_CMDS);
    m.reply_base = ioc->reply_descriptor_post_queue_address;
    m.req_base = ioc->system_request_frame_base_address;
    if (!m.reply_base || m.reply_base % 16 || !m.req_base || m.req_base % 16)
        violation("IOC INIT queue addresses 0x%llx / 0x%llx", (unsigned long long)m.reply_base,
                  (unsigned long long)m.req_base);
    q = host(m.reply_base);
    for (uint32_t i = 0; i < m.depth; i++)
        if (q[i] != ~0ull) {
            violation("reply descriptor %u not initialised to all-ones", i);
            break;
        }
    /* Driver capabilities (MFI_CAPABILITIES at frame bytes 4..7): the
     * ones Linux megasas_ioc_init_fusion always sets and a firmware-path
     * driver can claim, and extended I/O size exactly when the chain
     * frame is larger than 1 KiB (4 KiB on this Invader, 1 KiB on
     * Thunderbolt). */
    m.caps = *(uint32_t *)(frame + 4);
    if ((m.caps & M_CAPS_REQUIRED) != M_CAPS_REQUIRED)
        violation("IOC INIT driver capabilities 0x%08x lack 0x%08x", m.caps, M_CAPS_REQUIRED & ~m.caps);
    if (!!(m.caps & (1u << 8)) != (m.gen == M_INVADER))
        violation("IOC INIT support_ext_io_size %s with a %u-byte chain frame", (m.caps & (1u << 8)) ? "set" : "clear",
                  m.gen == M_INVADER ? 4096u : 1024u);
    if (m.caps & (1u << 1))
        violation("IOC INIT claims additional MSI-X with no vector enabled");
    frame[2] = 0x00; /* MFI_STAT_OK */
    m.inited = true;
    m.osp0 = M_STATE_OPERATIONAL | (M_FW_SGE << 16) | M_FW_CMDS;
}

/* A DCMD in an MFI frame. */
/* An MFI PD SCSI I/O frame (cmd 04h) through the pass-through function:
 * the array member pd10 answers as the SAS disk it is; only the
 * read-only health commands (INQUIRY, LOG SENSE) may reach it; a device
 * id the PD list does not have is refused (DEVICE NOT FOUND). */
static uint8_t do_mfi_pd(uint8_t *f)
{
    uint32_t len = *(uint32_t *)(f + 0x14);
    const uint8_t *cdb = f + 0x20;
    uint8_t *sense = host(*(uint32_t *)(f + 0x18) | (uint64_t) * (uint32_t *)(f + 0x1c) << 32);
    struct scsi_target t;
    struct scsi_target_reply sr;

    if (f[4] != 10) {
        m.pd_not_found++;
        return 0x0c;
    }
    m.member_cmds++;
    if (cdb[0] != 0x12 && cdb[0] != 0x4d)
        violation("RAID member pd10 sent opcode 0x%02x", cdb[0]);
    if (len && (!(*(uint16_t *)(f + 0x10) & 0x0002) || !(*(uint16_t *)(f + 0x10) & 0x0010) ||
                *(uint32_t *)(f + 0x38) != len || f[7] != 1))
        violation("member frame SGE: flags 0x%04x, %u SGEs, length %u for %u bytes", *(uint16_t *)(f + 0x10), f[7],
                  *(uint32_t *)(f + 0x38), len);
    t = (struct scsi_target){ .vendor = "SEAGATE", .product = "ST4000NM0023", .revision = "GS0F",
                              .serial = "SN-PD10", .blocks = 1u << 20, .block_bytes = 512, .log = m.member_log };
    scsi_target_exec(&t, cdb, len ? host(*(uint64_t *)(f + 0x30)) : NULL, len, &sr); /* SGE at 0x30 */
    if (sr.status != SCSI_TARGET_GOOD) {
        memcpy(sense, sr.sense, sr.sense_len);
        f[3] = sr.status;
        return 0x2d;
    }
    return 0x00;
}

static uint8_t do_dcmd(uint8_t *f)
{
    uint32_t opcode = *(uint32_t *)(f + 0x18), len = *(uint32_t *)(f + 0x14);
    uint8_t *mbox = f + 0x1c;
    uint8_t *buf = len ? host(*(uint64_t *)(f + 0x28)) : NULL;

    if (f[0] != 0x05)
        violation("pass-through MFI frame cmd 0x%02x, not DCMD", f[0]);
    if (len && (!(*(uint16_t *)(f + 0x10) & 0x0002) || *(uint32_t *)(f + 0x30) != len))
        violation("DCMD 0x%08x SGE: flags 0x%04x length %u for %u bytes", opcode, *(uint16_t *)(f + 0x10),
                  *(uint32_t *)(f + 0x30), len);
    if (buf)
        memset(buf, 0, len);
    switch (opcode) {
    case 0x01010000: /* controller info */
        m.dcmd_ctrl_info++;
        memcpy(buf + 0x540, "PERC H730P Mini (model)", 23);
        *(uint32_t *)(buf + 0x5bc) = m.max_request_size;
        *(uint16_t *)(buf + 0x5da) = m.max_strips;     /* max_strips_per_io */
        buf[0x5e8] = m.stripe_min;                     /* stripe_sz_ops.min */
        if (m.seq_map)
            *(uint32_t *)(buf + 0x7e8) = 1u << 24;    /* adapterOperations3.useSeqNumJbodFP */
        return 0;
    case 0x0200e102: /* JBOD sequence map: size, count, 8-byte entries by device id */
        m.dcmd_jbod_map++;
        if (!m.seq_map)
            return 0x01; /* firmware without the map: invalid command */
        if (len != 8 + 256 * 8 || !(*(uint16_t *)(f + 0x10) & 0x0010))
            violation("JBOD map DCMD: %u bytes flags 0x%04x (Linux reads 2056 bytes)", len, *(uint16_t *)(f + 0x10));
        *(uint32_t *)buf = 8 + 256 * 8;
        *(uint32_t *)(buf + 4) = 256;
        *(uint16_t *)(buf + 8 + 9 * 8) = m.pd_seq;
        *(uint16_t *)(buf + 8 + 9 * 8 + 2) = M_PD9_HANDLE;
        buf[8 + 9 * 8 + 4] = m.pd_tm_capable ? 1 : 0;
        *(uint16_t *)(buf + 8 + 10 * 8 + 2) = 0x0022;  /* the array member has a handle too */
        return 0;
    case 0x03010000: /* LD list: count at 0, 16-byte entries from 8 */
        m.dcmd_ld_list++;
        *(uint32_t *)buf = 2;
        buf[8 + 0] = 3, buf[8 + 4] = 3;           /* target 3 optimal */
        buf[8 + 16 + 0] = 0, buf[8 + 16 + 4] = 3; /* target 0 optimal */
        return 0;
    case 0x02010100: /* PD list query: size, count, 24-byte addresses from 8 */
        m.dcmd_pd_list++;
        if (mbox[0] != 5)
            violation("PD list query type %u, not 'exposed to host'", mbox[0]);
        *(uint32_t *)(buf + 4) = 3;
        *(uint16_t *)(buf + 8) = 9, buf[8 + 6] = 0x00;           /* system disk */
        *(uint16_t *)(buf + 32) = 10, buf[32 + 6] = 0x00;        /* array member */
        *(uint16_t *)(buf + 56) = 20, buf[56 + 6] = 0x0d;        /* enclosure */
        return 0;
    case 0x02020000: { /* PD info: fw_state at 0xb8 */
        uint16_t id = (uint16_t)(mbox[0] | mbox[1] << 8);
        m.dcmd_pd_info++;
        *(uint16_t *)buf = id;
        *(uint16_t *)(buf + 0xb8) = id == 9 ? 0x40 : 0x18;
        return 0;
    }
    case 0x04010000: { /* configuration: array 1 {pd10} for ld3, array 2 {pd11} for ld0 */
        static uint8_t cfg[32 + 2 * 288 + 2 * 256];
        uint8_t *ar = cfg + 32, *ld = cfg + 32 + 2 * 288;

        memset(cfg, 0, sizeof(cfg));
        *(uint32_t *)cfg = sizeof(cfg);
        *(uint16_t *)(cfg + 4) = 2, *(uint16_t *)(cfg + 6) = 288;
        *(uint16_t *)(cfg + 8) = 2, *(uint16_t *)(cfg + 10) = 256;
        for (unsigned a = 0; a < 2; a++) {
            for (unsigned r = 0; r < 32; r++)
                *(uint16_t *)(ar + a * 288 + 32 + r * 8) = 0xffff;
            ar[a * 288 + 8] = 1, *(uint16_t *)(ar + a * 288 + 10) = (uint16_t)(a + 1);
            *(uint16_t *)(ar + a * 288 + 32) = (uint16_t)(10 + a), *(uint16_t *)(ar + a * 288 + 36) = 0x18;
        }
        ld[0] = 3, ld[0x25] = 1, *(uint16_t *)(ld + 0x40 + 0x10) = 1;
        ld[256] = 0, ld[256 + 0x25] = 1, *(uint16_t *)(ld + 256 + 0x40 + 0x10) = 2;
        m.cfg_reads++;
        memcpy(buf, cfg, len < sizeof(cfg) ? len : sizeof(cfg));
        return 0;
    }
    case 0x01101000: /* cache flush */
        m.dcmd_flush++;
        return 0;
    default:
        violation("unexpected DCMD 0x%08x", opcode);
        return 0x02; /* invalid DCMD */
    }
}

/* The medium of disk ctx (a struct m_disk). */
static void disk_read(void *ctx, uint64_t lba, uint32_t blocks, uint8_t *buf)
{
    const struct m_disk *d = ctx;

    for (uint32_t b = 0; b < blocks; b++)
        for (uint32_t w = 0; w < d->block / 8; w++)
            ((uint64_t *)buf)[(size_t)b * d->block / 8 + w] = pattern(d->id, lba + b, w);
}

/* What the firmware answers for an LD, or what a system PD answers
 * itself, as a SCSI target (tests/unit/scsi_target.h). */
static struct scsi_target disk_target(const struct m_disk *d, char *serial, size_t serial_len)
{
    snprintf(serial, serial_len, "SN-%s%u", d->logical ? "LD" : "PD", d->id);
    return (struct scsi_target){ .vendor = d->logical ? "DELL" : "SEAGATE",
                                 .product = d->logical ? "PERC H730P Mini" : "ST4000NM0023",
                                 .revision = d->logical ? "4.30" : "GS0F", .serial = serial,
                                 .blocks = d->blocks, .block_bytes = d->block, .read = disk_read, .ctx = (void *)d };
}

/* A SCSI status other than GOOD: "SCSI done with error", the status and
 * its sense in the request's sense buffer. */
static void scsi_error(struct fusion_raid_context *rc, uint8_t *sense, const struct scsi_target_reply *sr)
{
    rc->status = 0x2d, rc->ex_status = sr->status;
    memset(sense, 0, 96);
    memcpy(sense, sr->sense, sr->sense_len);
}

/* An LD IO request (function 0xf1) to an LD or system PD, or (fast) an
 * MPI2 SCSI IO to a system PD's device handle. */
static void do_scsi(uint16_t smid, struct fusion_io_request *r, uint8_t type, uint16_t desc_handle, bool fast)
{
    struct fusion_raid_context *rc = &r->raid_context;
    bool logical = !fast && r->dev_handle != 0xffff;
    const struct m_disk *d = fast ? find_disk(false, (uint16_t)(rc->virtual_disk_tgt_id - 255))
                                  : find_disk(logical, rc->virtual_disk_tgt_id);
    uint8_t op = r->cdb[0], cdb_len = op >= 0x80 ? 16 : op >= 0x20 ? 10 : 6;
    bool rw = op == 0x28 || op == 0x88 || op == 0x2a || op == 0x8a;
    uint8_t *buf = r->data_length ? host(r->sgl[0].addr) : NULL;
    uint8_t *sense = host(r->sense_buffer_low);
    uint64_t lba = 0;
    uint32_t blocks = 0;
    struct scsi_target t;
    struct scsi_target_reply sr;
    char serial[16];

    rc->status = 0, rc->ex_status = 0;
    if (!d) {
        violation("I/O to unknown %s %u", logical ? "LD" : "PD", rc->virtual_disk_tgt_id);
        rc->status = 0x0c; /* device not found */
        complete(smid);
        return;
    }
    if (desc_handle != r->dev_handle)
        violation("descriptor DevHandle 0x%04x, frame 0x%04x", desc_handle, r->dev_handle);
    if (r->sgl_offset0 != 0x80 / 4 || r->sgl_flags != 0x02 || r->sense_buffer_length != 96 || !r->sense_buffer_low)
        violation("SCSI request SGLOffset0 %u SGLFlags 0x%x sense %u@0x%x", r->sgl_offset0, r->sgl_flags,
                  r->sense_buffer_length, r->sense_buffer_low);
    if ((r->io_flags & 0x1f) != cdb_len)
        violation("IoFlags 0x%04x for a %u-byte CDB 0x%02x", r->io_flags, cdb_len, op);
    if (r->data_length) {
        if (rc->num_sge != 1 || r->sgl[0].len != r->data_length || !r->sgl[0].addr)
            violation("SGL: %u SGEs, first %u bytes for %u", rc->num_sge, r->sgl[0].len, r->data_length);
        if (m.gen == M_INVADER && !(r->sgl[0].flags & 0x40))
            violation("Invader: last SGE without END_OF_LIST (flags 0x%02x)", r->sgl[0].flags);
    } else if (rc->num_sge) {
        violation("%u SGEs for no data", rc->num_sge);
    }
    if (logical) {
        m.ld_requests++;
        if (r->dev_handle != d->id)
            violation("LD DevHandle 0x%04x for target %u", r->dev_handle, d->id);
        if (rw && m.gen == M_THUNDERBOLT && type != 0x7)
            violation("Thunderbolt LD read/write with descriptor type %u, not LD_IO", type);
        if (rw && m.gen == M_INVADER && (type != 0x2 || rc->type_nseg != 0x12))
            violation("Invader LD read/write: descriptor type %u, RAID context type/nseg 0x%02x", type, rc->type_nseg);
        if (!rw && type != 0)
            violation("LD non-read/write CDB with descriptor type %u", type);
    } else if (fast) {
        /* Fast path to a system drive (Linux megasas_build_syspd_fusion
         * with the JBOD sequence map): the FP_IO descriptor, the map's
         * device handle, target id + 255, the sequence check asked for,
         * CUDA context, FAST_PATH IoFlag on Invader. The firmware checks
         * the handle and the sequence number: a stale number comes back
         * as MFI_STAT_CONFIG_SEQ_MISMATCH, which Linux retries. */
        m.fp_requests++;
        if (!m.seq_map || m.dcmd_jbod_map == 0)
            violation("fast-path system drive I/O without the JBOD sequence map");
        if (type != 0x6 || ((rc->raid_flags >> 4) & 3) != 1 || rc->type_nseg != 0x12 ||
            (rc->reg_lock_flags & 0x88) != 0x88 || (m.gen == M_INVADER && !(r->io_flags & 0x4000)))
            violation("fast-path PD request: descriptor type %u, RAID flags 0x%02x, type/nseg 0x%02x, lock flags "
                      "0x%02x, IoFlags 0x%04x", type, rc->raid_flags, rc->type_nseg, rc->reg_lock_flags, r->io_flags);
        if (r->dev_handle != M_PD9_HANDLE) {
            violation("fast-path PD request to device handle 0x%04x, PD 9 is 0x%04x", r->dev_handle, M_PD9_HANDLE);
            rc->status = 0x0c; /* device not found */
            complete(smid);
            return;
        }
        if (rc->config_seq_num != m.pd_seq) {
            m.seq_mismatches++;
            rc->status = 0x67; /* MFI_STAT_CONFIG_SEQ_MISMATCH */
            complete(smid);
            return;
        }
    } else {
        m.pd_requests++;
        if (type != 0 || ((rc->raid_flags >> 4) & 3) != 1)
            violation("system PD request: descriptor type %u, RAID flags 0x%02x", type, rc->raid_flags);
    }
    if (rw) {
        bool write, read;

        scsi_target_rw(r->cdb, &write, &lba, &blocks);
        read = !write;
        if (r->data_length != blocks * d->block || lba + blocks > d->blocks)
            violation("%s of %u blocks at %llu with DataLength %u", read ? "READ" : "WRITE", blocks,
                      (unsigned long long)lba, r->data_length);
        if (r->control != (read ? 0x02000000u : 0x01000000u))
            violation("Control 0x%08x for a %s", r->control, read ? "read" : "write");
        if (!d->logical && m.busy_left && read) {
            m.busy_left--;
            m.busy_answers++;
            rc->status = 0x2d, rc->ex_status = m.busy_status; /* SCSI done with error: BUSY / TASK SET FULL */
            complete(smid);
            return;
        }
        if (m.hold && read && lba == m.hold_lba) {
            m.held[m.nheld++] = smid; /* hung: never answered unless released */
            return;
        }
        if (m.medium_error && lba <= m.medium_error_lba && m.medium_error_lba < lba + blocks) {
            scsi_target_fail(&sr, SCSI_TARGET_KEY_MEDIUM_ERROR, 0x11, 0x00); /* MEDIUM ERROR 11/00 */
            scsi_error(rc, sense, &sr);
            complete(smid);
            return;
        }
        if (m.offline && lba == m.offline_lba) {
            rc->status = 0x33; /* LD offline */
            complete(smid);
            return;
        }
    }
    t = disk_target(d, serial, sizeof(serial));
    if (!d->logical)
        t.log = m.pd_log;
    scsi_target_exec(&t, r->cdb, buf, r->data_length, &sr);
    if (sr.status != SCSI_TARGET_GOOD)
        scsi_error(rc, sense, &sr);
    m.reads += t.reads;
    m.writes += t.writes;
    complete(smid);
}

/* MPI2 SCSI task management (Linux megasas_issue_tm): a high-priority
 * descriptor; ABORT_TASK gives back the hung command it names (answering
 * it first, as the firmware completes the aborted I/O before the TM),
 * TARGET_RESET every hung command of that device handle. */
static void do_tm(uint16_t smid, struct fusion_io_request *r, uint8_t type)
{
    const struct fusion_tm_request *tm = (const struct fusion_tm_request *)r;

    m.tm_requests++;
    if (type != 0x3)
        violation("task management with descriptor type %u, not high priority", type);
    if (tm->tm_req_flags != 0x2 || tm->dev_handle != M_PD9_HANDLE)
        violation("task management to handle 0x%04x flags 0x%x", tm->dev_handle, tm->tm_req_flags);
    if (!m.pd_tm_capable)
        violation("task management to a device the map does not mark TM-capable");
    for (unsigned i = 0; i < m.nheld;) {
        struct fusion_io_request *h = host(m.req_base + (uint64_t)m.held[i] * 256);
        bool hit = h->dev_handle == tm->dev_handle &&
                   ((tm->task_type == 0x01 && m.held[i] == tm->task_mid && !m.ignore_abort) || tm->task_type == 0x03);
        if (hit) {
            uint16_t hs = m.held[i];
            m.held[i] = m.held[--m.nheld];
            h->raid_context.status = 0x2d, h->raid_context.ex_status = 0x40; /* TASK ABORTED */
            post_reply(hs);
        } else {
            i++;
        }
    }
    if (tm->task_type == 0x01)
        m.tm_aborts++;
    else if (tm->task_type == 0x03)
        m.tm_target_resets++;
    else
        violation("task management type 0x%02x", tm->task_type);
    complete(smid);
}

/* A request descriptor arrived (high half written). */
static void doorbell(uint64_t desc)
{
    uint8_t type = (uint8_t)((desc >> 1) & 0x7);
    uint16_t smid = (uint16_t)(desc >> 16), handle = (uint16_t)(desc >> 48);
    struct fusion_io_request *r;

    if (!m.inited) {
        do_ioc_init(desc);
        return;
    }
    /* The driver must keep one command back (reply queue sizing) and
     * never use SMID 0. */
    if (smid < 1 || smid >= M_FW_CMDS) {
        violation("SMID %u outside 1..%u", smid, M_FW_CMDS - 1);
        return;
    }
    if (m.outstanding[smid]) {
        violation("SMID %u posted again while the firmware still owns it", smid);
        return;
    }
    m.outstanding[smid] = true;
    if (++m.noutstanding > m.max_outstanding)
        m.max_outstanding = m.noutstanding;
    r = host(m.req_base + (uint64_t)smid * 256);
    switch (r->function) {
    case 0xf0: {
        struct fusion_sge *chain = &r->sgl[0];
        /* The chain length is the chain frame size: 1 KiB on Thunderbolt,
         * what scratch pad 1 says (4 KiB here) on Invader. */
        if (type != 0 || r->chain_offset != 0x80 / 16 || r->sgl_offset0 != 0x80 / 4 || chain->flags != 0x83 ||
            chain->len != (m.gen == M_INVADER ? 4096u : 1024u))
            violation("pass-through: type %u chain offset %u SGL offset %u chain flags 0x%02x length %u", type,
                      r->chain_offset, r->sgl_offset0, chain->flags, chain->len);
        if (((uint8_t *)host(chain->addr))[0] == 0x06) {
            /* MFI ABORT: give back the pass-through whose MFI frame it
             * names (Linux megasas_issue_blocked_abort_cmd), then answer. */
            uint8_t *ab = host(chain->addr);
            uint64_t target = *(uint32_t *)(ab + 0x20) | (uint64_t) * (uint32_t *)(ab + 0x24) << 32;
            for (unsigned i = 0; i < m.nheld; i++) {
                struct fusion_io_request *h = host(m.req_base + (uint64_t)m.held[i] * 256);
                if (h->function == 0xf0 && h->sgl[0].addr == target) {
                    uint16_t hs = m.held[i];
                    m.held[i] = m.held[--m.nheld];
                    ((uint8_t *)host(target))[2] = 0x2e;
                    post_reply(hs);
                    m.dcmd_aborts++;
                    break;
                }
            }
            ab[2] = 0x00;
            complete(smid);
            break;
        }
        if (m.hang_dcmd && *(uint32_t *)((uint8_t *)host(chain->addr) + 0x18) == m.hang_dcmd) {
            /* Hung firmware: the driver's 60 s deadline passes now. */
            m.held[m.nheld++] = smid;
            plat_sim_advance_ns(61ull * 1000000000ull);
            break;
        }
        if (((uint8_t *)host(chain->addr))[0] == 0x04)
            ((uint8_t *)host(chain->addr))[2] = do_mfi_pd(host(chain->addr));
        else
            ((uint8_t *)host(chain->addr))[2] = do_dcmd(host(chain->addr));
        complete(smid);
        break;
    }
    case 0xf1:
        do_scsi(smid, r, type, handle, false);
        break;
    case 0x00:
        do_scsi(smid, r, type, handle, true);
        break;
    case 0x01:
        do_tm(smid, r, type);
        break;
    default:
        violation("SMID %u: function 0x%02x", smid, r->function);
        m.outstanding[smid] = false;
        m.noutstanding--;
    }
}

static uint32_t m_read(void *ctx, int bar, uint32_t off)
{
    (void)ctx, (void)bar;
    switch (off) {
    case 0xb0:
        m.status_reads++;
        if (m.stuck)
            plat_sim_advance_ns(1000000000ull); /* each look costs a second: deadlines pass at once */
        if (m.booting) {
            plat_sim_advance_ns(1000000000ull);
            if (++m.boot_reads_done >= m.boot_reads) {
                m.booting = false;
                m.osp0 = M_STATE_READY | (M_FW_SGE << 16) | M_FW_CMDS;
            } else {
                m.osp0 = M_STATE_FW_INIT | (m.boot_reads_done / m.boot_step);
            }
        }
        return m.osp0;
    case 0xb4:
        return 0x00400000u | (8u << 5); /* 1 MiB units, 8 x 512: 4 KiB chain frames */
    case 0x08:
        m.status_reads++;
        return m.diag;
    default:
        return 0; /* doorbell bit 0 clear, interrupt status clear */
    }
}

static void m_write(void *ctx, int bar, uint32_t off, uint32_t v)
{
    (void)ctx, (void)bar;
    switch (off) {
    case 0x04: { /* write sequence: 0, f, 4, b, 2, 7, d unlock HostDiagnostic */
        static const uint32_t keys[] = { 0x0, 0xf, 0x4, 0xb, 0x2, 0x7, 0xd };

        m.seq_writes++;
        m.seq_pos = v == keys[m.seq_pos] ? m.seq_pos + 1 : v == keys[0] ? 1 : 0;
        if (m.seq_pos == sizeof(keys) / sizeof(keys[0])) {
            m.seq_pos = 0;
            if (!m.diag_dead)
                m.diag |= 0x80;
        }
        break;
    }
    case 0x08: /* HostDiagnostic: RESET_ADAPTER resets the chip (done at once); nothing is owned after */
        if (!(m.diag & 0x80)) {
            violation("HostDiagnostic 0x%08x written while locked", v);
            break;
        }
        if (v & 0x04) {
            m.adapter_resets++;
            m.diag = 0;
            m.osp0 = M_STATE_READY | (M_FW_SGE << 16) | M_FW_CMDS;
            m.inited = false;
            m.nheld = 0;
            m.npending = 0;
            memset(m.outstanding, 0, sizeof(m.outstanding));
            m.noutstanding = 0;
        }
        break;
    case 0x00: /* doorbell: READY | MFIMODE | ABORT takes an operational firmware to READY */
        if (v == 0x7 && m.reset_ignored)
            break;
        if (v == 0x7 && (m.osp0 & M_STATE_MASK) == M_STATE_OPERATIONAL) {
            m.osp0 = M_STATE_READY | (M_FW_SGE << 16) | M_FW_CMDS;
            m.reset_to_ready = true;
            m.inited = false;
        }
        break;
    case 0x6c:
        if (v >= m.depth)
            violation("reply post host index %u beyond depth %u", v, m.depth);
        m.host_index = v;
        m.host_index_writes++;
        break;
    case 0xc0:
        m.lo = v;
        m.lo_written = true;
        break;
    case 0xc4:
        if (!m.lo_written)
            violation("IQPH written without IQPL");
        m.lo_written = false;
        m.posts_split++;
        doorbell((uint64_t)v << 32 | m.lo);
        break;
    default:
        break;
    }
}

/* An 8-byte write (Linux megasas_write_64bit_req_desc: writeq to the
 * inbound low queue port): the whole descriptor at IQPL, and nowhere else. */
static void m_write64(void *ctx, int bar, uint32_t off, uint64_t v)
{
    (void)ctx, (void)bar;
    if (off != 0xc0) {
        violation("8-byte write to 0x%x (descriptors go whole to IQPL at 0xc0)", off);
        return;
    }
    if (m.lo_written)
        violation("8-byte descriptor while IQPL holds the low half of another");
    m.lo_written = false;
    m.posts_whole++;
    doorbell(v);
}

/* Attach a model of the given chip at 0000:04:00.0. */
static struct pci_addr model_attach(uint16_t device, enum m_gen gen)
{
    struct pci_addr a = { 0, 4, 0, 0 };

    memset(&m, 0, sizeof(m));
    memset(&dev, 0, sizeof(dev));
    m.gen = gen;
    m.osp0 = M_STATE_READY | (M_FW_SGE << 16) | M_FW_CMDS;
    m.max_request_size = 512;   /* 256 KiB per command */
    dev.addr = a;
    dev.ctx = &m;
    dev.mmio_read32 = m_read;
    dev.mmio_write32 = m_write;
    dev.mmio_write64 = m_write64;
    dev.config[0] = 0x00, dev.config[1] = 0x10;
    dev.config[2] = (uint8_t)device, dev.config[3] = (uint8_t)(device >> 8);
    dev.config[0x0b] = 0x01, dev.config[0x0a] = 0x04;    /* RAID controller */
    dev.config[0x10] = 0x01;                              /* BAR0: I/O */
    dev.config[0x14] = 0x04;                              /* BAR1: 64-bit memory, the registers */
    dev.bar_size[1] = 0x10000;
    plat_sim_attach(&dev);
    return a;
}

#define assert_model_clean() \
    do { \
        if (m.violations) \
            fail_msg("model saw %u violation(s), first: %s", m.violations, m.first_violation); \
    } while (0)

/* Poll one disk until n completions are in (bounded). */
static int reap(struct bm_disk *d, struct bm_completion *out, int n)
{
    int got = 0;

    for (int spin = 0; spin < 100000 && got < n; spin++)
        got += d->ops->poll(d, 0, out + got, n - got);
    return got;
}

/* Does a buffer hold the model's pattern for these blocks? */
static bool pattern_ok(const uint8_t *buf, uint16_t id, uint64_t lba, uint32_t blocks, uint32_t block)
{
    for (uint32_t b = 0; b < blocks; b++)
        for (uint32_t w = 0; w < block / 8; w++)
            if (((const uint64_t *)buf)[(size_t)b * block / 8 + w] != pattern(id, lba + b, w))
                return false;
    return true;
}

/* Probe a model of this chip; the list gets its disks. */
static void *probe(uint16_t device, enum m_gen gen, struct bm_disk_list *list)
{
    char err[160] = "";
    void *ctrl = NULL;
    struct pci_addr a = model_attach(device, gen);

    memset(list, 0, sizeof(*list));
    assert_true(megasas_driver.match(0x1000, device, 0x010400));
    assert_ptr_equal(registry_find(0x1000, device, 0x010400), &megasas_driver);
    if (megasas_driver.probe(a, 0, list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_non_null(ctrl);
    return ctrl;
}

/* Bring-up, discovery and identification. */
static void check_discovery(struct bm_disk_list *list)
{
    struct bm_disk *ld0, *ld3, *pd9;

    assert_model_clean();
    assert_true(m.inited);
    assert_int_equal(m.dcmd_ctrl_info, 1);
    assert_int_equal(m.dcmd_ld_list, 1);
    assert_int_equal(m.dcmd_pd_list, 1);
    assert_int_equal(m.dcmd_pd_info, 2);     /* the two disks; not the enclosure */
    assert_int_equal(list->count, 3);        /* LD 0, LD 3, PD 9; PD 10 is an array member */
    ld0 = list->disks[0], ld3 = list->disks[1], pd9 = list->disks[2];
    assert_string_equal(ld0->driver, "megasas");
    assert_string_equal(ld0->path, BM_PATH_NATIVE);
    assert_non_null(strstr(ld0->id, "d0"));
    assert_non_null(strstr(ld3->id, "d3"));
    assert_non_null(strstr(pd9->id, "p9"));
    assert_string_equal(ld0->serial, "SN-LD0");
    assert_string_equal(pd9->serial, "SN-PD9");
    assert_int_equal(ld3->blocks, 3u << 20);
    assert_int_equal(pd9->lba_bytes, 4096);
    assert_int_equal(pd9->blocks, 1u << 18);
    assert_string_equal(ld0->pci, "0000:04:00.0");
    assert_int_equal(ld0->max_transfer_bytes, 256 * 1024);  /* controller info: 512 sectors */
    assert_true(ld0->max_qd >= 32);
    assert_true(ld0->max_qd <= M_FW_CMDS - 1);
    assert_true(m.ld_requests > 0 && m.pd_requests > 0);
}

/* Many reads outstanding on two disks at once, answered out of order. */
static void check_deep_reads(struct bm_disk_list *list)
{
    struct bm_disk *ld3 = list->disks[1], *pd9 = list->disks[2];
    enum { QD_LD = 64, QD_PD = 32, LD_BLOCKS = 16, PD_BLOCKS = 2 };
    uint8_t *bufs[QD_LD + QD_PD];
    struct bm_completion done[QD_LD + QD_PD];
    bool seen[QD_LD + QD_PD] = { false };
    int n;

    m.defer = true;
    for (int t = 0; t < QD_LD + QD_PD; t++) {
        bool ld = t < QD_LD;
        struct bm_disk *d = ld ? ld3 : pd9;
        uint32_t tag = ld ? (uint32_t)t : (uint32_t)(t - QD_LD);
        uint32_t blocks = ld ? LD_BLOCKS : PD_BLOCKS;
        uint64_t lba = ld ? 1000 + (uint64_t)tag * 4099 : 77 + (uint64_t)tag * 31;

        bufs[t] = plat_alloc_pages((size_t)blocks * d->lba_bytes, false);
        assert_int_equal(d->ops->submit(d, 0, tag, BM_IO_READ, lba, blocks, bufs[t]), BM_OK);
    }
    assert_int_equal(m.max_outstanding, QD_LD + QD_PD);
    /* Nothing answered yet: polls find nothing. */
    assert_int_equal(ld3->ops->poll(ld3, 0, done, QD_LD), 0);
    model_flush();
    n = reap(ld3, done, QD_LD);
    assert_int_equal(n, QD_LD);
    n += reap(pd9, done + QD_LD, QD_PD);
    assert_int_equal(n, QD_LD + QD_PD);
    for (int i = 0; i < n; i++) {
        bool ld = i < QD_LD;
        int t = ld ? (int)done[i].tag : (int)done[i].tag + QD_LD;
        uint64_t lba = ld ? 1000 + (uint64_t)done[i].tag * 4099 : 77 + (uint64_t)done[i].tag * 31;

        assert_int_equal(done[i].status, BM_OK);
        assert_false(seen[t]);
        seen[t] = true;
        assert_true(pattern_ok(bufs[t], ld ? 3 : 9, lba, ld ? LD_BLOCKS : PD_BLOCKS, ld ? 512 : 4096));
    }
    for (int t = 0; t < QD_LD + QD_PD; t++)
        plat_free_pages(bufs[t], (size_t)(t < QD_LD ? LD_BLOCKS * 512 : PD_BLOCKS * 4096));
    m.defer = false;
    assert_true(m.host_index_writes > 0);
    assert_int_equal(m.host_index, m.post_idx);
    assert_model_clean();
}

/* Go round the reply queue several times at queue depth 32, with a large
 * (READ(16)-sized) LBA on the way. */
static void check_wraparound(struct bm_disk_list *list)
{
    struct bm_disk *ld0 = list->disks[0];
    uint8_t *buf = plat_alloc_pages(32 * 4096, false);
    struct bm_completion done[32];
    unsigned total = 0;

    for (int round = 0; round < 40; round++) {
        for (uint32_t tag = 0; tag < 32; tag++)
            assert_int_equal(ld0->ops->submit(ld0, 0, tag, BM_IO_READ, (uint64_t)round * 32 + tag * 8, 8,
                                              buf + tag * 4096),
                             BM_OK);
        assert_int_equal(reap(ld0, done, 32), 32);
        for (int i = 0; i < 32; i++) {
            assert_int_equal(done[i].status, BM_OK);
            assert_true(pattern_ok(buf + done[i].tag * 4096, 0, (uint64_t)round * 32 + done[i].tag * 8, 8, 512));
        }
        total += 32;
    }
    assert_true(total > 2 * m.depth);
    plat_free_pages(buf, 32 * 4096);
    assert_model_clean();
}

/* Release: cache flush DCMD, then back to READY. */
static void check_release(void *ctrl)
{
    unsigned flushes = m.dcmd_flush;

    megasas_driver.release(ctrl);
    assert_int_equal(m.dcmd_flush, flushes + 1);
    assert_true(m.reset_to_ready);
    assert_int_equal(m.osp0 & M_STATE_MASK, M_STATE_READY);
    assert_int_equal(dev.releases, 1);
    assert_model_clean();
    plat_sim_detach(&dev);
}

static void test_invader_bringup_io_release(void **state)
{
    struct bm_disk_list list;
    void *ctrl;

    (void)state;
    ctrl = probe(0x005d, M_INVADER, &list);
    check_discovery(&list);
    check_deep_reads(&list);
    check_wraparound(&list);
    check_release(ctrl);
}

static void test_thunderbolt_bringup_io_release(void **state)
{
    struct bm_disk_list list;
    void *ctrl;

    (void)state;
    ctrl = probe(0x005b, M_THUNDERBOLT, &list);
    check_discovery(&list);
    check_deep_reads(&list);
    check_release(ctrl);
}

static void test_fury_is_driven_like_invader(void **state)
{
    struct bm_disk_list list;
    void *ctrl;

    (void)state;
    ctrl = probe(0x005f, M_INVADER, &list);
    check_discovery(&list);
    check_wraparound(&list);
    check_release(ctrl);
}

/* Writes carry the WRITE control bit and data direction. */
static void test_writes_reach_the_model(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[4];
    uint8_t *buf = plat_alloc_pages(8192, false);
    void *ctrl;

    (void)state;
    ctrl = probe(0x005d, M_INVADER, &list);
    assert_int_equal(list.disks[2]->ops->submit(list.disks[2], 0, 5, BM_IO_WRITE, 10, 2, buf), BM_OK);
    assert_int_equal(list.disks[0]->ops->submit(list.disks[0], 0, 6, BM_IO_WRITE, 10, 16, buf), BM_OK);
    assert_int_equal(reap(list.disks[2], done, 1), 1);
    assert_int_equal(done[0].tag, 5);
    assert_int_equal(done[0].status, BM_OK);
    assert_int_equal(reap(list.disks[0], done, 1), 1);
    assert_int_equal(done[0].tag, 6);
    assert_int_equal(m.writes, 2);
    /* Arguments the driver must refuse without touching the hardware. */
    assert_int_equal(list.disks[0]->ops->submit(list.disks[0], 0, 1, BM_IO_READ, list.disks[0]->blocks, 1, buf),
                     BM_EINVAL);
    assert_int_equal(list.disks[0]->ops->submit(list.disks[0], 0, list.disks[0]->max_qd, BM_IO_READ, 0, 1, buf),
                     BM_EINVAL);
    plat_free_pages(buf, 8192);
    check_release(ctrl);
}

/* Each command is posted with one MMIO write: the whole 64-bit request
 * descriptor to IQPL, as Linux does on 64-bit kernels (a descriptor names
 * one SMID, so a batch of commands cannot share a post; the reply side
 * already writes the host index once per drained batch). The model
 * refuses a descriptor written anywhere but IQPL, or a high half alone. */
static void test_each_request_is_posted_with_one_8_byte_write_and_a_wrong_post_is_refused(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[32];
    uint8_t *buf = plat_alloc_pages(32 * 4096, false);
    struct bm_disk *ld0;
    unsigned whole, idx_writes;
    void *ctrl;

    (void)state;
    ctrl = probe(0x005d, M_INVADER, &list);
    ld0 = list.disks[0];
    whole = m.posts_whole;
    idx_writes = m.host_index_writes;
    for (uint32_t tag = 0; tag < 32; tag++)
        assert_int_equal(ld0->ops->submit(ld0, 0, tag, BM_IO_READ, tag * 8, 8, buf + tag * 4096), BM_OK);
    assert_int_equal(m.posts_whole, whole + 32);
    assert_int_equal(m.posts_split, 0);
    assert_int_equal(reap(ld0, done, 32), 32);
    assert_true(m.host_index_writes - idx_writes <= 2); /* the instant model answers all 32 before the poll */
    assert_model_clean();

    mmio_write64_whole(dev.bar_window[1], 0xc4, 0x0000000100010000ull);
    assert_int_equal(m.violations, 1);
    assert_non_null(strstr(m.first_violation, "8-byte write to 0xc4"));
    m.violations = 0;
    mmio_write32(dev.bar_window[1], 0xc4, 0);
    assert_true(m.violations >= 1);    /* and what the stale half then names */
    assert_non_null(strstr(m.first_violation, "IQPH written without IQPL"));
    m.violations = 0;
    plat_free_pages(buf, 32 * 4096);
    check_release(ctrl);
}

/* Firmware that never becomes READY: the probe gives up at its deadline
 * and says which state it was stuck in. */
static void test_stuck_firmware_fails_probe_with_state(void **state)
{
    struct bm_disk_list list = { .count = 0 };
    char err[160] = "";
    void *ctrl = NULL;
    struct pci_addr a = model_attach(0x005d, M_INVADER);
    uint64_t t0 = plat_now_ns();
    int rc;

    (void)state;
    m.osp0 = M_STATE_FW_INIT | M_FW_CMDS;
    m.stuck = true;
    rc = megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err));
    assert_int_equal(rc, BM_ETIMEDOUT);
    assert_null(ctrl);
    assert_int_equal(list.count, 0);
    assert_non_null(strstr(err, "FW_INIT"));
    assert_true(plat_now_ns() - t0 >= 60ull * 1000000000ull); /* it really waited (in model time) */
    assert_int_equal(dev.claims, 1);
    assert_int_equal(dev.releases, 1);
    assert_false(m.inited);
    plat_sim_detach(&dev);
}

/* Firmware that stays in FW_INIT for 300 s while its status word's low
 * bits move every 100 s: each change restarts the wait (Linux
 * megasas_transition_to_ready compares the whole word), the probe
 * succeeds. */
static void test_ready_wait_follows_the_status_word(void **state)
{
    struct bm_disk_list list = { .count = 0 };
    char err[160] = "";
    void *ctrl = NULL;
    struct pci_addr a = model_attach(0x005d, M_INVADER);

    (void)state;
    m.osp0 = M_STATE_FW_INIT;
    m.booting = true;
    m.boot_step = 100;
    m.boot_reads = 300;
    if (megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_int_equal(list.count, 3);
    check_release(ctrl);
}

/* A controller left OPERATIONAL (by its option ROM or an earlier run)
 * is taken back to READY through the doorbell before IOC INIT. */
static void test_operational_firmware_is_reset_first(void **state)
{
    struct bm_disk_list list = { .count = 0 };
    char err[160] = "";
    void *ctrl = NULL;
    struct pci_addr a = model_attach(0x005d, M_INVADER);

    (void)state;
    m.osp0 = M_STATE_OPERATIONAL | (M_FW_SGE << 16) | M_FW_CMDS;
    if (megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_true(m.reset_to_ready);
    assert_true(m.inited);
    assert_int_equal(list.count, 3);
    m.reset_to_ready = false;
    check_release(ctrl);
}

/* A read the firmware does not answer in time: at the deadline its SMID,
 * tag and buffer stay held (no completion while the firmware may still
 * DMA into the buffer: Linux completes a timed-out command only from
 * scsi_eh_flush_done_q, once it is back), the other tags keep working
 * without reusing the SMID, and the firmware's late answer is what hands
 * tag 7 back, as BM_ETIMEDOUT naming the timeout. */
static void test_hung_command_times_out_and_holds_its_smid(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[64];
    uint8_t *buf = plat_alloc_pages(64 * 4096, false);
    struct bm_disk *ld0;
    void *ctrl;

    (void)state;
    ctrl = probe(0x005d, M_INVADER, &list);
    ld0 = list.disks[0];
    m.hold = true;
    m.hold_lba = 4242;
    assert_int_equal(ld0->ops->submit(ld0, 0, 7, BM_IO_READ, 4242, 8, buf), BM_OK);
    assert_int_equal(m.nheld, 1);
    assert_int_equal(ld0->ops->poll(ld0, 0, done, 4), 0);
    plat_sim_advance_ns(31ull * 1000000000ull);
    assert_int_equal(reap(ld0, done, 1), 0);
    /* The SMID is not reused: a full queue of new reads on the other tags
     * (the model flags reuse). */
    m.defer = true;
    for (uint32_t tag = 0; tag < 64; tag++)
        if (tag != 7)
            assert_int_equal(ld0->ops->submit(ld0, 0, tag, BM_IO_READ, 100 + tag, 1, buf + tag * 4096), BM_OK);
    model_flush();
    m.defer = false;
    assert_int_equal(reap(ld0, done, 63), 63);
    for (int i = 0; i < 63; i++)
        assert_int_equal(done[i].status, BM_OK);
    assert_model_clean();
    /* The late answer gives tag 7 back, once, as timed out. */
    model_release_held();
    assert_int_equal(reap(ld0, done, 4), 1);
    assert_int_equal(done[0].tag, 7);
    assert_int_equal(done[0].status, BM_ETIMEDOUT);
    assert_non_null(strstr(done[0].detail, "no completion in"));
    assert_int_equal(list.disks[1]->ops->poll(list.disks[1], 0, done, 4), 0);
    /* Afterwards the whole pool works again. */
    for (uint32_t tag = 0; tag < ld0->max_qd; tag++)
        assert_int_equal(ld0->ops->submit(ld0, 0, tag, BM_IO_READ, tag, 1, buf + (tag % 64) * 4096), BM_OK);
    for (uint32_t got = 0, n; got < ld0->max_qd; got += n) {
        n = (uint32_t)reap(ld0, done, (int)MIN(ld0->max_qd - got, 64u));
        assert_true(n > 0);
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(done[i].status, BM_OK);
    }
    assert_model_clean();
    plat_free_pages(buf, 64 * 4096);
    check_release(ctrl);
}

/* MegaRAID has no online adapter reset (OCR, Linux megasas_reset_fusion,
 * which runs from the SCSI error handler's thread): a command no task
 * management can reach (a logical drive) ends its recovery with "no host
 * reset" and stays held, and a firmware that then FAULTs with a second
 * command held is given up. Neither runs the adapter reset (write
 * sequence, HostDiagnostic) or waits for the firmware inside poll():
 * each poll reads the firmware status at most twice, and the other
 * logical drive completes a read between every two polls until the
 * FAULT. The adapter reset runs at release only. Passes on bb53c35 as on
 * this tree: it pins down that recovery from poll() never blocks on the
 * adapter reset. */
static void test_recovery_never_resets_the_adapter_inside_poll(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[4];
    uint8_t *buf = plat_alloc_pages(2 * 4096, false);
    struct bm_disk *ld0, *ld1;
    char rec[192] = "";
    unsigned reads_b = 0, most_status_reads = 0;
    void *ctrl;

    (void)state;
    ctrl = probe(0x005d, M_INVADER, &list);
    ld0 = list.disks[0];
    ld1 = list.disks[1];
    m.hold = true;
    m.hold_lba = 4242;
    assert_int_equal(ld0->ops->submit(ld0, 0, 7, BM_IO_READ, 4242, 1, buf), BM_OK);
    plat_sim_advance_ns(31ull * 1000000000ull);
    for (int i = 0; i < 200; i++) {
        unsigned before = m.status_reads;

        plat_sim_advance_ns(100ull * 1000000ull);
        if (i == 100) {
            /* The firmware FAULTs; another LD command is held and times out. */
            m.osp0 = (m.osp0 & ~M_STATE_MASK) | M_STATE_FAULT;
            assert_int_equal(ld1->ops->submit(ld1, 0, 3, BM_IO_READ, 4242, 1, buf + 4096), BM_OK);
            plat_sim_advance_ns(31ull * 1000000000ull);
        }
        assert_int_equal(ld0->ops->poll(ld0, 0, done, 4), 0);
        assert_int_equal(ld1->ops->poll(ld1, 0, done, 4), 0);
        most_status_reads = MAX(most_status_reads, m.status_reads - before);
        if (i < 100) {
            assert_int_equal(ld1->ops->submit(ld1, 0, 1, BM_IO_READ, 100u + (unsigned)i, 1, buf + 4096), BM_OK);
            assert_int_equal(reap(ld1, done, 1), 1);
            assert_int_equal(done[0].status, BM_OK);
            reads_b++;
        }
        if (i == 99) {
            ld0->ops->recovery(ld0, rec, sizeof(rec));
            if (!strstr(rec, "no host reset: held since "))
                fail_msg("the LD command's recovery does not say it stays held: \"%s\"", rec);
        }
    }
    ld1->ops->recovery(ld1, rec, sizeof(rec));
    if (!strstr(rec, "firmware FAULT") || !strstr(rec, "no host reset"))
        fail_msg("the FAULT is not named in the recovery: \"%s\"", rec);
    assert_int_equal(ld1->ops->submit(ld1, 0, 1, BM_IO_READ, 5, 1, buf + 4096), BM_EIO);
    if (m.seq_writes || m.adapter_resets || most_status_reads > 2)
        fail_msg("from poll(): %u write-sequence writes, %u adapter resets, up to %u status reads in one poll",
                 m.seq_writes, m.adapter_resets, most_status_reads);
    assert_int_equal(reads_b, 100);
    assert_int_equal(m.violations, 0);
    /* Release resets the faulted firmware, which took both commands back. */
    megasas_driver.release(ctrl);
    assert_int_equal(m.adapter_resets, 1);
    plat_sim_detach(&dev);
    plat_free_pages(buf, 2 * 4096);
}

/* SCSI and MFI errors come back as BM_EIO with readable detail; the
 * other commands are unaffected. */
static void test_errors_are_decoded(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[4];
    uint8_t *buf = plat_alloc_pages(16 * 4096, false);
    struct bm_disk *ld0, *pd9;
    void *ctrl;

    (void)state;
    ctrl = probe(0x005b, M_THUNDERBOLT, &list);
    ld0 = list.disks[0], pd9 = list.disks[2];
    m.medium_error = true;
    m.medium_error_lba = 505;
    m.offline = true;
    m.offline_lba = 9000;
    assert_int_equal(pd9->ops->submit(pd9, 0, 1, BM_IO_READ, 500, 8, buf), BM_OK);
    assert_int_equal(reap(pd9, done, 1), 1);
    assert_int_equal(done[0].status, BM_EIO);
    assert_non_null(strstr(done[0].detail, "MEDIUM ERROR"));
    assert_non_null(strstr(done[0].detail, "11/00"));
    assert_int_equal(ld0->ops->submit(ld0, 0, 2, BM_IO_READ, 9000, 1, buf), BM_OK);
    assert_int_equal(ld0->ops->submit(ld0, 0, 3, BM_IO_READ, 9001, 1, buf + 4096), BM_OK);
    assert_int_equal(reap(ld0, done, 2), 2);
    for (int i = 0; i < 2; i++) {
        if (done[i].tag == 2) {
            assert_int_equal(done[i].status, BM_EIO);
            assert_non_null(strstr(done[i].detail, "0x33"));
            assert_non_null(strstr(done[i].detail, "offline"));
        } else {
            assert_int_equal(done[i].tag, 3);
            assert_int_equal(done[i].status, BM_OK);
            assert_true(pattern_ok(buf + 4096, 0, 9001, 1, 512));
        }
    }
    plat_free_pages(buf, 16 * 4096);
    check_release(ctrl);
}

/* The driver uses every SMID but one of the firmware's command limit
 * (one kept back so the reply queue never fills), and says BM_EBUSY, not
 * an error, when the pool is exhausted. */
static void test_pool_is_firmware_limit_minus_one(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[64];
    uint8_t *buf = plat_alloc_pages(4096, false);
    unsigned submitted = 0, completed = 0;
    int rc = BM_OK;
    void *ctrl;

    (void)state;
    ctrl = probe(0x005d, M_INVADER, &list);
    m.defer = true;
    for (unsigned i = 0; i < 2 * M_FW_CMDS && rc == BM_OK; i++) {
        struct bm_disk *d = list.disks[i % 2];
        rc = d->ops->submit(d, 0, i / 2, BM_IO_READ, i, 1, buf);
        if (rc == BM_OK)
            submitted++;
    }
    assert_int_equal(rc, BM_EBUSY);
    assert_int_equal(submitted, M_FW_CMDS - 1);
    assert_int_equal(m.max_outstanding, M_FW_CMDS - 1);
    model_flush();
    m.defer = false;
    for (int spin = 0; spin < 1000 && completed < submitted; spin++)
        for (int k = 0; k < 2; k++) {
            int n = list.disks[k]->ops->poll(list.disks[k], 0, done, 64);
            for (int i = 0; i < n; i++)
                assert_int_equal(done[i].status, BM_OK);
            completed += (unsigned)n;
        }
    assert_int_equal(completed, submitted);
    plat_free_pages(buf, 4096);
    check_release(ctrl);
}

/* A DCMD the firmware never answers: discovery of system PDs gives up at
 * its deadline, the rest of the probe goes on, and the hung command gets
 * an MFI ABORT through the pass-through function; its SMID stays out of
 * use (the model flags reuse) until the firmware gives it back, and then
 * the whole pool works again. */
static void test_hung_dcmd_is_aborted_and_its_smid_comes_back(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[64];
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct pci_addr a = model_attach(0x005d, M_INVADER);
    char err[160] = "";
    void *ctrl = NULL;
    unsigned submitted = 0, completed = 0;
    int rc = BM_OK;

    (void)state;
    memset(&list, 0, sizeof(list));
    m.hang_dcmd = 0x02010100; /* PD list query */
    if (megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_int_equal(list.count, 2); /* the LDs; no system PDs */
    assert_int_equal(m.dcmd_pd_info, 0);
    assert_int_equal(m.dcmd_aborts, 1);
    assert_int_equal(m.nheld, 0);
    /* The next poll takes the two late answers quietly. */
    assert_int_equal(list.disks[0]->ops->poll(list.disks[0], 0, done, 4), 0);
    m.defer = true;
    for (unsigned i = 0; i < 2 * M_FW_CMDS && rc == BM_OK; i++) {
        struct bm_disk *d = list.disks[i % 2];
        rc = d->ops->submit(d, 0, i / 2, BM_IO_READ, i, 1, buf);
        if (rc == BM_OK)
            submitted++;
    }
    assert_int_equal(rc, BM_EBUSY);
    assert_int_equal(submitted, M_FW_CMDS - 1);
    assert_model_clean();
    model_flush();
    m.defer = false;
    for (int spin = 0; spin < 1000 && completed < submitted; spin++)
        for (int k = 0; k < 2; k++)
            completed += (unsigned)list.disks[k]->ops->poll(list.disks[k], 0, done, 64);
    assert_int_equal(completed, submitted);
    plat_free_pages(buf, 4096);
    check_release(ctrl);
}

/* IOC INIT announces the driver capabilities Linux sets that apply to a
 * polled firmware-path driver (the model checks the bits and that
 * extended I/O size follows the chain frame size). */
static void test_ioc_init_announces_driver_capabilities(void **state)
{
    struct bm_disk_list list;
    void *ctrl;

    (void)state;
    ctrl = probe(0x005d, M_INVADER, &list);
    assert_int_equal(m.caps & M_CAPS_REQUIRED, M_CAPS_REQUIRED);
    assert_true(m.caps & (1u << 8));
    check_release(ctrl);
    ctrl = probe(0x005b, M_THUNDERBOLT, &list);
    assert_int_equal(m.caps & M_CAPS_REQUIRED, M_CAPS_REQUIRED);
    assert_false(m.caps & (1u << 8));
    check_release(ctrl);
}

/* Largest command (Linux megasas_init_fw / megasas_init_adapter_fusion):
 * a PERC H710 (Thunderbolt, 1 KiB chain frames: 8 + 64 - 2 SGEs, 64
 * after rounding) gets 256 KiB even when controller info allows 1 MiB;
 * an Invader with 4 KiB chain frames gets 1 MiB, or strip size x strips
 * per I/O when that is smaller. */
static void test_transfer_capped_by_sge_count_and_strips(void **state)
{
    struct bm_disk_list list;
    struct pci_addr a;
    char err[160] = "";
    void *ctrl;

    (void)state;
    a = model_attach(0x005b, M_THUNDERBOLT);
    m.max_request_size = 2048;
    memset(&list, 0, sizeof(list));
    ctrl = NULL;
    if (megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_int_equal(list.disks[0]->max_transfer_bytes, 256 * 1024);
    check_release(ctrl);

    a = model_attach(0x005d, M_INVADER);
    m.max_request_size = 2048;
    memset(&list, 0, sizeof(list));
    ctrl = NULL;
    if (megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_int_equal(list.disks[0]->max_transfer_bytes, 1024 * 1024);
    check_release(ctrl);

    a = model_attach(0x005d, M_INVADER);
    m.max_request_size = 2048;
    m.stripe_min = 7;   /* 64 KiB strips */
    m.max_strips = 6;
    memset(&list, 0, sizeof(list));
    ctrl = NULL;
    if (megasas_driver.probe(a, 0, &list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_int_equal(list.disks[0]->max_transfer_bytes, 384 * 1024);
    check_release(ctrl);
}

/* Poll one disk until n completions are in, letting model time run a
 * millisecond per poll (BUSY back-off). */
static int reap_timed(struct bm_disk *d, struct bm_completion *out, int n)
{
    int got = 0;

    for (int spin = 0; spin < 20000 && got < n; spin++) {
        got += d->ops->poll(d, 0, out + got, n - got);
        plat_sim_advance_ns(1000000ull);
    }
    return got;
}

/* Probe with the JBOD sequence map on offer (controller info
 * useSeqNumJbodFP), PD 9 at sequence number 7. */
static void *probe_with_jbod_map(uint16_t device, enum m_gen gen, bool tm_capable, struct bm_disk_list *list)
{
    char err[160] = "";
    void *ctrl = NULL;
    struct pci_addr a = model_attach(device, gen);

    m.seq_map = true;
    m.pd_seq = 7;
    m.pd_tm_capable = tm_capable;
    memset(list, 0, sizeof(*list));
    if (megasas_driver.probe(a, 0, list, &ctrl, err, sizeof(err)) != BM_OK)
        fail_msg("probe failed: %s", err);
    assert_int_equal(list->count, 3);
    assert_int_equal(m.dcmd_jbod_map, 1);
    return ctrl;
}

/* System drive reads and writes take the fast path when the firmware has
 * the JBOD sequence map, as Linux megasas_build_syspd_fusion sends them:
 * SCSI IO to the map's device handle with its sequence number (the model
 * checks both), FP_IO descriptor. Identification stays on the firmware
 * path. */
static void test_jbod_io_takes_the_fast_path_with_the_sequence_map(void **state)
{
    static const struct { uint16_t device; enum m_gen gen; } chips[] = {
        { 0x005d, M_INVADER }, { 0x005b, M_THUNDERBOLT } };
    struct bm_disk_list list;
    struct bm_completion done[8];
    uint8_t *buf = plat_alloc_pages(8 * 8192, false);

    (void)state;
    for (size_t k = 0; k < 2; k++) {
        void *ctrl = probe_with_jbod_map(chips[k].device, chips[k].gen, false, &list);
        struct bm_disk *pd9 = list.disks[2];
        unsigned pd_before = m.pd_requests;

        for (uint32_t tag = 0; tag < 8; tag++)
            assert_int_equal(pd9->ops->submit(pd9, 0, tag, tag % 2 ? BM_IO_WRITE : BM_IO_READ, 100 + tag * 2, 2,
                                              buf + tag * 8192),
                             BM_OK);
        assert_int_equal(reap(pd9, done, 8), 8);
        for (int i = 0; i < 8; i++) {
            assert_int_equal(done[i].status, BM_OK);
            if (!(done[i].tag % 2))
                assert_true(pattern_ok(buf + done[i].tag * 8192, 9, 100 + done[i].tag * 2, 2, 4096));
        }
        assert_int_equal(m.fp_requests, 8);
        assert_int_equal(m.pd_requests, pd_before);
        assert_int_equal(m.seq_mismatches, 0);
        assert_model_clean();
        check_release(ctrl);
    }
    plat_free_pages(buf, 8 * 8192);
}

/* Health: a system (JBOD) drive answers LOG SENSE through a SCSI
 * pass-through frame; a logical drive itself is not asked (it has no
 * health log: its members are, test_member_health_of_logical_drive_through_mfi_pd_frames),
 * and a drive without LOG SENSE has no health log. */
static void test_health_of_system_drive_not_logical_drive(void **state)
{
    struct scsi_target_log log = { .temperature = 44, .ie = true };
    struct bm_disk_list list;
    struct bm_health h;
    void *ctrl;

    (void)state;
    ctrl = probe_with_jbod_map(0x005d, M_INVADER, false, &list);
    {
        struct bm_disk *ld = list.disks[0], *pd9 = list.disks[2];
        unsigned ld_before = m.ld_requests;

        assert_memory_equal(ld->id, "megasas0d", 9);
        assert_string_equal(pd9->id, "megasas0p9");
        assert_int_equal(ld->ops->health(ld, &h), BM_ENOTSUP);
        assert_int_equal(m.ld_requests, ld_before);
        assert_int_equal(pd9->ops->health(pd9, &h), BM_ENOTSUP);
        m.pd_log = &log;
        bm_health_init(&h, "");
        assert_int_equal(pd9->ops->health(pd9, &h), BM_OK);
        assert_string_equal(h.source, "scsi_log");
        assert_int_equal(h.temperature_c, 44);
        assert_int_equal(h.smart_passed, 1);
        m.pd_log = NULL;
    }
    assert_model_clean();
    check_release(ctrl);
}

/* A logical drive's member disk through an MFI PD SCSI I/O frame inside
 * the MPI2 pass-through (not the system PD I/O path, which reaches only
 * drives exposed to the host): ld3's member pd10 answers LOG SENSE and is
 * named with its serial; ld0's member pd11 is not in the PD list and its
 * frame is refused, which names it and ends nothing else. Fails before
 * member health existed. */
static void test_member_health_of_logical_drive_through_mfi_pd_frames(void **state)
{
    struct scsi_target_log log = { .temperature = 41, .ie = true };
    struct bm_disk_list list;
    struct bm_member who;
    struct bm_health h;
    void *ctrl;

    (void)state;
    ctrl = probe(0x005d, M_INVADER, &list);
    {
        struct bm_disk *ld0 = list.disks[0], *ld3 = list.disks[1], *pd9 = list.disks[2];
        unsigned pd_before = m.pd_requests, ld_before = m.ld_requests;

        assert_string_equal(ld0->id, "megasas0d0");
        assert_string_equal(ld3->id, "megasas0d3");
        m.member_log = &log;
        memset(&who, 0, sizeof(who));
        bm_health_init(&h, "");
        assert_int_equal(ld3->ops->member_health(ld3, 0, &who, &h), BM_OK);
        assert_string_equal(who.name, "pd10");
        assert_int_equal(who.device_id, 10);
        assert_string_equal(who.serial, "SN-PD10");
        assert_string_equal(h.source, "scsi_log");
        assert_int_equal(h.temperature_c, 41);
        assert_int_equal(h.smart_passed, 1);
        memset(&who, 0, sizeof(who));
        assert_int_equal(ld3->ops->member_health(ld3, 1, &who, &h), BM_ENODEV);

        memset(&who, 0, sizeof(who));
        assert_int_not_equal(ld0->ops->member_health(ld0, 0, &who, &h), BM_OK);
        assert_string_equal(who.name, "pd11");
        assert_non_null(strstr(who.note, "device not found"));
        assert_int_equal(m.pd_not_found, 1);

        memset(&who, 0, sizeof(who));
        assert_int_equal(pd9->ops->member_health(pd9, 0, &who, &h), BM_ENODEV);
        /* Only MFI frames: no SCSI I/O request went to a PD or an LD. */
        assert_int_equal(m.pd_requests, pd_before);
        assert_int_equal(m.ld_requests, ld_before);
        assert_true(m.member_cmds > 0);
        assert_true(m.cfg_reads >= 2);
        m.member_log = NULL;
    }
    assert_model_clean();
    check_release(ctrl);
}

/* Without useSeqNumJbodFP the map is not asked for and system drive I/O
 * keeps the firmware path. */
static void test_jbod_io_stays_on_the_firmware_path_without_the_map(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[1];
    uint8_t *buf = plat_alloc_pages(8192, false);
    void *ctrl;
    unsigned pd_before;

    (void)state;
    ctrl = probe(0x005d, M_INVADER, &list);
    assert_int_equal(m.dcmd_jbod_map, 0);
    pd_before = m.pd_requests;
    assert_int_equal(list.disks[2]->ops->submit(list.disks[2], 0, 0, BM_IO_READ, 5, 2, buf), BM_OK);
    assert_int_equal(reap(list.disks[2], done, 1), 1);
    assert_int_equal(done[0].status, BM_OK);
    assert_int_equal(m.fp_requests, 0);
    assert_int_equal(m.pd_requests, pd_before + 1);
    plat_free_pages(buf, 8192);
    check_release(ctrl);
}

/* The drive's configuration changed after the map was read: the firmware
 * answers CONFIG_SEQ_MISMATCH, which Linux retries (map_cmd_status
 * DID_IMM_RETRY); the driver sends the read again on the firmware path
 * and keeps system drives there. */
static void test_stale_jbod_sequence_number_is_retried_on_the_firmware_path(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[2];
    uint8_t *buf = plat_alloc_pages(2 * 8192, false);
    void *ctrl = probe_with_jbod_map(0x005d, M_INVADER, false, &list);
    struct bm_disk *pd9 = list.disks[2];
    unsigned pd_before = m.pd_requests;

    (void)state;
    m.pd_seq = 8;
    assert_int_equal(pd9->ops->submit(pd9, 0, 3, BM_IO_READ, 40, 2, buf), BM_OK);
    assert_int_equal(reap_timed(pd9, done, 1), 1);
    assert_int_equal(done[0].status, BM_OK);
    assert_true(pattern_ok(buf, 9, 40, 2, 4096));
    assert_int_equal(m.seq_mismatches, 1);
    assert_int_equal(m.pd_requests, pd_before + 1);
    assert_int_equal(pd9->ops->submit(pd9, 0, 4, BM_IO_READ, 44, 2, buf + 8192), BM_OK);
    assert_int_equal(reap_timed(pd9, done, 1), 1);
    assert_int_equal(done[0].status, BM_OK);
    assert_int_equal(m.fp_requests, 1);
    assert_int_equal(m.pd_requests, pd_before + 2);
    assert_model_clean();
    plat_free_pages(buf, 2 * 8192);
    check_release(ctrl);
}

/* A fast-path system drive read the firmware never answers: at its
 * deadline the driver sends ABORT_TASK naming its SMID through a
 * high-priority descriptor (Linux megasas_task_abort_fusion /
 * megasas_issue_tm) and the firmware gives the SMID back; when the abort
 * does not bring it back, a TARGET_RESET follows (megasas_reset_target_fusion).
 * The SMID is never reused before (the model flags reuse). */
static void test_hung_jbod_read_gets_abort_task_then_target_reset(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[64];
    uint8_t *buf = plat_alloc_pages(64 * 4096, false);
    void *ctrl = probe_with_jbod_map(0x005d, M_INVADER, true, &list);
    struct bm_disk *pd9 = list.disks[2];

    (void)state;
    m.hold = true;
    m.hold_lba = 4242;
    assert_int_equal(pd9->ops->submit(pd9, 0, 7, BM_IO_READ, 4242, 1, buf), BM_OK);
    assert_int_equal(m.nheld, 1);
    /* Busy traffic on the same disk meanwhile never reuses the hung SMID. */
    for (uint32_t tag = 0; tag < 16; tag++)
        if (tag != 7)
            assert_int_equal(pd9->ops->submit(pd9, 0, tag, BM_IO_READ, 10 + tag, 1, buf + tag * 4096), BM_OK);
    assert_int_equal(reap(pd9, done, 15), 15);
    assert_int_equal(m.tm_requests, 0);
    plat_sim_advance_ns(31ull * 1000000000ull);
    assert_int_equal(reap(pd9, done, 1), 1);
    assert_int_equal(done[0].tag, 7);
    assert_int_equal(done[0].status, BM_ETIMEDOUT);
    assert_int_equal(m.tm_aborts, 1);
    assert_int_equal(m.tm_target_resets, 0);
    assert_int_equal(m.nheld, 0);
    assert_model_clean();
    /* The whole queue works again afterwards. */
    for (uint32_t tag = 0; tag < 32; tag++)
        assert_int_equal(pd9->ops->submit(pd9, 0, tag, BM_IO_READ, 100 + tag, 1, buf + tag * 4096), BM_OK);
    assert_int_equal(reap(pd9, done, 32), 32);
    for (int i = 0; i < 32; i++)
        assert_int_equal(done[i].status, BM_OK);

    /* Firmware that answers the abort without giving the task back. */
    m.ignore_abort = true;
    assert_int_equal(pd9->ops->submit(pd9, 0, 9, BM_IO_READ, 4242, 1, buf), BM_OK);
    plat_sim_advance_ns(31ull * 1000000000ull);
    assert_int_equal(reap(pd9, done, 1), 1);
    assert_int_equal(done[0].status, BM_ETIMEDOUT);
    assert_int_equal(m.tm_aborts, 2);
    assert_int_equal(m.tm_target_resets, 1);
    assert_int_equal(m.nheld, 0);
    assert_model_clean();
    plat_free_pages(buf, 64 * 4096);
    check_release(ctrl);
}

/* A system drive answering BUSY or TASK SET FULL: the read is sent again
 * after a back-off (Linux: the SCSI status goes up, the midlayer requeues)
 * and completes with the data, on both paths. */
static void test_busy_and_task_set_full_are_retried(void **state)
{
    struct bm_disk_list list;
    struct bm_completion done[4];
    uint8_t *buf = plat_alloc_pages(4 * 8192, false);
    void *ctrl;

    (void)state;
    for (int pass = 0; pass < 2; pass++) {
        ctrl = pass ? probe_with_jbod_map(0x005d, M_INVADER, false, &list) : probe(0x005b, M_THUNDERBOLT, &list);
        m.busy_left = 3;
        m.busy_status = pass ? 0x28 : 0x08;
        for (uint32_t tag = 0; tag < 2; tag++)
            assert_int_equal(list.disks[2]->ops->submit(list.disks[2], 0, tag, BM_IO_READ, 60 + tag * 2, 2,
                                                        buf + tag * 8192),
                             BM_OK);
        assert_int_equal(reap_timed(list.disks[2], done, 2), 2);
        for (int i = 0; i < 2; i++) {
            assert_int_equal(done[i].status, BM_OK);
            assert_true(pattern_ok(buf + done[i].tag * 8192, 9, 60 + done[i].tag * 2, 2, 4096));
        }
        assert_int_equal(m.busy_answers, 3);
        assert_int_equal(m.reads, 2);
        assert_model_clean();
        check_release(ctrl);
    }
    plat_free_pages(buf, 4 * 8192);
}

/* The MFI transport's ids still go to the MFI path, Ventura does not match. */
/* Probe an Invader, send LD 0 a read the firmware holds (no task
 * management for an LD) past its 30 s timeout; the SMID it holds goes to
 * *smid. For the release tests. */
static void *probe_with_a_held_read(struct bm_disk_list *list, uint8_t *buf, uint16_t *smid)
{
    struct bm_completion done[4];
    struct bm_disk *ld0;
    void *ctrl = probe(0x005d, M_INVADER, list);

    ld0 = list->disks[0];
    m.hold = true;
    m.hold_lba = 4242;
    assert_int_equal(ld0->ops->submit(ld0, 0, 3, BM_IO_READ, 4242, 1, buf), BM_OK);
    assert_int_equal(m.nheld, 1);
    *smid = m.held[0];
    plat_sim_advance_ns(31ull * 1000000000ull);
    assert_int_equal(reap(ld0, done, 1), 0);
    return ctrl;
}

/* Release of a firmware that will not stop while it still holds a SMID
 * (a hung LD read, which Fusion has no task management for): the bounded
 * wait for outstanding SMIDs (Linux megasas_wait_for_outstanding_fusion),
 * the reset request it ignores, then the adapter reset through the host
 * diagnostic register (Linux megasas_reset_fusion ->
 * megasas_adp_reset_fusion), which does not unlock either. The request
 * frames, sense buffers and reply queue stay allocated (as nvme_teardown
 * keeps a controller's queues that did not stop): the firmware finishes
 * the read after release and writes its RAID context status and reply
 * descriptor into that memory. Freed, those writes would land in memory
 * the next owner uses (on the host build: unmapped, a crash). */
static void test_release_keeps_memory_a_firmware_that_will_not_stop_may_write(void **state)
{
    struct bm_disk_list list;
    uint8_t *buf = plat_alloc_pages(4096, false);
    struct fusion_io_request *r;
    void *ctrl;
    uint16_t smid;

    (void)state;
    ctrl = probe_with_a_held_read(&list, buf, &smid);
    m.reset_ignored = true;
    m.diag_dead = true;
    m.stuck = true; /* each status read costs a second: the bounded waits end */
    megasas_driver.release(ctrl);
    assert_int_equal(m.osp0 & M_STATE_MASK, M_STATE_OPERATIONAL);
    assert_true(m.seq_writes >= 7);        /* the adapter reset was tried... */
    assert_int_equal(m.adapter_resets, 0); /* ...and could not be done */
    assert_int_equal(dev.releases, 1);
    /* The firmware finishes late, into memory that must still be ours. */
    r = host(m.req_base + (uint64_t)smid * 256);
    r->raid_context.status = 0;
    r->raid_context.ex_status = 0;
    model_release_held();
    assert_int_equal(m.nheld, 0);
    assert_model_clean();
    plat_sim_detach(&dev);
    plat_free_pages(buf, 4096);
}

/* The same firmware, but the adapter reset works: release waits (bounded)
 * for the held SMID, escalates from the ignored reset request to the
 * adapter reset (the MPI2 write sequence 0, f, 4, b, 2, 7, d, then
 * RESET_ADAPTER) and the firmware ends READY holding nothing, within the
 * documented bound (docs/drivers.md). */
static void test_release_resets_the_adapter_when_the_firmware_stays_operational(void **state)
{
    struct bm_disk_list list;
    uint8_t *buf = plat_alloc_pages(4096, false);
    void *ctrl;
    uint64_t t0;
    uint16_t smid;

    (void)state;
    ctrl = probe_with_a_held_read(&list, buf, &smid);
    m.reset_ignored = true;
    m.stuck = true;
    t0 = plat_now_ns();
    megasas_driver.release(ctrl);
    assert_int_equal(m.adapter_resets, 1);
    assert_int_equal(m.noutstanding, 0);
    assert_int_equal(m.osp0 & M_STATE_MASK, M_STATE_READY);
    assert_false(m.diag & 0x80); /* locked again by the reset */
    /* Bounded: the 10 s wait for outstanding SMIDs, the 180 s wait for
     * the ignored reset request, and the adapter reset. */
    assert_true(plat_now_ns() - t0 < 480ull * 1000000000ull);
    assert_int_equal(dev.releases, 1);
    assert_model_clean();
    plat_sim_detach(&dev);
    plat_free_pages(buf, 4096);
}

static void test_match_table(void **state)
{
    (void)state;
    assert_true(megasas_driver.match(0x1000, 0x0079, 0x010400));   /* SAS2108 (MFI) */
    assert_true(megasas_driver.match(0x1000, 0x005b, 0x010400));
    assert_true(megasas_driver.match(0x1000, 0x005d, 0x010400));
    assert_true(megasas_driver.match(0x1000, 0x005f, 0x010400));
    assert_false(megasas_driver.match(0x1000, 0x0016, 0x010400));  /* SAS3508 Ventura: not supported */
    assert_false(megasas_driver.match(0x1000, 0x0072, 0x010700));  /* SAS2008 IT: the mpt driver's */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_frame_layout),
        cmocka_unit_test(test_raid_context_layout),
        cmocka_unit_test(test_ioc_init_and_descriptor_layout),
        cmocka_unit_test(test_match_table),
        cmocka_unit_test(test_invader_bringup_io_release),
        cmocka_unit_test(test_release_keeps_memory_a_firmware_that_will_not_stop_may_write),
        cmocka_unit_test(test_release_resets_the_adapter_when_the_firmware_stays_operational),
        cmocka_unit_test(test_thunderbolt_bringup_io_release),
        cmocka_unit_test(test_fury_is_driven_like_invader),
        cmocka_unit_test(test_writes_reach_the_model),
        cmocka_unit_test(test_each_request_is_posted_with_one_8_byte_write_and_a_wrong_post_is_refused),
        cmocka_unit_test(test_stuck_firmware_fails_probe_with_state),
        cmocka_unit_test(test_operational_firmware_is_reset_first),
        cmocka_unit_test(test_ready_wait_follows_the_status_word),
        cmocka_unit_test(test_hung_command_times_out_and_holds_its_smid),
        cmocka_unit_test(test_recovery_never_resets_the_adapter_inside_poll),
        cmocka_unit_test(test_errors_are_decoded),
        cmocka_unit_test(test_pool_is_firmware_limit_minus_one),
        cmocka_unit_test(test_hung_dcmd_is_aborted_and_its_smid_comes_back),
        cmocka_unit_test(test_ioc_init_announces_driver_capabilities),
        cmocka_unit_test(test_transfer_capped_by_sge_count_and_strips),
        cmocka_unit_test(test_jbod_io_takes_the_fast_path_with_the_sequence_map),
        cmocka_unit_test(test_health_of_system_drive_not_logical_drive),
        cmocka_unit_test(test_member_health_of_logical_drive_through_mfi_pd_frames),
        cmocka_unit_test(test_jbod_io_stays_on_the_firmware_path_without_the_map),
        cmocka_unit_test(test_stale_jbod_sequence_number_is_retried_on_the_firmware_path),
        cmocka_unit_test(test_hung_jbod_read_gets_abort_task_then_target_reset),
        cmocka_unit_test(test_busy_and_task_set_full_are_retried),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
