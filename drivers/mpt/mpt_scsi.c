/* SCSI IO messages: the MPI 1 request, and reading any reply into a
 * completion status. */
#include "mpt_types.h"
#include "mpi.h"
#include "mpi2.h"

/* SAM single-level LUN: peripheral addressing below 256, flat above. */
void mpt_encode_lun(uint8_t lun_out[8], uint32_t lun)
{
    if (lun < 256) {
        lun_out[1] = (uint8_t)lun;
    } else {
        lun_out[0] = (uint8_t)(0x40 | ((lun >> 8) & 0x3f));
        lun_out[1] = (uint8_t)lun;
    }
}

/* MPI 1.5 SCSI IO: one 64-bit simple SGE right after the request;
 * a command without data still carries a zero-length end-of-list SGE. */
unsigned mpt1_build_scsi_io(void *frame, const struct mpt_scsi_io *io, uint32_t context)
{
    struct mpi_scsi_io_request *r = frame;
    uint32_t flags = MPI_SGE_FLAGS_SIMPLE_ELEMENT | MPI_SGE_FLAGS_LAST_ELEMENT | MPI_SGE_FLAGS_END_OF_BUFFER |
                     MPI_SGE_FLAGS_END_OF_LIST | MPI_SGE_FLAGS_64_BIT_ADDRESSING;

    memset(r, 0, sizeof(*r));
    r->target_id = io->target;
    r->bus = io->bus;
    r->function = MPI_FUNCTION_SCSI_IO_REQUEST;
    r->cdb_length = io->cdb_len;
    r->sense_buffer_length = MPT_SENSE_BYTES;
    r->msg_context = context;
    mpt_encode_lun(r->lun, io->lun);
    switch (io->dir) {
    case SCSI_DIR_IN:
        r->control = MPI_SCSIIO_CONTROL_READ | MPI_SCSIIO_CONTROL_SIMPLEQ;
        break;
    case SCSI_DIR_OUT:
        r->control = MPI_SCSIIO_CONTROL_WRITE | MPI_SCSIIO_CONTROL_SIMPLEQ;
        flags |= MPI_SGE_FLAGS_HOST_TO_IOC;
        break;
    default:
        r->control = MPI_SCSIIO_CONTROL_NODATATRANSFER | MPI_SCSIIO_CONTROL_SIMPLEQ;
        break;
    }
    memcpy(r->cdb, io->cdb, io->cdb_len);
    r->data_length = io->data_len;
    r->sense_buffer_low_addr = (uint32_t)io->sense_pa;
    r->sgl.flags_length = flags | (io->data_len & MPI_SGE_LENGTH_MASK);
    r->sgl.addr = io->data_len ? io->data_pa : 0;
    return (unsigned)sizeof(*r);
}

/* Writes an MPI 2 SGL element by element, across chain segments. */
struct mpt2_sgl_writer {
    const struct mpt2_sgl_space *sp;
    uint8_t *frame;
    uint8_t *pos;               /* next element */
    uint32_t esz;               /* element size: 12 (MPI) or 16 (IEEE) */
    uint32_t data_flags;        /* MPI simple flags every data element carries */
};

/* One data element; end: the last of the list; seg_last: the last of its
 * segment (MPI LAST_ELEMENT, before a chain element). */
static void mpt2_put_simple(struct mpt2_sgl_writer *w, uint64_t pa, uint32_t len, bool end, bool seg_last)
{
    if (w->sp->ieee) {
        struct mpi2_ieee_sge64 *e = (struct mpi2_ieee_sge64 *)w->pos;
        memset(e, 0, sizeof(*e));
        e->address = pa;
        e->length = len;
        e->flags = MPI2_IEEE_SGE_FLAGS_SIMPLE_ELEMENT | MPI2_IEEE_SGE_FLAGS_SYSTEM_ADDR |
                   (end ? MPI25_IEEE_SGE_FLAGS_END_OF_LIST : 0);
    } else {
        struct mpi2_sge_simple64 *e = (struct mpi2_sge_simple64 *)w->pos;
        uint32_t flags = w->data_flags;
        if (end)
            flags |= MPI_SGE_FLAGS_LAST_ELEMENT | MPI_SGE_FLAGS_END_OF_BUFFER | MPI_SGE_FLAGS_END_OF_LIST;
        else if (seg_last)
            flags |= MPI_SGE_FLAGS_LAST_ELEMENT;
        e->flags_length = flags | (len & MPI_SGE_LENGTH_MASK);
        e->address = pa;
    }
    w->pos += w->esz;
}

