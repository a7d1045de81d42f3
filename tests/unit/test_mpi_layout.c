/* MPI 1.5 message layouts against the field offsets of the Fusion-MPT
 * Message Passing Interface specification, and the SCSI IO request the
 * driver builds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "drivers/mpt/mpi.h"
#include "drivers/mpt/mpt.h"
#include "drivers/mpt/mpt_regs.h"

_Static_assert(sizeof(struct mpi_scsi_io_request) == 0x30 + 12, "SCSI IO request + one 64-bit SGE");
_Static_assert(sizeof(struct mpi_ioc_facts_reply) == 0x50, "IOC FACTS reply is 20 dwords");
_Static_assert(sizeof(struct mpi_ioc_init_request) == 0x2c, "IOC INIT is 11 dwords");

static void test_header_and_default_reply(void **state)
{
    assert_int_equal(offsetof(struct mpi_request_header, chain_offset), 0x02);
    assert_int_equal(offsetof(struct mpi_request_header, function), 0x03);
    assert_int_equal(offsetof(struct mpi_request_header, msg_flags), 0x07);
    assert_int_equal(offsetof(struct mpi_request_header, msg_context), 0x08);
    assert_int_equal(offsetof(struct mpi_default_reply, msg_length), 0x02);
    assert_int_equal(offsetof(struct mpi_default_reply, ioc_status), 0x0e);
    assert_int_equal(offsetof(struct mpi_default_reply, ioc_log_info), 0x10);
    assert_int_equal(sizeof(struct mpi_default_reply), 0x14);
    assert_int_equal(sizeof(struct mpi_sge64), 12);
}

static void test_ioc_facts_reply_offsets(void **state)
{
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, msg_version), 0x00);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, ioc_status), 0x0e);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, block_size), 0x16);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, reply_queue_depth), 0x18);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, request_frame_size), 0x1a);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, product_id), 0x1e);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, global_credits), 0x24);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, number_of_ports), 0x26);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, cur_reply_frame_size), 0x2c);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, max_devices), 0x2e);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, max_buses), 0x2f);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, fw_version_dev), 0x38);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, fw_version_major), 0x3b);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, host_page_buffer_sge), 0x40);
    assert_int_equal(offsetof(struct mpi_ioc_facts_reply, reply_fifo_host_signaling_addr), 0x4c);
}

static void test_ioc_init_and_port_offsets(void **state)
{
    assert_int_equal(offsetof(struct mpi_ioc_init_request, who_init), 0x00);
    assert_int_equal(offsetof(struct mpi_ioc_init_request, function), 0x03);
    assert_int_equal(offsetof(struct mpi_ioc_init_request, max_devices), 0x05);
    assert_int_equal(offsetof(struct mpi_ioc_init_request, max_buses), 0x06);
    assert_int_equal(offsetof(struct mpi_ioc_init_request, reply_frame_size), 0x0c);
    assert_int_equal(offsetof(struct mpi_ioc_init_request, host_mfa_high_addr), 0x10);
    assert_int_equal(offsetof(struct mpi_ioc_init_request, sense_buffer_high_addr), 0x14);
    assert_int_equal(offsetof(struct mpi_ioc_init_request, host_page_buffer_sge), 0x1c);
    assert_int_equal(offsetof(struct mpi_ioc_init_request, msg_version), 0x28);
    assert_int_equal(offsetof(struct mpi_ioc_init_request, header_version), 0x2a);
    assert_int_equal(offsetof(struct mpi_port_request, port_number), 0x06);
    assert_int_equal(sizeof(struct mpi_port_request), 12);
    assert_int_equal(offsetof(struct mpi_port_facts_reply, port_type), 0x15);
    assert_int_equal(offsetof(struct mpi_port_facts_reply, max_devices), 0x16);
    assert_int_equal(offsetof(struct mpi_port_facts_reply, port_scsi_id), 0x18);
    assert_int_equal(offsetof(struct mpi_port_facts_reply, protocol_flags), 0x1a);
    assert_int_equal(sizeof(struct mpi_port_facts_reply), 0x28);
}

static void test_scsi_io_offsets(void **state)
{
    assert_int_equal(offsetof(struct mpi_scsi_io_request, target_id), 0x00);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, bus), 0x01);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, function), 0x03);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, cdb_length), 0x04);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, sense_buffer_length), 0x05);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, msg_context), 0x08);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, lun), 0x0c);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, control), 0x14);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, cdb), 0x18);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, data_length), 0x28);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, sense_buffer_low_addr), 0x2c);
    assert_int_equal(offsetof(struct mpi_scsi_io_request, sgl), 0x30);
    assert_int_equal(offsetof(struct mpi_scsi_io_reply, scsi_status), 0x0c);
    assert_int_equal(offsetof(struct mpi_scsi_io_reply, scsi_state), 0x0d);
    assert_int_equal(offsetof(struct mpi_scsi_io_reply, ioc_status), 0x0e);
    assert_int_equal(offsetof(struct mpi_scsi_io_reply, transfer_count), 0x14);
    assert_int_equal(offsetof(struct mpi_scsi_io_reply, sense_count), 0x18);
    assert_int_equal(sizeof(struct mpi_scsi_io_reply), 0x24);
}

static void test_built_write_request(void **state)
{
    uint8_t frame[128];
    struct mpi_scsi_io_request *r = (void *)frame;
    struct mpt_scsi_io io = { .target = 5, .lun = 0, .dir = SCSI_DIR_OUT, .data_pa = 0x123456789000ull,
                              .data_len = 8192, .sense_pa = 0x7f000 };
    uint32_t fl;

    io.cdb_len = (uint8_t)scsi_build_rw(io.cdb, BM_IO_WRITE, 1u << 20, 100, 16);
    assert_int_equal(mpt1_build_scsi_io(frame, &io, 42), 0x3c);
    assert_int_equal(frame[0], 5);
    assert_int_equal(frame[3], 0x00);       /* SCSI IO function */
    assert_int_equal(frame[4], 10);         /* CDB length */
    assert_int_equal(frame[5], MPT_SENSE_BYTES);
    assert_int_equal(r->msg_context, 42);
    assert_int_equal(r->control & 0x03000000u, 0x01000000u); /* write */
    assert_int_equal(frame[0x18], 0x2a);    /* WRITE(10) at the CDB offset */
    assert_int_equal(r->data_length, 8192);
    assert_int_equal(r->sense_buffer_low_addr, 0x7f000);
    fl = r->sgl.flags_length;
    assert_int_equal(fl & MPI_SGE_LENGTH_MASK, 8192);
    assert_true(fl & MPI_SGE_FLAGS_HOST_TO_IOC);
    assert_true(fl & MPI_SGE_FLAGS_64_BIT_ADDRESSING);
    assert_true(fl & MPI_SGE_FLAGS_END_OF_LIST);
    assert_true(fl & MPI_SGE_FLAGS_LAST_ELEMENT);
    assert_int_equal(fl & 0x30000000u, MPI_SGE_FLAGS_SIMPLE_ELEMENT);
    assert_int_equal(r->sgl.addr, 0x123456789000ull);
}

