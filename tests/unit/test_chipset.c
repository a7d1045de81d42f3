/* The chipset uplink table and where controllers hang, on synthetic config
 * spaces built from real machines' PCI IDs and bus numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/pci.h"
#include "drivers/pci_regs.h"
#include "efi/inventory/chipset.h"
#include "pci_fake.h"

static struct fake_fn *fn(uint8_t b, uint8_t d, uint8_t f, uint16_t vendor, uint16_t device, uint32_t class_code)
{
    struct fake_fn *x = &bus.fns[bus.n++];
    x->a = (struct pci_addr){ 0, b, d, f };
    w16(x->cfg, PCI_VENDOR_ID, vendor);
    w16(x->cfg, PCI_DEVICE_ID, device);
    w32(x->cfg, PCI_CLASS_REVISION, class_code << 8);
    if (f == 0)
        x->cfg[PCI_HEADER_TYPE] = PCI_HEADER_MULTIFUNCTION;
    return x;
}

static struct fake_fn *bridge(uint8_t b, uint8_t d, uint8_t f, uint16_t vendor, uint16_t device, uint8_t sec,
                              uint8_t sub)
{
    struct fake_fn *x = fn(b, d, f, vendor, device, 0x060400);
    x->cfg[PCI_HEADER_TYPE] |= PCI_HEADER_BRIDGE;
    x->cfg[PCI_PRIMARY_BUS] = b;
    x->cfg[PCI_SECONDARY_BUS] = sec;
    x->cfg[PCI_SUBORDINATE_BUS] = sub;
    return x;
}

/* A version 2 PCI Express capability: type, link capability, link status. */
static void pcie(struct fake_fn *x, uint8_t type, uint8_t max_speed, uint8_t max_width, uint8_t speed, uint8_t width)
{
    uint8_t vector = 0;
    w16(x->cfg, PCI_STATUS, PCI_STATUS_CAP_LIST);
    x->cfg[PCI_CAPABILITY_LIST] = 0x60;
    x->cfg[0x60] = PCI_CAP_ID_EXP;
    x->cfg[0x61] = 0;
    w16(x->cfg, 0x60 + PCI_EXP_FLAGS, (uint16_t)(type << PCI_EXP_FLAGS_TYPE_SHIFT | 2));
    w32(x->cfg, 0x60 + PCI_EXP_LNKCAP, (uint32_t)max_width << PCI_EXP_LNKCAP_MLW_SHIFT | max_speed);
    w16(x->cfg, 0x60 + PCI_EXP_LNKSTA, (uint16_t)(width << PCI_EXP_LNKSTA_NLW_SHIFT | speed));
    for (uint8_t s = 1; s <= max_speed; s++)
        vector |= (uint8_t)(1u << s);
    w32(x->cfg, 0x60 + PCI_EXP_LNKCAP2, vector);
}

static void enumerate(void)
{
    uint16_t seg = 0;
    uint8_t start = 0, end = 255;
    pci_enumerate_cfg(&fake, &seg, &start, &end, 1, &list);
}

static enum chipset_attach attach_at(const struct chipset_info *ci, uint8_t b, uint8_t d, uint8_t f)
{
    int i = pci_list_find(&list, (struct pci_addr){ 0, b, d, f });
    assert_true(i >= 0);
    return chipset_attach_of(ci, &list, i, NULL);
}

/* The bus 0 of an ASRock Rack C226 WS (Xeon E3-1245 v3), from the
 * `lspci -nn` its owner posted (forum thread "KVM VM + PCIe Passthrough
 * Problem after Update xUbuntu 15.04 to 15.10", 2016-02-17): CPU ports
 * 00:01.0/01.1 (0c01, 0c05), PCH ports 00:1c.0-3 (8c10-8c16), SATA 00:1f.2
 * (8c02), LPC 00:1f.0 (8c56). The listing has no tree; firmware numbers
 * buses depth first, so buses 01-06 sit behind 01.0, 01.1, 1c.0..1c.3 in
 * that order: the two Marvell 88SE9172 SATA controllers (1b4b:9172) at
 * 03:00.0 and 04:00.0 hang on PCH ports. */
