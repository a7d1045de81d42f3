/* PCI capability walker and PCI Express link decoding on synthetic
 * configuration spaces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/pci.h"
#include "drivers/pci_regs.h"
#include "pci_fake.h"

/* ---- A fake machine (pci_fake.h) ------------------------------------------------ */

static struct fake_fn *add_fn(uint8_t b, uint8_t d, uint8_t f, uint16_t vendor, uint16_t device, uint32_t class_code)
{
    struct fake_fn *fn = &bus.fns[bus.n++];
    fn->a = (struct pci_addr){ 0, b, d, f };
    w16(fn->cfg, PCI_VENDOR_ID, vendor);
    w16(fn->cfg, PCI_DEVICE_ID, device);
    w32(fn->cfg, PCI_CLASS_REVISION, class_code << 8 | 0x01);
    return fn;
}

static struct fake_fn *add_bridge(uint8_t b, uint8_t d, uint8_t f, uint8_t secondary, uint8_t subordinate)
{
    struct fake_fn *fn = add_fn(b, d, f, 0x8086, 0x7a38, 0x060400);
    fn->cfg[PCI_HEADER_TYPE] = PCI_HEADER_BRIDGE;
    fn->cfg[PCI_PRIMARY_BUS] = b;
    fn->cfg[PCI_SECONDARY_BUS] = secondary;
    fn->cfg[PCI_SUBORDINATE_BUS] = subordinate;
    return fn;
}

/* Link an entry into the capability list: the header pointer if prev is
 * 0, else the previous entry's next. */
static void add_cap(struct fake_fn *fn, uint8_t prev, uint8_t off, uint8_t id)
{
    w16(fn->cfg, PCI_STATUS, PCI_STATUS_CAP_LIST);
    fn->cfg[prev ? prev + PCI_CAP_LIST_NEXT : PCI_CAPABILITY_LIST] = off;
    fn->cfg[off + PCI_CAP_LIST_ID] = id;
    fn->cfg[off + PCI_CAP_LIST_NEXT] = 0;
}

/* A version 2 PCI Express capability at 0x60 (after a PM capability at
 * 0x40): port type, link capability (speed code, width), link status,
 * and the Link Capabilities 2 vector of every speed up to max. */
static void add_pcie(struct fake_fn *fn, uint8_t type, uint8_t max_speed, uint8_t max_width, uint8_t speed,
                     uint8_t width)
{
    uint8_t vector = 0;
    add_cap(fn, 0, 0x40, PCI_CAP_ID_PM);
    add_cap(fn, 0x40, 0x60, PCI_CAP_ID_EXP);
    w16(fn->cfg, 0x60 + PCI_EXP_FLAGS, (uint16_t)(type << PCI_EXP_FLAGS_TYPE_SHIFT | 2));
    w32(fn->cfg, 0x60 + PCI_EXP_LNKCAP, (uint32_t)max_width << PCI_EXP_LNKCAP_MLW_SHIFT | max_speed);
    w16(fn->cfg, 0x60 + PCI_EXP_LNKSTA, (uint16_t)(width << PCI_EXP_LNKSTA_NLW_SHIFT | speed));
    for (uint8_t s = 1; s <= max_speed; s++)
        vector |= (uint8_t)(1u << s);
    w32(fn->cfg, 0x60 + PCI_EXP_LNKCAP2, vector);
}

static void enumerate(void)
{
    uint16_t seg = 0;
    uint8_t start = 0, end = 255;
    pci_enumerate_cfg(&fake, &seg, &start, &end, 1, &list);
}

static int index_of(uint8_t b, uint8_t d, uint8_t f)
{
    int i = pci_list_find(&list, (struct pci_addr){ 0, b, d, f });
    assert_true(i >= 0);
    return i;
}

static bool same(struct pci_addr a, uint8_t b, uint8_t d, uint8_t f)
{
    return a.seg == 0 && a.bus == b && a.dev == d && a.fn == f;
}

/* ---- Capability list -------------------------------------------------------------- */

