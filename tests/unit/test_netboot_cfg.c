/* Netboot: which server the boot files come from (the packets EDK2's PXE
 * and iPXE leave behind), and the per-machine configuration files: their
 * names, their order and how they override each other. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cfg_files.h"
#include "netboot.h"
#include "platform.h"

static uint8_t ack[BOOTP_PACKET_MAX], proxy[BOOTP_PACKET_MAX], reply[BOOTP_PACKET_MAX];

/* A BOOTP reply with siaddr, file and options (code, len, data...; 255 ends). */
static void packet(uint8_t *p, const uint8_t siaddr[4], const char *file, const uint8_t *opts, size_t opts_len)
{
    static const uint8_t cookie[4] = { 99, 130, 83, 99 };

    memset(p, 0, BOOTP_PACKET_MAX);
    p[0] = 2;
    memcpy(p + BOOTP_SIADDR_OFF, siaddr, 4);
    if (file)
        memcpy(p + BOOTP_FILE_OFF, file, strlen(file));
    memcpy(p + BOOTP_COOKIE_OFF, cookie, 4);
    memcpy(p + BOOTP_OPTIONS_OFF, opts, opts_len);
}

static const uint8_t dhcp_server[4] = { 10, 99, 0, 1 }, proxy_server[4] = { 10, 99, 0, 2 }, none[4] = { 0 };

/* iPXE after proxy-DHCP: DhcpAck holds the DHCP server's next-server, the
 * proxy's settings are in PxeReply (fakedhcp.c create_fakepxebsack). */
static void test_ipxe_proxy_reply_wins_over_dhcp_next_server(void **state)
{
    static const uint8_t opts[] = { 255 };
    struct pxe_packets pk = { ack, NULL, reply, BOOTP_PACKET_MAX };
    struct netboot_server s;

    (void)state;
    packet(ack, dhcp_server, NULL, opts, sizeof(opts));
    packet(reply, proxy_server, "baremark.ipxe", opts, sizeof(opts));
    assert_int_equal(netboot_pick_server(&pk, &s), BM_OK);
    assert_memory_equal(s.ip, proxy_server, 4);
    assert_string_equal(s.from, "pxe_reply");
    assert_string_equal(s.dir, "");
}

/* Firmware PXE with dnsmasq's pxe-service: the proxy offer carries a menu
 * and no boot file, yet it names the server the files are on. */
static void test_proxy_offer_without_boot_file_still_names_the_server(void **state)
{
    static const uint8_t opts[] = { 54, 4, 10, 99, 0, 2, 255 };
    static const uint8_t ack_opts[] = { 3, 4, 10, 99, 0, 254, 255 };
    struct pxe_packets pk = { ack, proxy, NULL, BOOTP_PACKET_MAX };
    struct netboot_server s;
    uint8_t router[4];

    (void)state;
    packet(ack, dhcp_server, "", ack_opts, sizeof(ack_opts));
    packet(proxy, none, "", opts, sizeof(opts));
    assert_int_equal(netboot_pick_server(&pk, &s), BM_OK);
    assert_memory_equal(s.ip, proxy_server, 4);
    assert_string_equal(s.from, "proxy_offer");
    assert_true(netboot_router(&pk, router));
    assert_int_equal(router[3], 254);
}

static void test_tftp_server_option_and_boot_folder(void **state)
{
    static const uint8_t opts[] = { 66, 9, '1', '0', '.', '9', '9', '.', '0', '.', '7', 255 };
    struct pxe_packets pk = { ack, NULL, NULL, BOOTP_PACKET_MAX };
    struct netboot_server s;
    static const uint8_t want[4] = { 10, 99, 0, 7 };

    (void)state;
    packet(ack, none, "rack/a/baremark.efi", opts, sizeof(opts));
    assert_int_equal(netboot_pick_server(&pk, &s), BM_OK);
    assert_memory_equal(s.ip, want, 4);
    assert_string_equal(s.dir, "rack/a/");
    /* no server anywhere: nothing to ask */
    packet(ack, none, "x", (const uint8_t[]){ 255 }, 1);
    assert_int_equal(netboot_pick_server(&pk, &s), BM_ENODEV);
}

