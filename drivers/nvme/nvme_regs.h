/* NVM Express registers, commands and data structures (NVM Express Base
 * Specification 1.4). Section numbers below refer to that document. */
#ifndef BAREMARK_NVME_REGS_H
#define BAREMARK_NVME_REGS_H

#include <stdint.h>

/* ---- PCI identity (section 2.1.5: class code register) -------------------- */
#define NVME_PCI_CLASS 0x010802    /* mass storage, non-volatile memory, NVM Express */

/* ---- Controller registers, BAR0 (section 3.1) ------------------------------- */
#define NVME_REG_CAP 0x00          /* Controller Capabilities (64-bit) */
#define  NVME_CAP_MQES(c) ((uint32_t)((c) & 0xffff))        /* max queue entries, 0-based */
#define  NVME_CAP_CQR(c) ((uint32_t)(((c) >> 16) & 1))      /* contiguous queues required */
#define  NVME_CAP_TO(c) ((uint32_t)(((c) >> 24) & 0xff))    /* ready timeout, 500 ms units */
#define  NVME_CAP_DSTRD(c) ((uint32_t)(((c) >> 32) & 0xf))  /* doorbell stride: 4 << DSTRD bytes */
#define  NVME_CAP_CSS(c) ((uint32_t)(((c) >> 37) & 0xff))   /* command sets supported */
#define   NVME_CAP_CSS_NVM 0x01                              /* NVM command set */
/* NVMe 2.0 section 3.1.4.1: CSS bit 6, one or more I/O command sets (ZNS,
 * key value) selected with CC.CSS = 110b (Linux NVME_CAP_CSS_CSI). */
#define   NVME_CAP_CSS_IOCSS 0x40
#define  NVME_CAP_MPSMIN(c) ((uint32_t)(((c) >> 48) & 0xf)) /* min page size: 2^(12+MPSMIN) */
#define  NVME_CAP_MPSMAX(c) ((uint32_t)(((c) >> 52) & 0xf)) /* max page size: 2^(12+MPSMAX) */
/* NVMe 2.0 section 3.1.4.1: CRMS, controller ready modes supported. With
 * CRWMS set, CRTO.CRWMT (not CAP.TO) bounds the wait for CSTS.RDY. */