static void test_built_no_data_request_has_empty_sge(void **state)
{
    uint8_t frame[128];
    struct mpi_scsi_io_request *r = (void *)frame;
    struct mpt_scsi_io io = { .target = 1, .lun = 3, .dir = SCSI_DIR_NONE };

    io.cdb_len = (uint8_t)scsi_build_test_unit_ready(io.cdb);
    mpt1_build_scsi_io(frame, &io, 7);
    assert_int_equal(r->lun[1], 3);
    assert_int_equal(r->control & 0x03000000u, 0);
    assert_int_equal(r->sgl.flags_length & MPI_SGE_LENGTH_MASK, 0);
    assert_true(r->sgl.flags_length & MPI_SGE_FLAGS_END_OF_LIST);
    assert_false(r->sgl.flags_length & MPI_SGE_FLAGS_HOST_TO_IOC);
}

static void test_reply_decoding(void **state)
{
    uint8_t sense[18] = { 0x70, 0, 0x03, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x11, 0x00 };
    struct mpt_result r = { 0 };
    char d[64];

    assert_int_equal(mpt_result_status(&r, NULL, 4096, d, sizeof(d)), BM_OK);
    /* QEMU and real IOCs report a CHECK CONDITION with an underrun status */
    r.ioc_status = MPI_IOCSTATUS_SCSI_DATA_UNDERRUN;
    r.scsi_status = SCSI_STATUS_CHECK_CONDITION;
    r.scsi_state = MPI_SCSI_STATE_AUTOSENSE_VALID;
    r.sense_count = 18;
    assert_int_equal(mpt_result_status(&r, sense, 4096, d, sizeof(d)), BM_EIO);
    assert_string_equal(d, "MEDIUM ERROR 11/00 unrecovered read error");
    /* GOOD status but fewer bytes than asked: a short transfer */
    memset(&r, 0, sizeof(r));
    r.ioc_status = MPI_IOCSTATUS_SCSI_DATA_UNDERRUN;
    r.transfer_count = 512;
    assert_int_equal(mpt_result_status(&r, NULL, 4096, d, sizeof(d)), BM_EIO);
    assert_string_equal(d, "short transfer: 512 of 4096 bytes");
    r.ioc_status = MPI_IOCSTATUS_SCSI_DEVICE_NOT_THERE;
    assert_int_equal(mpt_result_status(&r, NULL, 0, d, sizeof(d)), BM_ENODEV);
    r.ioc_status = MPI_IOCSTATUS_SCSI_IOC_TERMINATED;
    r.ioc_log_info = 0x31120303;
    assert_int_equal(mpt_result_status(&r, NULL, 0, d, sizeof(d)), BM_EIO);
    assert_string_equal(d, "IOC status 0x004b terminated by IOC (log info 0x31120303)");
}

static void test_register_values(void **state)
{
    assert_int_equal(MPT_REG_DOORBELL, 0x00);
    assert_int_equal(MPT_REG_WRITE_SEQUENCE, 0x04);
    assert_int_equal(MPT_REG_DIAGNOSTIC, 0x08);
    assert_int_equal(MPT_REG_HOST_INT_STATUS, 0x30);
    assert_int_equal(MPT_REG_HOST_INT_MASK, 0x34);
    assert_int_equal(MPT_REG_REQUEST_FIFO, 0x40);
    assert_int_equal(MPT_REG_REPLY_FIFO, 0x44);
    assert_int_equal(MPT_IOC_STATE_READY, 0x10000000u);
    assert_int_equal(MPT_IOC_STATE_OPERATIONAL, 0x20000000u);
    assert_int_equal(MPT_FUNC_HANDSHAKE, 0x42);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_and_default_reply),
        cmocka_unit_test(test_ioc_facts_reply_offsets),
        cmocka_unit_test(test_ioc_init_and_port_offsets),
        cmocka_unit_test(test_scsi_io_offsets),
        cmocka_unit_test(test_built_write_request),
        cmocka_unit_test(test_built_no_data_request_has_empty_sge),
        cmocka_unit_test(test_reply_decoding),
        cmocka_unit_test(test_register_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
