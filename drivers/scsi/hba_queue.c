/* Command slots shared by the disks of one host bus adapter. */
#include "hba_queue.h"

/* How often hbaq_expire looks at every slot: often enough that a timeout
 * is reported within a few ms of its deadline, rare enough that a poll
 * loop at a million IOPS does not scan a thousand slots each time. */
#define HBAQ_EXPIRE_PERIOD_NS (5ull * 1000000ull)

/* Allocate nslots free slots; engine commands get timeout_ns each. */
int hbaq_init(struct hba_queue *q, uint32_t nslots, uint64_t timeout_ns)
{
    memset(q, 0, sizeof(*q));
    if (!nslots)
        return BM_EINVAL;
    q->slots = plat_alloc(sizeof(*q->slots) * nslots);
    q->free_list = plat_alloc(sizeof(*q->free_list) * nslots);
    if (!q->slots || !q->free_list) {
        hbaq_destroy(q);
        return BM_ENOMEM;
    }
    q->nslots = nslots;
    q->timeout_ns = timeout_ns;
    /* Low slot numbers on top of the stack: the first commands use the
     * first frames, which keeps logs readable. */
    for (uint32_t i = 0; i < nslots; i++)
        q->free_list[i] = nslots - 1 - i;
    q->nfree = nslots;
    return BM_OK;
}

/* Free the slot table. */
void hbaq_destroy(struct hba_queue *q)
{
    plat_free(q->slots);
    plat_free(q->free_list);
    memset(q, 0, sizeof(*q));
}

/* A disk's completion ring, as deep as its share of the slots. */
int hbaq_disk_init(struct hbaq_disk *d, uint32_t max_inflight)
{
    memset(d, 0, sizeof(*d));
    if (!max_inflight)
        return BM_EINVAL;
    d->ring = plat_alloc(sizeof(*d->ring) * max_inflight);
    if (!d->ring)
        return BM_ENOMEM;
    d->cap = max_inflight;
    d->max_inflight = max_inflight;
    return BM_OK;
}

/* Free a disk's completion ring. */
void hbaq_disk_destroy(struct hbaq_disk *d)
{
    plat_free(d->ring);
    memset(d, 0, sizeof(*d));
}

/* Pop a free slot, or BM_EBUSY. */
static int take_slot(struct hba_queue *q)
{
    if (!q->nfree)
        return BM_EBUSY;
    q->busy++;
    return (int)q->free_list[--q->nfree];
}

/* Return a slot to the free stack. */
static void free_slot(struct hba_queue *q, uint32_t slot)
{
    q->slots[slot].state = HBAQ_FREE;
    q->slots[slot].owner = NULL;
    q->free_list[q->nfree++] = slot;
    q->busy--;
}

/* Take a slot for an engine command on a disk. */
int hbaq_get(struct hba_queue *q, struct hbaq_disk *owner, uint32_t tag, uint64_t now_ns)
{
    struct hbaq_slot *s;
    int slot;

    if (owner->inflight >= owner->max_inflight || now_ns < owner->blocked_until_ns)
        return BM_EBUSY;
    slot = take_slot(q);
    if (slot < 0)
        return slot;
    s = &q->slots[slot];
    s->owner = owner;
    s->tag = tag;
    s->state = HBAQ_BUSY;
    s->deadline_ns = now_ns + q->timeout_ns;
    s->retries = 0;
    s->rec_tried = s->rec_wanted = false;
    owner->inflight++;
    return slot;
}

/* Take a slot for one of the driver's own commands. */
int hbaq_get_internal(struct hba_queue *q, uint64_t now_ns, uint64_t timeout_ns)
{
    int slot = take_slot(q);

    if (slot < 0)
        return slot;
    q->slots[slot].owner = NULL;
    q->slots[slot].state = HBAQ_INTERNAL;
    q->slots[slot].status = BM_OK;
    q->slots[slot].rec_tried = q->slots[slot].rec_wanted = false;
    q->slots[slot].deadline_ns = now_ns + timeout_ns;
    return slot;
}