#define  NVME_CAP_CRWMS (1ull << 59)                         /* ready with media support */
#define  NVME_CAP_CRIMS (1ull << 60)                         /* ready independent of media */
#define NVME_REG_VS 0x08           /* Version: major 31:16, minor 15:8 */
#define  NVME_VS(major, minor) (((uint32_t)(major) << 16) | ((uint32_t)(minor) << 8))
#define NVME_REG_INTMS 0x0c        /* Interrupt Mask Set */
#define NVME_REG_INTMC 0x10        /* Interrupt Mask Clear */
#define NVME_REG_CC 0x14           /* Controller Configuration */
#define  NVME_CC_EN (1u << 0)                            /* enable */
#define  NVME_CC_CSS_NVM (0u << 4)                       /* I/O command set: NVM */
#define  NVME_CC_CSS_CSI (6u << 4)                       /* all supported I/O command sets (NVMe 2.0) */
#define  NVME_CC_CSS_MASK (7u << 4)
#define  NVME_CC_MPS(shift) ((uint32_t)((shift) - 12) << 7) /* host page size 2^(12+MPS) */
#define  NVME_CC_AMS_RR (0u << 11)                       /* arbitration: round robin */
#define  NVME_CC_SHN_MASK (3u << 14)                     /* shutdown notification */
#define  NVME_CC_SHN_NORMAL (1u << 14)                   /* normal shutdown (section 7.6.2) */
#define  NVME_CC_IOSQES(log2) ((uint32_t)(log2) << 16)   /* I/O SQ entry size 2^n */
#define  NVME_CC_IOCQES(log2) ((uint32_t)(log2) << 20)   /* I/O CQ entry size 2^n */
#define NVME_REG_CSTS 0x1c         /* Controller Status */
#define  NVME_CSTS_RDY (1u << 0)                         /* ready */
#define  NVME_CSTS_CFS (1u << 1)                         /* controller fatal status */
#define  NVME_CSTS_SHST_MASK (3u << 2)                   /* shutdown status */
#define  NVME_CSTS_SHST_CMPLT (2u << 2)                  /* shutdown processing complete */
#define NVME_REG_NSSR 0x20         /* NVM Subsystem Reset */
#define NVME_REG_AQA 0x24          /* Admin Queue Attributes */
#define  NVME_AQA_ASQS(n) ((uint32_t)((n) - 1))          /* admin SQ size, 0-based, 11:0 */
#define  NVME_AQA_ACQS(n) ((uint32_t)((n) - 1) << 16)    /* admin CQ size, 0-based, 27:16 */
#define NVME_REG_ASQ 0x28          /* Admin Submission Queue base (64-bit, page aligned) */
#define NVME_REG_ACQ 0x30          /* Admin Completion Queue base (64-bit, page aligned) */
#define NVME_REG_CMBLOC 0x38       /* Controller Memory Buffer location (section 3.1.11) */
#define NVME_REG_CMBSZ 0x3c        /* Controller Memory Buffer size (section 3.1.12) */
#define  NVME_CMBSZ_SQS (1u << 0)                        /* submission queues may live in it */
#define  NVME_CMBSZ_SZ(v) ((v) >> 12)                    /* size in SZU units */
#define NVME_REG_CRTO 0x68         /* Controller Ready Timeouts (NVMe 2.0 section 3.1.4.23) */
#define  NVME_CRTO_CRWMT(v) ((v) & 0xffffu)              /* ready with media, 500 ms units */
#define NVME_REG_DBS 0x1000        /* first doorbell (section 3.1: SQyTDBL, CQyHDBL) */

/* Doorbell offsets: SQ y tail at 1000h + (2y) * stride, CQ y head at
 * 1000h + (2y + 1) * stride, stride = 4 << CAP.DSTRD (section 3.1). */
#define NVME_SQ_TAIL_DB(qid, dstrd) (NVME_REG_DBS + (2u * (qid)) * (4u << (dstrd)))
#define NVME_CQ_HEAD_DB(qid, dstrd) (NVME_REG_DBS + (2u * (qid) + 1u) * (4u << (dstrd)))

/* ---- Queue entries (sections 4.2, 4.6) ---------------------------------------- */
#define NVME_SQE_LOG2 6            /* 64-byte submission queue entries */
#define NVME_CQE_LOG2 4            /* 16-byte completion queue entries */

/* Submission queue entry (section 4.2). */
struct nvme_sqe {
    uint8_t opcode;
    uint8_t flags;                 /* FUSE 1:0, PSDT 7:6 (00b: PRPs) */
    uint16_t cid;                  /* command identifier */
    uint32_t nsid;
    uint32_t cdw2, cdw3;
    uint64_t mptr;                 /* metadata pointer */
    uint64_t prp1, prp2;           /* data pointer (PRP entries 1 and 2) */
    uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
};
_Static_assert(sizeof(struct nvme_sqe) == 64, "NVMe SQ entry is 64 bytes");

/* Completion queue entry (section 4.6). */
struct nvme_cqe {
    uint32_t dw0;                  /* command specific result */
    uint32_t dw1;
    uint16_t sq_head;              /* SQHD: where the controller has fetched to */
    uint16_t sq_id;
    uint16_t cid;
    uint16_t status;               /* P bit 0, SC 8:1, SCT 11:9, CRD 13:12, M 14, DNR 15 */
};
_Static_assert(sizeof(struct nvme_cqe) == 16, "NVMe CQ entry is 16 bytes");

