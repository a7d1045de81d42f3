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
#include "mpt.h"
#include "mpt_regs.h"
#include "mpi.h"

#define MS_NS 1000000ull
#define S_NS 1000000000ull
#define MPT_ACK_TIMEOUT_NS (5 * S_NS)     /* per doorbell word */
#define MPT_WORD_TIMEOUT_NS (5 * S_NS)    /* per reply word after the first */
#define MPT_READY_TIMEOUT_NS (60 * S_NS)  /* a reset back to READY */

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

/* Poll the doorbell until the IOC is in state (bounded). */
int mpt_wait_state(struct mpt_ctrl *c, uint32_t state, uint64_t timeout_ns, char *err, size_t errlen)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;
    uint32_t db;

    for (;;) {
        db = mpt_read(c, MPT_REG_DOORBELL);
        if ((db & MPT_IOC_STATE_MASK) == state)
            return BM_OK;
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "IOC not %s within %llu ms: doorbell 0x%08x (%s)", mpt_ioc_state_name(state),
                     (unsigned long long)(timeout_ns / MS_NS), db, mpt_ioc_state_name(db));
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(MS_NS);
    }
}

/* Wait for the IOC to take the doorbell word just written: the IOP
 * doorbell status bit of HIS clears. */
static int mpt_wait_ack(struct mpt_ctrl *c, char *err, size_t errlen)
{
    uint64_t deadline = plat_now_ns() + MPT_ACK_TIMEOUT_NS;
    uint32_t his;

    while ((his = mpt_read(c, MPT_REG_HOST_INT_STATUS)) & MPT_HIS_IOP_DOORBELL_STATUS) {
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "doorbell word not acknowledged: host interrupt status 0x%08x", his);
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(10000);
    }
    return BM_OK;
}

/* Wait for the IOC to raise the doorbell interrupt bit of HIS. */
static int mpt_wait_doorbell_int(struct mpt_ctrl *c, uint64_t timeout_ns, const char *what, char *err, size_t errlen)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;
    uint32_t his;

    while (!((his = mpt_read(c, MPT_REG_HOST_INT_STATUS)) & MPT_HIS_DOORBELL_INTERRUPT)) {
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "%s: no doorbell interrupt within %llu ms (HIS 0x%08x, doorbell 0x%08x)", what,
                     (unsigned long long)(timeout_ns / MS_NS), his, mpt_read(c, MPT_REG_DOORBELL));
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(10000);
    }
    return BM_OK;
}

/* One request and its reply through the doorbell (MPI 1.5). */
int mpt_handshake(struct mpt_ctrl *c, const void *req, unsigned req_bytes, void *reply, unsigned reply_cap,
                  uint64_t reply_timeout_ns, char *err, size_t errlen)
{
    const uint8_t *r = req;
    uint16_t *out = reply;
    unsigned words, msg_words = 2;
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
    /* The reply, 16 bits per doorbell interrupt. The first two words
     * hold MsgLength (dwords) in their third byte. */
    for (words = 0; words < msg_words * 2; words++) {
        uint16_t v;
        rc = mpt_wait_doorbell_int(c, words == 0 ? reply_timeout_ns : MPT_WORD_TIMEOUT_NS, "handshake reply", err,
                                   errlen);
        if (rc != BM_OK)
            return rc;
        v = (uint16_t)(mpt_read(c, MPT_REG_DOORBELL) & MPT_DOORBELL_DATA_MASK);
        if ((words + 1) * 2 <= reply_cap)
            out[words] = v;
        mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
        if (words == 1) {
            msg_words = (v & 0xff) ? (v & 0xff) : 2; /* MsgLength */
            if (msg_words < 2)
                msg_words = 2;
        }
    }
    /* A last doorbell interrupt says the IOC is done with the doorbell. */
    rc = mpt_wait_doorbell_int(c, MPT_WORD_TIMEOUT_NS, "handshake end", err, errlen);
    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
    if (rc != BM_OK)
        return rc;
    return (int)(msg_words * 4);
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

/* Hard reset through the diagnostic register (MPI 1.5):
 * unlock it with the write-sequence keys, set RESET_ADAPTER, wait for the
 * IOC to come back to READY. */
static int mpt_diag_reset(struct mpt_ctrl *c, char *err, size_t errlen)
{
    static const uint8_t keys[] = { MPT_WRSEQ_FLUSH, MPT_WRSEQ_KEY1, MPT_WRSEQ_KEY2, MPT_WRSEQ_KEY3,
                                    MPT_WRSEQ_KEY4, MPT_WRSEQ_KEY5 };
    uint64_t deadline;
    uint32_t diag;
    int rc;

    mpt_write(c, MPT_REG_HOST_INT_STATUS, 0);
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
        mpt_write(c, MPT_REG_WRITE_SEQUENCE, keys[i]);
    deadline = plat_now_ns() + 2 * S_NS;
    while (!((diag = mpt_read(c, MPT_REG_DIAGNOSTIC)) & MPT_DIAG_DRWE)) {
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "diagnostic register stayed locked (0x%08x)", diag);
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(MS_NS);
    }
    mpt_write(c, MPT_REG_DIAGNOSTIC, diag | MPT_DIAG_RESET_ADAPTER);
    /* The chip is unreachable for a while after the reset starts. */
    plat_delay_ns(100 * MS_NS);
    deadline = plat_now_ns() + MPT_READY_TIMEOUT_NS;
    while ((diag = mpt_read(c, MPT_REG_DIAGNOSTIC)) & MPT_DIAG_RESET_ADAPTER) {
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "adapter reset did not finish (diagnostic 0x%08x)", diag);
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(MS_NS);
    }
    rc = mpt_wait_state(c, MPT_IOC_STATE_READY, MPT_READY_TIMEOUT_NS, err, errlen);
    /* Lock the diagnostic register again. */
    mpt_write(c, MPT_REG_WRITE_SEQUENCE, MPT_WRSEQ_FLUSH);
    return rc;
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
        plat_log("%s IOC was OPERATIONAL (who init %u): message unit reset", c->name,
                 (db & MPT_DOORBELL_WHO_INIT_MASK) >> MPT_DOORBELL_WHO_INIT_SHIFT);
        rc = mpt_message_unit_reset(c, err, errlen);
        if (rc == BM_OK)
            return BM_OK;
    }
    plat_log("%s IOC %s (doorbell 0x%08x): diagnostic reset", c->name, mpt_ioc_state_name(db), db);
    rc = mpt_diag_reset(c, err, errlen);
    if (rc == BM_OK)
        plat_log("%s IOC READY after diagnostic reset", c->name);
    return rc;
}
