/* The host build's simulated PCI functions, which the driver tests stand
 * on: config space, claim and BAR accesses must reach the model, and
 * nothing else may. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform_sim.h"

struct model {
    uint32_t reg[16];
    unsigned reads, writes, config_writes;
    int last_bar;
};

static uint32_t model_read(void *ctx, int bar, uint32_t off)
{
    struct model *m = ctx;
    m->reads++;
    m->last_bar = bar;
    return m->reg[(off / 4) % 16] + 1;     /* +1: proves the model answered */
}

static void model_write(void *ctx, int bar, uint32_t off, uint32_t v)
{
    struct model *m = ctx;
    m->writes++;
    m->last_bar = bar;
    m->reg[(off / 4) % 16] = v;
}

static void model_config(void *ctx, uint16_t off, unsigned bytes)
{
    struct model *m = ctx;
    (void)off, (void)bytes;
    m->config_writes++;
}

/* A simulated function at a, its BAR1 of bar1_size bytes going to m. */
static void model_dev(struct plat_sim_dev *dev, struct pci_addr a, struct model *m, uint64_t bar1_size)
{
    memset(dev, 0, sizeof(*dev));
    dev->addr = a;
    dev->ctx = m;
    dev->mmio_read32 = model_read;
    dev->mmio_write32 = model_write;
    dev->bar_size[1] = bar1_size;
}

static void test_config_claim_and_mmio_reach_the_model(void **state)
{
    static struct plat_sim_dev dev;
    struct model m = { .reads = 0 };
    struct pci_addr a = { 0, 5, 0, 0 }, other = { 0, 6, 0, 0 };
    volatile void *bar1;
    uint64_t size = 0;

    (void)state;
    model_dev(&dev, a, &m, 0x4000);
    dev.config_written = model_config;
    dev.config[0] = 0x00, dev.config[1] = 0x10, dev.config[2] = 0x5d, dev.config[3] = 0x00;
    plat_sim_attach(&dev);

    assert_int_equal(plat_pci_read32(a, 0), 0x005d1000u);
    assert_int_equal(plat_pci_read16(a, 2), 0x005d);
    assert_int_equal(plat_pci_read32(other, 0), 0xffffffffu);   /* nothing real is visible */
    plat_pci_write16(a, 4, 0x0406);
    assert_int_equal(plat_pci_read16(a, 4), 0x0406);
    assert_int_equal(m.config_writes, 1);

    assert_int_equal(plat_pci_claim(a), BM_OK);
    assert_int_equal(plat_pci_claim(other), BM_ENOTSUP);
    assert_null(plat_pci_map_bar(a, 0, &size));
    bar1 = plat_pci_map_bar(a, 1, &size);
    assert_non_null(bar1);
    assert_int_equal(size, 0x4000);

    mmio_write32(bar1, 0x8, 41);
    assert_int_equal(m.writes, 1);
    assert_int_equal(m.last_bar, 1);
    assert_int_equal(mmio_read32(bar1, 0x8), 42);
    assert_int_equal(mmio_read64(bar1, 0x8), 42 | (1ull << 32));
    assert_int_equal(m.reads, 3);
    plat_pci_release(a);
    assert_int_equal(dev.claims, 1);
    assert_int_equal(dev.releases, 1);

    plat_sim_detach(&dev);
    assert_int_equal(plat_sim_devices, 0);
}

static uint64_t last64;
static unsigned writes64;

static void model_write64(void *ctx, int bar, uint32_t off, uint64_t v)
{
    (void)ctx, (void)bar, (void)off;
    last64 = v;
    writes64++;
}

/* mmio_write64_whole reaches a model that takes 8-byte writes as one
 * write; a model without them gets two dwords, low first. */
static void test_8_byte_write_is_one_write_where_the_model_takes_it(void **state)
{
    static struct plat_sim_dev dev;
    struct model m = { .reads = 0 };
    struct pci_addr a = { 0, 7, 0, 0 };
    volatile void *bar1;
    uint64_t size = 0;

    (void)state;
    model_dev(&dev, a, &m, 0x1000);
    plat_sim_attach(&dev);
    bar1 = plat_pci_map_bar(a, 1, &size);
    assert_non_null(bar1);
    mmio_write64_whole(bar1, 0x10, 0x1111111122222222ull);
    assert_int_equal(m.writes, 2);
    assert_int_equal(m.reg[4], 0x22222222u);
    assert_int_equal(m.reg[5], 0x11111111u);
    dev.mmio_write64 = model_write64;
    mmio_write64_whole(bar1, 0x10, 0x3333333344444444ull);
    assert_int_equal(m.writes, 2);
    assert_int_equal(writes64, 1);
    assert_int_equal(last64, 0x3333333344444444ull);
    plat_sim_detach(&dev);
}

static void test_below_4g_pages_have_32_bit_addresses(void **state)
{
    void *p = plat_alloc_pages(3 * 4096, true);
    (void)state;
    assert_non_null(p);
    assert_true(plat_virt_to_phys(p) + 3 * 4096 <= 0x100000000ull);
    plat_free_pages(p, 3 * 4096);
}

static void test_advancing_the_clock_moves_now(void **state)
{
    uint64_t t0 = plat_now_ns();
    (void)state;
    plat_sim_advance_ns(30ull * 1000000000ull);
    assert_true(plat_now_ns() - t0 >= 30ull * 1000000000ull);
    assert_true(plat_now_ns() - t0 < 31ull * 1000000000ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_claim_and_mmio_reach_the_model),
        cmocka_unit_test(test_8_byte_write_is_one_write_where_the_model_takes_it),
        cmocka_unit_test(test_below_4g_pages_have_32_bit_addresses),
        cmocka_unit_test(test_advancing_the_clock_moves_now),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
