/* Native NVMe driver: takes an NVM Express controller from the firmware,
 * gives each active namespace its own I/O queue pairs and exposes them as
 * struct bm_disk (drivers/blkdev.h).
 *
 * The pure helpers below (PRP lists, status decoding, Identify parsing,
 * transfer limits) touch no hardware, so host unit tests exercise them. */
#ifndef BAREMARK_NVME_H
#define BAREMARK_NVME_H

#include "../blkdev.h"

extern const struct bm_driver nvme_driver;

/* ---- Limits -------------------------------------------------------------------- */

/* I/O queue pairs per namespace (the engine's widest test uses 16). */
#define NVME_MAX_QUEUES_PER_NS 16
/* Commands in flight per queue; the SQ gets one entry more, because a full
 * queue (tail + 1 == head) holds one entry less than its size. */
#define NVME_MAX_QD 1024
/* Largest single command we offer, whatever MDTS allows. */
#define NVME_MAX_TRANSFER_BYTES (2u << 20)
/* Memory for the per-command PRP lists of one namespace (every queue, every
 * tag). With 16 queues of 1024 tags a full 4 KiB page per tag would take
 * 64 MiB; lists shrink (and with them the largest transfer) to fit this. */
#define NVME_PRP_BUDGET_BYTES (16u << 20)
/* Smallest PRP list per tag: 32 entries, 128 KiB transfers. */
#define NVME_PRP_LIST_MIN_BYTES 256u
/* The memory page size we program (CC.MPS = 0). */
#define NVME_PAGE_BYTES 4096u

/* ---- PRP entries (NVMe 1.4 section 4.3) ---------------------------------------- */

/* A command's data pointer. */
struct nvme_prp {
    uint64_t prp1, prp2;
    uint32_t list_entries;  /* entries written to the PRP list (0: no list) */
};

/* Describe a physically contiguous buffer with PRP1/PRP2 and, for more than
 * two memory pages, a PRP list at list (physical address list_phys, room for
 * list_cap entries; it must not cross a page boundary, so no list chaining is
 * needed). buf_phys must be dword aligned (section 4.3: PRP offsets have bits
 * 1:0 clear). Returns BM_OK, BM_EINVAL for a bad argument, or BM_ENOSPC if
 * the list is too small for len. */
int nvme_prp_build(uint64_t buf_phys, uint32_t len, uint32_t page_bytes, uint64_t *list, uint64_t list_phys,
                   uint32_t list_cap, struct nvme_prp *out);

/* ---- Status codes (NVMe 1.4 section 4.6.1) ------------------------------------- */

/* The specification's name for a status code type / status code, or
 * "Unknown Status" (never NULL). */
const char *nvme_status_name(unsigned sct, unsigned sc);
/* "SCT 2h SC 81h: Unrecovered Read Error" from a CQE status field (the
 * phase bit is ignored); fits struct bm_completion.detail. */
void nvme_status_detail(uint16_t status, char *buf, size_t len);

/* ---- Identify data --------------------------------------------------------------- */

struct nvme_ctrl_info {
    char model[41], serial[21], firmware[9];
    uint16_t vid;
    uint8_t mdts;          /* 2^mdts units of CAP.MPSMIN; 0 = no limit */
    uint8_t sqes, cqes;    /* required 3:0, maximum 7:4 (log2 bytes) */
    uint32_t nn;           /* number of namespaces */
    uint16_t awupf;        /* atomic write unit power fail, 0-based blocks */
    uint32_t rtd3e_us;     /* RTD3 entry latency: how long a shutdown may take */
    uint16_t crdt[3];      /* command retry delay times, 100 ms units */
    uint32_t hmpre, hmmin; /* host memory buffer preferred / minimum, 4 KiB units */
    uint32_t hmminds;      /* smallest HMB descriptor entry, 4 KiB units */
    uint16_t hmmaxd;       /* most HMB descriptor entries (0: no limit) */
    uint8_t vs3;           /* vendor specific byte 3 (3075): the Intel stripe, log2 pages */
};

