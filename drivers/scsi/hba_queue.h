/* Command slots shared by every disk behind one host bus adapter.
 *
 * A MegaRAID or MPT controller has one pool of message frames and one
 * reply queue for all of its disks, while the engine drives each disk as
 * its own tagged queue. This table maps (disk, tag) to a controller slot,
 * routes each hardware completion to its disk's completion ring, and gives
 * overdue commands a BM_ETIMEDOUT completion.
 *
 * A timed-out engine command is NOT handed back to the engine while the
 * controller may still move data for it: the engine would free or reuse
 * its buffer, and a late read would DMA into that memory or a late write
 * send the reused buffer's bytes to the disk. It stays "timed out"
 * (HBAQ_TIMEDOUT: slot, tag and buffer held, counted in flight) until the
 * controller gives it back: a late completion, the completion an abort or
 * task management produces, or hbaq_return_all() once a reset or the
 * controller's stop says it owns nothing. Only then does the engine get
 * its BM_ETIMEDOUT completion. As the Linux midlayer, which completes a
 * timed-out command to its owner only from scsi_eh_flush_done_q(), after
 * the abort / device / host reset step that got it back
 * (scsi_eh_finish_cmd); a command nothing gets back is never completed
 * (the engine's stall limit then gives up on the disk and keeps its
 * buffers).
 *
 * A command the target answers with BUSY (08h) or TASK SET FULL (28h) is
 * not an error: the target wants it again later. The table keeps its slot,
 * blocks the disk for a back-off and hands the slot back to the driver
 * when it is due, as the Linux SCSI midlayer requeues such commands and
 * blocks the device (scsi_decide_disposition ADD_TO_MLQUEUE,
 * device_blocked). See "BUSY and TASK SET FULL" below.
 *
 * Hardware-free, so it is unit tested on the host. The lock makes submit
 * and poll safe when the engine drives two disks of one controller from
 * two processors.
 */
#ifndef BAREMARK_HBA_QUEUE_H
#define BAREMARK_HBA_QUEUE_H

#include "../blkdev.h"

/* Completions waiting for one disk's poll(). */
struct hbaq_disk {
    struct bm_completion *ring;
    uint32_t cap, head, count;
    uint32_t inflight;      /* slots this disk holds (timed-out ones excluded) */
    uint32_t max_inflight;
    uint64_t blocked_until_ns; /* BUSY / TASK SET FULL back-off: no new command before */
    uint32_t busy_retries;  /* commands sent again after BUSY / TASK SET FULL / UNIT ATTENTION / becoming ready */
};

enum hbaq_state {
    HBAQ_FREE = 0,
    HBAQ_BUSY,              /* an engine command the hardware owns */
    HBAQ_ABANDONED,         /* timed out; held until the hardware answers */
    HBAQ_INTERNAL,          /* a driver's own synchronous command */
    HBAQ_INTERNAL_DONE,
    HBAQ_RETRY,             /* BUSY / TASK SET FULL: the driver sends it again when due */
    HBAQ_TIMEDOUT,          /* an engine command past its deadline the hardware still owns: no
                             * completion until the hardware gives it back */
};

struct hbaq_slot {
    struct hbaq_disk *owner;
    uint32_t tag;
    uint8_t state;
    int status;             /* internal commands: the result */
    uint64_t deadline_ns;
    uint64_t retry_at_ns;   /* HBAQ_RETRY: when to send it again */
    uint32_t retries;       /* times this command met BUSY / TASK SET FULL */
    uint64_t timed_out_ns;  /* HBAQ_TIMEDOUT: when hbaq_expire found it overdue */
    bool rec_tried;         /* HBAQ_TIMEDOUT / ABANDONED: the recovery (hba_disk.c) has had its turn */
    bool rec_wanted;        /* HBAQ_ABANDONED: a driver's own command that the recovery should get back */
};

struct hba_queue {
    struct hbaq_slot *slots;
    uint32_t nslots;
    uint32_t *free_list;
    uint32_t nfree;
    uint64_t timeout_ns;    /* per engine command */
    uint64_t next_expire_ns;
    uint32_t busy;          /* slots not free */
    uint32_t retry_waiting; /* slots in HBAQ_RETRY */
    uint32_t timed_out;     /* slots in HBAQ_TIMEDOUT */
    const char *rec_step;   /* the recovery step under way (hba_disk.c), named in the completion of a
                             * timed-out command it gets back; NULL: none */
    volatile int lock;
};

int hbaq_init(struct hba_queue *q, uint32_t nslots, uint64_t timeout_ns);
void hbaq_destroy(struct hba_queue *q);
int hbaq_disk_init(struct hbaq_disk *d, uint32_t max_inflight);
void hbaq_disk_destroy(struct hbaq_disk *d);

/* Spin lock around a driver's submit/poll bodies. */
static inline void hbaq_lock(struct hba_queue *q)
{
    while (__atomic_exchange_n(&q->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&q->lock, __ATOMIC_RELAXED))
            plat_cpu_relax();
}
static inline void hbaq_unlock(struct hba_queue *q) { __atomic_store_n(&q->lock, 0, __ATOMIC_RELEASE); }

/* A slot for the engine's (disk, tag); the slot index, or BM_EBUSY when
 * the pool or the disk's share of it is exhausted. */