static void test_capability_found_along_the_list(void **state)
{
    struct fake_fn *f = add_fn(0, 3, 0, 0x144d, 0xa808, 0x010802);

    (void)state;
    add_cap(f, 0, 0x40, PCI_CAP_ID_PM);
    add_cap(f, 0x40, 0x50, PCI_CAP_ID_MSI);
    add_cap(f, 0x50, 0x70, PCI_CAP_ID_EXP);
    assert_int_equal(pci_find_cap(&fake, f->a, PCI_CAP_ID_EXP), 0x70);
    assert_int_equal(pci_find_cap(&fake, f->a, PCI_CAP_ID_MSI), 0x50);
    assert_int_equal(pci_find_cap(&fake, f->a, PCI_CAP_ID_MSIX), 0);
}

static void test_capability_loop_terminates(void **state)
{
    struct fake_fn *f = add_fn(0, 3, 0, 0x144d, 0xa808, 0x010802);

    (void)state;
    add_cap(f, 0, 0x40, PCI_CAP_ID_PM);
    add_cap(f, 0x40, 0x50, PCI_CAP_ID_MSI);
    f->cfg[0x50 + PCI_CAP_LIST_NEXT] = 0x40; /* 0x40 -> 0x50 -> 0x40 -> ... */
    bus.reads = 0;
    assert_int_equal(pci_find_cap(&fake, f->a, PCI_CAP_ID_EXP), 0);
    assert_true(bus.reads < 4 + 2 * PCI_CAP_MAX_ENTRIES + 2);

    f->cfg[0x40 + PCI_CAP_LIST_NEXT] = 0x40; /* points at itself */
    assert_int_equal(pci_find_cap(&fake, f->a, PCI_CAP_ID_EXP), 0);
}

static void test_capability_pointer_into_header_or_absent(void **state)
{
    struct fake_fn *f = add_fn(0, 3, 0, 0x144d, 0xa808, 0x010802);

    (void)state;
    add_cap(f, 0, 0x40, PCI_CAP_ID_PM);
    f->cfg[0x40 + PCI_CAP_LIST_NEXT] = 0x10; /* inside the header: invalid, ends the walk */
    f->cfg[0x10] = PCI_CAP_ID_EXP;
    assert_int_equal(pci_find_cap(&fake, f->a, PCI_CAP_ID_EXP), 0);

    f->cfg[0x40 + PCI_CAP_LIST_NEXT] = 0x63; /* reserved low bits are masked: 0x60 */
    f->cfg[0x60] = PCI_CAP_ID_EXP;
    assert_int_equal(pci_find_cap(&fake, f->a, PCI_CAP_ID_EXP), 0x60);

    w16(f->cfg, PCI_STATUS, 0); /* Status says there is no list */
    assert_int_equal(pci_find_cap(&fake, f->a, PCI_CAP_ID_EXP), 0);

    assert_int_equal(pci_find_cap(&fake, (struct pci_addr){ 0, 9, 9, 0 }, PCI_CAP_ID_EXP), 0); /* absent */
}

/* ---- Decoding -------------------------------------------------------------------------- */

static void test_speed_codes_and_lane_rates(void **state)
{
    (void)state;
    assert_true(pcie_speed_gts(1) == 2.5);
    assert_true(pcie_speed_gts(2) == 5);
    assert_true(pcie_speed_gts(3) == 8);
    assert_true(pcie_speed_gts(4) == 16);
    assert_true(pcie_speed_gts(5) == 32);
    assert_true(pcie_speed_gts(6) == 64);
    assert_true(pcie_speed_gts(0) == 0 && pcie_speed_gts(7) == 0 && pcie_speed_gts(15) == 0);
    /* 8b/10b: 2.5 GT/s carries 250 MB/s per lane, 5 GT/s 500. */
    assert_true(pcie_lane_mbps(1) == 250.0);
    assert_true(pcie_lane_mbps(2) == 500.0);
    /* 128b/130b from 8 GT/s: 8000 * 128/130 / 8 = 984.6 MB/s. */
    assert_true(pcie_lane_mbps(3) > 984.6 && pcie_lane_mbps(3) < 984.7);
    assert_true(pcie_lane_mbps(4) > 1969.2 && pcie_lane_mbps(4) < 1969.3);
    assert_true(pcie_lane_mbps(5) > 3938.4 && pcie_lane_mbps(5) < 3938.5);
    assert_true(pcie_lane_mbps(6) == 8000.0);
}

