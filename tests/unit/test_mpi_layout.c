/* MPI 1.5 message layouts against the field offsets of the Fusion-MPT
 * Message Passing Interface specification, and the SCSI IO request the
 * driver builds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "drivers/mpt/mpi.h"
#include "drivers/mpt/mpi2.h"
#include "drivers/mpt/mpt_types.h"
#include "drivers/mpt/mpt_regs.h"

_Static_assert(sizeof(struct mpi_scsi_io_request) == 0x30 + 12, "SCSI IO request + one 64-bit SGE");
_Static_assert(sizeof(struct mpi_ioc_facts_reply) == 0x50, "IOC FACTS reply is 20 dwords");
_Static_assert(sizeof(struct mpi_ioc_init_request) == 0x2c, "IOC INIT is 11 dwords");
/* MPI 2 sizes (mpi2_ioc.h, mpi2_init.h, mpi2_cnfg.h). */
_Static_assert(sizeof(struct mpi2_ioc_facts_request) == 0x0c, "MPI 2 IOC FACTS request is 3 dwords");
_Static_assert(sizeof(struct mpi2_ioc_facts_reply) == 0x40, "MPI 2 IOC FACTS reply is 16 dwords");
_Static_assert(sizeof(struct mpi2_ioc_init_request) == 0x48, "MPI 2 IOC INIT is 18 dwords");
_Static_assert(sizeof(struct mpi2_port_enable_request) == 0x0c, "PORT ENABLE is 3 dwords");
_Static_assert(sizeof(struct mpi2_event_notification_request) == 0x2c, "EVENT NOTIFICATION is 11 dwords");
_Static_assert(sizeof(struct mpi2_default_reply) == 0x14, "MPI 2 default reply is 5 dwords");
_Static_assert(sizeof(struct mpi2_reply_descriptor) == 8, "reply descriptors are 64 bits");
_Static_assert(sizeof(struct mpi2_sge_simple64) == 12, "MPI 64-bit simple SGE");
_Static_assert(sizeof(struct mpi2_ieee_sge64) == 16, "IEEE 64-bit simple SGE");
_Static_assert(sizeof(struct mpi2_sge_chain64) == 12, "MPI 64-bit chain SGE");
_Static_assert(sizeof(struct mpi2_sas_device_page0) == 0x38, "SAS Device Page 0 is 14 dwords");

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

static void test_mpi2_ioc_facts_and_init_offsets(void **state)
{
    (void)state;
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, msg_version), 0x00);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, msg_length), 0x02);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, header_version), 0x04);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, ioc_status), 0x0e);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, max_chain_depth), 0x14);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, number_of_ports), 0x16);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, request_credit), 0x18);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, ioc_capabilities), 0x1c);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, fw_version_dev), 0x20);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, fw_version_major), 0x23);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, ioc_request_frame_size), 0x24);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, max_targets), 0x2a);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, protocol_flags), 0x30);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, max_reply_descriptor_post_queue_depth), 0x34);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, reply_frame_size), 0x36);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, max_dev_handle), 0x38);
    assert_int_equal(offsetof(struct mpi2_ioc_facts_reply, min_dev_handle), 0x3c);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, who_init), 0x00);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, function), 0x03);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, msg_version), 0x0c);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, header_version), 0x0e);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, host_msix_vectors), 0x17);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, system_request_frame_size), 0x1a);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, reply_descriptor_post_queue_depth), 0x1c);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, reply_free_queue_depth), 0x1e);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, sense_buffer_address_high), 0x20);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, system_reply_address_high), 0x24);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, system_request_frame_base_address), 0x28);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, reply_descriptor_post_queue_address), 0x30);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, reply_free_queue_address), 0x38);
    assert_int_equal(offsetof(struct mpi2_ioc_init_request, time_stamp), 0x40);
    assert_int_equal(offsetof(struct mpi2_port_enable_request, function), 0x03);
    assert_int_equal(offsetof(struct mpi2_port_enable_request, port_flags), 0x05);
    assert_int_equal(offsetof(struct mpi2_event_notification_request, event_masks), 0x14);
    assert_int_equal(offsetof(struct mpi2_event_notification_request, sas_broadcast_primitive_masks), 0x24);
    assert_int_equal(offsetof(struct mpi2_reply_descriptor, smid), 0x02);
    assert_int_equal(offsetof(struct mpi2_reply_descriptor, dependent), 0x04);
}

