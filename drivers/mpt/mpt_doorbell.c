/* Fusion-MPT system interface: IOC state, resets and the doorbell
 * handshake. Shared by every MPI generation.
 *
 * Real chips acknowledge each doorbell word by clearing the IOP doorbell
 * status bit of the host interrupt status register, and raise the doorbell
 * interrupt bit for each reply word; the host must wait for both (Linux
 * mptbase WaitForDoorbellAck / WaitForDoorbellInt). QEMU's model answers
 * instantly and never sets the IOP bit, so these waits cost nothing there
 * and keep real hardware in step.
 */
#include "mpt_types.h"
#include "mpt_regs.h"
#include "mpi.h"
#include "../../efi/time_units.h"

#define MPT_ACK_TIMEOUT_NS (5 * NS_PER_S)     /* per doorbell word: WaitForDoorbellAck(ioc, 5) */
#define MPT_WORD_TIMEOUT_NS (5 * NS_PER_S)    /* per reply word after the first */
#define MPT_HANDSHAKE_SEND_TIMEOUT_NS (10 * NS_PER_S) /* mptbase mpt_send_handshake_request: 10 s */

/* The IOC state bits of the doorbell. */
uint32_t mpt_ioc_state(struct mpt_ctrl *c) { return mpt_read(c, MPT_REG_DOORBELL) & MPT_IOC_STATE_MASK; }

/* The IOC state's name, for messages. */
const char *mpt_ioc_state_name(uint32_t doorbell)
{
    switch (doorbell & MPT_IOC_STATE_MASK) {
    case MPT_IOC_STATE_RESET: return "RESET";
    case MPT_IOC_STATE_READY: return "READY";
    case MPT_IOC_STATE_OPERATIONAL: return "OPERATIONAL";
    case MPT_IOC_STATE_FAULT: return "FAULT";
    default: return "UNKNOWN";
    }
}

/* Poll the doorbell until the IOC is in state (bounded). The register
 * waits below are hba_poll_reg's, shared with MegaRAID. */
int mpt_wait_state(struct mpt_ctrl *c, uint32_t state, uint64_t timeout_ns, char *err, size_t errlen)
{
    uint32_t db;

    if (hba_poll_reg(c->regs, MPT_REG_DOORBELL, MPT_IOC_STATE_MASK, state, timeout_ns, NS_PER_MS, false, &db))
        return BM_OK;
    snprintf(err, errlen, "IOC not %s within %llu ms: doorbell 0x%08x (%s)", mpt_ioc_state_name(state),
             (unsigned long long)(timeout_ns / NS_PER_MS), db, mpt_ioc_state_name(db));
    return BM_ETIMEDOUT;
}

/* Wait for the IOC to take the doorbell word just written: the IOP
 * doorbell status bit of HIS clears (the message unit reset's function
 * word at release; handshakes step through mpt_handshake_poll). */
static int mpt_wait_ack(struct mpt_ctrl *c, char *err, size_t errlen)
{
    uint32_t his;

    if (hba_poll_reg(c->regs, MPT_REG_HOST_INT_STATUS, MPT_HIS_IOP_DOORBELL_STATUS, 0, MPT_ACK_TIMEOUT_NS, 10000,
                     false, &his))
        return BM_OK;
    snprintf(err, errlen, "doorbell word not acknowledged: host interrupt status 0x%08x", his);
    return BM_ETIMEDOUT;
}