static void test_link_registers_decoded(void **state)
{
    struct fake_fn *f = add_fn(1, 0, 0, 0x144d, 0xa80a, 0x010802);
    struct pcie_info info;

    (void)state;
    add_pcie(f, PCI_EXP_TYPE_ENDPOINT, PCI_EXP_SPEED_16GT, 4, PCI_EXP_SPEED_8GT, 2);
    assert_int_equal(pcie_read_info(&fake, f->a, &info), BM_OK);
    assert_true(info.is_pcie);
    assert_int_equal(info.cap, 0x60);
    assert_int_equal(info.version, 2);
    assert_int_equal(info.port_type, PCI_EXP_TYPE_ENDPOINT);
    assert_int_equal(info.max_speed_code, PCI_EXP_SPEED_16GT);
    assert_int_equal(info.max_width, 4);
    assert_int_equal(info.speed_code, PCI_EXP_SPEED_8GT);
    assert_int_equal(info.width, 2);
    assert_int_equal(info.speeds_vector, 0x1e);
}

/* Link Capabilities 2's vector is the authority when it disagrees with
 * LNKCAP; a version 1 capability has no such register. */
static void test_lnkcap2_vector(void **state)
{
    struct fake_fn *f = add_fn(1, 0, 0, 0x1000, 0x0097, 0x010700);
    struct pcie_info info;

    (void)state;
    add_pcie(f, PCI_EXP_TYPE_ENDPOINT, PCI_EXP_SPEED_8GT, 8, PCI_EXP_SPEED_8GT, 8);
    w32(f->cfg, 0x60 + PCI_EXP_LNKCAP2, 0x0e); /* 2.5, 5, 8 */
    w32(f->cfg, 0x60 + PCI_EXP_LNKCAP, 8 << 4 | PCI_EXP_SPEED_5GT);
    pcie_read_info(&fake, f->a, &info);
    assert_int_equal(info.max_speed_code, PCI_EXP_SPEED_8GT);

    w16(f->cfg, 0x60 + PCI_EXP_FLAGS, PCI_EXP_TYPE_ENDPOINT << 4 | 1); /* version 1 */
    pcie_read_info(&fake, f->a, &info);
    assert_int_equal(info.speeds_vector, 0);
    assert_int_equal(info.max_speed_code, PCI_EXP_SPEED_5GT);
}

/* ---- Links between two ends ------------------------------------------------------------ */

/* A root port at 00:01.0 (secondary bus 1) and an endpoint at 01:00.0. */
static void port_and_endpoint(uint8_t port_speed, uint8_t port_width, uint8_t ep_speed, uint8_t ep_width,
                              uint8_t link_speed, uint8_t link_width)
{
    struct fake_fn *rp, *ep;

    add_fn(0, 0, 0, 0x8086, 0x1234, 0x060000); /* host bridge */
    rp = add_bridge(0, 1, 0, 1, 1);
    add_pcie(rp, PCI_EXP_TYPE_ROOT_PORT, port_speed, port_width, link_speed, link_width);
    ep = add_fn(1, 0, 0, 0x144d, 0xa808, 0x010802);
    add_pcie(ep, PCI_EXP_TYPE_ENDPOINT, ep_speed, ep_width, link_speed, link_width);
    enumerate();
}