static void test_mpi2_config_and_scsi_io_offsets(void **state)
{
    (void)state;
    assert_int_equal(offsetof(struct mpi2_config_request, action), 0x00);
    assert_int_equal(offsetof(struct mpi2_config_request, function), 0x03);
    assert_int_equal(offsetof(struct mpi2_config_request, ext_page_length), 0x04);
    assert_int_equal(offsetof(struct mpi2_config_request, ext_page_type), 0x06);
    assert_int_equal(offsetof(struct mpi2_config_request, header_page_version), 0x14);
    assert_int_equal(offsetof(struct mpi2_config_request, header_page_type), 0x17);
    assert_int_equal(offsetof(struct mpi2_config_request, page_address), 0x18);
    assert_int_equal(offsetof(struct mpi2_config_request, page_buffer_sge), 0x1c);
    assert_int_equal(offsetof(struct mpi2_config_reply, ext_page_length), 0x04);
    assert_int_equal(offsetof(struct mpi2_config_reply, ioc_status), 0x0e);
    assert_int_equal(offsetof(struct mpi2_config_reply, header_page_type), 0x17);
    assert_int_equal(offsetof(struct mpi2_sas_device_page0, slot), 0x08);
    assert_int_equal(offsetof(struct mpi2_sas_device_page0, enclosure_handle), 0x0a);
    assert_int_equal(offsetof(struct mpi2_sas_device_page0, sas_address), 0x0c);
    assert_int_equal(offsetof(struct mpi2_sas_device_page0, access_status), 0x17);
    assert_int_equal(offsetof(struct mpi2_sas_device_page0, dev_handle), 0x18);
    assert_int_equal(offsetof(struct mpi2_sas_device_page0, device_info), 0x1c);
    assert_int_equal(offsetof(struct mpi2_sas_device_page0, flags), 0x20);
    assert_int_equal(offsetof(struct mpi2_sas_device_page0, device_name), 0x24);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, dev_handle), 0x00);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, function), 0x03);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, sense_buffer_low_address), 0x0c);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, sgl_flags), 0x10);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, sense_buffer_length), 0x12);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, sgl_offset0), 0x14);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, data_length), 0x1c);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, io_flags), 0x24);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, lun), 0x34);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, control), 0x3c);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, cdb), 0x40);
    assert_int_equal(offsetof(struct mpi2_scsi_io_request, sgl), 0x60);
    assert_int_equal(offsetof(struct mpi2_ieee_sge64, length), 0x08);
    assert_int_equal(offsetof(struct mpi2_ieee_sge64, flags), 0x0f);
    assert_int_equal(offsetof(struct mpi2_scsi_io_reply, scsi_status), 0x0c);
    assert_int_equal(offsetof(struct mpi2_scsi_io_reply, scsi_state), 0x0d);
    assert_int_equal(offsetof(struct mpi2_scsi_io_reply, ioc_status), 0x0e);
    assert_int_equal(offsetof(struct mpi2_scsi_io_reply, transfer_count), 0x14);
    assert_int_equal(offsetof(struct mpi2_scsi_io_reply, sense_count), 0x18);
    assert_int_equal(offsetof(struct mpi2_scsi_io_reply, task_tag), 0x20);
}

/* Task management and RAID Physical Disk Page 0 (mpi2_init.h,
 * mpi2_cnfg.h). */
