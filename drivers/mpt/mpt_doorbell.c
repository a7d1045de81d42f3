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

#define MPT_ACK_TIMEOUT_NS (5 * NS_PER_S)     /* per doorbell word */
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
 * doorbell status bit of HIS clears. */
static int mpt_wait_ack(struct mpt_ctrl *c, char *err, size_t errlen)
{
    uint32_t his;

    if (hba_poll_reg(c->regs, MPT_REG_HOST_INT_STATUS, MPT_HIS_IOP_DOORBELL_STATUS, 0, MPT_ACK_TIMEOUT_NS, 10000,
                     false, &his))
        return BM_OK;
    snprintf(err, errlen, "doorbell word not acknowledged: host interrupt status 0x%08x", his);
    return BM_ETIMEDOUT;
}

/* Wait for the IOC to raise the doorbell interrupt bit of HIS. */
static int mpt_wait_doorbell_int(struct mpt_ctrl *c, uint64_t timeout_ns, const char *what, char *err, size_t errlen)
{
    uint32_t his;

    if (hba_poll_reg(c->regs, MPT_REG_HOST_INT_STATUS, MPT_HIS_DOORBELL_INTERRUPT, MPT_HIS_DOORBELL_INTERRUPT,
                     timeout_ns, 10000, false, &his))
        return BM_OK;
    snprintf(err, errlen, "%s: no doorbell interrupt within %llu ms (HIS 0x%08x, doorbell 0x%08x)", what,
             (unsigned long long)(timeout_ns / NS_PER_MS), his, mpt_read(c, MPT_REG_DOORBELL));
    return BM_ETIMEDOUT;
}

/* Wait for DOORBELL_USED to clear after a handshake: real IOCs drop it a
 * little after the last reply word, and the next handshake must not find
 * it set (as Linux mpt3sas _base_handshake_req_reply_wait ends with
 * _base_wait_for_doorbell_not_used). */
static int mpt_wait_doorbell_free(struct mpt_ctrl *c, char *err, size_t errlen)
{
    uint32_t db;

    if (hba_poll_reg(c->regs, MPT_REG_DOORBELL, MPT_DOORBELL_USED, 0, MPT_WORD_TIMEOUT_NS, 10000, false, &db))
        return BM_OK;
    snprintf(err, errlen, "handshake end: doorbell still in use (0x%08x)", db);
    return BM_ETIMEDOUT;
}

/* The request half of a handshake: claim the doorbell for req_bytes / 4
 * dwords, then write them one by one, each acknowledged (Linux mptbase
 * mpt_handshake_req_reply_wait and mpt_send_handshake_request share it). */