int hbaq_get(struct hba_queue *q, struct hbaq_disk *owner, uint32_t tag, uint64_t now_ns);
/* A slot for a synchronous driver command (owner NULL); index or BM_EBUSY. */
int hbaq_get_internal(struct hba_queue *q, uint64_t now_ns, uint64_t timeout_ns);
/* Give back a slot that was never handed to the hardware. */
void hbaq_put(struct hba_queue *q, uint32_t slot);
/* The hardware finished this slot. Engine slots become a completion on
 * their disk's ring and are freed (a timed-out one as BM_ETIMEDOUT, its
 * detail naming the timeout and what the hardware answered); abandoned
 * slots are just freed; internal slots keep their status for
 * hbaq_internal_done(). Returns false for a slot that was not outstanding
 * (a spurious reply). */
bool hbaq_complete(struct hba_queue *q, uint32_t slot, int status, const char *detail);
/* Has this internal command finished? Its status goes to *status and the
 * slot is freed. */
bool hbaq_internal_done(struct hba_queue *q, uint32_t slot, int *status);
/* Give up on an internal command (timed out): the slot stays held until
 * the hardware answers. */
void hbaq_abandon(struct hba_queue *q, uint32_t slot);
/* Mark every engine command past its deadline timed out (HBAQ_TIMEDOUT,
 * no completion yet: see the head comment), at most every few
 * milliseconds of now_ns; cheap to call on each poll. on_timeout, when
 * set, is told each slot (to ask the hardware to abort it). A command
 * waiting for a BUSY retry is not the hardware's: it completes with
 * BM_ETIMEDOUT at once. Returns how many timed out. */
int hbaq_expire(struct hba_queue *q, uint64_t now_ns, void (*on_timeout)(void *arg, uint32_t slot), void *arg);
/* Is this slot still the hardware's although nobody waits for it (a
 * timed-out engine command or an abandoned internal one)? */
static inline bool hbaq_slot_held(const struct hba_queue *q, uint32_t slot)
{
    return slot < q->nslots && (q->slots[slot].state == HBAQ_TIMEDOUT || q->slots[slot].state == HBAQ_ABANDONED);
}
/* The controller owns no command any more (a reset or its stop
 * confirmed it): every outstanding engine command completes (timed-out
 * ones BM_ETIMEDOUT, the others BM_EIO with why), internal commands end
 * with BM_EIO, abandoned ones are freed. As Linux scsi_eh_flush_done_q
 * after a successful host reset. Returns how many engine commands it
 * completed. */
unsigned hbaq_return_all(struct hba_queue *q, const char *why);
/* Move up to max completions of this disk to out. */
int hbaq_reap(struct hbaq_disk *d, struct bm_completion *out, int max);

/* ---- BUSY and TASK SET FULL ------------------------------------------------------------------
 *
 * For an engine command whose target answered SCSI status BUSY (08h) or
 * TASK SET FULL (28h) (or whose HBA said "busy, try again", e.g. MPI
 * IOCStatus BUSY / INSUFFICIENT_RESOURCES):
 *
 *   1. In the completion path, instead of hbaq_complete():
 *          if (!hbaq_requeue(q, slot, now_ns))
 *              hbaq_complete(q, slot, BM_EIO, "BUSY ...");  // past its deadline
 *      The slot stays the command's (same tag, same frame); the hardware
 *      no longer owns it. Its disk takes no new command (hbaq_get says
 *      BM_EBUSY) until the back-off is over.
 *   2. In poll(), after handling replies:
 *          int s;
 *          while ((s = hbaq_next_retry(q, now_ns)) >= 0)
 *              post the command of slot s again, unchanged;
 *      The driver keeps what it needs to rebuild each slot's command (or
 *      leaves the frame untouched).
 *   3. hbaq_expire() completes a waiting command with BM_ETIMEDOUT once its
 *      deadline (set by hbaq_get) passes, and frees its slot at once.
 *
 * Back-off: HBAQ_BUSY_DELAY_NS after the first BUSY (the midlayer's 3 ms
 * SCSI_QUEUE_DELAY), doubling with each retry of the same command up to
 * HBAQ_BUSY_DELAY_MAX_NS. A disk's queue depth is not lowered. Internal
 * (synchronous) commands are not requeued here: scsi_run() retries BUSY
 * itself. */
#define HBAQ_BUSY_DELAY_NS (3ull * 1000000ull)
#define HBAQ_BUSY_DELAY_MAX_NS (200ull * 1000000ull)

/* Is this SCSI status BUSY or TASK SET FULL (retry, not an error)? */
static inline bool hbaq_status_is_busy(uint8_t scsi_status) { return scsi_status == 0x08 || scsi_status == 0x28; }
/* Keep an engine command for a later retry (see above). Returns false,
 * changing nothing, when slot is not an outstanding engine command or its
 * deadline is too near for another try: complete it then. */
bool hbaq_requeue(struct hba_queue *q, uint32_t slot, uint64_t now_ns);
/* The next requeued slot whose back-off is over (the driver posts it
 * again; it is outstanding from here on), or -1. */
int hbaq_next_retry(struct hba_queue *q, uint64_t now_ns);

#endif
