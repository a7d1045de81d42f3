/* The FAT reader (efi/fat.c) on volumes made the way a user's stick is
 * made: mkfs.vfat + mcopy (FAT12, FAT16, FAT32, long names, a file in a
 * subfolder), read through the same read-sector callback shape INT 13h
 * feeds it; then damaged volumes (a loop in a cluster chain, a cluster out
 * of range, a chain shorter than the file, a truncated directory, a BPB
 * claiming more than the partition) that must give an error, never a read
 * outside the volume or a hang. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "efi/fat.h"
#include "efi/platform.h"

#define SECTOR 512

struct img {
    uint8_t *data;
    size_t bytes;
    uint64_t reads;
};

static int img_read(void *ctx, uint64_t lba, void *buf)
{
    struct img *m = ctx;

    m->reads++;
    if ((lba + 1) * SECTOR > m->bytes)
        return BM_EIO;
    memcpy(buf, m->data + lba * SECTOR, SECTOR);
    return BM_OK;
}

static void sh(const char *cmd)
{
    int rc = system(cmd);
    if (rc != 0)
        fail_msg("command failed (%d): %s", rc, cmd);
}

/* A volume of kib KiB made by mkfs.vfat with these options, holding
 * \baremark\baremark.cfg (text), \baremark\results\bios.jsonl (bytes
 * spaces + '\n') and a file with a long name in the root. */
static void make_volume(struct img *m, const char *mkfs_opts, unsigned kib, unsigned results_bytes)
{
    char dir[] = "/tmp/baremark-fat-XXXXXX", cmd[1024];
    FILE *f;

    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof(cmd), "mkfs.vfat -C %s %s/v.img %u >/dev/null", mkfs_opts, dir, kib);
    sh(cmd);
    snprintf(cmd, sizeof(cmd), "%s/baremark.cfg", dir);
    f = fopen(cmd, "w");
    assert_non_null(f);
    fputs("mem=off\ndisk=quick\n", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "%s/bios.jsonl", dir);
    f = fopen(cmd, "w");
    assert_non_null(f);
    for (unsigned i = 0; i + 1 < results_bytes; i++)
        fputc(' ', f);
    fputc('\n', f);
    fclose(f);
    snprintf(cmd, sizeof(cmd),
             "cd %s && export MTOOLS_SKIP_CHECK=1 && mmd -i v.img ::/baremark ::/baremark/results && "
             "mcopy -i v.img baremark.cfg ::/baremark/baremark.cfg && "
             "mcopy -i v.img bios.jsonl ::/baremark/results/bios.jsonl && "
             "mcopy -i v.img baremark.cfg '::/A long file name.text'",
             dir);
    sh(cmd);
    snprintf(cmd, sizeof(cmd), "%s/v.img", dir);
    f = fopen(cmd, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    m->bytes = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    m->data = malloc(m->bytes);
    assert_int_equal(fread(m->data, 1, m->bytes, f), m->bytes);
    fclose(f);
    m->reads = 0;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    sh(cmd);
}

static void check_volume(const char *opts, unsigned kib, int type)
{
    struct img m;
    struct fat_vol *v = malloc(sizeof(*v));
    struct fat_file f;
    struct fat_extent ext[8];
    unsigned n;
    uint64_t total = 0;
    char buf[64];
    long got;

    make_volume(&m, opts, kib, 70000);
    assert_int_equal(fat_open(v, img_read, &m, 0, m.bytes / SECTOR, SECTOR), BM_OK);
    assert_int_equal(v->type, type);
    assert_int_equal(fat_open(v, img_read, &m, 0, m.bytes / SECTOR, 4096), BM_EINVAL);
    assert_int_equal(fat_open(v, img_read, &m, 0, m.bytes / SECTOR, SECTOR), BM_OK);
    assert_int_equal(fat_lookup(v, "\\baremark\\baremark.cfg", &f), BM_OK);
    got = fat_read(v, &f, buf, sizeof(buf));
    assert_int_equal(got, 19);
    assert_memory_equal(buf, "mem=off\ndisk=quick\n", 19);
    /* Case-insensitive, either slash, long names. */
    assert_int_equal(fat_lookup(v, "/BAREMARK/Baremark.CFG", &f), BM_OK);
    assert_int_equal(fat_lookup(v, "\\a long file name.TEXT", &f), BM_OK);
    assert_int_equal(f.size, 19);
    assert_int_equal(fat_lookup(v, "\\baremark\\results\\bios.jsonl", &f), BM_OK);
    assert_int_equal(f.size, 70000);
    assert_int_equal(fat_extents(v, &f, ext, 8, &n), BM_OK);
    assert_true(n >= 1);
    for (unsigned i = 0; i < n; i++) {
        total += ext[i].count;
        /* The extent really holds the file: spaces, and the last byte '\n'. */
        assert_int_equal(m.data[ext[i].lba * SECTOR], ' ');
    }
    assert_int_equal(total, (70000 + SECTOR - 1) / SECTOR);
    assert_int_equal(m.data[(ext[n - 1].lba + ext[n - 1].count - 1) * SECTOR + (70000 - 1) % SECTOR], '\n');
    assert_int_equal(fat_lookup(v, "\\baremark\\nothere.cfg", &f), BM_ENODEV);
    assert_int_equal(fat_lookup(v, "\\baremark\\baremark.cfg\\x", &f), BM_ENODEV);
    free(m.data);
    free(v);
}

