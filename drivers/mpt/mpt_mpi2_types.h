/* MPI 2.0 / 2.5 queueing (SAS2004/2008/2116/2308 and SAS3004/3008 IT
 * firmware, e.g. LSI 9211-8i, Dell H200/H310 and HBA330, LSI 9300-8i).
 *
 * IOC FACTS and IOC INIT still go through the doorbell handshake
 * (mpt_doorbell.c). Everything after that goes through host memory
 * (MPI 2 specification, as Linux mpt3sas_base.c and FreeBSD mps/mpr
 * drive it):
 *   - request frames, one per System Message ID: SMID n's frame sits at
 *     base + n * frame size (SMID 0 is reserved), so slot s uses SMID s+1;
 *   - a 64-bit request descriptor (type, SMID, DevHandle) is written to
 *     RequestDescriptorPostLow then High; the IOC takes it on the high write;
 *   - the IOC answers in the reply descriptor post queue: a SCSI IO
 *     success descriptor (GOOD, everything moved) or an address reply
 *     descriptor naming one of the reply frames lent to it through the
 *     reply free queue. Read descriptors are set back to all ones and the
 *     host tells the IOC how far it read through ReplyPostHostIndex; a
 *     reply frame goes back to the free queue once read (ReplyFreeHostIndex).
 * Configuration, PORT ENABLE and EVENT NOTIFICATION requests use the same
 * queues with default-type descriptors. Everything the IOC reads or writes
 * is below 4 GiB, so every "high address" field is 0.
 *
 * The backend in four files, each calling only the ones below it:
 *   mpt_mpi2.c         the backend tables, bring-up (init), task
 *                      management and the IOC host reset (reinit);
 *   mpt_mpi2_config.c  discovery: configuration pages (SAS Device, RAID
 *                      Volume and Physical Disk Page 0), PORT ENABLE;
 *                      calls mpt_mpi2_io.c for its requests;
 *   mpt_mpi2_ioc.c     IOC FACTS, queue sizing and memory, IOC INIT;
 *   mpt_mpi2_io.c      request descriptors, SCSI IO posting (SGLs built by
 *                      mpt_scsi.c), the reply queues, internal requests.
 * All of them call down into mpt_disk.c (completions, disks),
 * mpt_doorbell.c and mpt_scsi.c only.
 */
#ifndef BAREMARK_MPT_MPI2_TYPES_H
#define BAREMARK_MPT_MPI2_TYPES_H

#include "mpt_types.h"
#include "mpt_regs.h"
#include "mpi.h"
#include "mpi2.h"

#include "../../efi/time_units.h"
#define MPT2_SLOTS_MAX 512
#define MPT2_MSG_REPLY_BYTES 128        /* copy of an internal request's reply frame */
#define MPT2_HANDSHAKE_TIMEOUT_NS (10 * NS_PER_S)
#define MPT2_OPERATIONAL_TIMEOUT_NS (30 * NS_PER_S)
#define MPT2_EVENT_TIMEOUT_NS (30 * NS_PER_S)
#define MPT2_CONFIG_TIMEOUT_NS (15 * NS_PER_S)       /* Linux mpt3sas config requests: 15 s */
/* PORT ENABLE: the IOC answers once it has discovered the SAS domain.
 * Linux mpt3sas allows 300 s and then gives up: at load
 * scsih_scan_finished ends the scan ("port enable: FAILED with timeout
 * (timeout=300s)"), during a host reset _base_send_port_enable returns
 * -ETIME and mpt3sas_base_hard_reset_handler reports FAILED. So do we:
 * the host reset gives the IOC up, its record naming PORT ENABLE; from
 * poll() the wait is a part looked at on each call (mpt2_reinit_step). */
#define MPT2_PORT_ENABLE_TIMEOUT_NS (300 * NS_PER_S)
#define MPT2_MAX_DEVICES 128
#define MPT2_HANDLES 0x10000            /* every 16-bit device handle */
#define MPT2_CONFIG_PAGE_BYTES 4096
/* Data per SGE: 64 KiB, the largest segment Linux hands these chips
 * (BLK_MAX_SEGMENT_SIZE; mpt3sas sets no other), so big transfers take
 * the chained SGL shape the firmware sees every day rather than one
 * 1 MiB element. Used only when the IOC's chain depth allows it. */
