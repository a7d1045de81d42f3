/* The DHCP/PXE packets the boot firmware kept (netboot.c): the boot
 * server and folder from the PXE reply, proxy offer and DHCP ACK, the
 * router, dotted addresses. The input is up to three packets (the first
 * byte saying which are present, the rest split evenly among them, at most
 * BOOTP_PACKET_MAX bytes each); every option found is read whole. Aborts
 * if the chosen folder is not terminated or does not end in '/'. */
#include "fuzz.h"
#include "netboot.h"
#include "platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    uint8_t *pkt[3] = { NULL, NULL, NULL };
    struct pxe_packets p;
    struct netboot_server s;
    uint8_t ip[4], olen;
    size_t off = 1, count = 0, each;

    if (n < 1)
        return 0;
    for (int i = 0; i < 3; i++)
        count += (data[0] >> i) & 1;
    /* Each packet present gets an equal slice, in a buffer of exactly that
     * many bytes (ASan sees a read past it): the firmware's are
     * BOOTP_PACKET_MAX, any shorter length must be honoured the same way. */
    each = count ? (n - 1) / count : 0;
    each = each < BOOTP_PACKET_MAX ? each : BOOTP_PACKET_MAX;
    for (int i = 0; i < 3; i++) {
        if (!(data[0] & (1u << i)))
            continue;
        pkt[i] = fuzz_page(data + off, each, each);
        off += each;
    }
    p.pxe_reply = pkt[0];
    p.proxy_offer = pkt[1];
    p.dhcp_ack = pkt[2];
    p.len = each;
    memset(&s, 0, sizeof(s));
    if (netboot_pick_server(&p, &s) == BM_OK) {
        size_t l = strnlen(s.dir, sizeof(s.dir));
        if (l == sizeof(s.dir) || (l && s.dir[l - 1] != '/'))
            abort();
    }
    (void)netboot_router(&p, ip);
    for (int i = 0; i < 3; i++)
        if (pkt[i])
            if (dhcp_option(pkt[i], each, data[0], &olen) && olen)
                (void)strnlen((const char *)dhcp_option(pkt[i], each, data[0], &olen), olen);
    {
        char *s2 = fuzz_cstr(data, n < 64 ? n : 64);
        (void)netboot_parse_ipv4(s2, strlen(s2), ip);
        free(s2);
    }
    for (int i = 0; i < 3; i++)
        free(pkt[i]);
    return 0;
}