/* A chain element pointing at a segment of seg_bytes whose own chain
 * element (if any) is next_elems elements in. */
static void mpt2_put_chain(struct mpt2_sgl_writer *w, uint64_t pa, uint32_t seg_bytes, uint32_t next_elems)
{
    if (w->sp->ieee) {
        struct mpi2_ieee_sge64 *e = (struct mpi2_ieee_sge64 *)w->pos;
        memset(e, 0, sizeof(*e));
        e->address = pa;
        e->length = seg_bytes;
        e->reserved2 = (uint8_t)next_elems;        /* NextChainOffset, in elements */
        e->flags = MPI2_IEEE_SGE_FLAGS_CHAIN_ELEMENT | MPI2_IEEE_SGE_FLAGS_SYSTEM_ADDR;
    } else {
        struct mpi2_sge_chain64 *e = (struct mpi2_sge_chain64 *)w->pos;
        e->length = (uint16_t)seg_bytes;
        e->next_chain_offset = (uint8_t)(next_elems * w->esz / 4); /* in dwords */
        e->flags = (uint8_t)((MPI2_SGE_FLAGS_CHAIN_ELEMENT | MPI_SGE_FLAGS_64_BIT_ADDRESSING) >> 24);
        e->address = pa;
    }
}

/* The SGL of a transfer of len bytes at pa, split into SGEs of at most
 * max_sge_bytes: all in the frame when they fit, else the frame's last
 * element slot becomes a chain element, and each chain segment holds as
 * many elements as fit, its last slot chaining on when more follow (the
 * layout of Linux mpt3sas _base_build_sg_scmd_ieee; MPI 2.0 chains the
 * same way with dword offsets, the element before each chain marked
 * LAST_ELEMENT). */
static bool mpt2_build_sgl(struct mpt2_sgl_writer *w, uint64_t pa, uint32_t len)
{
    const struct mpt2_sgl_space *sp = w->sp;
    uint32_t max = sp->max_sge_bytes ? sp->max_sge_bytes : len;
    uint32_t n = (len + max - 1) / max, done = 0, seg = 0;
    uint32_t main_cap = (sp->frame_bytes - MPI2_SCSIIO_SGL_OFFSET) / w->esz;
    uint32_t seg_cap = sp->chain_seg_bytes / w->esz;
    uint32_t in_seg, left;

#define NEXT_PIECE() (MIN(max, len - done))
    if (n <= main_cap) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t piece = NEXT_PIECE();
            mpt2_put_simple(w, pa + done, piece, i + 1 == n, false);
            done += piece;
        }
        return true;
    }
    if (main_cap < 2 || seg_cap < 2 || !sp->chain)
        return false;
    /* The frame: main_cap - 1 data elements, then the chain element. */
    for (uint32_t i = 0; i + 1 < main_cap; i++) {
        uint32_t piece = NEXT_PIECE();
        mpt2_put_simple(w, pa + done, piece, false, i + 2 == main_cap);
        done += piece;
    }
    w->frame[2] = (uint8_t)((w->pos - w->frame) / (sp->ieee ? MPI25_CHAIN_SEGMENT_UNIT : 4)); /* ChainOffset */
    left = n - (main_cap - 1);
    while (left) {
        uint8_t *segment = sp->chain + (size_t)seg * sp->chain_seg_bytes;
        bool more;

        if (seg == sp->chain_segs)
            return false;
        in_seg = left <= seg_cap ? left : seg_cap - 1;
        more = left > in_seg;
        mpt2_put_chain(w, sp->chain_pa + (uint64_t)seg * sp->chain_seg_bytes, (in_seg + (more ? 1 : 0)) * w->esz,
                       more ? in_seg : 0);
        w->pos = segment;
        for (uint32_t i = 0; i < in_seg; i++) {
            uint32_t piece = NEXT_PIECE();
            mpt2_put_simple(w, pa + done, piece, !more && i + 1 == in_seg, more && i + 1 == in_seg);
            done += piece;
        }
        left -= in_seg;
        seg++;
    }
#undef NEXT_PIECE
    return true;
}

/* MPI 2 SCSI IO (mpi2_init.h): the device by handle, sense in system
 * memory (MsgFlags SYSTEM_SENSE_ADDR, high half from IOC INIT), the SGL at
 * 0x60 (SGLOffset0 in dwords). A command without data still carries a
 * zero-length end-of-list SGE whose address is all ones (as Linux
 * mpt3sas _base_build_zero_len_sge{,_ieee} builds it). */