#define MPT2_MAX_SGE_BYTES (64u * 1024u)
/* Both dwords of an unused reply descriptor (MPI2_RPY_DESCRIPT_UNUSED_WORD0/1_MARK). */
#define MPT2_DESCRIPTOR_UNUSED (((uint64_t)MPI2_RPY_DESCRIPT_UNUSED_WORD << 32) | MPI2_RPY_DESCRIPT_UNUSED_WORD)

struct mpt2_device {
    uint16_t handle, slot, enclosure;
    uint64_t sas_address;
    uint32_t device_info;
    uint8_t access_status;
};

struct mpt2_state {
    bool ieee_sgl;              /* MPI 2.5: IEEE SGEs in SCSI IO */
    struct mpi2_ioc_facts_reply facts;
    uint16_t msg_version;
    uint8_t *req;               /* nslots + 1 request frames (SMID 0 unused) */
    size_t req_bytes;
    uint32_t frame_bytes;
    uint8_t *reply;             /* free_depth reply frames */
    size_t reply_bytes;
    uint32_t reply_frame_bytes;
    uint32_t reply_pa;
    uint32_t *free_q;           /* reply free queue: reply frame addresses */
    size_t free_q_bytes;
    uint32_t free_depth, free_host_index;
    volatile uint64_t *post_q;  /* reply descriptor post queue */
    size_t post_q_bytes;
    uint32_t post_depth, post_host_index;
    uint8_t *msg_reply;         /* MPT2_MSG_REPLY_BYTES per slot */
    uint8_t *chain;             /* chain_segs segments of chain_seg_bytes per slot */
    size_t chain_bytes;
    struct mpt2_sgl_space sgl;  /* geometry; chain and chain_pa set per request */
    uint8_t *page;              /* config page buffer */
    /* Task management (c->tm): one request at a time in its own frame
     * (SMID nslots + 1, outside the engine's slots, so a full queue can
     * still be aborted); during a host reset EVENT NOTIFICATION and PORT
     * ENABLE use it. */
    struct mpi2_ioc_facts_reply old_facts; /* before a host reset, to compare */
    /* The reply to c->tm's frame, whole (a host reset's config requests
     * need more than its IOCStatus). */
    struct mpi2_config_reply tm_reply;
    /* After a host reset, SAS Device Page 0 walked one page per poll(). */
    struct {
        bool have_hdr;
        struct mpi2_config_reply hdr;
        uint32_t handle;
        unsigned n, pages;
        struct mpt2_device *dev;
    } walk;
};

/* The MPI 2 backend's state of a controller. */
static inline struct mpt2_state *st(struct mpt_ctrl *c) { return c->be_state; }

/* The request frame of a slot (SMID slot + 1). */
static inline uint8_t *mpt2_frame(struct mpt2_state *s, uint32_t slot)
{
    return s->req + (size_t)(slot + 1) * s->frame_bytes;
}

/* A request of the host reset's own through c->tm's frame, not waited
 * for (mpt_mpi2_io.c): its reply is c->tm and s->tm_reply. */
void mpt2_reset_request(struct mpt_ctrl *c, const void *req, unsigned req_bytes);
/* SAS Device Page 0 as steps of a host reset (mpt_mpi2_config.c): begin
 * posts the first request (false when there is no memory to walk);
 * next, once its answer came, posts the one after (HBA_PENDING) or ends
 * with the number of targets in s->walk.dev, or an error. */
bool mpt2_walk_begin(struct mpt_ctrl *c);
int mpt2_walk_next(struct mpt_ctrl *c, char *err, size_t errlen);