static void build_c226_ws(void)
{
    fn(0, 0, 0, 0x8086, 0x0c08, 0x060000);
    pcie(bridge(0, 1, 0, 0x8086, 0x0c01, 1, 1), PCI_EXP_TYPE_ROOT_PORT, 3, 16, 3, 16);
    pcie(bridge(0, 1, 1, 0x8086, 0x0c05, 2, 2), PCI_EXP_TYPE_ROOT_PORT, 3, 8, 3, 8);
    fn(0, 0x14, 0, 0x8086, 0x8c31, 0x0c0330);
    pcie(bridge(0, 0x1c, 0, 0x8086, 0x8c10, 3, 3), PCI_EXP_TYPE_ROOT_PORT, 2, 1, 2, 1);
    pcie(bridge(0, 0x1c, 1, 0x8086, 0x8c12, 4, 4), PCI_EXP_TYPE_ROOT_PORT, 2, 1, 2, 1);
    fn(0, 0x1f, 0, 0x8086, 0x8c56, 0x060100);
    fn(0, 0x1f, 2, 0x8086, 0x8c02, 0x010601);
    fn(0, 0x1f, 3, 0x8086, 0x8c22, 0x0c0500);
    pcie(fn(2, 0, 0, 0x1002, 0x67b1, 0x030000), PCI_EXP_TYPE_ENDPOINT, 3, 16, 3, 16);
    pcie(fn(3, 0, 0, 0x1b4b, 0x9172, 0x010601), PCI_EXP_TYPE_LEG_END, 2, 1, 2, 1);
    pcie(fn(4, 0, 0, 0x1b4b, 0x9172, 0x010601), PCI_EXP_TYPE_LEG_END, 2, 1, 2, 1);
    enumerate();
}

static void test_c226_is_lynx_point_behind_dmi_2_x4(void **state)
{
    struct chipset_info ci;
    (void)state;
    build_c226_ws();
    chipset_identify(&fake, &list, false, &ci);
    assert_true(ci.found);
    assert_false(ci.emulated);
    assert_non_null(strstr(ci.name, "C220"));
    assert_string_equal(ci.uplink, "DMI 2.0 x4");
    assert_true(ci.uplink_mbps > 1999.0 && ci.uplink_mbps < 2001.0);
    assert_int_equal(ci.device, 0x8c56);
    assert_non_null(strstr(ci.source, "328904"));
}

static void test_c226_sata_and_pch_port_controllers_are_chipset_attached(void **state)
{
    struct chipset_info ci;
    (void)state;
    build_c226_ws();
    chipset_identify(&fake, &list, false, &ci);
    assert_int_equal(attach_at(&ci, 0, 0x1f, 2), ATTACH_CHIPSET);  /* the PCH's own SATA */
    assert_int_equal(attach_at(&ci, 3, 0, 0), ATTACH_CHIPSET);     /* Marvell on PCH port 1c.0 */
    assert_int_equal(attach_at(&ci, 4, 0, 0), ATTACH_CHIPSET);
    assert_int_equal(attach_at(&ci, 2, 0, 0), ATTACH_CPU);         /* on the CPU's x8 port */
    assert_int_equal(attach_at(&ci, 0, 1, 0), ATTACH_CPU);
}

/* Real LPC IDs of the seeds' chipsets and their uplinks. */
static void test_seed_chipsets_by_lpc_id(void **state)
{
    const struct chipset_row *r;
    (void)state;
    r = chipset_lookup(0x8086, 0xa149, CHIPSET_LPC); /* C236 */
    assert_non_null(r);
    assert_string_equal(r->uplink, "DMI 3.0 x4");
    assert_true(chipset_row_mbps(r) > 3938.0 && chipset_row_mbps(r) < 3939.0);
    r = chipset_lookup(0x8086, 0xa2c9, CHIPSET_LPC); /* Z370 */
    assert_non_null(r);
    assert_string_equal(r->uplink, "DMI 3.0 x4");
    r = chipset_lookup(0x8086, 0x1d41, CHIPSET_LPC); /* C600/X79 Patsburg */
    assert_non_null(r);
    assert_string_equal(r->uplink, "DMI 2.0 x4");
    assert_true(r->dev_mask & (1u << 0x11));           /* the SCU SAS port 00:11.0 */
    r = chipset_lookup(0x8086, 0x2670, CHIPSET_LPC);   /* 631xESB/632xESB */
    assert_non_null(r);
    assert_string_equal(r->uplink, "ESI x4");
    assert_true(chipset_row_mbps(r) > 999.0 && chipset_row_mbps(r) < 1001.0);
    r = chipset_lookup(0x8086, 0x2918, CHIPSET_LPC);   /* ICH9 (and q35's) */
    assert_non_null(r);
    assert_string_equal(r->uplink, "DMI x4");
    assert_non_null(chipset_lookup(0x8086, 0x25d8, CHIPSET_HOST)); /* 5000P */
    assert_non_null(chipset_lookup(0x8086, 0x25c0, CHIPSET_HOST)); /* 5000X */
    assert_non_null(chipset_lookup(0x8086, 0x4003, CHIPSET_HOST)); /* 5400 */
    assert_null(chipset_lookup(0x8086, 0x8c56, CHIPSET_HOST));     /* an LPC ID is no host bridge */
}

