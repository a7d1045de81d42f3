/* The DHCP/PXE packets the boot firmware kept (netboot.c): the boot
 * server and folder from the PXE reply, proxy offer and DHCP ACK, the
 * router, dotted addresses. The input is up to three packets of
 * BOOTP_PACKET_MAX bytes, the first byte saying which are present. Aborts
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
    size_t off = 1;

    if (n < 1)
        return 0;
    for (int i = 0; i < 3; i++) {
        size_t take = n > off ? n - off : 0;
        if (!(data[0] & (1u << i)))
            continue;
        take = take < BOOTP_PACKET_MAX ? take : BOOTP_PACKET_MAX;
        pkt[i] = fuzz_page(data + off, take, BOOTP_PACKET_MAX);
        off += take;
    }
    p.pxe_reply = pkt[0];
    p.proxy_offer = pkt[1];
    p.dhcp_ack = pkt[2];
    p.len = BOOTP_PACKET_MAX;
    memset(&s, 0, sizeof(s));
    if (netboot_pick_server(&p, &s) == BM_OK) {
        size_t l = strnlen(s.dir, sizeof(s.dir));
        if (l == sizeof(s.dir) || (l && s.dir[l - 1] != '/'))
            abort();
    }
    (void)netboot_router(&p, ip);
    for (int i = 0; i < 3; i++)
        if (pkt[i])
            (void)dhcp_option(pkt[i], BOOTP_PACKET_MAX, data[0], &olen);
    {
        char *s2 = fuzz_cstr(data, n < 64 ? n : 64);
        (void)netboot_parse_ipv4(s2, strlen(s2), ip);
        free(s2);
    }
    for (int i = 0; i < 3; i++)
        free(pkt[i]);
    return 0;
}