/* ---- mpt_mpi2_ioc.c -------------------------------------------------------------------------------------- */
/* IOC FACTS: credits, frame sizes, queue limits. */
int mpt2_ioc_facts(struct mpt_ctrl *c, char *err, size_t errlen);
/* The IOC FACTS request, and the check of its reply (got bytes, in s->facts). */
void mpt2_ioc_facts_request(struct mpi2_ioc_facts_request *req);
int mpt2_ioc_facts_check(struct mpt_ctrl *c, int got, char *err, size_t errlen);
/* Queue depths (Linux mpt3sas _base_allocate_memory_pools): a reply frame
 * for every request plus 64 for events, a post queue that can hold every
 * reply at once; both multiples of 16 as the IOC requires, the post queue
 * no deeper than IOC FACTS allows. */
int mpt2_size_queues(struct mpt_ctrl *c, char *err, size_t errlen);
/* The reply free queue full of reply frames, the post queue all ones
 * (unused), as IOC INIT must find them. */
void mpt2_reset_queues(struct mpt_ctrl *c);
/* Request frames, reply frames, both queues and sense buffers, below
 * 4 GiB; the free queue filled with every reply frame, the post queue all
 * ones (unused). */
int mpt2_alloc(struct mpt_ctrl *c);
/* IOC INIT with our queues; then OPERATIONAL, and the host indexes set. */
int mpt2_ioc_init(struct mpt_ctrl *c, char *err, size_t errlen);
/* Its parts: the request, the check of the reply, and what the host
 * does once the IOC is OPERATIONAL (reply free and post indexes). */
void mpt2_ioc_init_request(struct mpt_ctrl *c, struct mpi2_ioc_init_request *req);
int mpt2_ioc_init_check(int got, const struct mpi2_default_reply *rep, char *err, size_t errlen);
void mpt2_ioc_operational(struct mpt_ctrl *c);
/* Free the MPI 2 queues (after the IOC was reset). */
void mpt2_destroy(struct mpt_ctrl *c);

/* ---- mpt_mpi2_io.c --------------------------------------------------------------------------------------- */
/* Post a request descriptor: low dword, then the high one the IOC acts on. */
void mpt2_post_descriptor(struct mpt_ctrl *c, uint8_t flags, uint32_t slot, uint16_t dev_handle);
/* Build a SCSI IO request in the slot's frame (and its chain segments)
 * and post it. */
void mpt2_post(struct mpt_ctrl *c, uint32_t slot, const struct mpt_scsi_io *io);
/* Read the reply descriptor post queue until an unused descriptor. */
void mpt2_drain(struct mpt_ctrl *c);
/* Send a non-SCSI request through the request queue and wait for its
 * reply frame (copied to reply). The slot stays held if the IOC never
 * answers, so a late reply cannot land on a reused frame. */
int mpt2_message(struct mpt_ctrl *c, const void *req, unsigned req_bytes, void *reply, unsigned reply_cap,
                 uint64_t timeout_ns, const char *what, char *err, size_t errlen);
/* An internal request whose reply must say success. */
int mpt2_message_ok(struct mpt_ctrl *c, const void *req, unsigned req_bytes, uint64_t timeout_ns,
                    const char *what, char *err, size_t errlen);

/* ---- mpt_mpi2_config.c ----------------------------------------------------------------------------------- */
/* Walk SAS Device Page 0 by GET_NEXT_HANDLE and list the end devices. */
int mpt2_list_devices(struct mpt_ctrl *c, struct mpt2_device *out, unsigned cap, char *err, size_t errlen);
/* Mask every event, then enable the ports: the IOC discovers the SAS
 * domain before it answers (mpt3sas _base_make_ioc_operational:
 * _base_event_notification, then mpt3sas_port_enable). */
int mpt2_enable_ports(struct mpt_ctrl *c, char *err, size_t errlen);
/* The EVENT NOTIFICATION request that masks every event. */
void mpt2_event_mask_request(struct mpi2_event_notification_request *ev);
/* Enable the ports, then add a disk for each end device, named by its
 * enclosure slot (or by handle when two enclosures share slot numbers). */
int mpt2_discover(struct mpt_ctrl *c, struct bm_disk_list *disks, char *err, size_t errlen);

#endif