/* Status field of a CQE (section 4.6.1). */
#define NVME_CQE_PHASE(st) ((st) & 1u)
#define NVME_CQE_SC(st) (((st) >> 1) & 0xffu)   /* status code */
#define NVME_CQE_SCT(st) (((st) >> 9) & 0x7u)   /* status code type */
#define NVME_CQE_CRD(st) (((st) >> 12) & 0x3u)  /* command retry delay: CRDT1..3 (NVMe 1.4) */
#define NVME_CQE_MORE(st) (((st) >> 14) & 1u)
#define NVME_CQE_DNR(st) (((st) >> 15) & 1u)    /* do not retry */

/* Status code types (section 4.6.1.1). */
#define NVME_SCT_GENERIC 0x0
#define NVME_SCT_COMMAND_SPECIFIC 0x1
#define NVME_SCT_MEDIA 0x2
#define NVME_SCT_PATH 0x3
#define NVME_SCT_VENDOR 0x7

/* Generic status codes the driver acts on (section 4.6.1.2.1). */
#define NVME_SC_ABORT_REQUESTED 0x07   /* Command Abort Requested */
#define NVME_SC_NS_NOT_READY 0x82      /* Namespace Not Ready: resubmit later */

/* ---- Admin commands (section 5) --------------------------------------------------- */
#define NVME_ADMIN_DELETE_SQ 0x00
#define NVME_ADMIN_CREATE_SQ 0x01
#define NVME_ADMIN_GET_LOG_PAGE 0x02
#define NVME_ADMIN_DELETE_CQ 0x04
#define NVME_ADMIN_CREATE_CQ 0x05
#define NVME_ADMIN_IDENTIFY 0x06
#define NVME_ADMIN_ABORT 0x08
#define NVME_ADMIN_SET_FEATURES 0x09
#define NVME_ADMIN_GET_FEATURES 0x0a

/* Abort (section 5.1): CDW10 SQID 15:0, CID 31:16; DW0 bit 0 of the
 * completion set means the command was not aborted. */
#define NVME_ABORT_CDW10(sqid, cid) ((uint32_t)(sqid) | ((uint32_t)(cid) << 16))
#define NVME_ABORT_NOT_ABORTED(dw0) ((dw0) & 1u)

/* Create I/O Completion Queue, CDW10/CDW11 (section 5.3). */
#define NVME_CREATE_CQ_CDW10(qid, entries) ((uint32_t)(qid) | ((uint32_t)((entries) - 1) << 16))
#define NVME_CREATE_CQ_PC (1u << 0)  /* physically contiguous */
#define NVME_CREATE_CQ_IEN (1u << 1) /* interrupts enabled: never, we poll */
/* Create I/O Submission Queue, CDW10/CDW11 (section 5.4). */
#define NVME_CREATE_SQ_CDW10(qid, entries) ((uint32_t)(qid) | ((uint32_t)((entries) - 1) << 16))
#define NVME_CREATE_SQ_PC (1u << 0)
#define NVME_CREATE_SQ_CQID(cqid) ((uint32_t)(cqid) << 16)

/* Identify, CDW10.CNS (section 5.15.1). */
#define NVME_CNS_NAMESPACE 0x00        /* Identify Namespace for NSID */
#define NVME_CNS_CONTROLLER 0x01       /* Identify Controller */
#define NVME_CNS_ACTIVE_NS_LIST 0x02   /* active NSIDs above CDW1.NSID (NVMe 1.1+) */
#define NVME_CNS_NS_DESC_LIST 0x03     /* namespace identification descriptors (NVMe 1.3+) */
/* A descriptor: NIDT (type) byte 0, NIDL (length) byte 1, 2 reserved, then
 * NIDL bytes; a zero NIDT ends the list (section 5.15.2.3, NVMe 2.0 figure 281). */
#define  NVME_NIDT_CSI 0x04            /* the namespace's command set identifier, 1 byte */
/* Command set identifiers (NVMe 2.0 figure 286). */
#define NVME_CSI_NVM 0x00
#define NVME_CSI_KV 0x01
#define NVME_CSI_ZNS 0x02
#define NVME_IDENTIFY_BYTES 4096
#define NVME_NS_LIST_MAX 1024          /* NSIDs in one active namespace list */

