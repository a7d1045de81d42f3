/* SCSI IO messages: the MPI 1 request, and reading any reply into a
 * completion status. */
#include "mpt.h"
#include "mpi.h"
#include "mpi2.h"

/* SAM single-level LUN: peripheral addressing below 256, flat above. */
static void mpt_encode_lun(uint8_t lun_out[8], uint32_t lun)
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

/* MPI 2 SCSI IO (mpi2_init.h): the device by handle, sense in system
 * memory (MsgFlags SYSTEM_SENSE_ADDR, high half from IOC INIT), the SGL at
 * 0x60 (SGLOffset0 in dwords). Buffers are physically contiguous, so one
 * SGE carries the whole transfer. A command without data still carries a
 * zero-length end-of-list SGE whose address is all ones (as Linux
 * mpt3sas _base_build_zero_len_sge{,_ieee} builds it). */
unsigned mpt2_build_scsi_io(void *frame, const struct mpt_scsi_io *io, bool ieee_sgl)
{
    struct mpi2_scsi_io_request *r = frame;
    bool data = io->data_len && io->dir != SCSI_DIR_NONE;

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
    if (ieee_sgl) {
        /* MPI 2.5: IEEE simple element in system memory, last of the list. */
        r->sgl.ieee.address = data ? io->data_pa : ~0ull;
        r->sgl.ieee.length = data ? io->data_len : 0;
        r->sgl.ieee.flags = MPI2_IEEE_SGE_FLAGS_SIMPLE_ELEMENT | MPI2_IEEE_SGE_FLAGS_SYSTEM_ADDR |
                            MPI25_IEEE_SGE_FLAGS_END_OF_LIST;
        return MPI2_SCSIIO_SGL_OFFSET + (unsigned)sizeof(r->sgl.ieee);
    }
    {
        uint32_t flags = MPI_SGE_FLAGS_SIMPLE_ELEMENT | MPI_SGE_FLAGS_LAST_ELEMENT | MPI_SGE_FLAGS_END_OF_BUFFER |
                         MPI_SGE_FLAGS_END_OF_LIST;
        if (data) {
            flags |= MPI_SGE_FLAGS_64_BIT_ADDRESSING;
            if (io->dir == SCSI_DIR_OUT)
                flags |= MPI_SGE_FLAGS_HOST_TO_IOC;
            r->sgl.mpi.flags_length = flags | (io->data_len & MPI_SGE_LENGTH_MASK);
            r->sgl.mpi.address = io->data_pa;
        } else {
            r->sgl.mpi.flags_length = flags | MPI_SGE_FLAGS_64_BIT_ADDRESSING;
            r->sgl.mpi.address = ~0ull;
        }
    }
    return MPI2_SCSIIO_SGL_OFFSET + (unsigned)sizeof(r->sgl.mpi);
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
