/* MFI frame and DCMD data layouts against the field offsets of the
 * MegaRAID firmware interface (as the Linux megaraid_sas driver and QEMU's
 * mfi.h define them). A wrong offset here means frames the firmware
 * misreads, so every field the driver writes or reads is pinned. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "drivers/megasas/megasas_regs.h"
#include "drivers/megasas/mfi.h"

_Static_assert(sizeof(union mfi_frame) == 64, "MFI frames are 64 bytes");
_Static_assert(sizeof(struct mfi_header) == 0x18, "header");
/* FreeBSD mfireg.h: struct mfi_config_data 32-byte header, struct
 * mfi_array 288 bytes, struct mfi_ld_config 256 bytes. */
_Static_assert(sizeof(struct mfi_config_hdr) == 32, "config header");
_Static_assert(sizeof(struct mfi_array) == 288, "array");
_Static_assert(offsetof(struct mfi_array, array_ref) == 0x0a, "array_ref");
_Static_assert(sizeof(struct mfi_ld_config) == 256, "ld config");
_Static_assert(offsetof(struct mfi_ld_config, span_depth) == 0x25, "span_depth");
_Static_assert(offsetof(struct mfi_ld_config, span) == 0x40, "spans");
_Static_assert(offsetof(struct mfi_header, cmd_status) == 0x02, "cmd_status");
_Static_assert(offsetof(struct mfi_header, context) == 0x08, "context");
_Static_assert(offsetof(struct mfi_header, flags) == 0x10, "flags");
_Static_assert(offsetof(struct mfi_header, data_len) == 0x14, "data_len");

static void test_header_offsets(void **state)
{
    assert_int_equal(offsetof(struct mfi_header, cmd), 0x00);
    assert_int_equal(offsetof(struct mfi_header, sense_len), 0x01);
    assert_int_equal(offsetof(struct mfi_header, cmd_status), 0x02);
    assert_int_equal(offsetof(struct mfi_header, scsi_status), 0x03);
    assert_int_equal(offsetof(struct mfi_header, target_id), 0x04);
    assert_int_equal(offsetof(struct mfi_header, lun), 0x05);
    assert_int_equal(offsetof(struct mfi_header, cdb_len), 0x06);
    assert_int_equal(offsetof(struct mfi_header, sge_count), 0x07);
    assert_int_equal(offsetof(struct mfi_header, context), 0x08);
    assert_int_equal(offsetof(struct mfi_header, flags), 0x10);
    assert_int_equal(offsetof(struct mfi_header, timeout), 0x12);
    assert_int_equal(offsetof(struct mfi_header, data_len), 0x14);
}

static void test_io_frame_offsets(void **state)
{
    assert_int_equal(offsetof(struct mfi_io_frame, sense_lo), 0x18);
    assert_int_equal(offsetof(struct mfi_io_frame, sense_hi), 0x1c);
    assert_int_equal(offsetof(struct mfi_io_frame, lba_lo), 0x20);
    assert_int_equal(offsetof(struct mfi_io_frame, lba_hi), 0x24);
    assert_int_equal(offsetof(struct mfi_io_frame, sgl), 0x28);
    /* one 64-bit SGE fits the first frame */
    assert_true(offsetof(struct mfi_io_frame, sgl) + sizeof(struct mfi_sge64) <= 64);
    assert_true(offsetof(struct mfi_io_frame, sgl) + sizeof(struct mfi_sge_ieee) <= 64);
}

static void test_pass_frame_offsets(void **state)
{
    assert_int_equal(offsetof(struct mfi_pass_frame, sense_lo), 0x18);
    assert_int_equal(offsetof(struct mfi_pass_frame, cdb), 0x20);
    assert_int_equal(offsetof(struct mfi_pass_frame, sgl), 0x30);
    assert_int_equal(sizeof(struct mfi_sge64), 12);
    assert_int_equal(sizeof(struct mfi_sge_ieee), 16);
    assert_true(offsetof(struct mfi_pass_frame, sgl) + sizeof(struct mfi_sge_ieee) <= 64);
}

static void test_dcmd_and_init_frame_offsets(void **state)
{
    assert_int_equal(offsetof(struct mfi_dcmd_frame, opcode), 0x18);
    assert_int_equal(offsetof(struct mfi_dcmd_frame, mbox), 0x1c);
    assert_int_equal(offsetof(struct mfi_dcmd_frame, sgl), 0x28);
    assert_int_equal(offsetof(struct mfi_init_frame, qinfo_new_lo), 0x18);
    assert_int_equal(offsetof(struct mfi_init_frame, qinfo_new_hi), 0x1c);
    assert_int_equal(sizeof(struct mfi_init_qinfo), 32);
    assert_int_equal(offsetof(struct mfi_init_qinfo, rq_entries), 0x04);
    assert_int_equal(offsetof(struct mfi_init_qinfo, rq_addr_lo), 0x08);
    assert_int_equal(offsetof(struct mfi_init_qinfo, pi_addr_lo), 0x10);
    assert_int_equal(offsetof(struct mfi_init_qinfo, ci_addr_lo), 0x18);
    /* ABORT (Linux struct megasas_abort_frame) */
    assert_int_equal(sizeof(struct mfi_abort_frame), 64);
    assert_int_equal(offsetof(struct mfi_abort_frame, abort_context), 0x18);
    assert_int_equal(offsetof(struct mfi_abort_frame, abort_frame_lo), 0x20);
    assert_int_equal(offsetof(struct mfi_abort_frame, abort_frame_hi), 0x24);
}