static void test_x4_gen3_under_x16_gen3_port_is_not_downtrained(void **state)
{
    struct pcie_link k;

    (void)state;
    port_and_endpoint(PCI_EXP_SPEED_8GT, 16, PCI_EXP_SPEED_8GT, 4, PCI_EXP_SPEED_8GT, 4);
    assert_int_equal(pcie_link_of(&fake, &list, index_of(1, 0, 0), &k, NULL), BM_OK);
    assert_true(same(k.device_end, 1, 0, 0));
    assert_true(same(k.port_end, 0, 1, 0));
    assert_int_equal(k.speed_code, PCI_EXP_SPEED_8GT);
    assert_int_equal(k.width, 4);
    assert_int_equal(k.max_speed_code, PCI_EXP_SPEED_8GT);
    assert_int_equal(k.max_width, 4); /* the endpoint's x4 is the ceiling */
    assert_int_equal(k.port_max_width, 16);
    assert_false(k.downtrained);
    assert_true(k.mbps > 3938.4 && k.mbps < 3938.5);
}

static void test_x2_under_x4_port_both_capable_of_x4_is_downtrained(void **state)
{
    struct pcie_link k;

    (void)state;
    port_and_endpoint(PCI_EXP_SPEED_8GT, 4, PCI_EXP_SPEED_8GT, 4, PCI_EXP_SPEED_8GT, 2);
    pcie_link_of(&fake, &list, index_of(1, 0, 0), &k, NULL);
    assert_int_equal(k.width, 2);
    assert_int_equal(k.max_width, 4);
    assert_true(k.downtrained);
    assert_true(k.max_mbps > 2 * k.mbps - 0.01 && k.max_mbps < 2 * k.mbps + 0.01);

    /* Seen from the port: the same link, the same verdict. */
    pcie_link_of(&fake, &list, index_of(0, 1, 0), &k, NULL);
    assert_true(same(k.device_end, 1, 0, 0));
    assert_true(k.downtrained);
}

/* A Gen4 drive in a Gen3 slot runs Gen3: the slot is the limit, not a fault. */
static void test_gen4_device_in_gen3_port_is_not_downtrained(void **state)
{
    struct pcie_link k;

    (void)state;
    port_and_endpoint(PCI_EXP_SPEED_8GT, 4, PCI_EXP_SPEED_16GT, 4, PCI_EXP_SPEED_8GT, 4);
    pcie_link_of(&fake, &list, index_of(1, 0, 0), &k, NULL);
    assert_int_equal(k.max_speed_code, PCI_EXP_SPEED_8GT);
    assert_int_equal(k.device_max_speed_code, PCI_EXP_SPEED_16GT);
    assert_false(k.downtrained);
}

/* Both ends Gen4, link at Gen3: downtrained (a bad riser or cable). */
static void test_gen4_pair_running_gen3_is_downtrained(void **state)
{
    struct pcie_link k;

    (void)state;
    port_and_endpoint(PCI_EXP_SPEED_16GT, 4, PCI_EXP_SPEED_16GT, 4, PCI_EXP_SPEED_8GT, 4);
    pcie_link_of(&fake, &list, index_of(1, 0, 0), &k, NULL);
    assert_true(k.downtrained);
}

/* A device whose own Link Status reads zero (a virtual function): the
 * port's status stands for the link. */
static void test_zero_device_status_uses_the_port(void **state)
{
    struct pcie_link k;

    (void)state;
    port_and_endpoint(PCI_EXP_SPEED_16GT, 8, PCI_EXP_SPEED_16GT, 8, PCI_EXP_SPEED_16GT, 8);
    w16(bus.fns[2].cfg, 0x60 + PCI_EXP_LNKSTA, 0);
    pcie_link_of(&fake, &list, index_of(1, 0, 0), &k, NULL);
    assert_int_equal(k.speed_code, PCI_EXP_SPEED_16GT);
    assert_int_equal(k.width, 8);
    assert_false(k.downtrained);
}

/* q35's AHCI: a conventional function on the root bus; a root-complex
 * integrated endpoint: both have no link. */