/* Fields of an Identify Controller data structure (4096 bytes). */
void nvme_parse_identify_ctrl(const uint8_t *id, struct nvme_ctrl_info *out);
/* How long a shutdown may take: RTD3E (microseconds; 0: not reported)
 * rounded UP to whole seconds and clamped to min_ms..max_ms, as Linux
 * nvme_init_ctrl_finish() (DIV_ROUND_UP(transition_time, 1000000),
 * clamped to shutdown_timeout..60 s); unreported: min_ms. */
uint32_t nvme_shutdown_timeout_ms(uint32_t rtd3e_us, uint32_t min_ms, uint32_t max_ms);

struct nvme_ns_info {
    uint64_t blocks;       /* NSZE */
    uint32_t lba_bytes;    /* 512 or 4096 */
    uint32_t phys_bytes;   /* preferred write granularity, limited by atomicity */
    uint8_t lbaf_index;
    /* Protection information type 1..3 when the metadata is exactly the
     * 8 bytes of PI: Read/Write then carry PRACT, the controller inserts and
     * strips it and only data crosses the bus (0: no PI). */
    uint8_t pi_type;
    bool extended_lba;     /* ...with the PI inside each block (FLBAS bit 4) */
};

/* The format in use of an Identify Namespace data structure. Returns BM_OK;
 * BM_ENODEV for an empty namespace; BM_ENOTSUP for formats the driver does
 * not drive (metadata other than exactly the protection information, blocks
 * other than 512 or 4096 bytes), with the reason in why. As Linux
 * nvme_configure_metadata() and nvme_ns_has_pi(): a namespace whose
 * metadata is exactly the PI is driven with PRACT = 1, extended LBA or
 * separate buffer alike; other metadata formats are named, not driven. */
int nvme_parse_identify_ns(const uint8_t *id, uint16_t ctrl_awupf, struct nvme_ns_info *out, char *why,
                           size_t whylen);
/* The command set identifier in a namespace identification descriptor
 * list (Identify CNS 03h, 4096 bytes): NVME_CSI_*, or -1 if the list names
 * none (then the namespace is of the NVM command set). */
int nvme_parse_ns_csi(const uint8_t *descs);
/* "zoned namespace", "key-value namespace", "command set 05h namespace". */
void nvme_csi_name(int csi, char *buf, size_t len);
/* CDW12 PRINFO bits and CDW14 (ILBRT) of a Read/Write at lba on a
 * namespace with protection information type pi_type, as Linux
 * nvme_setup_rw(): PRACT always; guard and reference tag checked for type
 * 1 and 2, whose reference tag is the LBA's low 32 bits; the guard alone
 * for type 3. */
void nvme_pi_rw_fields(unsigned pi_type, uint64_t lba, uint32_t *cdw12, uint32_t *cdw14);

/* A SMART / Health Information log page (512 bytes) as a health report:
 * source "nvme_smart_log", temperature in degrees Celsius from the composite
 * temperature, critical warning bits, percentage used, media errors, power
 * on hours, power cycles, unsafe shutdowns, and bytes read/written from the
 * data unit counters (1 unit = 512,000 bytes). Counters beyond INT64_MAX
 * saturate. */
void nvme_parse_smart_log(const uint8_t *log, struct bm_health *out);

/* ---- Quirks by PCI ID (Linux drivers/nvme/host/pci.c nvme_id_table) ------------ */

/* Wait 2.3 s after CC.EN = 0 before the first CSTS read: these controllers
 * fail (read all ones, drop off the bus) if CSTS is read too soon after a
 * reset (Linux NVME_QUIRK_DELAY_BEFORE_CHK_RDY, NVME_QUIRK_DELAY_AMOUNT). */
#define NVME_QUIRK_DELAY_BEFORE_CHK_RDY (1u << 0)
/* CAP.MQES reads 0 (an invalid one-entry queue): use 64 entries, as Linux
 * nvme_pci_enable() does for the Samsung PM1725/PM1725a. */