static void test_truncated_and_bad_options_are_ignored(void **state)
{
    static const uint8_t opts[] = { 0, 0, 54, 40, 1, 2 };
    uint8_t n, ip[4];

    (void)state;
    packet(ack, none, NULL, opts, sizeof(opts));
    assert_null(dhcp_option(ack, BOOTP_OPTIONS_OFF + sizeof(opts), 54, &n));
    assert_null(dhcp_option(NULL, 0, 54, &n));
    assert_false(netboot_parse_ipv4("10.0.0", 6, ip));
    assert_false(netboot_parse_ipv4("10.0.0.256", 10, ip));
    assert_false(netboot_parse_ipv4("10..0.1", 7, ip));
    assert_true(netboot_parse_ipv4("192.168.1.20", 12, ip));
    assert_int_equal(ip[3], 20);
}

/* ---- Per-machine files ---------------------------------------------------- */

static void test_name_parts_are_sanitized(void **state)
{
    char part[64];

    (void)state;
    assert_int_equal(cfg_name_part(part, sizeof(part), "Standard PC (Q35 + ICH9, 2009)"), 25);
    assert_string_equal(part, "Standard_PC_Q35_ICH9_2009");
    cfg_name_part(part, sizeof(part), "../../etc/passwd");
    assert_string_equal(part, "etc_passwd");
    cfg_name_part(part, sizeof(part), "A\\B:C\tD\x01" "E\xc3\xa9");
    assert_string_equal(part, "A_B_C_D_E");
    assert_int_equal(cfg_name_part(part, sizeof(part), "  \x7f "), 0);
    assert_int_equal(cfg_name_part(part, sizeof(part), "0123456789012345678901234567890123456789012345678901234"),
                     CFG_PART_MAX);
}

static struct machine_ident ident(void)
{
    struct machine_ident id;

    memset(&id, 0, sizeof(id));
    strcpy(id.product, "PowerEdge R650");
    strcpy(id.board, "Dell Inc. 0Y2K8N");
    strcpy(id.serial, "CN7X/42");
    strcpy(id.uuid, "4c4c4544-0042-3510-8052-b7c04f4d3432");
    id.has_mac = true;
    memcpy(id.mac, (const uint8_t[]){ 0x52, 0x54, 0x00, 0x12, 0x34, 0xab }, 6);
    return id;
}

static void test_names_in_order_most_specific_last(void **state)
{
    char names[CFG_LAYERS][CFG_NAME_MAX];
    struct machine_ident id = ident();

    (void)state;
    assert_int_equal(cfg_file_names(&id, "baremark", names), 6);
    assert_string_equal(names[0], "baremark.cfg");
    assert_string_equal(names[1], "baremark-product-PowerEdge_R650.cfg");
    assert_string_equal(names[2], "baremark-board-Dell_Inc._0Y2K8N.cfg");
    assert_string_equal(names[3], "baremark-serial-CN7X_42.cfg");
    assert_string_equal(names[4], "baremark-uuid-4c4c4544-0042-3510-8052-b7c04f4d3432.cfg");
    assert_string_equal(names[5], "baremark-52-54-00-12-34-ab.cfg");
    id.serial[0] = '\0';
    id.has_mac = false;
    assert_int_equal(cfg_file_names(&id, "limits", names), 4);
    assert_string_equal(names[3], "limits-uuid-4c4c4544-0042-3510-8052-b7c04f4d3432.cfg");
}

/* A boot server holding some files. */
static const char *const *served;
static unsigned reads;

static long fake_read(const char *path, char *buf, size_t cap)
{
    reads++;
    assert_true(!strncmp(path, "\\baremark\\", 10));
    for (unsigned i = 0; served[i]; i += 2) {
        if (!strcmp(path + 10, served[i])) {
            size_t n = strlen(served[i + 1]);
            if (n > cap)
                return BM_ENOSPC;
            memcpy(buf, served[i + 1], n);
            return (long)n;
        }
    }
    return BM_ENODEV;
}

