/* The health records the engine writes (efi/disk/health.c): a disk's own,
 * and for a RAID logical drive one per member disk, named by the volume
 * and the member, with a note for a member that was not read. The driver
 * is a fake behind bm_disk_ops; the MegaRAID side is in
 * test_megasas_mfi_model.c and test_megasas_fusion.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "efi/disk/health.h"
#include "efi/record.h"
#include "capture_sink.h"

/* The fake volume: members pd3 (temperature 40), pd4 (not answering),
 * pd5 (temperature 45); list_fails: the member list itself not read. */
static bool list_fails;
static unsigned member_calls;

static int fake_health(struct bm_disk *d, struct bm_health *out) { return BM_ENOTSUP; }

static int fake_member_health(struct bm_disk *d, unsigned index, struct bm_member *who, struct bm_health *out)
{
    static const uint16_t ids[] = { 3, 4, 5 };

    member_calls++;
    if (list_fails) {
        snprintf(who->note, sizeof(who->note), "DCMD 0x04010000: MFI status 0x01 invalid command");
        return BM_EIO;
    }
    if (index >= 3)
        return BM_ENODEV;
    snprintf(who->name, sizeof(who->name), "pd%u", ids[index]);
    who->device_id = ids[index];
    if (ids[index] == 4) {
        snprintf(who->note, sizeof(who->note), "INQUIRY: MFI status 0x0c device not found");
        return BM_ENODEV;
    }
    snprintf(who->serial, sizeof(who->serial), "SER%u", ids[index]);
    bm_health_init(out, "scsi_log");
    out->temperature_c = 37 + (int)ids[index];
    return BM_OK;
}

static const struct bm_disk_ops volume_ops = { .health = fake_health, .member_health = fake_member_health };

static void setup_sink(void)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };

    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
}

/* Before and after: one record per member that answered, naming the
 * volume, the member, its device id and serial; the silent member gets a
 * note and the one after it is still read; no "no health log" note for a
 * volume whose members were read. Fails before member health existed
 * (a logical drive got only "no health log"). */
static void test_volume_members_get_records_and_a_silent_member_a_note(void **state)
{
    struct bm_disk d = { .id = "megasas0d0", .ops = &volume_ops };

    (void)state;
    setup_sink();
    list_fails = false;
    disk_emit_health(&d, "before");
    disk_emit_health(&d, "after");
    assert_int_equal(count_records("health", "\"member\":\"pd3\"", "\"when\":\"before\""), 1);
    assert_int_equal(count_records("health", "\"member\":\"pd5\"", "\"when\":\"after\""), 1);
    assert_int_equal(count_records("health", "\"disk\":\"megasas0d0\"", "\"member_device_id\":5"), 2);
    assert_int_equal(count_records("health", "\"member_serial\":\"SER3\"", "\"temperature_c\":40"), 2);
    assert_int_equal(count_records("health", "pd4", NULL), 0);
    assert_int_equal(count_records("note", "pd4", "device not found"), 2);
    assert_int_equal(count_records("note", "no health log", NULL), 0);
    sinks_close();
}

/* The member list not read: one note saying why, and the volume's "no
 * health log" note once (before). */
static void test_member_list_not_read_is_a_note(void **state)
{
    struct bm_disk d = { .id = "megasas0d1", .ops = &volume_ops };

    (void)state;
    setup_sink();
    list_fails = true;
    member_calls = 0;
    disk_emit_health(&d, "before");
    assert_int_equal(member_calls, 1);
    assert_int_equal(count_records("health", NULL, NULL), 0);
    assert_int_equal(count_records("note", "member disks", "invalid command"), 1);
    assert_int_equal(count_records("note", "no health log", NULL), 1);
    list_fails = false;
    sinks_close();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_volume_members_get_records_and_a_silent_member_a_note),
        cmocka_unit_test(test_member_list_not_read_is_a_note),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