unsigned mpt2_build_scsi_io(void *frame, const struct mpt_scsi_io *io, const struct mpt2_sgl_space *sp)
{
    struct mpi2_scsi_io_request *r = frame;
    bool data = io->data_len && io->dir != SCSI_DIR_NONE;
    struct mpt2_sgl_writer w;

    memset(r, 0, sizeof(*r));
    r->dev_handle = io->dev_handle;
    r->function = MPI2_FUNCTION_SCSI_IO_REQUEST;
    r->msg_flags = MPI2_SCSIIO_MSGFLAGS_SYSTEM_SENSE_ADDR;
    r->sense_buffer_low_address = (uint32_t)io->sense_pa;
    r->sense_buffer_length = MPT_SENSE_BYTES;
    r->sgl_offset0 = MPI2_SCSIIO_SGL_OFFSET / 4;
    r->data_length = data ? io->data_len : 0;
    r->io_flags = io->cdb_len & MPI2_SCSIIO_IOFLAGS_CDBLENGTH_MASK;
    mpt_encode_lun(r->lun, io->lun);
    switch (data ? io->dir : SCSI_DIR_NONE) {
    case SCSI_DIR_IN:
        r->control = MPI2_SCSIIO_CONTROL_READ | MPI2_SCSIIO_CONTROL_SIMPLEQ;
        break;
    case SCSI_DIR_OUT:
        r->control = MPI2_SCSIIO_CONTROL_WRITE | MPI2_SCSIIO_CONTROL_SIMPLEQ;
        break;
    default:
        r->control = MPI2_SCSIIO_CONTROL_NODATATRANSFER | MPI2_SCSIIO_CONTROL_SIMPLEQ;
        break;
    }
    memcpy(r->cdb, io->cdb, io->cdb_len);
    w.sp = sp;
    w.frame = frame;
    w.pos = (uint8_t *)frame + MPI2_SCSIIO_SGL_OFFSET;
    w.esz = sp->ieee ? (uint32_t)sizeof(struct mpi2_ieee_sge64) : (uint32_t)sizeof(struct mpi2_sge_simple64);
    w.data_flags = MPI_SGE_FLAGS_SIMPLE_ELEMENT | MPI_SGE_FLAGS_64_BIT_ADDRESSING |
                   (io->dir == SCSI_DIR_OUT ? MPI_SGE_FLAGS_HOST_TO_IOC : 0);
    if (!data) {
        if (sp->ieee) {
            r->sgl.ieee.address = ~0ull;
            r->sgl.ieee.flags = MPI2_IEEE_SGE_FLAGS_SIMPLE_ELEMENT | MPI2_IEEE_SGE_FLAGS_SYSTEM_ADDR |
                                MPI25_IEEE_SGE_FLAGS_END_OF_LIST;
        } else {
            r->sgl.mpi.flags_length = MPI_SGE_FLAGS_SIMPLE_ELEMENT | MPI_SGE_FLAGS_LAST_ELEMENT |
                                      MPI_SGE_FLAGS_END_OF_BUFFER | MPI_SGE_FLAGS_END_OF_LIST |
                                      MPI_SGE_FLAGS_64_BIT_ADDRESSING;
            r->sgl.mpi.address = ~0ull;
        }
        return MPI2_SCSIIO_SGL_OFFSET + w.esz;
    }
    if (!mpt2_build_sgl(&w, io->data_pa, io->data_len))
        return 0;
    return r->chain_offset ? sp->frame_bytes : (unsigned)(w.pos - (uint8_t *)frame);
}