/* ---- The doorbell handshake, one step per call ---------------------------------------------------------
 *
 * The protocol (MPI 1.5 / MPI 2 system interface; Linux mptbase
 * mpt_handshake_req_reply_wait and mpt_send_handshake_request, mpt3sas
 * _base_handshake_req_reply_wait):
 *   - the doorbell must not be in use; clear HIS, write the HANDSHAKE
 *     function with the request's length in dwords;
 *   - the IOC raises the doorbell interrupt (5 s: mptbase
 *     WaitForDoorbellInt(ioc, 5), mpt3sas _base_spin_on_doorbell_int(ioc,
 *     5)) with DOORBELL_USED set; clear HIS and wait for the function word
 *     to be taken (the IOP doorbell status bit clears, 5 s:
 *     WaitForDoorbellAck(ioc, 5), _base_wait_for_doorbell_ack(ioc, 5));
 *   - each request dword: write it, then wait for its acknowledgement the
 *     same way (5 s each); a dword written before the previous one was
 *     taken is lost on a real IOC. A FAULT the IOC raises meanwhile ends
 *     the wait at once (_base_wait_for_doorbell_ack);
 *   - then either (mpt_send_handshake_request) one doorbell interrupt
 *     saying the IOC took the request (10 s), no reply words, or the
 *     reply: the first 16-bit word within the caller's bound, the others
 *     5 s each, a last doorbell interrupt and DOORBELL_USED clear (5 s
 *     each, _base_wait_for_doorbell_not_used).
 * mpt_handshake_poll takes it as far as the IOC has got and never waits:
 * it writes at most one request dword per call (its acknowledgement is
 * looked for on the next), reads the reply words already signalled, and
 * returns HBA_PENDING otherwise; each wait is bounded from the moment it
 * began, and one that passes its bound ends the handshake with an error
 * naming it. */

/* The synchronous callers' pause between two looks (probe time). */
#define MPT_HS_LOOK_NS 10000

/* The handshake is over (done or failed): the doorbell interrupt cleared. */
static void mpt_hs_end(struct mpt_ctrl *c)
{
    c->hs.stage = MPT_HS_IDLE;
    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
}

/* The wait under way (what) passed its bound: end the handshake. */
static int mpt_hs_timeout(struct mpt_ctrl *c, const char *what, uint32_t his, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s within %llu ms (HIS 0x%08x)", what, (unsigned long long)(c->hs.bound_ns / NS_PER_MS),
             his);
    mpt_hs_end(c);
    return BM_ETIMEDOUT;
}

/* Start the next wait of the handshake, bounded by bound_ns from now. */
static void mpt_hs_next(struct mpt_ctrl *c, uint8_t stage, uint64_t now, uint64_t bound_ns)
{
    c->hs.stage = stage;
    c->hs.bound_ns = bound_ns;
    c->hs.deadline_ns = now + bound_ns;
}

/* Claim the doorbell and ask for a handshake of req_bytes / 4 dwords;
 * the request is kept for mpt_handshake_poll to write. Nothing is
 * waited for. */
static int mpt_hs_begin(struct mpt_ctrl *c, const void *req, unsigned req_bytes, bool send_only,
                        uint64_t reply_timeout_ns, char *err, size_t errlen)
{
    const uint8_t *r = req;
    uint32_t db;

    if (req_bytes % 4 || !req_bytes || req_bytes / 4 > ARRAY_SIZE(c->hs.req))
        return BM_EINVAL;
    if (c->hs.stage != MPT_HS_IDLE) {
        snprintf(err, errlen, "another handshake is under way");
        return BM_EBUSY;
    }
    db = mpt_read(c, MPT_REG_DOORBELL);
    if (db & MPT_DOORBELL_USED) {
        snprintf(err, errlen, "doorbell already in use (0x%08x)", db);
        return BM_EBUSY;
    }
    for (unsigned i = 0; i < req_bytes / 4; i++)
        c->hs.req[i] = (uint32_t)r[4 * i] | ((uint32_t)r[4 * i + 1] << 8) | ((uint32_t)r[4 * i + 2] << 16) |
                       ((uint32_t)r[4 * i + 3] << 24);
    c->hs.req_dwords = req_bytes / 4;
    c->hs.req_sent = 0;
    c->hs.send_only = send_only;
    c->hs.reply_timeout_ns = reply_timeout_ns;
    c->hs.words = 0;
    c->hs.msg_words = 2;
    memset(c->hs.buf, 0, sizeof(c->hs.buf));
    /* Clear any doorbell interrupt, then ask for a handshake of N dwords. */
    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
    mpt_write(c, MPT_REG_DOORBELL, ((uint32_t)MPT_FUNC_HANDSHAKE << MPT_DOORBELL_FUNCTION_SHIFT) |
                                       (c->hs.req_dwords << MPT_DOORBELL_ADD_DWORDS_SHIFT));
    mpt_hs_next(c, MPT_HS_START, plat_now_ns(), MPT_ACK_TIMEOUT_NS);
    return BM_OK;
}