static void test_5000p_with_esb2_names_both_and_the_esi(void **state)
{
    struct chipset_info ci;
    (void)state;
    fn(0, 0, 0, 0x8086, 0x25d8, 0x060000);
    fn(0, 0x1f, 0, 0x8086, 0x2670, 0x060100);
    fn(0, 0x1f, 2, 0x8086, 0x2681, 0x010601);
    enumerate();
    chipset_identify(&fake, &list, false, &ci);
    assert_true(ci.found);
    assert_non_null(strstr(ci.name, "5000P"));
    assert_non_null(strstr(ci.name, "ESB2"));
    assert_string_equal(ci.uplink, "ESI x4");
    assert_int_equal(attach_at(&ci, 0, 0x1f, 2), ATTACH_CHIPSET);
}

static void test_q35_is_emulated_ich9(void **state)
{
    struct chipset_info ci;
    (void)state;
    fn(0, 0, 0, 0x8086, 0x29c0, 0x060000);
    fn(0, 0x1f, 0, 0x8086, 0x2918, 0x060100);
    fn(0, 0x1f, 2, 0x8086, 0x2922, 0x010601);
    pcie(bridge(0, 2, 0, 0x1b36, 0x000c, 1, 1), PCI_EXP_TYPE_ROOT_PORT, 2, 4, 1, 1);
    pcie(fn(1, 0, 0, 0x1b36, 0x0010, 0x010802), PCI_EXP_TYPE_ENDPOINT, 1, 1, 1, 1);
    enumerate();
    chipset_identify(&fake, &list, false, &ci);
    assert_true(ci.found);
    assert_true(ci.emulated);
    assert_non_null(strstr(ci.name, "QEMU q35"));
    assert_non_null(strstr(ci.note, "does not enforce"));
    assert_int_equal(attach_at(&ci, 0, 0x1f, 2), ATTACH_CHIPSET);
    assert_int_equal(attach_at(&ci, 1, 0, 0), ATTACH_CPU);
}

static void test_smbios_qemu_marks_an_intel_id_machine_emulated(void **state)
{
    struct chipset_info ci;
    (void)state;
    fn(0, 0x1f, 0, 0x8086, 0x8c56, 0x060100);
    enumerate();
    chipset_identify(&fake, &list, true, &ci);
    assert_true(ci.emulated);
}

static void test_unknown_lpc_bridge_gives_no_ceiling_and_says_why(void **state)
{
    struct chipset_info ci;
    (void)state;
    fn(0, 0x1f, 0, 0x8086, 0x0284, 0x060100); /* a mobile PCH-LP (OPI uplink): not in the table */
    fn(0, 0x17, 0, 0x8086, 0x02d3, 0x010601);
    enumerate();
    chipset_identify(&fake, &list, false, &ci);
    assert_false(ci.found);
    assert_true(ci.uplink_mbps == 0);
    assert_non_null(strstr(ci.note, "unknown chipset"));
    assert_non_null(strstr(ci.note, "8086:0284"));
    assert_int_equal(attach_at(&ci, 0, 0x17, 0), ATTACH_UNKNOWN);
}

static void test_no_lpc_bridge_at_all_is_unknown(void **state)
{
    struct chipset_info ci;
    (void)state;
    fn(0, 0, 0, 0x1022, 0x1480, 0x060000);
    enumerate();
    chipset_identify(&fake, &list, false, &ci);
    assert_false(ci.found);
    assert_non_null(strstr(ci.note, "no LPC/ISA bridge"));
}