#define NVME_QUIRK_MQES0_DEPTH_64 (1u << 1)
/* The Intel 750/P3x00/P4x00 have a vendor-specific stripe, 2^vs[3] memory
 * pages (Identify Controller byte 3075), and are slow on commands crossing
 * it: Linux caps max_hw_sectors at the stripe and splits at it
 * (NVME_QUIRK_STRIPE_SIZE, nvme_init_ctrl_finish(), nvme_set_chunk_sectors()). */
#define NVME_QUIRK_STRIPE_SIZE (1u << 2)
/* DMA addresses above 48 bits are mishandled (Amazon EC2 NVMe; Linux
 * NVME_QUIRK_DMA_ADDRESS_BITS_48 narrows the DMA mask in nvme_pci_enable()). */
#define NVME_QUIRK_DMA_ADDRESS_BITS_48 (1u << 3)
/* Apple 2001 (MacBook 7,1/8,1): resets and loses data with more than one
 * command in flight; Linux NVME_QUIRK_QDEPTH_ONE sets q_depth = 2. */
#define NVME_QUIRK_QDEPTH_ONE (1u << 4)
/* Apple 2005 (T2): I/O SQ entries are 128 bytes although CC.IOSQES says 64
 * (NVME_QUIRK_128_BYTES_SQES, io_sqes = 7), and admin and I/O commands
 * share one CID space (NVME_QUIRK_SHARED_TAGS: Linux reserves the first
 * NVME_AQ_DEPTH = 32 I/O tags for the admin queue and drives one I/O
 * queue only, nvme_max_io_queues()). */
#define NVME_QUIRK_128_BYTES_SQES (1u << 5)
#define NVME_QUIRK_SHARED_TAGS (1u << 6)
#define NVME_QUIRK_DELAY_MS 2300u
#define NVME_QUIRK_MQES0_DEPTH 64u
#define NVME_QUIRK_QDEPTH_ONE_ENTRIES 2u
#define NVME_QUIRK_SQE_LOG2_128 7u
#define NVME_DMA_BITS_48 48u

/* The quirks of a controller by PCI vendor and device ID (0: none). */
uint32_t nvme_pci_quirks(uint16_t vendor, uint16_t device);
/* The stripe of an NVME_QUIRK_STRIPE_SIZE controller in bytes: 2^(vs3 +
 * 12 + mpsmin), vs3 = Identify Controller byte 3075 (0: none reported, or
 * not a sane size), as Linux nvme_init_ctrl_finish(). */
uint32_t nvme_stripe_bytes(uint8_t vs3, unsigned mpsmin);
/* Whether [phys, phys + bytes) lies below 2^dma_bits (dma_bits 0 or 64:
 * anywhere). */
bool nvme_dma_reachable(uint64_t phys, uint64_t bytes, unsigned dma_bits);
/* Why the controller memory buffer (CMBLOC, CMBSZ) is not used for the
 * submission queues ("" when it offers none). */
void nvme_cmb_note(uint32_t cmbloc, uint32_t cmbsz, char *buf, size_t len);

/* ---- Retries (Linux nvme_decide_disposition / nvme_retry_req) ------------------ */

/* How often a command whose status has DNR clear is submitted again. */
#define NVME_MAX_RETRIES 5
/* The longest Command Retry Delay honoured (an I/O timeout). */
#define NVME_RETRY_DELAY_MAX_MS 30000u
/* Delay before submitting again a command that failed with status st
 * (CQE status field), in ms, or -1 if it must not be retried (success,
 * DNR set, or retries already used up). CRD names one of crdt[] (100 ms
 * units, Identify Controller CRDT1..3; at most NVME_RETRY_DELAY_MAX_MS);
 * Namespace Not Ready without a CRD waits 1 s, as the namespace needs
 * time, not another instant try; anything else goes again at once. */
int nvme_retry_delay_ms(uint16_t st, const uint16_t crdt[3], unsigned retries);

/* Largest transfer MDTS allows in bytes (0: no limit). */
uint64_t nvme_mdts_bytes(uint8_t mdts, unsigned mpsmin);

