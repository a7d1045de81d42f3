/* The run's identity: a run id no two machines share, even with the same
 * placeholder serial and UUID booted in the same second, and the upload
 * names built on it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "run_ident.h"
#include "upload.h"

#define PLACEHOLDER_SERIAL "To Be Filled By O.E.M."
#define PLACEHOLDER_UUID "03000200-0400-0500-0006-000700080009"

/* What app.c does at boot, for a machine with these parts. */
static void boot_machine(struct run_ident *id, const uint8_t *mac, bool force_jitter)
{
    uint64_t entropy[2];
    const char *src = run_ident_entropy(entropy, force_jitter);

    run_ident_make(id, entropy, src, PLACEHOLDER_UUID, PLACEHOLDER_SERIAL, mac, NULL);
}

static void test_two_placeholder_machines_in_the_same_second_get_different_upload_names(void **state)
{
    struct run_ident a, b;
    char na[RUN_UPLOAD_NAME_MAX], nb[RUN_UPLOAD_NAME_MAX];

    (void)state;
    /* same serial, same UUID, no MAC (not netbooted), same clock second */
    boot_machine(&a, NULL, false);
    boot_machine(&b, NULL, false);
    assert_true(run_ident_upload_base(na, sizeof(na), &a, "20261204-161500") > 0);
    assert_true(run_ident_upload_base(nb, sizeof(nb), &b, "20261204-161500") > 0);
    assert_string_not_equal(na, nb);
    assert_string_not_equal(a.run_id, b.run_id);
    /* the same on a CPU without RDRAND/RDSEED (QEMU's default CPU model) */
    boot_machine(&a, NULL, true);
    boot_machine(&b, NULL, true);
    assert_string_equal(a.run_id_source, "tsc_jitter");
    run_ident_upload_base(na, sizeof(na), &a, "20261204-161500");
    run_ident_upload_base(nb, sizeof(nb), &b, "20261204-161500");
    assert_string_not_equal(na, nb);
}

/* Even identical entropy (a broken source) leaves two NICs apart. */
static void test_the_mac_alone_tells_two_machines_apart(void **state)
{
    static const uint64_t same[2] = { 42, 42 };
    static const uint8_t mac_a[6] = { 0x52, 0x54, 0, 0x99, 0, 0x0a }, mac_b[6] = { 0x52, 0x54, 0, 0x99, 0, 0x0b };
    struct run_ident a, b;
    char na[RUN_UPLOAD_NAME_MAX], nb[RUN_UPLOAD_NAME_MAX];

    (void)state;
    run_ident_make(&a, same, "rdrand", PLACEHOLDER_UUID, PLACEHOLDER_SERIAL, mac_a, NULL);
    run_ident_make(&b, same, "rdrand", PLACEHOLDER_UUID, PLACEHOLDER_SERIAL, mac_b, NULL);
    assert_string_not_equal(a.run_id, b.run_id);
    run_ident_upload_base(na, sizeof(na), &a, "20261204-161500");
    run_ident_upload_base(nb, sizeof(nb), &b, "20261204-161500");
    assert_string_not_equal(na, nb);
    assert_non_null(strstr(na, "-52540099000a-"));
}

static void test_run_id_is_128_bit_hex_and_names_have_their_parts(void **state)
{
    static const uint64_t e[2] = { 0x0123456789abcdefull, 0xfedcba9876543210ull };
    static const uint8_t mac[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 }, ip[4] = { 10, 99, 0, 101 };
    struct run_ident id;
    char base[RUN_UPLOAD_NAME_MAX], want[512], name[RUN_UPLOAD_NAME_MAX + 24], js[512];
    struct json j;

    (void)state;
    run_ident_make(&id, e, "rdseed", "4c4c4544-0042-3510-8052-b7c04f4d3432",
                   "A serial/with spaces that is much longer than thirty-two bytes", mac, ip);
    assert_int_equal(strlen(id.run_id), RUN_ID_HEX);
    assert_int_equal(strspn(id.run_id, "0123456789abcdef"), RUN_ID_HEX);
    assert_true(run_ident_upload_base(base, sizeof(base), &id, "20261204-161500") > 0);
    snprintf(want, sizeof(want), "20261204-161500-A_serial_with_spaces_that_is_muc-525400123456-%s", id.run_id);
    assert_string_equal(base, want);
    assert_true(upload_name(name, sizeof(name), base, UPLOAD_PASS, 12, "jsonl") > 0);
    assert_non_null(strstr(name, id.run_id));
    assert_string_equal(name + strlen(base), ".pass12.jsonl");
    upload_name(name, sizeof(name), base, UPLOAD_STARTED, 0, "jsonl");
    assert_string_equal(name + strlen(base), ".started.jsonl");
    upload_name(name, sizeof(name), base, UPLOAD_FINAL, 0, "html");
    assert_string_equal(name + strlen(base), ".final.html");
    assert_int_equal(upload_name(name, 10, base, UPLOAD_FINAL, 0, "html"), 0);
    /* the record fields */
    json_init(&j, js, sizeof(js));
    json_obj_begin(&j, NULL);
    run_ident_json(&id, &j);
    json_obj_end(&j);
    snprintf(want, sizeof(want), "{\"run_id\":\"%s\",\"run_id_source\":\"rdseed\","
             "\"smbios_uuid\":\"4c4c4544-0042-3510-8052-b7c04f4d3432\",\"system_serial\":\"A serial/with spaces that is "
             "much longer than thirty-two bytes\",\"mac\":\"52:54:00:12:34:56\",\"ip\":\"10.99.0.101\"}",
             id.run_id);
    assert_string_equal(json_text(&j), want);
    /* deterministic in its inputs; the UUID is part of it */
    {
        struct run_ident again, other_uuid;
        run_ident_make(&again, e, "rdseed", id.uuid, id.serial, mac, ip);
        run_ident_make(&other_uuid, e, "rdseed", "4c4c4544-0042-3510-8052-b7c04f4d3433", id.serial, mac, ip);
        assert_string_equal(again.run_id, id.run_id);
        assert_string_not_equal(other_uuid.run_id, id.run_id);
    }
}

static void test_unknown_parts_have_names_too(void **state)
{
    static const uint64_t e[2] = { 5, 6 };
    struct run_ident id;
    char base[RUN_UPLOAD_NAME_MAX], mac[20], ip[20];

    (void)state;
    run_ident_make(&id, e, "tsc_jitter", "", "", NULL, NULL);
    run_ident_upload_base(base, sizeof(base), &id, "20261204-161500");
    assert_non_null(strstr(base, "20261204-161500-unknown-nomac-"));
    run_ident_mac_text(&id, mac, sizeof(mac));
    run_ident_ip_text(&id, ip, sizeof(ip));
    assert_string_equal(mac, "");
    assert_string_equal(ip, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_placeholder_machines_in_the_same_second_get_different_upload_names),
        cmocka_unit_test(test_the_mac_alone_tells_two_machines_apart),
        cmocka_unit_test(test_run_id_is_128_bit_hex_and_names_have_their_parts),
        cmocka_unit_test(test_unknown_parts_have_names_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