static struct config c;
static struct cfg_load_log cfg_log;
static char err[CONFIG_ERR_LEN];

/* cfg_load_options for the machine ident() with these files served. */
static int load(const char *const *files, const char *args)
{
    struct machine_ident id = ident();

    served = files;
    reads = 0;
    err[0] = '\0';
    return cfg_load_options(&c, &id, args, fake_read, &cfg_log, err, sizeof(err));
}

static void test_per_machine_files_override_key_by_key(void **state)
{
    static const char *const files[] = {
        "baremark.cfg", "mem=off\ndisk=quick\ntime=3\nexit=shutdown\n",
        "baremark-product-PowerEdge_R650.cfg", "time=9\n",
        "baremark-52-54-00-12-34-ab.cfg", "disk=off\n",
        "limits.cfg", "* * min_mbps=100 min_iops=5000\n",
        "limits-52-54-00-12-34-ab.cfg", "* * min_mbps=700\n",
        NULL,
    };

    (void)state;
    assert_int_equal(load(files, "baremark.efi time=20"), BM_OK);
    assert_int_equal(reads, 12);
    assert_int_equal(c.mem, LEVEL_OFF);
    assert_int_equal(c.disk, LEVEL_OFF);     /* the MAC file, last */
    assert_int_equal(c.time_s, 20);          /* the command line still wins */
    assert_int_equal(c.exit, EXIT_SHUTDOWN);
    assert_int_equal(c.limits.count, 1);
    assert_true(c.limits.items[0].min_mbps == 700 && c.limits.items[0].min_iops == 5000);
    assert_int_equal(cfg_log.applied, 5);
    assert_string_equal(cfg_log.applied_names[0], "baremark.cfg");
    assert_string_equal(cfg_log.applied_names[1], "baremark-product-PowerEdge_R650.cfg");
    assert_string_equal(cfg_log.applied_names[2], "baremark-52-54-00-12-34-ab.cfg");
    assert_string_equal(cfg_log.applied_names[3], "limits.cfg");
    assert_string_equal(cfg_log.applied_names[4], "limits-52-54-00-12-34-ab.cfg");
    assert_int_equal(cfg_log.missing, 7);
    assert_string_equal(cfg_log.missing_names[0], "baremark-board-Dell_Inc._0Y2K8N.cfg");
}

static void test_a_bad_per_machine_file_stops_the_run_naming_it(void **state)
{
    static const char *const files[] = {
        "baremark.cfg", "mem=off\n",
        "baremark-serial-CN7X_42.cfg", "# rack 4\ndisk=fast\n",
        NULL,
    };
    static const char *const no_files[] = { NULL };

    (void)state;
    assert_int_equal(load(files, ""), BM_EINVAL);
    assert_non_null(strstr(err, "baremark-serial-CN7X_42.cfg line 2"));
    assert_non_null(strstr(err, "disk"));
    /* nothing served at all: defaults, every file listed as missing */
    assert_int_equal(load(no_files, ""), BM_OK);
    assert_int_equal(cfg_log.applied, 0);
    assert_int_equal(cfg_log.missing, 12);
    assert_string_equal(cfg_log.missing_names[6], "limits.cfg");
}

/* cfg_required=1 (netboot): a missing baremark.cfg is an error of its own
 * (BM_ENODEV: the options given are good, the run stops), not defaults. */