/* An LPC ID shared by chipsets of two uplink generations: named, no ceiling. */
static void test_ambiguous_amd_sb_lpc_gives_no_ceiling(void **state)
{
    struct chipset_info ci;
    (void)state;
    fn(0, 0x14, 0, 0x1002, 0x4385, 0x0c0500); /* SB7x0/SB8x0 SMBus */
    fn(0, 0x14, 3, 0x1002, 0x439d, 0x060100);
    enumerate();
    chipset_identify(&fake, &list, false, &ci);
    assert_true(ci.found);
    assert_true(ci.uplink_mbps == 0);
    assert_non_null(strstr(ci.note, "share this LPC ID"));
}

/* AMD Promontory: the uplink is a PCIe link; what it trained to wins, and
 * a link below the documented one is said. */
static void test_promontory_uplink_read_from_its_link(void **state)
{
    struct chipset_info ci;
    (void)state;
    /* A Zen 1 board: GPP root ports 00:01.1/01.2 (1022:1453) after the
     * dummy host bridge 00:01.0 (1022:1452); the 300 series chipset at
     * 01:00.x: USB (43b9), SATA (43b7), its switch (43b4). */
    fn(0, 1, 0, 0x1022, 0x1452, 0x060000);
    pcie(bridge(0, 1, 2, 0x1022, 0x1453, 1, 3), PCI_EXP_TYPE_ROOT_PORT, 3, 4, 2, 4);
    pcie(fn(1, 0, 0, 0x1022, 0x43b9, 0x0c0330), PCI_EXP_TYPE_LEG_END, 3, 4, 2, 4);
    pcie(fn(1, 0, 1, 0x1022, 0x43b7, 0x010601), PCI_EXP_TYPE_LEG_END, 3, 4, 2, 4);
    pcie(bridge(1, 0, 2, 0x1022, 0x43b4, 2, 3), PCI_EXP_TYPE_UPSTREAM, 3, 4, 2, 4);
    pcie(bridge(2, 0, 0, 0x1022, 0x43b4, 3, 3), PCI_EXP_TYPE_DOWNSTREAM, 3, 4, 3, 4);
    pcie(fn(3, 0, 0, 0x144d, 0xa808, 0x010802), PCI_EXP_TYPE_ENDPOINT, 3, 4, 3, 4);
    pcie(bridge(0, 1, 1, 0x1022, 0x1453, 4, 4), PCI_EXP_TYPE_ROOT_PORT, 3, 4, 3, 4);
    pcie(fn(4, 0, 0, 0x144d, 0xa808, 0x010802), PCI_EXP_TYPE_ENDPOINT, 3, 4, 3, 4);
    enumerate();
    chipset_identify(&fake, &list, false, &ci);
    assert_true(ci.found);
    assert_true(ci.uplink_visible);
    assert_string_equal(ci.uplink, "PCIe x4 Gen2");
    assert_true(ci.uplink_mbps > 1999.0 && ci.uplink_mbps < 2001.0);
    assert_non_null(strstr(ci.note, "below the documented PCIe 3.0 x4"));
    assert_int_equal(attach_at(&ci, 3, 0, 0), ATTACH_CHIPSET);
    assert_int_equal(attach_at(&ci, 4, 0, 0), ATTACH_CPU);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_c226_is_lynx_point_behind_dmi_2_x4, reset),
        cmocka_unit_test_setup(test_c226_sata_and_pch_port_controllers_are_chipset_attached, reset),
        cmocka_unit_test_setup(test_seed_chipsets_by_lpc_id, reset),
        cmocka_unit_test_setup(test_5000p_with_esb2_names_both_and_the_esi, reset),
        cmocka_unit_test_setup(test_q35_is_emulated_ich9, reset),
        cmocka_unit_test_setup(test_smbios_qemu_marks_an_intel_id_machine_emulated, reset),
        cmocka_unit_test_setup(test_unknown_lpc_bridge_gives_no_ceiling_and_says_why, reset),
        cmocka_unit_test_setup(test_no_lpc_bridge_at_all_is_unknown, reset),
        cmocka_unit_test_setup(test_ambiguous_amd_sb_lpc_gives_no_ceiling, reset),
        cmocka_unit_test_setup(test_promontory_uplink_read_from_its_link, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