static void test_fat12_volume_files_long_names_and_extents(void **state) { check_volume("", 1024, 12); }
static void test_fat16_volume_files_long_names_and_extents(void **state) { check_volume("-F 16", 16384, 16); }
static void test_fat32_volume_files_long_names_and_extents(void **state) { check_volume("-F 32 -s 1", 66000, 32); }

/* ---- Damaged volumes ------------------------------------------------------------------ */

/* The FAT32 volume, with the first FAT entry of bios.jsonl's chain
 * replaced by val. */
static void damage_results_chain(uint32_t val, int expect)
{
    struct img m;
    struct fat_vol *v = malloc(sizeof(*v));
    struct fat_file f;
    struct fat_extent ext[8];
    unsigned n;
    uint8_t *fat;

    make_volume(&m, "-F 32 -s 1", 66000, 70000);
    assert_int_equal(fat_open(v, img_read, &m, 0, m.bytes / SECTOR, SECTOR), BM_OK);
    assert_int_equal(fat_lookup(v, "\\baremark\\results\\bios.jsonl", &f), BM_OK);
    fat = m.data + v->fat_lba * SECTOR;
    memcpy(fat + 4 * (f.first_cluster + 3), &val, 4);
    v->cached_lba = UINT64_MAX;
    assert_int_equal(fat_extents(v, &f, ext, 8, &n), expect);
    free(m.data);
    free(v);
}

static void test_loop_in_the_cluster_chain_is_an_error(void **state)
{
    /* Cluster first+3 points back to first: a loop, found without hanging. */
    struct img m;
    struct fat_vol *v = malloc(sizeof(*v));
    struct fat_file f;
    char buf[100000];
    uint32_t back;

    make_volume(&m, "-F 32 -s 1", 66000, 70000);
    assert_int_equal(fat_open(v, img_read, &m, 0, m.bytes / SECTOR, SECTOR), BM_OK);
    assert_int_equal(fat_lookup(v, "\\baremark\\results\\bios.jsonl", &f), BM_OK);
    back = f.first_cluster;
    memcpy(m.data + v->fat_lba * SECTOR + 4 * (f.first_cluster + 3), &back, 4);
    v->cached_lba = UINT64_MAX;
    /* The loop closes long before the file's 137 clusters are read. */
    assert_int_equal(fat_read(v, &f, buf, sizeof(buf)), BM_EINVAL);
    {
        struct fat_extent ext[8];
        unsigned n;
        assert_int_equal(fat_extents(v, &f, ext, 8, &n), BM_EINVAL);
    }
    free(m.data);
    free(v);
}

static void test_cluster_out_of_range_is_an_error(void **state) { damage_results_chain(0x0ffffff0u, BM_EINVAL); }
static void test_free_cluster_inside_a_chain_is_an_error(void **state) { damage_results_chain(0, BM_EINVAL); }
static void test_chain_shorter_than_the_file_is_an_error(void **state) { damage_results_chain(0x0fffffffu, BM_EINVAL); }

static void test_truncated_directory_is_an_error_not_a_read_past_the_end(void **state)
{
    struct img m;
    struct fat_vol *v = malloc(sizeof(*v));
    struct fat_file f;
    size_t cut;

    make_volume(&m, "-F 32 -s 1", 66000, 70000);
    assert_int_equal(fat_open(v, img_read, &m, 0, m.bytes / SECTOR, SECTOR), BM_OK);
    /* The image ends inside the data area, before the folders. */
    cut = (size_t)(v->data_lba + 1) * SECTOR;
    m.bytes = cut;
    v->cached_lba = UINT64_MAX;
    assert_int_equal(fat_lookup(v, "\\baremark\\baremark.cfg", &f), BM_EIO);
    /* The same volume opened as a partition smaller than its BPB says. */
    assert_int_equal(fat_open(v, img_read, &m, 0, cut / SECTOR, SECTOR), BM_EINVAL);
    free(m.data);
    free(v);
}

static void test_garbage_boot_sector_is_refused(void **state)
{
    struct img m;
    struct fat_vol *v = malloc(sizeof(*v));

    make_volume(&m, "-F 16", 16384, 1000);
    m.data[11] = 0x33;      /* bytes per sector 0x0233 */
    assert_int_equal(fat_open(v, img_read, &m, 0, 0, SECTOR), BM_EINVAL);
    free(m.data);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fat12_volume_files_long_names_and_extents),
        cmocka_unit_test(test_fat16_volume_files_long_names_and_extents),
        cmocka_unit_test(test_fat32_volume_files_long_names_and_extents),
        cmocka_unit_test(test_loop_in_the_cluster_chain_is_an_error),
        cmocka_unit_test(test_cluster_out_of_range_is_an_error),
        cmocka_unit_test(test_free_cluster_inside_a_chain_is_an_error),
        cmocka_unit_test(test_chain_shorter_than_the_file_is_an_error),
        cmocka_unit_test(test_truncated_directory_is_an_error_not_a_read_past_the_end),
        cmocka_unit_test(test_garbage_boot_sector_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