static void test_cfg_required_makes_a_missing_baremark_cfg_an_error(void **state)
{
    static const char *const no_files[] = { NULL };
    static const char *const only_mac[] = { "baremark-52-54-00-12-34-ab.cfg", "time=9\n", NULL };
    static const char *const shared[] = { "baremark.cfg", "mem=off\n", NULL };

    (void)state;
    assert_int_equal(load(no_files, "baremark.efi cfg_required=1 exit=shutdown upload=http://10.0.0.2/r"), BM_ENODEV);
    assert_non_null(strstr(err, "cfg_required=1"));
    assert_non_null(strstr(err, "baremark.cfg was not found"));
    /* the options given still hold: the exit and the upload target are known */
    assert_int_equal(c.exit, EXIT_SHUTDOWN);
    assert_string_equal(c.upload, "http://10.0.0.2/r");
    /* a per-machine file is no stand-in for the shared one */
    assert_int_equal(load(only_mac, "x cfg_required=1"), BM_ENODEV);
    /* found: the run goes on; not required: defaults, as before */
    assert_int_equal(load(shared, "x cfg_required=1"), BM_OK);
    assert_int_equal(c.mem, LEVEL_OFF);
    assert_int_equal(load(no_files, "x"), BM_OK);
    assert_int_equal(load(no_files, "x cfg_required=2"), BM_EINVAL);
}

static const uint8_t tftp_server[4] = { 10, 99, 0, 2 };

/* dnsmasq answers a file it may not read (tftp-secure, permissions) with
 * TFTP error 2: that is a refusal, not a missing file. */
static void test_tftp_access_violation_is_not_reported_as_not_found(void **state)
{
    char why[200];

    (void)state;
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, TFTP_ERR_ACCESS, "cannot access /srv/tftp/baremark.cfg: "
                                        "Permission denied", 127, tftp_server, why, sizeof(why)), BM_EACCES);
    assert_non_null(strstr(why, "10.99.0.2 refused it: TFTP error 2 (access violation)"));
    assert_non_null(strstr(why, "Permission denied"));
    assert_string_not_equal(bm_strerror(BM_EACCES), bm_strerror(BM_ENODEV));
    /* iPXE's Mtftp gives the status, not the packet */
    assert_int_equal(netboot_tftp_error(TFTP_FW_ACCESS_DENIED, 0, NULL, 0, tftp_server, why, sizeof(why)), BM_EACCES);
    assert_non_null(strstr(why, "access violation"));
}

static void test_tftp_server_errors_are_said_as_such(void **state)
{
    char why[200];
    static const char evil[] = "disk\nfull\x01";

    (void)state;
    /* only "file not found" means "not there" */
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, TFTP_ERR_NOT_FOUND, "file not found", 127, tftp_server,
                                        why, sizeof(why)), BM_ENODEV);
    assert_int_equal(netboot_tftp_error(TFTP_FW_NOT_FOUND, 0, NULL, 0, tftp_server, why, sizeof(why)), BM_ENODEV);
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, TFTP_ERR_DISK_FULL, evil, sizeof(evil), tftp_server, why,
                                        sizeof(why)), BM_EIO);
    assert_non_null(strstr(why, "answered with an error: TFTP error 3 (disk full or allocation exceeded): \"disk?full?\""));
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, TFTP_ERR_OPTIONS, "", 127, tftp_server, why, sizeof(why)),
                     BM_EIO);
    assert_non_null(strstr(why, "TFTP error 8 (option negotiation refused)"));
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, 0, "busy", 127, tftp_server, why, sizeof(why)), BM_EIO);
    assert_non_null(strstr(why, "TFTP error 0 (not defined): \"busy\""));
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, 77, NULL, 0, tftp_server, why, sizeof(why)), BM_EIO);
    assert_non_null(strstr(why, "TFTP error 77 (unknown code)"));
    assert_int_equal(netboot_tftp_error(TFTP_FW_TIMEOUT, 0, NULL, 0, tftp_server, why, sizeof(why)), BM_ETIMEDOUT);
    assert_int_equal(netboot_tftp_error(TFTP_FW_OTHER, 0, NULL, 0, tftp_server, why, sizeof(why)), BM_EIO);
}

/* EDK2 (OVMF) keeps the server's message but not its code (it stores the
 * low byte of the network-order code: 0); the message decides, so a
 * missing per-machine file stays "not there" and a refusal is one. */