int mpt_handshake_post(struct mpt_ctrl *c, const void *req, unsigned req_bytes, uint64_t reply_timeout_ns, char *err,
                       size_t errlen)
{
    return mpt_hs_begin(c, req, req_bytes, false, reply_timeout_ns, err, errlen);
}

int mpt_handshake_send_post(struct mpt_ctrl *c, const void *req, unsigned req_bytes, char *err, size_t errlen)
{
    return mpt_hs_begin(c, req, req_bytes, true, 0, err, errlen);
}

bool mpt_handshake_busy(const struct mpt_ctrl *c) { return c->hs.stage != MPT_HS_IDLE; }

/* The request dwords: the one written last acknowledged? Then the next
 * is written (and the call ends), or, after the last, the reply's (or
 * the taking's) wait begins: HBA_PENDING, BM_OK to go on at once, or an
 * error. */
static int mpt_hs_request(struct mpt_ctrl *c, uint32_t his, uint64_t now, char *err, size_t errlen)
{
    char what[64];

    if (his & MPT_HIS_IOP_DOORBELL_STATUS) {
        uint32_t db;

        /* Not taken yet; a FAULT meanwhile ends the wait at once. */
        if ((his & MPT_HIS_DOORBELL_INTERRUPT) &&
            ((db = mpt_read(c, MPT_REG_DOORBELL)) & MPT_IOC_STATE_MASK) == MPT_IOC_STATE_FAULT) {
            snprintf(err, errlen, "IOC FAULT 0x%04x with request dword %u of %u not taken",
                     db & MPT_DOORBELL_DATA_MASK, c->hs.req_sent, c->hs.req_dwords);
            mpt_hs_end(c);
            return BM_EIO;
        }
        if (now <= c->hs.deadline_ns)
            return HBA_PENDING;
        if (c->hs.req_sent)
            snprintf(what, sizeof(what), "request dword %u of %u not acknowledged", c->hs.req_sent,
                     c->hs.req_dwords);
        else
            snprintf(what, sizeof(what), "handshake function not acknowledged");
        return mpt_hs_timeout(c, what, his, err, errlen);
    }
    if (c->hs.req_sent < c->hs.req_dwords) {
        mpt_write(c, MPT_REG_DOORBELL, c->hs.req[c->hs.req_sent++]);
        mpt_hs_next(c, MPT_HS_ACK, now, MPT_ACK_TIMEOUT_NS);
        return HBA_PENDING;
    }
    if (c->hs.send_only)
        mpt_hs_next(c, MPT_HS_TAKEN, now, MPT_HANDSHAKE_SEND_TIMEOUT_NS);
    else
        mpt_hs_next(c, MPT_HS_FIRST, now, c->hs.reply_timeout_ns);
    return BM_OK;
}