static int mpt_handshake_request(struct mpt_ctrl *c, const void *req, unsigned req_bytes, char *err, size_t errlen)
{
    const uint8_t *r = req;
    int rc;

    if (req_bytes % 4 || req_bytes > 4 * 0xff)
        return BM_EINVAL;
    if (mpt_read(c, MPT_REG_DOORBELL) & MPT_DOORBELL_USED) {
        snprintf(err, errlen, "doorbell already in use (0x%08x)", mpt_read(c, MPT_REG_DOORBELL));
        return BM_EBUSY;
    }
    /* Clear any doorbell interrupt, then ask for a handshake of N dwords. */
    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
    mpt_write(c, MPT_REG_DOORBELL, ((uint32_t)MPT_FUNC_HANDSHAKE << MPT_DOORBELL_FUNCTION_SHIFT) |
                                       ((req_bytes / 4) << MPT_DOORBELL_ADD_DWORDS_SHIFT));
    rc = mpt_wait_doorbell_int(c, MPT_ACK_TIMEOUT_NS, "handshake start", err, errlen);
    if (rc != BM_OK)
        return rc;
    if (!(mpt_read(c, MPT_REG_DOORBELL) & MPT_DOORBELL_USED)) {
        snprintf(err, errlen, "IOC did not take the doorbell (0x%08x)", mpt_read(c, MPT_REG_DOORBELL));
        return BM_EIO;
    }
    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
    rc = mpt_wait_ack(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    /* The request, one dword at a time, each acknowledged. */
    for (unsigned i = 0; i < req_bytes; i += 4) {
        uint32_t w = (uint32_t)r[i] | ((uint32_t)r[i + 1] << 8) | ((uint32_t)r[i + 2] << 16) |
                     ((uint32_t)r[i + 3] << 24);
        mpt_write(c, MPT_REG_DOORBELL, w);
        rc = mpt_wait_ack(c, err, errlen);
        if (rc != BM_OK)
            return rc;
    }
    return BM_OK;
}

/* A request handed over through the doorbell whose reply comes through
 * the reply FIFO (MPI 1 task management on IOCs without a high-priority
 * FIFO): as Linux mptbase mpt_send_handshake_request, after the last
 * dword the IOC raises one doorbell interrupt (waited for up to 10 s) to
 * say it took the request; no reply words follow. */
int mpt_handshake_send(struct mpt_ctrl *c, const void *req, unsigned req_bytes, char *err, size_t errlen)
{
    int rc = mpt_handshake_request(c, req, req_bytes, err, errlen);

    if (rc == BM_OK)
        rc = mpt_wait_doorbell_int(c, MPT_HANDSHAKE_SEND_TIMEOUT_NS, "handshake request taken", err, errlen);
    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
    return rc;
}

/* The reply half of a handshake, 16 bits per doorbell interrupt; the
 * first word is waited for up to first_timeout_ns (0 when the caller saw
 * it signalled already: mpt_handshake_poll), the others MPT_WORD_TIMEOUT_NS
 * each. The first two words hold MsgLength (dwords) in their third byte.
 * Returns the reply length in bytes (at most reply_cap are stored). */
static int mpt_handshake_read(struct mpt_ctrl *c, void *reply, unsigned reply_cap, uint64_t first_timeout_ns,
                              char *err, size_t errlen)
{
    uint8_t *out = reply; /* often a packed struct: stored byte by byte */
    unsigned words, msg_words = 2;
    int rc;

    for (words = 0; words < msg_words * 2; words++) {
        uint16_t v;
        rc = mpt_wait_doorbell_int(c, words == 0 ? first_timeout_ns : MPT_WORD_TIMEOUT_NS, "handshake reply", err,
                                   errlen);
        if (rc != BM_OK)
            return rc;
        v = (uint16_t)(mpt_read(c, MPT_REG_DOORBELL) & MPT_DOORBELL_DATA_MASK);
        if ((words + 1) * 2 <= reply_cap) {
            out[2 * words] = (uint8_t)v;
            out[2 * words + 1] = (uint8_t)(v >> 8);
        }
        mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
        if (words == 1) {
            msg_words = (v & 0xff) ? (v & 0xff) : 2; /* MsgLength */
            if (msg_words < 2)
                msg_words = 2;
        }
    }
    /* A last doorbell interrupt says the IOC is done with the doorbell. */
    rc = mpt_wait_doorbell_int(c, MPT_WORD_TIMEOUT_NS, "handshake end", err, errlen);
    if (rc == BM_OK)
        rc = mpt_wait_doorbell_free(c, err, errlen);
    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
    if (rc != BM_OK)
        return rc;
    return (int)(msg_words * 4);
}

/* One request and its reply through the doorbell (MPI 1.5). */
int mpt_handshake(struct mpt_ctrl *c, const void *req, unsigned req_bytes, void *reply, unsigned reply_cap,
                  uint64_t reply_timeout_ns, char *err, size_t errlen)
{
    int rc = mpt_handshake_request(c, req, req_bytes, err, errlen);

    if (rc != BM_OK)
        return rc;
    return mpt_handshake_read(c, reply, reply_cap, reply_timeout_ns, err, errlen);
}

int mpt_handshake_post(struct mpt_ctrl *c, const void *req, unsigned req_bytes, char *err, size_t errlen)
{
    c->hs.stage = MPT_HS_IDLE;
    return mpt_handshake_request(c, req, req_bytes, err, errlen);
}

/* mpt_handshake_poll's word (or end) did not come: HBA_PENDING within
 * its 5 s, else the handshake ends with BM_ETIMEDOUT naming it. */
static int mpt_hs_wait(struct mpt_ctrl *c, const char *what, char *err, size_t errlen)
{
    if (plat_now_ns() <= c->hs.deadline_ns)
        return HBA_PENDING;
    snprintf(err, errlen, "%s: no doorbell interrupt within %llu ms after word %u (HIS 0x%08x, doorbell 0x%08x)",
             what, (unsigned long long)(MPT_WORD_TIMEOUT_NS / NS_PER_MS), c->hs.words,
             mpt_read(c, MPT_REG_HOST_INT_STATUS), mpt_read(c, MPT_REG_DOORBELL));
    c->hs.stage = MPT_HS_IDLE;
    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
    return BM_ETIMEDOUT;
}

/* The reply half of mpt_handshake_read, taken as far as the IOC has got
 * on each call and never waited for: the words already signalled are
 * read, then HBA_PENDING until the next one (each within
 * MPT_WORD_TIMEOUT_NS of the one before, as mpt3sas
 * _base_handshake_req_reply_wait bounds them), the end interrupt and
 * DOORBELL_USED clear. Returns the reply's length in bytes once whole (at
 * most reply_cap of it copied to reply). */
int mpt_handshake_poll(struct mpt_ctrl *c, void *reply, unsigned reply_cap, char *err, size_t errlen)
{
    for (;;) {
        uint32_t his = mpt_read(c, MPT_REG_HOST_INT_STATUS);
        uint16_t v;

        if (c->hs.stage == MPT_HS_FREE) {
            if (mpt_read(c, MPT_REG_DOORBELL) & MPT_DOORBELL_USED)
                return mpt_hs_wait(c, "handshake end (doorbell still in use)", err, errlen);
            mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
            c->hs.stage = MPT_HS_IDLE;
            memcpy(reply, c->hs.buf, MIN((size_t)reply_cap, MIN((size_t)c->hs.msg_words * 4, sizeof(c->hs.buf))));
            return (int)(c->hs.msg_words * 4);
        }
        if (!(his & MPT_HIS_DOORBELL_INTERRUPT)) {
            if (c->hs.stage == MPT_HS_IDLE)
                return HBA_PENDING; /* the first word: the part's own bound */
            return mpt_hs_wait(c, c->hs.stage == MPT_HS_WORDS ? "handshake reply" : "handshake end", err, errlen);
        }
        if (c->hs.stage == MPT_HS_IDLE) {
            c->hs.stage = MPT_HS_WORDS;
            c->hs.words = 0;
            c->hs.msg_words = 2;
            memset(c->hs.buf, 0, sizeof(c->hs.buf));
        }
        if (c->hs.stage == MPT_HS_END) {
            /* The IOC is done with the doorbell; DOORBELL_USED clears next. */
            c->hs.stage = MPT_HS_FREE;
            c->hs.deadline_ns = plat_now_ns() + MPT_WORD_TIMEOUT_NS;
            continue;
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
        if (c->hs.words >= c->hs.msg_words * 2)
            c->hs.stage = MPT_HS_END;
        c->hs.deadline_ns = plat_now_ns() + MPT_WORD_TIMEOUT_NS;
    }
}

/* Soft reset: message unit reset through the doorbell, then READY. */
int mpt_message_unit_reset(struct mpt_ctrl *c, char *err, size_t errlen)
{
    int rc;

    mpt_write(c, MPT_REG_DOORBELL, (uint32_t)MPT_FUNC_IOC_MESSAGE_UNIT_RESET << MPT_DOORBELL_FUNCTION_SHIFT);
    rc = mpt_wait_ack(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    return mpt_wait_state(c, MPT_IOC_STATE_READY, MPT_READY_TIMEOUT_NS, err, errlen);
}

/* Unlock the diagnostic register: the write-sequence keys, then
 * DiagWriteEnable read back, retried as Linux (mptbase mpt_diag_reset,
 * mpt3sas mpt3sas_base_unlock_and_get_host_diagnostic) and FreeBSD
 * (mps_diag_reset) retry it. Returns the unlocked register's value. */
static int mpt_diag_unlock(struct mpt_ctrl *c, uint32_t *diag, char *err, size_t errlen)
{
    static const uint8_t mpi1_keys[] = { MPT1_WRSEQ_FLUSH, MPT_WRSEQ_KEY1, MPT_WRSEQ_KEY2, MPT_WRSEQ_KEY3,
                                         MPT_WRSEQ_KEY4, MPT_WRSEQ_KEY5 };
    static const uint8_t mpi2_keys[] = { MPT2_WRSEQ_FLUSH, MPT2_WRSEQ_KEY1, MPT_WRSEQ_KEY1, MPT_WRSEQ_KEY2,
                                         MPT_WRSEQ_KEY3, MPT_WRSEQ_KEY4, MPT_WRSEQ_KEY5 };
    const uint8_t *keys = c->mpi2 ? mpi2_keys : mpi1_keys;
    size_t nkeys = c->mpi2 ? sizeof(mpi2_keys) : sizeof(mpi1_keys);

    for (unsigned attempt = 1; attempt <= MPT_WRSEQ_TRIES; attempt++) {
        for (size_t i = 0; i < nkeys; i++)
            mpt_write(c, MPT_REG_WRITE_SEQUENCE, keys[i]);
        plat_delay_ns(MPT_WRSEQ_WAIT_MS * NS_PER_MS);
        *diag = mpt_read(c, MPT_REG_DIAGNOSTIC);
        if (*diag & MPT_DIAG_DRWE) {
            if (attempt > 1)
                plat_diag(c->bdf, "diagnostic register unlocked on attempt %u", attempt);
            return BM_OK;
        }
    }
    snprintf(err, errlen, "diagnostic register stayed locked after %u write sequences (0x%08x)", MPT_WRSEQ_TRIES,
             *diag);
    return BM_ETIMEDOUT;
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
 * for it. */
int mpt_diag_reset_start(struct mpt_ctrl *c, struct mpt_diag_reset_state *st, char *err, size_t errlen)
{
    uint32_t diag;
    int rc;

    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
    rc = mpt_diag_unlock(c, &diag, err, errlen);
    if (rc != BM_OK) {
        mpt_diag_lock(c);
        return rc;
    }
    mpt_write(c, MPT_REG_DIAGNOSTIC, diag | MPT_DIAG_RESET_ADAPTER);
    /* The chip's PCIe side is resetting: no read before the first delay
     * (50 ms, waited here: short, and the unlock above waits as long). */
    plat_delay_ns(MPT_DIAG_FIRST_READ_DELAY_MS * NS_PER_MS);
    st->next_read_ns = plat_now_ns();
    st->deadline_ns = st->next_read_ns + MPT_READY_TIMEOUT_NS;
    return BM_OK;
}

int mpt_diag_reset_poll(struct mpt_ctrl *c, struct mpt_diag_reset_state *st, char *err, size_t errlen)
{
    uint64_t now = plat_now_ns();
    uint32_t diag;

    if (now < st->next_read_ns)
        return HBA_PENDING;
    diag = mpt_read(c, MPT_REG_DIAGNOSTIC);
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