static void test_mpi2_task_mgmt_and_physdisk_offsets(void **state)
{
    (void)state;
    assert_int_equal(offsetof(struct mpi2_scsi_task_manage_request, function), 0x03);
    assert_int_equal(offsetof(struct mpi2_scsi_task_manage_request, task_type), 0x05);
    assert_int_equal(offsetof(struct mpi2_scsi_task_manage_request, lun), 0x0c);
    assert_int_equal(offsetof(struct mpi2_scsi_task_manage_request, task_mid), 0x30);
    assert_int_equal(sizeof(struct mpi2_scsi_task_manage_request), 0x34);
    assert_int_equal(offsetof(struct mpi2_scsi_task_manage_reply, response_code), 0x04);
    assert_int_equal(offsetof(struct mpi2_scsi_task_manage_reply, ioc_status), 0x0e);
    assert_int_equal(offsetof(struct mpi2_scsi_task_manage_reply, termination_count), 0x14);
    assert_int_equal(sizeof(struct mpi2_scsi_task_manage_reply), 0x1c);
    assert_int_equal(offsetof(struct mpi2_raid_physdisk_page0, dev_handle), 0x04);
    assert_int_equal(offsetof(struct mpi2_raid_physdisk_page0, phys_disk_num), 0x07);
    assert_int_equal(offsetof(struct mpi2_raid_physdisk_page0, phys_disk_state), 0x50);
    assert_int_equal(offsetof(struct mpi2_raid_physdisk_page0, block_size), 0x70);
    assert_int_equal(sizeof(struct mpi2_raid_physdisk_page0), 0x78);
    assert_int_equal(MPI2_CONFIG_PAGETYPE_RAID_PHYSDISK, 0x0a);
    assert_int_equal(MPI2_REQ_DESCRIPT_FLAGS_HIGH_PRIORITY, 0x06);
    /* mpi2.h write sequence keys and hard reset delays. */
    assert_int_equal(MPT2_WRSEQ_FLUSH, 0x0);
    assert_int_equal(MPT2_WRSEQ_KEY1, 0xf);
    assert_int_equal(MPT_DIAG_FIRST_READ_DELAY_MS, 50);
    assert_int_equal(MPT_DIAG_SECOND_READ_DELAY_MS, 256);
}

/* The MPI 2 SCSI IO the driver builds, with each SGL format. */
static void test_built_mpi2_requests(void **state)
{
    uint8_t frame[128];
    struct mpi2_scsi_io_request *r = (void *)frame;
    struct mpt_scsi_io io = { .dev_handle = 0x0123, .lun = 3, .dir = SCSI_DIR_IN, .data_pa = 0x123456789000ull,
                              .data_len = 65536, .sense_pa = 0x7f000 };
    struct mpt2_sgl_space sp = { .ieee = false, .frame_bytes = 128, .max_sge_bytes = 65536 };

    (void)state;
    io.cdb_len = (uint8_t)scsi_build_rw(io.cdb, BM_IO_READ, 1ull << 33, 1ull << 32, 128);
    assert_int_equal(mpt2_build_scsi_io(frame, &io, &sp), 0x6c);
    assert_int_equal(r->dev_handle, 0x0123);
    assert_int_equal(r->function, 0x00);
    assert_int_equal(r->chain_offset, 0);
    assert_int_equal(r->sgl_offset0, 0x60 / 4);
    assert_int_equal(r->io_flags, 16);
    assert_int_equal(frame[0x40], 0x88);             /* READ(16) */
    assert_int_equal(frame[0x35], 3);                /* LUN 3, peripheral addressing */
    assert_int_equal(r->control & 0x03000000u, 0x02000000u);
    assert_int_equal(r->data_length, 65536);
    assert_int_equal(r->sense_buffer_low_address, 0x7f000);
    assert_int_equal(r->sense_buffer_length, MPT_SENSE_BYTES);
    assert_int_equal(r->sgl.mpi.flags_length & 0xffffff, 65536);
    assert_int_equal(r->sgl.mpi.flags_length >> 24, 0x80 | 0x40 | 0x10 | 0x02 | 0x01);
    assert_int_equal(r->sgl.mpi.address, 0x123456789000ull);

    io.dir = SCSI_DIR_OUT;
    sp.ieee = true;
    assert_int_equal(mpt2_build_scsi_io(frame, &io, &sp), 0x70);
    assert_int_equal(r->control & 0x03000000u, 0x01000000u);
    assert_int_equal(r->sgl.ieee.address, 0x123456789000ull);
    assert_int_equal(r->sgl.ieee.length, 65536);
    assert_int_equal(r->sgl.ieee.flags, 0x40);       /* simple, system address, end of list */

    io.dir = SCSI_DIR_NONE;
    io.data_len = 0;
    sp.ieee = false;
    assert_int_equal(mpt2_build_scsi_io(frame, &io, &sp), 0x6c);
    assert_int_equal(r->control, 0);
    assert_int_equal(r->data_length, 0);
    assert_int_equal(r->sgl.mpi.flags_length & 0xffffff, 0);
    assert_int_equal(r->sgl.mpi.address, ~0ull);
}

/* A 256 KiB read in 64 KiB SGEs: one data element and a chain element in
 * the frame (ChainOffset in dwords for MPI 2.0, 16-byte units for 2.5),
 * the rest in the chain segment. */