/* Set Features feature identifiers (section 5.21.1). */
#define NVME_FEAT_NUMBER_OF_QUEUES 0x07
/* CDW11 and DW0 of the completion: NSQR/NSQA 15:0, NCQR/NCQA 31:16, 0-based. */
#define NVME_FEAT_NQ(nsq, ncq) ((uint32_t)((nsq) - 1) | ((uint32_t)((ncq) - 1) << 16))
#define NVME_FEAT_NQ_NSQA(dw0) (((dw0) & 0xffffu) + 1)
#define NVME_FEAT_NQ_NCQA(dw0) (((dw0) >> 16) + 1)
/* Host Memory Buffer (section 5.21.1.13): CDW11 EHM bit 0; CDW12 HSIZE in
 * memory pages; CDW13/14 the descriptor list address; CDW15 HMDLEC, the
 * number of descriptors (each 16 bytes: BADD 8, BSIZE in pages 4, 4 reserved). */
#define NVME_FEAT_HOST_MEM_BUF 0x0d
#define  NVME_HMB_EHM (1u << 0)
#define  NVME_HMB_MR (1u << 1)      /* memory return: the same buffer as before */
#define NVME_HMB_DESC_BYTES 16
/* Host Behavior Support (section 5.21.1.22): a 512-byte structure whose
 * byte 0 is ACRE, advanced command retry enable (the CRD field in CQEs). */
#define NVME_FEAT_HOST_BEHAVIOR 0x16
#define NVME_HOST_BEHAVIOR_BYTES 512

/* Get Log Page (section 5.14): CDW10 LID 7:0, NUMDL 31:16 (0-based dwords). */
#define NVME_LOG_CDW10(lid, bytes) ((uint32_t)(lid) | ((uint32_t)((bytes) / 4 - 1) << 16))
#define NVME_LOG_SMART 0x02            /* SMART / Health Information */
#define NVME_LOG_SMART_BYTES 512
#define NVME_NSID_ALL 0xffffffffu      /* the controller as a whole */

/* SMART / Health Information log (section 5.14.1.2). Counters are 128-bit. */
#define NVME_SMART_CRITICAL_WARNING 0
#define NVME_SMART_COMPOSITE_TEMP 1    /* kelvin, 2 bytes; 0 = not reported */
#define NVME_SMART_AVAILABLE_SPARE 3
#define NVME_SMART_PERCENTAGE_USED 5
#define NVME_SMART_DATA_UNITS_READ 32  /* thousands of 512-byte units */
#define NVME_SMART_DATA_UNITS_WRITTEN 48
#define NVME_SMART_POWER_CYCLES 112
#define NVME_SMART_POWER_ON_HOURS 128
#define NVME_SMART_UNSAFE_SHUTDOWNS 144
#define NVME_SMART_MEDIA_ERRORS 160
#define NVME_SMART_DATA_UNIT_BYTES 512000ull

/* ---- NVM command set I/O commands (section 6) ------------------------------------ */
#define NVME_CMD_WRITE 0x01
#define NVME_CMD_READ 0x02
/* Read / Write: CDW10-11 starting LBA, CDW12 bits 15:0 number of LBAs, 0-based. */
#define NVME_RW_NLB(blocks) ((uint32_t)((blocks) - 1) & 0xffffu)
#define NVME_RW_MAX_BLOCKS 65536u
/* CDW12 PRINFO 29:26 (section 8.3.1.5 / NVM command set 5.2.1.2): PRACT
 * makes the controller insert (write) and strip (read) the protection
 * information itself; PRCHK says which fields it checks. CDW14 is the
 * expected initial logical block reference tag (ILBRT). */
#define  NVME_RW_PRACT (1u << 29)
#define  NVME_RW_PRCHK_GUARD (1u << 28)
#define  NVME_RW_PRCHK_APP (1u << 27)
#define  NVME_RW_PRCHK_REF (1u << 26)
/* Protection information of a 16-bit guard: guard 2, application tag 2,
 * reference tag 4 bytes (NVMe 1.4 figure 327). */