int mpt_handshake_poll(struct mpt_ctrl *c, void *reply, unsigned reply_cap, char *err, size_t errlen)
{
    for (;;) {
        uint64_t now = plat_now_ns();
        uint32_t his = mpt_read(c, MPT_REG_HOST_INT_STATUS);
        bool db_int = (his & MPT_HIS_DOORBELL_INTERRUPT) != 0;
        uint16_t v;
        int rc;

        if (his == 0xffffffffu) {
            snprintf(err, errlen, "host interrupt status reads all ones: the IOC is off the bus");
            c->hs.stage = MPT_HS_IDLE;
            return BM_EIO;
        }
        switch (c->hs.stage) {
        case MPT_HS_IDLE:
            snprintf(err, errlen, "no handshake under way");
            return BM_EINVAL;
        case MPT_HS_START:
            if (!db_int) {
                if (now <= c->hs.deadline_ns)
                    return HBA_PENDING;
                return mpt_hs_timeout(c, "handshake start: no doorbell interrupt", his, err, errlen);
            }
            if (!(mpt_read(c, MPT_REG_DOORBELL) & MPT_DOORBELL_USED)) {
                snprintf(err, errlen, "IOC did not take the doorbell (0x%08x)", mpt_read(c, MPT_REG_DOORBELL));
                mpt_hs_end(c);
                return BM_EIO;
            }
            mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
            mpt_hs_next(c, MPT_HS_ACK, now, MPT_ACK_TIMEOUT_NS);
            continue;
        case MPT_HS_ACK:
            rc = mpt_hs_request(c, his, now, err, errlen);
            if (rc != BM_OK)
                return rc;
            continue;
        case MPT_HS_TAKEN:
            if (!db_int) {
                if (now <= c->hs.deadline_ns)
                    return HBA_PENDING;
                return mpt_hs_timeout(c, "request not taken: no doorbell interrupt", his, err, errlen);
            }
            mpt_hs_end(c);
            return 0;
        case MPT_HS_END:
            /* The IOC is done with the doorbell; DOORBELL_USED clears next. */
            if (!db_int) {
                if (now <= c->hs.deadline_ns)
                    return HBA_PENDING;
                return mpt_hs_timeout(c, "handshake end: no doorbell interrupt", his, err, errlen);
            }
            mpt_hs_next(c, MPT_HS_FREE, now, MPT_WORD_TIMEOUT_NS);
            continue;
        case MPT_HS_FREE:
            if (mpt_read(c, MPT_REG_DOORBELL) & MPT_DOORBELL_USED) {
                if (now <= c->hs.deadline_ns)
                    return HBA_PENDING;
                return mpt_hs_timeout(c, "handshake end: doorbell still in use", his, err, errlen);
            }
            mpt_hs_end(c);
            if (reply)
                memcpy(reply, c->hs.buf,
                       MIN((size_t)reply_cap, MIN((size_t)c->hs.msg_words * 4, sizeof(c->hs.buf))));
            return (int)(c->hs.msg_words * 4);
        default: /* MPT_HS_FIRST, MPT_HS_WORDS: the next reply word */
            if (!db_int) {
                char what[48];

                if (now <= c->hs.deadline_ns)
                    return HBA_PENDING;
                if (c->hs.stage == MPT_HS_FIRST)
                    snprintf(what, sizeof(what), "no reply");
                else
                    snprintf(what, sizeof(what), "reply word %u not signalled", c->hs.words + 1);
                return mpt_hs_timeout(c, what, his, err, errlen);
            }
            v = (uint16_t)(mpt_read(c, MPT_REG_DOORBELL) & MPT_DOORBELL_DATA_MASK);
            if ((c->hs.words + 1) * 2 <= sizeof(c->hs.buf)) {
                c->hs.buf[2 * c->hs.words] = (uint8_t)v;
                c->hs.buf[2 * c->hs.words + 1] = (uint8_t)(v >> 8);
            }
            mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
            if (c->hs.words == 1)
                c->hs.msg_words = (v & 0xff) >= 2 ? (v & 0xff) : 2; /* MsgLength */
            c->hs.words++;
            mpt_hs_next(c, c->hs.words >= c->hs.msg_words * 2 ? MPT_HS_END : MPT_HS_WORDS, now,
                        MPT_WORD_TIMEOUT_NS);
            continue;
        }
    }
}

/* A handshake run to its end (probe time: nothing else runs on this
 * controller), each of its waits bounded as mpt_handshake_poll bounds
 * them. */
static int mpt_hs_run(struct mpt_ctrl *c, void *reply, unsigned reply_cap, char *err, size_t errlen)
{
    int rc;

    while ((rc = mpt_handshake_poll(c, reply, reply_cap, err, errlen)) == HBA_PENDING)
        plat_delay_ns(MPT_HS_LOOK_NS);
    return rc;
}

/* One request and its reply through the doorbell, waited for. */
int mpt_handshake(struct mpt_ctrl *c, const void *req, unsigned req_bytes, void *reply, unsigned reply_cap,
                  uint64_t reply_timeout_ns, char *err, size_t errlen)
{
    int rc = mpt_handshake_post(c, req, req_bytes, reply_timeout_ns, err, errlen);

    if (rc != BM_OK)
        return rc;
    return mpt_hs_run(c, reply, reply_cap, err, errlen);
}

/* A request through the doorbell whose reply comes through the reply
 * FIFO, waited for until the IOC took it. */
int mpt_handshake_send(struct mpt_ctrl *c, const void *req, unsigned req_bytes, char *err, size_t errlen)
{
    int rc = mpt_handshake_send_post(c, req, req_bytes, err, errlen);

    if (rc != BM_OK)
        return rc;
    return mpt_hs_run(c, NULL, 0, err, errlen);
}