/* Size of each tag's PRP list and the largest command that fits it, for
 * nqueues queues of qd tags within NVME_PRP_BUDGET_BYTES. */
struct nvme_io_limits {
    uint32_t list_bytes;         /* power of two, 256..4096: never crosses a page */
    uint32_t max_transfer_bytes; /* multiple of 4096 */
};
void nvme_io_limits(uint8_t mdts, unsigned mpsmin, unsigned nqueues, unsigned qd, struct nvme_io_limits *out);


/* ---- Namespace selection (pure: Identify data in, decisions out) --------------- */

/* Namespaces one controller can contribute. */
#define NVME_MAX_NS_PER_CTRL 32
/* NSIDs tried one by one when there is no active namespace list. */
#define NVME_SCAN_MAX_NSID 1024u

/* Which namespaces of a controller become disks, which are skipped and why,
 * and what the probe's note says about those left out. The probe asks
 * nvme_ns_select_next() which NSID to identify and gives the answer to
 * nvme_ns_select_offer(); nothing here touches the controller. */
struct nvme_ns_select {
    const uint32_t *nslist;  /* active namespace list, or NULL: scan 1..NN */
    unsigned ncand, next;    /* candidates, and the next one to hand out */
    uint32_t asked;          /* the NSID last handed out */
    unsigned looked;         /* active namespaces identified */
    unsigned listed;         /* active namespaces known of */
    unsigned nskipped;
    unsigned nused;          /* ids[] / infos[] in use */
    uint32_t ids[NVME_MAX_NS_PER_CTRL];
    struct nvme_ns_info infos[NVME_MAX_NS_PER_CTRL];
    uint32_t skipped_id;     /* the last namespace skipped ... */
    char why[96];            /* ... and why */
    char limit[80];          /* why namespaces beyond nused were left out */
};

enum nvme_ns_verdict {
    NVME_NS_TAKEN,           /* becomes a disk */
    NVME_NS_SKIPPED,         /* active but not driven (format): why says why */
    NVME_NS_INACTIVE,        /* not there: ignored */
    NVME_NS_OVER_LIMIT,      /* usable, but NVME_MAX_NS_PER_CTRL are taken */
};

/* As nvme_ns_select_offer(), for a namespace whose namespace identification
 * descriptors name command set csi (NVME_CSI_*, -1: none named): other
 * command sets than NVM are skipped with their name ("zoned namespace: not
 * measured"). */
enum nvme_ns_verdict nvme_ns_select_offer_csi(struct nvme_ns_select *s, const uint8_t *id, int csi,
                                              uint16_t ctrl_awupf);

/* Start with the active namespace list (CNS 02h, zero-terminated, at most
 * NVME_NS_LIST_MAX entries), or with nslist NULL a scan of NSIDs 1..nn
 * (at most NVME_SCAN_MAX_NSID of them). */
void nvme_ns_select_begin(struct nvme_ns_select *s, const uint32_t *nslist, uint32_t nn);
/* The next NSID to identify, or 0 when no more need asking. */
uint32_t nvme_ns_select_next(struct nvme_ns_select *s);
/* The Identify Namespace data (4096 bytes) of the NSID last handed out, or
 * NULL if the controller refused the Identify with a status (in a scan, an
 * unallocated NSID may be refused). */
enum nvme_ns_verdict nvme_ns_select_offer(struct nvme_ns_select *s, const uint8_t *id, uint16_t ctrl_awupf);
/* After the last offer: keep no more than room namespaces (the disk list's
 * free entries); *dropped says how many did not fit. Returns BM_OK,
 * BM_ENOSPC if none fits, BM_ENODEV if none is usable (with why in err). */
int nvme_ns_select_fit(struct nvme_ns_select *s, unsigned room, unsigned *dropped, char *err, size_t errlen);
/* Keep no more namespaces than the controller granted queue pairs. */
void nvme_ns_select_granted(struct nvme_ns_select *s, unsigned granted);
/* The probe's note on a success that leaves namespaces out ("" if none). */
void nvme_ns_select_note(const struct nvme_ns_select *s, char *note, size_t len);

#endif
