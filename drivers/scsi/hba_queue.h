/* Command slots shared by every disk behind one host bus adapter.
 *
 * A MegaRAID or MPT controller has one pool of message frames and one
 * reply queue for all of its disks, while the engine drives each disk as
 * its own tagged queue. This table maps (disk, tag) to a controller slot,
 * routes each hardware completion to its disk's completion ring, and gives
 * overdue commands a BM_ETIMEDOUT completion. A timed-out slot stays held
 * ("abandoned") until the hardware answers for it, so a late completion
 * can never land on a reused frame.
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
};

enum hbaq_state {
    HBAQ_FREE = 0,
    HBAQ_BUSY,              /* an engine command the hardware owns */
    HBAQ_ABANDONED,         /* timed out; held until the hardware answers */
    HBAQ_INTERNAL,          /* a driver's own synchronous command */
    HBAQ_INTERNAL_DONE,
};

struct hbaq_slot {
    struct hbaq_disk *owner;
    uint32_t tag;
    uint8_t state;
    int status;             /* internal commands: the result */
    uint64_t deadline_ns;
};

struct hba_queue {
    struct hbaq_slot *slots;
    uint32_t nslots;
    uint32_t *free_list;
    uint32_t nfree;
    uint64_t timeout_ns;    /* per engine command */
    uint64_t next_expire_ns;
    uint32_t busy;          /* slots not free */
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
            __asm__ __volatile__("pause");
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
 * their disk's ring and are freed; abandoned slots are just freed;
 * internal slots keep their status for hbaq_internal_done(). Returns false
 * for a slot that was not outstanding (a spurious reply). */
bool hbaq_complete(struct hba_queue *q, uint32_t slot, int status, const char *detail);
/* Has this internal command finished? Its status goes to *status and the
 * slot is freed. */
bool hbaq_internal_done(struct hba_queue *q, uint32_t slot, int *status);
/* Give up on an internal command (timed out): the slot stays held until
 * the hardware answers. */
void hbaq_abandon(struct hba_queue *q, uint32_t slot);
/* Give every engine command past its deadline a BM_ETIMEDOUT completion
 * (at most every few milliseconds of now_ns; cheap to call on each poll).
 * on_timeout, when set, is told each slot (to ask the hardware to abort).
 * Returns how many timed out. */
int hbaq_expire(struct hba_queue *q, uint64_t now_ns, void (*on_timeout)(void *arg, uint32_t slot), void *arg);
/* Move up to max completions of this disk to out. */
int hbaq_reap(struct hbaq_disk *d, struct bm_completion *out, int max);

#endif