static void test_built_mpi2_chains(void **state)
{
    static uint8_t chain[2 * 128];
    uint8_t frame[128];
    struct mpi2_scsi_io_request *r = (void *)frame;
    struct mpt_scsi_io io = { .dev_handle = 9, .dir = SCSI_DIR_IN, .data_pa = 0x100000, .data_len = 4 * 65536,
                              .cdb_len = 10 };
    struct mpt2_sgl_space sp = { .ieee = false, .frame_bytes = 128, .max_sge_bytes = 65536, .chain = chain,
                                 .chain_pa = 0x5000, .chain_seg_bytes = 128, .chain_segs = 2 };
    const struct mpi2_sge_chain64 *ch = (const void *)(frame + 0x6c);
    const struct mpi2_sge_simple64 *e = (const void *)chain;
    const struct mpi2_ieee_sge64 *ie = (const void *)chain, *ich = (const void *)(frame + 0x70);

    (void)state;
    assert_int_equal(mpt2_build_scsi_io(frame, &io, &sp), 128);
    assert_int_equal(r->chain_offset, 0x6c / 4);
    assert_int_equal(r->sgl.mpi.flags_length, 0x80000000u | 0x10000000u | 0x02000000u | 65536);
    assert_int_equal(ch->flags, 0x32);
    assert_int_equal(ch->length, 3 * 12);
    assert_int_equal(ch->next_chain_offset, 0);
    assert_int_equal(ch->address, 0x5000);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(e[i].address, 0x100000 + (uint64_t)(i + 1) * 65536);
        assert_int_equal(e[i].flags_length & 0xffffff, 65536);
    }
    assert_int_equal(e[2].flags_length >> 24, 0x80 | 0x40 | 0x10 | 0x02 | 0x01);
    assert_int_equal(e[1].flags_length >> 24, 0x10 | 0x02);

    sp.ieee = true;
    memset(chain, 0, sizeof(chain));
    assert_int_equal(mpt2_build_scsi_io(frame, &io, &sp), 128);
    assert_int_equal(r->chain_offset, 0x70 / 16);
    assert_int_equal(ich->flags, 0x80);
    assert_int_equal(ich->length, 3 * 16);
    assert_int_equal(ich->address, 0x5000);
    assert_int_equal(ie[2].flags, 0x40);
    assert_int_equal(ie[0].flags, 0x00);
    assert_int_equal(ie[0].address, 0x110000);

    /* More than a segment holds: segments chain on (7 + chain, then 2 more). */
    io.data_len = 10 * 65536;
    assert_int_equal(mpt2_build_scsi_io(frame, &io, &sp), 128);
    assert_int_equal(ich->length, 8 * 16);
    assert_int_equal(ich->reserved2, 7);             /* NextChainOffset (elements) of the segment it names */
    assert_int_equal(ie[7].flags, 0x80);
    assert_int_equal(ie[7].reserved2, 0);            /* the last segment has no chain */
    assert_int_equal(ie[7].address, 0x5000 + 128);
    assert_int_equal(ie[7].length, 2 * 16);
    assert_int_equal(ie[8 + 1].flags, 0x40);
    /* A transfer needing more segments than given is refused. */
    io.data_len = 20 * 65536;
    assert_int_equal(mpt2_build_scsi_io(frame, &io, &sp), 0);
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
    /* MPI 2 (mpi2.h MPI2_SYSTEM_INTERFACE_REGS). */
    assert_int_equal(MPT2_REG_REPLY_FREE_HOST_INDEX, 0x48);
    assert_int_equal(MPT2_REG_REPLY_POST_HOST_INDEX, 0x6c);
    assert_int_equal(MPT2_REG_REQUEST_DESCRIPTOR_POST_LOW, 0xc0);
    assert_int_equal(MPT2_REG_REQUEST_DESCRIPTOR_POST_HIGH, 0xc4);
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
        cmocka_unit_test(test_mpi2_ioc_facts_and_init_offsets),
        cmocka_unit_test(test_mpi2_config_and_scsi_io_offsets),
        cmocka_unit_test(test_mpi2_task_mgmt_and_physdisk_offsets),
        cmocka_unit_test(test_built_mpi2_requests),
        cmocka_unit_test(test_built_mpi2_chains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
