/* Bridges above a controller baremark drives: pci_enable_device() turns on
 * memory space and bus mastering on every bridge between the root bus and
 * the controller (as Linux pci_enable_bridge()), and plat_pci_release()
 * puts them back as found once no enabled controller below needs them.
 *
 * Topology (simulated functions, platform_sim.h):
 *   00:01.0 root port (bus 1-4), found with both bits off (SERR# enable on)
 *     01:00.0 switch upstream port (bus 2-4), found enabled
 *       02:00.0 downstream port (bus 3), memory space on, bus master off
 *         03:00.0 controller A
 *       02:01.0 downstream port (bus 4), both off
 *         04:00.0 controller B */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/pci.h"
#include "drivers/pci_regs.h"
#include "efi/platform_sim.h"

#define PCI_COMMAND_SERR 0x0100 /* SERR# enable (PCI 3.0 section 6.2.2) */

static struct plat_sim_dev host, root, up, down_a, down_b, ctrl_a, ctrl_b;

/* Command register writes to bridges, in order (which bridge). */
static const struct plat_sim_dev *writes[32];
static unsigned nwrites;

static void bridge_written(void *ctx, uint16_t off, unsigned bytes)
{
    (void)bytes;
    if (off <= PCI_COMMAND + 1 && off + bytes > PCI_COMMAND && nwrites < 32)
        writes[nwrites++] = ctx;
}

static uint16_t cmd_of(const struct plat_sim_dev *d) { return (uint16_t)(d->config[4] | d->config[5] << 8); }

static void set_cmd(struct plat_sim_dev *d, uint16_t v)
{
    d->config[4] = (uint8_t)v;
    d->config[5] = (uint8_t)(v >> 8);
}

/* A function with an ID, a class and a command register. */
static void func(struct plat_sim_dev *d, struct pci_addr a, uint32_t cls, uint16_t cmd)
{
    memset(d, 0, sizeof(*d));
    d->addr = a;
    d->config[0] = 0x86, d->config[1] = 0x80, d->config[2] = 0x34, d->config[3] = 0x12;
    d->config[9] = (uint8_t)cls, d->config[10] = (uint8_t)(cls >> 8), d->config[11] = (uint8_t)(cls >> 16);
    set_cmd(d, cmd);
    plat_sim_attach(d);
}

/* A PCI-to-PCI bridge (type 1 header) leading to buses sec..sub. */
static void bridge(struct plat_sim_dev *d, struct pci_addr a, uint8_t sec, uint8_t sub, uint16_t cmd)
{
    func(d, a, 0x060400, cmd);
    d->config[PCI_HEADER_TYPE] = PCI_HEADER_BRIDGE;
    d->config[0x18] = a.bus;
    d->config[PCI_SECONDARY_BUS] = sec;
    d->config[0x1a] = sub;
    d->ctx = d;
    d->config_written = bridge_written;
}

static int setup(void **state)
{
    (void)state;
    plat_init();
    func(&host, (struct pci_addr){ 0, 0, 0, 0 }, 0x060000, 0x0006);
    bridge(&root, (struct pci_addr){ 0, 0, 1, 0 }, 1, 4, PCI_COMMAND_SERR);
    bridge(&up, (struct pci_addr){ 0, 1, 0, 0 }, 2, 4, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
    bridge(&down_a, (struct pci_addr){ 0, 2, 0, 0 }, 3, 3, PCI_COMMAND_MEMORY);
    bridge(&down_b, (struct pci_addr){ 0, 2, 1, 0 }, 4, 4, 0);
    func(&ctrl_a, (struct pci_addr){ 0, 3, 0, 0 }, 0x010802, 0);
    func(&ctrl_b, (struct pci_addr){ 0, 4, 0, 0 }, 0x010802, 0);
    nwrites = 0;
    return 0;
}

static int teardown(void **state)
{
    struct plat_sim_dev *all[] = { &host, &root, &up, &down_a, &down_b, &ctrl_a, &ctrl_b };
    (void)state;
    for (size_t i = 0; i < ARRAY_SIZE(all); i++)
        plat_sim_detach(all[i]);
    return 0;
}

static void test_every_bridge_above_a_controller_forwards_its_dma(void **state)
{
    const uint16_t on = PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
    (void)state;

    pci_enable_device(ctrl_a.addr);
    assert_int_equal(cmd_of(&ctrl_a), on);
    assert_int_equal(cmd_of(&root), on | PCI_COMMAND_SERR);  /* the other bits stay */
    assert_int_equal(cmd_of(&up), on);
    assert_int_equal(cmd_of(&down_a), on);
    assert_int_equal(cmd_of(&down_b), 0);                    /* not on the way */
    /* From the root down, and only where something changed. */
    assert_int_equal(nwrites, 2);
    assert_ptr_equal(writes[0], &root);
    assert_ptr_equal(writes[1], &down_a);
    plat_pci_release(ctrl_a.addr);
}

static void test_release_restores_bridges_once_no_controller_below_needs_them(void **state)
{
    const uint16_t on = PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
    (void)state;

    pci_enable_device(ctrl_a.addr);
    pci_enable_device(ctrl_b.addr);
    pci_enable_device(ctrl_a.addr); /* a second enable holds nothing twice */
    assert_int_equal(cmd_of(&down_b), on);
    plat_pci_release(ctrl_a.addr);
    /* B still works behind the root port. */
    assert_int_equal(cmd_of(&root), on | PCI_COMMAND_SERR);
    assert_int_equal(cmd_of(&down_a), PCI_COMMAND_MEMORY);
    assert_int_equal(cmd_of(&down_b), on);
    plat_pci_release(ctrl_b.addr);
    assert_int_equal(cmd_of(&root), PCI_COMMAND_SERR);
    assert_int_equal(cmd_of(&down_b), 0);
    assert_int_equal(cmd_of(&up), on);   /* found enabled: never ours to turn off */
    /* A release with nothing held changes nothing. */
    nwrites = 0;
    plat_pci_release(ctrl_b.addr);
    assert_int_equal(nwrites, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_bridge_above_a_controller_forwards_its_dma, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_restores_bridges_once_no_controller_below_needs_them, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