static void test_integrated_and_conventional_functions_have_no_link(void **state)
{
    struct fake_fn *rcie;
    struct pcie_link k;
    struct pcie_path p;
    const char *why;

    (void)state;
    add_fn(0, 0x1f, 0, 0x8086, 0x2918, 0x060100)->cfg[PCI_HEADER_TYPE] = PCI_HEADER_MULTIFUNCTION; /* LPC */
    add_fn(0, 0x1f, 2, 0x8086, 0x2922, 0x010601);
    rcie = add_fn(0, 0x17, 0, 0x8086, 0xa352, 0x010601);
    add_pcie(rcie, PCI_EXP_TYPE_RC_END, 0, 0, 0, 0);
    enumerate();

    assert_int_equal(pcie_link_of(&fake, &list, index_of(0, 0x1f, 2), &k, &why), BM_ENODEV);
    assert_non_null(strstr(why, "conventional PCI"));
    assert_int_equal(pcie_link_of(&fake, &list, index_of(0, 0x17, 0), &k, &why), BM_ENODEV);
    assert_non_null(strstr(why, "integrated"));

    assert_int_equal(pcie_path_build(&fake, &list, index_of(0, 0x17, 0), &p), BM_OK);
    assert_int_equal(p.nhops, 0);
    assert_int_equal(p.nbridges, 0);
    assert_int_equal(p.narrowest, -1);
    assert_non_null(p.no_link_why);
}

/* ---- Paths through a switch -------------------------------------------------------------- */

/* Root port 00:01.0 -> switch upstream port 01:00.0 -> downstream ports
 * 02:00.0 and 02:01.0 -> NVMe drives 03:00.0 and 04:00.0. */
static void switch_topology(uint8_t uplink_speed, uint8_t uplink_width)
{
    struct fake_fn *f;

    add_fn(0, 0, 0, 0x8086, 0x1234, 0x060000);
    f = add_bridge(0, 1, 0, 1, 4);
    add_pcie(f, PCI_EXP_TYPE_ROOT_PORT, PCI_EXP_SPEED_16GT, 16, uplink_speed, uplink_width);
    f = add_bridge(1, 0, 0, 2, 4);
    add_pcie(f, PCI_EXP_TYPE_UPSTREAM, PCI_EXP_SPEED_16GT, 16, uplink_speed, uplink_width);
    f = add_bridge(2, 0, 0, 3, 3);
    add_pcie(f, PCI_EXP_TYPE_DOWNSTREAM, PCI_EXP_SPEED_16GT, 4, PCI_EXP_SPEED_16GT, 4);
    f = add_bridge(2, 1, 0, 4, 4);
    add_pcie(f, PCI_EXP_TYPE_DOWNSTREAM, PCI_EXP_SPEED_16GT, 4, PCI_EXP_SPEED_16GT, 4);
    f = add_fn(3, 0, 0, 0x144d, 0xa80a, 0x010802);
    add_pcie(f, PCI_EXP_TYPE_ENDPOINT, PCI_EXP_SPEED_16GT, 4, PCI_EXP_SPEED_16GT, 4);
    f = add_fn(4, 0, 0, 0x144d, 0xa80a, 0x010802);
    add_pcie(f, PCI_EXP_TYPE_ENDPOINT, PCI_EXP_SPEED_16GT, 4, PCI_EXP_SPEED_16GT, 4);
    enumerate();
}

static void test_enumeration_follows_bridges(void **state)
{
    (void)state;
    switch_topology(PCI_EXP_SPEED_16GT, 16);
    assert_int_equal(list.count, 7);
    assert_int_equal(list.funcs[index_of(3, 0, 0)].parent, index_of(2, 0, 0));
    assert_int_equal(list.funcs[index_of(2, 0, 0)].parent, index_of(1, 0, 0));
    assert_int_equal(list.funcs[index_of(1, 0, 0)].parent, index_of(0, 1, 0));
    assert_int_equal(list.funcs[index_of(0, 1, 0)].parent, -1);
}