/* Soft reset: message unit reset through the doorbell, then READY. */
int mpt_message_unit_reset(struct mpt_ctrl *c, char *err, size_t errlen)
{
    int rc;

    c->hs.stage = MPT_HS_IDLE; /* the reset ends any handshake */
    mpt_write(c, MPT_REG_DOORBELL, (uint32_t)MPT_FUNC_IOC_MESSAGE_UNIT_RESET << MPT_DOORBELL_FUNCTION_SHIFT);
    rc = mpt_wait_ack(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    return mpt_wait_state(c, MPT_IOC_STATE_READY, MPT_READY_TIMEOUT_NS, err, errlen);
}

/* One try at unlocking the diagnostic register: the write-sequence keys
 * (DiagWriteEnable is looked for MPT_WRSEQ_WAIT_MS later, and the keys
 * written again when it is not set, as Linux mptbase mpt_diag_reset,
 * mpt3sas mpt3sas_base_unlock_and_get_host_diagnostic and FreeBSD
 * mps_diag_reset retry them). */
static void mpt_diag_keys(struct mpt_ctrl *c)
{
    static const uint8_t mpi1_keys[] = { MPT1_WRSEQ_FLUSH, MPT_WRSEQ_KEY1, MPT_WRSEQ_KEY2, MPT_WRSEQ_KEY3,
                                         MPT_WRSEQ_KEY4, MPT_WRSEQ_KEY5 };
    static const uint8_t mpi2_keys[] = { MPT2_WRSEQ_FLUSH, MPT2_WRSEQ_KEY1, MPT_WRSEQ_KEY1, MPT_WRSEQ_KEY2,
                                         MPT_WRSEQ_KEY3, MPT_WRSEQ_KEY4, MPT_WRSEQ_KEY5 };
    const uint8_t *keys = c->mpi2 ? mpi2_keys : mpi1_keys;
    size_t nkeys = c->mpi2 ? sizeof(mpi2_keys) : sizeof(mpi1_keys);

    for (size_t i = 0; i < nkeys; i++)
        mpt_write(c, MPT_REG_WRITE_SEQUENCE, keys[i]);
}

/* Lock the diagnostic register again with the flush key. */
static void mpt_diag_lock(struct mpt_ctrl *c)
{
    mpt_write(c, MPT_REG_WRITE_SEQUENCE, c->mpi2 ? MPT2_WRSEQ_FLUSH : MPT1_WRSEQ_FLUSH);
}

/* Hard reset through the diagnostic register: unlock it, set
 * RESET_ADAPTER, read HostDiagnostic only at the times the MPI 2 header
 * allows while the chip resets (mpt3sas _base_diag_reset), lock it again.
 * In steps (mpt_diag_reset_poll) so that recovery from poll() never waits
 * for it: not even the unlock's 100 ms after each write sequence (Linux
 * msleep()s there, in the error handler's thread; here the poll that
 * would sleep holds the queue lock and its CPU's other disks). */
int mpt_diag_reset_start(struct mpt_ctrl *c, struct mpt_diag_reset_state *st, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c->hs.stage = MPT_HS_IDLE; /* the reset ends any handshake under way */
    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
    mpt_diag_keys(c);
    st->unlock_tries = 1;
    st->next_read_ns = plat_now_ns() + MPT_WRSEQ_WAIT_MS * NS_PER_MS; /* from the last key written */
    st->deadline_ns = 0;
    return BM_OK;
}

int mpt_diag_reset_poll(struct mpt_ctrl *c, struct mpt_diag_reset_state *st, char *err, size_t errlen)
{
    uint64_t now = plat_now_ns();
    uint32_t diag;

    if (now < st->next_read_ns)
        return HBA_PENDING;
    diag = mpt_read(c, MPT_REG_DIAGNOSTIC);
    if (st->unlock_tries) {
        /* A write sequence went out MPT_WRSEQ_WAIT_MS ago. */
        if (!(diag & MPT_DIAG_DRWE)) {
            if (st->unlock_tries >= MPT_WRSEQ_TRIES) {
                mpt_diag_lock(c);
                snprintf(err, errlen, "diagnostic register stayed locked after %u write sequences (0x%08x)",
                         st->unlock_tries, diag);
                return BM_ETIMEDOUT;
            }
            mpt_diag_keys(c);
            st->unlock_tries++;
            st->next_read_ns = plat_now_ns() + MPT_WRSEQ_WAIT_MS * NS_PER_MS;
            return HBA_PENDING;
        }
        if (st->unlock_tries > 1)
            plat_diag(c->bdf, "diagnostic register unlocked on attempt %u", st->unlock_tries);
        st->unlock_tries = 0;
        mpt_write(c, MPT_REG_DIAGNOSTIC, diag | MPT_DIAG_RESET_ADAPTER);
        /* The chip's PCIe side is resetting: no read before the first
         * delay, counted from the write. */
        st->next_read_ns = plat_now_ns() + MPT_DIAG_FIRST_READ_DELAY_MS * NS_PER_MS;
        st->deadline_ns = st->next_read_ns + MPT_READY_TIMEOUT_NS;
        return HBA_PENDING;
    }
    if (diag & MPT_DIAG_RESET_ADAPTER) {
        if (diag == 0xffffffffu || now > st->deadline_ns) {
            mpt_diag_lock(c);
            snprintf(err, errlen, "adapter reset did not finish (diagnostic 0x%08x)", diag);
            return BM_ETIMEDOUT;
        }
        st->next_read_ns = now + MPT_DIAG_SECOND_READ_DELAY_MS * NS_PER_MS;
        return HBA_PENDING;
    }
    mpt_diag_lock(c);
    return BM_OK;
}

/* The diagnostic reset, waited for, then READY. */
static int mpt_diag_reset(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpt_diag_reset_state st;
    int rc = mpt_diag_reset_start(c, &st, err, errlen);

    if (rc != BM_OK)
        return rc;
    while ((rc = mpt_diag_reset_poll(c, &st, err, errlen)) == HBA_PENDING)
        plat_delay_ns(MIN(st.next_read_ns - MIN(st.next_read_ns, plat_now_ns()) + 1, (uint64_t)NS_PER_S));
    if (rc != BM_OK)
        return rc;
    return mpt_wait_state(c, MPT_IOC_STATE_READY, MPT_READY_TIMEOUT_NS, err, errlen);
}

/* Any IOC state to READY (Linux mptbase MakeIocReady). */
int mpt_make_ready(struct mpt_ctrl *c, char *err, size_t errlen)
{
    uint32_t db = mpt_read(c, MPT_REG_DOORBELL);
    uint32_t state = db & MPT_IOC_STATE_MASK;
    int rc = BM_OK;

    if (state == MPT_IOC_STATE_READY)
        return BM_OK;
    if (state == MPT_IOC_STATE_RESET) {
        /* Coming out of reset by itself (power on). */
        if (mpt_wait_state(c, MPT_IOC_STATE_READY, MPT_READY_TIMEOUT_NS, err, errlen) == BM_OK)
            return BM_OK;
    }
    if (state == MPT_IOC_STATE_OPERATIONAL) {
        plat_diag(c->bdf, "IOC was OPERATIONAL (who init %u): message unit reset",
                  (db & MPT_DOORBELL_WHO_INIT_MASK) >> MPT_DOORBELL_WHO_INIT_SHIFT);
        rc = mpt_message_unit_reset(c, err, errlen);
        if (rc == BM_OK)
            return BM_OK;
    }
    return mpt_hard_reset(c, err, errlen);
}

/* Hard reset of an operational IOC whose requests must be taken back (a
 * command that survived task management): the diagnostic reset whatever
 * the IOC's state, as Linux mpt3sas_base_hard_reset_handler calls
 * _base_diag_reset (mptbase mpt_HardResetHandler: mpt_diag_reset). Once
 * it returns BM_OK the IOC is READY and owns no request: it can no longer
 * write any buffer it was given. */
int mpt_hard_reset(struct mpt_ctrl *c, char *err, size_t errlen)
{
    uint32_t db = mpt_read(c, MPT_REG_DOORBELL);
    int rc;

    plat_diag(c->bdf, "IOC %s (doorbell 0x%08x): diagnostic reset", mpt_ioc_state_name(db), db);
    rc = mpt_diag_reset(c, err, errlen);
    if (rc == BM_OK)
        plat_diag(c->bdf, "IOC READY after diagnostic reset");
    return rc;
}