/* Text for an IOC status. */
const char *mpt_ioc_status_name(uint16_t status)
{
    switch (status & MPI_IOCSTATUS_MASK) {
    case MPI_IOCSTATUS_SUCCESS: return "success";
    case MPI_IOCSTATUS_INVALID_FUNCTION: return "invalid function";
    case MPI_IOCSTATUS_BUSY: return "IOC busy";
    case MPI_IOCSTATUS_INVALID_SGL: return "invalid SGL";
    case MPI_IOCSTATUS_INTERNAL_ERROR: return "IOC internal error";
    case MPI_IOCSTATUS_INSUFFICIENT_RESOURCES: return "insufficient resources";
    case MPI_IOCSTATUS_INVALID_FIELD: return "invalid field";
    case MPI_IOCSTATUS_INVALID_STATE: return "invalid state";
    case MPI2_IOCSTATUS_CONFIG_INVALID_ACTION: return "config: invalid action";
    case MPI2_IOCSTATUS_CONFIG_INVALID_TYPE: return "config: invalid page type";
    case MPI2_IOCSTATUS_CONFIG_INVALID_PAGE: return "config: invalid page";
    case MPI2_IOCSTATUS_CONFIG_INVALID_DATA: return "config: invalid data";
    case MPI_IOCSTATUS_SCSI_RECOVERED_ERROR: return "recovered error";
    case MPI_IOCSTATUS_SCSI_INVALID_BUS: return "invalid bus";
    case MPI_IOCSTATUS_SCSI_INVALID_TARGETID: return "invalid target id";
    case MPI_IOCSTATUS_SCSI_DEVICE_NOT_THERE: return "device not there";
    case MPI_IOCSTATUS_SCSI_DATA_OVERRUN: return "data overrun";
    case MPI_IOCSTATUS_SCSI_DATA_UNDERRUN: return "data underrun";
    case MPI_IOCSTATUS_SCSI_IO_DATA_ERROR: return "I/O data error";
    case MPI_IOCSTATUS_SCSI_PROTOCOL_ERROR: return "protocol error";
    case MPI_IOCSTATUS_SCSI_TASK_TERMINATED: return "task terminated";
    case MPI_IOCSTATUS_SCSI_RESIDUAL_MISMATCH: return "residual mismatch";
    case MPI_IOCSTATUS_SCSI_TASK_MGMT_FAILED: return "task management failed";
    case MPI_IOCSTATUS_SCSI_IOC_TERMINATED: return "terminated by IOC";
    case MPI_IOCSTATUS_SCSI_EXT_TERMINATED: return "terminated externally";
    default: return "IOC error";
    }
}

/* Following Linux mptscsih_io_done: a SCSI status other than GOOD (with
 * autosense when the IOC got it) wins over the IOC status, since an
 * underrun status often just accompanies a CHECK CONDITION; a GOOD
 * status with an underrun is a short transfer. */
int mpt_result_status(const struct mpt_result *r, const uint8_t *sense, uint32_t expected_bytes, char *detail,
                      size_t len)
{
    uint16_t ios = r->ioc_status & MPI_IOCSTATUS_MASK;

    if (detail && len)
        detail[0] = '\0';
    switch (ios) {
    case MPI_IOCSTATUS_SCSI_INVALID_BUS:
    case MPI_IOCSTATUS_SCSI_INVALID_TARGETID:
    case MPI_IOCSTATUS_SCSI_DEVICE_NOT_THERE:
        snprintf(detail, len, "IOC status 0x%04x %s", ios, mpt_ioc_status_name(ios));
        return BM_ENODEV;
    case MPI_IOCSTATUS_SUCCESS:
    case MPI_IOCSTATUS_SCSI_RECOVERED_ERROR:
    case MPI_IOCSTATUS_SCSI_DATA_UNDERRUN:
        if (r->scsi_state & (MPI_SCSI_STATE_NO_SCSI_STATUS | MPI_SCSI_STATE_TERMINATED)) {
            snprintf(detail, len, "IOC status 0x%04x, no SCSI status (state 0x%02x)", ios, r->scsi_state);
            return BM_EIO;
        }
        if (r->scsi_status != SCSI_STATUS_GOOD) {
            bool have_sense = (r->scsi_state & MPI_SCSI_STATE_AUTOSENSE_VALID) && sense;
            scsi_describe(r->scsi_status, have_sense ? sense : NULL,
                          have_sense ? MIN(r->sense_count ? r->sense_count : MPT_SENSE_BYTES, MPT_SENSE_BYTES) : 0,
                          detail, len);
            return BM_EIO;
        }
        if (ios == MPI_IOCSTATUS_SCSI_DATA_UNDERRUN && r->transfer_count < expected_bytes) {
            snprintf(detail, len, "short transfer: %u of %u bytes", r->transfer_count, expected_bytes);
            return BM_EIO;
        }
        return BM_OK;
    default:
        snprintf(detail, len, "IOC status 0x%04x %s (log info 0x%08x)", ios, mpt_ioc_status_name(ios),
                 r->ioc_log_info);
        return BM_EIO;
    }
}