static void test_path_through_switch_lists_bridges_and_hops(void **state)
{
    struct pcie_path p;

    (void)state;
    switch_topology(PCI_EXP_SPEED_16GT, 16);
    assert_int_equal(pcie_path_build(&fake, &list, index_of(3, 0, 0), &p), BM_OK);
    assert_true(same(p.ctrl, 3, 0, 0));
    assert_int_equal(p.nbridges, 3);
    assert_true(same(p.bridges[0], 2, 0, 0));
    assert_true(same(p.bridges[1], 1, 0, 0));
    assert_true(same(p.bridges[2], 0, 1, 0));
    /* Two links: drive <-> downstream port, switch <-> root port. The
     * switch's internal bus between its ports is not a link. */
    assert_int_equal(p.nhops, 2);
    assert_true(same(p.hops[0].device_end, 3, 0, 0) && same(p.hops[0].port_end, 2, 0, 0));
    assert_true(same(p.hops[1].device_end, 1, 0, 0) && same(p.hops[1].port_end, 0, 1, 0));
    assert_int_equal(p.narrowest, 0); /* x4 Gen4 drive link under an x16 Gen4 uplink */
    assert_false(p.hops[0].downtrained || p.hops[1].downtrained);
}

/* Two Gen4 x4 drives behind a switch whose uplink trained at x2 Gen3: the
 * uplink is the narrowest hop, and it is downtrained. */
static void test_narrow_uplink_is_the_narrowest_hop(void **state)
{
    struct pcie_path p;

    (void)state;
    switch_topology(PCI_EXP_SPEED_8GT, 2);
    pcie_path_build(&fake, &list, index_of(4, 0, 0), &p);
    assert_int_equal(p.nhops, 2);
    assert_int_equal(p.narrowest, 1);
    assert_true(p.hops[1].downtrained);
    assert_true(p.hops[1].mbps > 1969.2 && p.hops[1].mbps < 1969.3);
    assert_true(p.hops[1].max_mbps > 31507 && p.hops[1].max_mbps < 31508);
}

/* A parent chain that loops (a corrupt list) still ends. */
static void test_path_walk_survives_a_parent_loop(void **state)
{
    struct pcie_path p;

    (void)state;
    switch_topology(PCI_EXP_SPEED_16GT, 16);
    list.funcs[index_of(0, 1, 0)].parent = index_of(3, 0, 0);
    assert_int_equal(pcie_path_build(&fake, &list, index_of(3, 0, 0), &p), BM_OK);
    assert_true(p.nhops <= PCIE_MAX_HOPS);
    assert_true(p.nbridges <= (int)ARRAY_SIZE(p.bridges));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_capability_found_along_the_list, reset),
        cmocka_unit_test_setup(test_capability_loop_terminates, reset),
        cmocka_unit_test_setup(test_capability_pointer_into_header_or_absent, reset),
        cmocka_unit_test_setup(test_speed_codes_and_lane_rates, reset),
        cmocka_unit_test_setup(test_link_registers_decoded, reset),
        cmocka_unit_test_setup(test_lnkcap2_vector, reset),
        cmocka_unit_test_setup(test_x4_gen3_under_x16_gen3_port_is_not_downtrained, reset),
        cmocka_unit_test_setup(test_x2_under_x4_port_both_capable_of_x4_is_downtrained, reset),
        cmocka_unit_test_setup(test_gen4_device_in_gen3_port_is_not_downtrained, reset),
        cmocka_unit_test_setup(test_gen4_pair_running_gen3_is_downtrained, reset),
        cmocka_unit_test_setup(test_zero_device_status_uses_the_port, reset),
        cmocka_unit_test_setup(test_integrated_and_conventional_functions_have_no_link, reset),
        cmocka_unit_test_setup(test_enumeration_follows_bridges, reset),
        cmocka_unit_test_setup(test_path_through_switch_lists_bridges_and_hops, reset),
        cmocka_unit_test_setup(test_narrow_uplink_is_the_narrowest_hop, reset),
        cmocka_unit_test_setup(test_path_walk_survives_a_parent_loop, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