static void test_tftp_error_without_its_code_is_judged_by_the_message(void **state)
{
    char why[200];
    static const char denied[] = "cannot access /srv/tftp/baremark.cfg: Permission denied";
    static const char missing[] = "file /srv/tftp/baremark-uuid-x.cfg not found";

    (void)state;
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, TFTP_ERR_CODE_LOST, missing, sizeof(missing),
                                        tftp_server, why, sizeof(why)), BM_ENODEV);
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, TFTP_ERR_CODE_LOST, "File Not Found", 15, tftp_server,
                                        why, sizeof(why)), BM_ENODEV);
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, TFTP_ERR_CODE_LOST, denied, sizeof(denied), tftp_server,
                                        why, sizeof(why)), BM_EACCES);
    assert_non_null(strstr(why, "refused it: access violation (the firmware kept no TFTP error code)"));
    assert_non_null(strstr(why, "Permission denied"));
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, TFTP_ERR_CODE_LOST, "Access violation", 17, tftp_server,
                                        why, sizeof(why)), BM_EACCES);
    assert_int_equal(netboot_tftp_error(TFTP_FW_ERROR_PACKET, TFTP_ERR_CODE_LOST, "disk full", 10, tftp_server, why,
                                        sizeof(why)), BM_EIO);
    assert_non_null(strstr(why, "answered with an error (the firmware kept no TFTP error code): \"disk full\""));
}

/* A served file the server refuses stops the run naming the refusal, as
 * a bad file does, instead of running as if it were not there. */
static long refusing_read(const char *path, char *buf, size_t cap)
{
    (void)buf;
    (void)cap;
    return strcmp(path, "\\baremark\\baremark.cfg") ? BM_ENODEV : BM_EACCES;
}

static void test_a_refused_baremark_cfg_stops_the_run(void **state)
{
    struct machine_ident id = ident();

    (void)state;
    assert_int_equal(cfg_load_options(&c, &id, "", refusing_read, &cfg_log, err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "baremark.cfg: cannot read it: access denied"));
}

/* PXELINUX's IPAPPEND 2 word, as boot/baremark-bios.ipxe writes it too. */
static void test_bootif_names_the_boot_nic(void **state)
{
    uint8_t mac[6];
    static const uint8_t want[6] = { 0x52, 0x54, 0x00, 0x99, 0x00, 0x0a };

    (void)state;
    assert_true(netboot_parse_bootif("01-52-54-00-99-00-0a", 20, mac));
    assert_memory_equal(mac, want, 6);
    assert_true(netboot_parse_bootif("01-52-54-00-99-00-0A", 20, mac));
    assert_false(netboot_parse_bootif("52-54-00-99-00-0a", 17, mac));
    assert_false(netboot_parse_bootif("01-52-54-00-99-00-0g", 20, mac));
    assert_false(netboot_parse_bootif("01-52:54:00:99:00:0a", 20, mac));
    assert_false(netboot_parse_bootif("01-52-54-00-99-00-0a", 19, mac));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ipxe_proxy_reply_wins_over_dhcp_next_server),
        cmocka_unit_test(test_proxy_offer_without_boot_file_still_names_the_server),
        cmocka_unit_test(test_tftp_server_option_and_boot_folder),
        cmocka_unit_test(test_truncated_and_bad_options_are_ignored),
        cmocka_unit_test(test_name_parts_are_sanitized),
        cmocka_unit_test(test_names_in_order_most_specific_last),
        cmocka_unit_test(test_per_machine_files_override_key_by_key),
        cmocka_unit_test(test_a_bad_per_machine_file_stops_the_run_naming_it),
        cmocka_unit_test(test_cfg_required_makes_a_missing_baremark_cfg_an_error),
        cmocka_unit_test(test_tftp_access_violation_is_not_reported_as_not_found),
        cmocka_unit_test(test_tftp_server_errors_are_said_as_such),
        cmocka_unit_test(test_tftp_error_without_its_code_is_judged_by_the_message),
        cmocka_unit_test(test_a_refused_baremark_cfg_stops_the_run),
        cmocka_unit_test(test_bootif_names_the_boot_nic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