#define NVME_PI_BYTES 8u

/* ---- Identify Controller data structure (section 5.15.2) ------------------------- */
#define NVME_IDC_VID 0             /* PCI vendor ID, 2 bytes */
#define NVME_IDC_SN 4              /* serial number, 20 ASCII bytes */
#define NVME_IDC_SN_LEN 20
#define NVME_IDC_MN 24             /* model number, 40 ASCII bytes */
#define NVME_IDC_MN_LEN 40
#define NVME_IDC_FR 64             /* firmware revision, 8 ASCII bytes */
#define NVME_IDC_FR_LEN 8
#define NVME_IDC_MDTS 77           /* max data transfer: 2^n units of CAP.MPSMIN, 0 = no limit */
#define NVME_IDC_CNTLID 78
#define NVME_IDC_VER 80
#define NVME_IDC_RTD3E 88          /* RTD3 entry latency, microseconds, 4 bytes */
#define NVME_IDC_CRDT1 128         /* command retry delay times 1..3, 100 ms units, 2 bytes each */
#define NVME_IDC_HMPRE 272         /* host memory buffer preferred size, 4 KiB units */
#define NVME_IDC_HMMIN 276         /* host memory buffer minimum size, 4 KiB units */
#define NVME_IDC_HMMINDS 332       /* smallest descriptor entry, 4 KiB units (0: any) */
#define NVME_IDC_HMMAXD 336        /* most descriptor entries, 2 bytes (0: no limit) */
#define NVME_IDC_SQES 512          /* required 3:0, maximum 7:4, log2 bytes */
#define NVME_IDC_CQES 513
#define NVME_IDC_VS 3072          /* vendor specific bytes 3072..4095 */
#define NVME_IDC_NN 516            /* number of namespaces (highest NSID), 4 bytes */
#define NVME_IDC_AWUPF 528         /* atomic write unit power fail, 0-based blocks */

/* ---- Identify Namespace data structure, NVM command set (section 5.15.2) ---------- */
#define NVME_IDNS_NSZE 0           /* namespace size in logical blocks, 8 bytes */
#define NVME_IDNS_NCAP 8
#define NVME_IDNS_NSFEAT 24
#define  NVME_NSFEAT_NSABP (1u << 1)   /* NAWUN/NAWUPF/NACWU are valid */
#define  NVME_NSFEAT_OPTPERF (1u << 4) /* NPWG/NPWA/NPDG/NPDA/NOWS are valid */
#define NVME_IDNS_NLBAF 25         /* number of LBA formats, 0-based (up to 63 since NVMe 2.0) */
#define NVME_IDNS_FLBAS 26         /* formatted LBA size: index 3:0 and 6:5, extended metadata bit 4 */
/* NVMe 2.0 figure 276: with more than 16 formats, FLBAS bits 6:5 are bits
 * 5:4 of the index (Linux nvme_lbaf_index()). */
#define  NVME_FLBAS_INDEX(f) (((f) & 0xfu) | (((f) >> 1) & 0x30u))
#define  NVME_FLBAS_EXTENDED (1u << 4)
#define NVME_IDNS_DPS 29           /* data protection settings: PI type 2:0 */
#define  NVME_DPS_PIT(d) ((d) & 0x7u)           /* 0 none, 1..3 type 1..3 */
#define NVME_IDNS_NAWUPF 36        /* namespace atomic write unit power fail, 0-based */
#define NVME_IDNS_NPWG 64          /* preferred write granularity, 0-based blocks */
#define NVME_IDNS_LBAF 128         /* LBA format 0; 4 bytes each, 64 formats (NVMe 2.0) */
#define  NVME_LBAF_MS(l) ((l) & 0xffffu)         /* metadata bytes per block */
#define  NVME_LBAF_LBADS(l) (((l) >> 16) & 0xffu) /* data size: 2^LBADS bytes */
#define NVME_IDNS_LBAF_COUNT 64    /* LBAF0..LBAF63, bytes 128..383 */

#endif