/* Give back a slot the hardware never saw. */
void hbaq_put(struct hba_queue *q, uint32_t slot)
{
    struct hbaq_slot *s;

    if (slot >= q->nslots || q->slots[slot].state == HBAQ_FREE)
        return;
    s = &q->slots[slot];
    if ((s->state == HBAQ_BUSY || s->state == HBAQ_RETRY) && s->owner)
        s->owner->inflight--;
    if (s->state == HBAQ_RETRY)
        q->retry_waiting--;
    free_slot(q, slot);
}

/* Append a completion to a disk's ring (never full: each tag in flight
 * has at most one completion waiting). */
static void push_completion(struct hbaq_disk *d, uint32_t tag, int status, const char *detail)
{
    struct bm_completion *c;

    if (d->count >= d->cap)
        return;
    c = &d->ring[(d->head + d->count) % d->cap];
    d->count++;
    c->tag = tag;
    c->status = status;
    if (status != BM_OK && detail)
        bm_strlcpy(c->detail, detail, sizeof(c->detail));
    else
        c->detail[0] = '\0';
}

/* Route the hardware's answer for a slot. */
bool hbaq_complete(struct hba_queue *q, uint32_t slot, int status, const char *detail)
{
    struct hbaq_slot *s;

    if (slot >= q->nslots)
        return false;
    s = &q->slots[slot];
    switch (s->state) {
    case HBAQ_BUSY:
        s->owner->inflight--;
        push_completion(s->owner, s->tag, status, detail);
        free_slot(q, slot);
        return true;
    case HBAQ_TIMEDOUT: {
        /* Only now is its buffer the engine's again. */
        char why[128];
        uint64_t late_ms = (plat_now_ns() - MIN(plat_now_ns(), s->timed_out_ns)) / 1000000ull;

        /* The step that got it back, when a recovery step is under way
         * (the disk's record then names it): "(ABORT TASK)". */
        snprintf(why, sizeof(why), "no completion in %llu ms; back %llu ms later%s%s%s%s%.40s",
                 (unsigned long long)(q->timeout_ns / 1000000ull), (unsigned long long)late_ms,
                 q->rec_step ? " (" : "", q->rec_step ? q->rec_step : "", q->rec_step ? ")" : "",
                 detail && detail[0] ? ": " : "", detail && detail[0] ? detail : "");
        s->owner->inflight--;
        q->timed_out--;
        push_completion(s->owner, s->tag, BM_ETIMEDOUT, why);
        free_slot(q, slot);
        return true;
    }
    case HBAQ_ABANDONED:
        free_slot(q, slot);
        return true;
    case HBAQ_INTERNAL:
        s->status = status;
        s->state = HBAQ_INTERNAL_DONE;
        return true;
    default:
        return false;
    }
}

/* Collect an internal command's result once it is in. */
bool hbaq_internal_done(struct hba_queue *q, uint32_t slot, int *status)
{
    struct hbaq_slot *s = &q->slots[slot];

    if (s->state != HBAQ_INTERNAL_DONE)
        return false;
    *status = s->status;
    free_slot(q, slot);
    return true;
}

/* Leave an overdue internal command to the hardware. */
void hbaq_abandon(struct hba_queue *q, uint32_t slot)
{
    struct hbaq_slot *s = &q->slots[slot];

    if (s->state == HBAQ_INTERNAL_DONE)
        free_slot(q, slot);
    else if (s->state == HBAQ_INTERNAL)
        s->state = HBAQ_ABANDONED;
}