/* Every frame the driver builds is one 64-byte frame (it posts them with
 * a frame count of 0, Linux megasas_get_frame_count): one SGE of the
 * largest kind ends inside the first frame for each frame type. */
static void test_one_sge_fits_one_frame(void **state)
{
    assert_true(offsetof(struct mfi_io_frame, sgl) + sizeof(struct mfi_sge_ieee) <= MFI_FRAME_BYTES);
    assert_true(offsetof(struct mfi_pass_frame, sgl) + sizeof(struct mfi_sge_ieee) <= MFI_FRAME_BYTES);
    assert_true(offsetof(struct mfi_dcmd_frame, sgl) + sizeof(struct mfi_sge64) <= MFI_FRAME_BYTES);
    /* Skinny I/O frames: IEEE SGE flag (0x20) together with SGL64 (0x02),
     * as Linux MFI_FRAME_IEEE | MFI_FRAME_SGL64 and FreeBSD
     * MFI_FRAME_IEEE_SGL | MFI_FRAME_SGL64. */
    assert_int_equal(MFI_FRAME_SKINNY_SGL, 0x0022);
}

static void test_dcmd_data_layouts(void **state)
{
    /* LD list: 8-byte header, 16-byte entries, 64 of them */
    assert_int_equal(sizeof(struct mfi_ld_list), 8 + 64 * 16);
    assert_int_equal(offsetof(struct mfi_ld_list, ld[1].target_id), 8 + 16);
    assert_int_equal(offsetof(struct mfi_ld_list, ld[0].state), 8 + 4);
    assert_int_equal(offsetof(struct mfi_ld_list, ld[0].size), 8 + 8);
    /* PD list: 24-byte addresses */
    assert_int_equal(sizeof(struct mfi_pd_address), 24);
    assert_int_equal(offsetof(struct mfi_pd_list, addr), 8);
    assert_int_equal(offsetof(struct mfi_pd_address, scsi_dev_type), 6);
    /* PD info: 512 bytes, firmware state at 0xb8 */
    assert_int_equal(sizeof(struct mfi_pd_info), 512);
    assert_int_equal(offsetof(struct mfi_pd_info, inquiry_data), 0x04);
    assert_int_equal(offsetof(struct mfi_pd_info, scsi_dev_type), 0xa5);
    assert_int_equal(offsetof(struct mfi_pd_info, fw_state), 0xb8);
    assert_int_equal(offsetof(struct mfi_pd_info, ddf_type), 0xbc); /* state.ddf.pdType, intf in bits 15:12 */
    /* controller info: 2 KiB */
    assert_int_equal(sizeof(struct mfi_ctrl_info), 2048);
    assert_int_equal(offsetof(struct mfi_ctrl_info, image_component_count), 0xb4);
    assert_int_equal(offsetof(struct mfi_ctrl_info, max_lds), 0x53f);
    assert_int_equal(offsetof(struct mfi_ctrl_info, product_name), 0x540);
    assert_int_equal(offsetof(struct mfi_ctrl_info, serial_number), 0x590);
    assert_int_equal(offsetof(struct mfi_ctrl_info, max_cmds), 0x5b8);
    assert_int_equal(offsetof(struct mfi_ctrl_info, max_request_size), 0x5bc);
    /* Linux struct megasas_ctrl_info: max_strips_per_io after the device
     * counts, memory sizes, error counters and cluster bytes; then
     * raid_levels, adapter_operations, ld_operations, stripe_sz_ops. */
    assert_int_equal(offsetof(struct mfi_ctrl_info, lds_present), 0x5c0);
    assert_int_equal(offsetof(struct mfi_ctrl_info, max_strips_per_io), 0x5da);
    assert_int_equal(offsetof(struct mfi_ctrl_info, adapter_operations), 0x5e0);
    assert_int_equal(offsetof(struct mfi_ctrl_info, stripe_sz_min), 0x5e8);
    assert_int_equal(offsetof(struct mfi_ctrl_info, stripe_sz_max), 0x5e9);
}

static void test_register_and_state_values(void **state)
{
    assert_int_equal(MFI_REG_IDB, 0x20);
    assert_int_equal(MFI_REG_OMSK, 0x34);
    assert_int_equal(MFI_REG_IQP, 0x40);
    assert_int_equal(MFI_REG_ODCR0, 0xa0);
    assert_int_equal(MFI_REG_OSP0, 0xb0);
    assert_int_equal(MFI_REG_IQPL, 0xc0);
    assert_int_equal(MFI_REG_IQPH, 0xc4);
    assert_int_equal(MFI_FWSTATE_READY, 0xb0000000u);
    assert_int_equal(MFI_FWSTATE_OPERATIONAL, 0xc0000000u);
    assert_int_equal(MFI_RESET_FLAGS, 0x7);
    assert_int_equal(MFI_DCMD_LD_GET_LIST, 0x03010000u);
    assert_int_equal(MFI_DCMD_PD_LIST_QUERY, 0x02010100u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_offsets),
        cmocka_unit_test(test_io_frame_offsets),
        cmocka_unit_test(test_pass_frame_offsets),
        cmocka_unit_test(test_dcmd_and_init_frame_offsets),
        cmocka_unit_test(test_dcmd_data_layouts),
        cmocka_unit_test(test_one_sge_fits_one_frame),
        cmocka_unit_test(test_register_and_state_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