/* Time out overdue engine commands (see hba_queue.h). */
int hbaq_expire(struct hba_queue *q, uint64_t now_ns, void (*on_timeout)(void *arg, uint32_t slot), void *arg)
{
    int n = 0;

    if (now_ns < q->next_expire_ns || !q->busy)
        return 0;
    q->next_expire_ns = now_ns + HBAQ_EXPIRE_PERIOD_NS;
    for (uint32_t i = 0; i < q->nslots; i++) {
        struct hbaq_slot *s = &q->slots[i];
        char detail[80];

        if ((s->state != HBAQ_BUSY && s->state != HBAQ_RETRY) || now_ns < s->deadline_ns)
            continue;
        if (s->state == HBAQ_RETRY) {
            /* Waiting for its next try: the hardware does not own it. */
            snprintf(detail, sizeof(detail), "still BUSY/TASK SET FULL: %u retries in %llu ms",
                     s->retries, (unsigned long long)(q->timeout_ns / 1000000ull));
            s->owner->inflight--;
            push_completion(s->owner, s->tag, BM_ETIMEDOUT, detail);
            q->retry_waiting--;
            free_slot(q, i);
            n++;
            continue;
        }
        /* The hardware still owns it and may still move its data: held,
         * no completion until the hardware gives it back (hba_queue.h). */
        s->state = HBAQ_TIMEDOUT;
        s->timed_out_ns = now_ns;
        q->timed_out++;
        if (on_timeout)
            on_timeout(arg, i);
        n++;
    }
    return n;
}

/* Everything back from a controller that owns nothing any more. */
unsigned hbaq_return_all(struct hba_queue *q, const char *why)
{
    unsigned n = 0;

    for (uint32_t i = 0; i < q->nslots; i++) {
        struct hbaq_slot *s = &q->slots[i];

        switch (s->state) {
        case HBAQ_BUSY:
            hbaq_complete(q, i, BM_EIO, why);
            n++;
            break;
        case HBAQ_TIMEDOUT:
            hbaq_complete(q, i, BM_ETIMEDOUT, why);
            n++;
            break;
        case HBAQ_RETRY:
            s->owner->inflight--;
            q->retry_waiting--;
            push_completion(s->owner, s->tag, BM_EIO, why);
            free_slot(q, i);
            n++;
            break;
        case HBAQ_INTERNAL:
        case HBAQ_ABANDONED:
            hbaq_complete(q, i, BM_EIO, why);
            break;
        default:
            break;
        }
    }
    return n;
}

/* Hand a disk's waiting completions to its poll(). */
int hbaq_reap(struct hbaq_disk *d, struct bm_completion *out, int max)
{
    int n = 0;

    while (n < max && d->count) {
        out[n++] = d->ring[d->head];
        d->head = (d->head + 1) % d->cap;
        d->count--;
    }
    return n;
}

/* A BUSY / TASK SET FULL answer: wait, then send the command again. */
bool hbaq_requeue(struct hba_queue *q, uint32_t slot, uint64_t now_ns)
{
    struct hbaq_slot *s;
    uint64_t delay = HBAQ_BUSY_DELAY_NS;

    if (slot >= q->nslots)
        return false;
    s = &q->slots[slot];
    if (s->state != HBAQ_BUSY || !s->owner)
        return false;
    for (uint32_t i = 0; i < s->retries && delay < HBAQ_BUSY_DELAY_MAX_NS; i++)
        delay *= 2;
    delay = MIN(delay, HBAQ_BUSY_DELAY_MAX_NS);
    if (now_ns + delay >= s->deadline_ns)
        return false;
    s->state = HBAQ_RETRY;
    s->retry_at_ns = now_ns + delay;
    s->retries++;
    q->retry_waiting++;
    /* The device is busy: no new command for it either (the midlayer's
     * device_blocked). */
    if (s->owner->blocked_until_ns < s->retry_at_ns)
        s->owner->blocked_until_ns = s->retry_at_ns;
    return true;
}

/* The next command whose back-off is over, now outstanding again. */
int hbaq_next_retry(struct hba_queue *q, uint64_t now_ns)
{
    if (!q->retry_waiting)
        return -1;
    for (uint32_t i = 0; i < q->nslots; i++) {
        struct hbaq_slot *s = &q->slots[i];

        if (s->state == HBAQ_RETRY && now_ns >= s->retry_at_ns) {
            s->state = HBAQ_BUSY;
            q->retry_waiting--;
            s->owner->busy_retries++;
            return (int)i;
        }
    }
    return -1;
}
