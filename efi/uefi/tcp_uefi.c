/* One TCP exchange through the firmware's TCP4 protocol (UEFI 2.10 section
 * 28.1), for the upload: a child of the TCP4 service binding on the NIC
 * that booted, configured with the addresses the PXE base code holds (or
 * the firmware's default address when there was no netboot). Every step
 * waits by polling the protocol until its token's event is signalled or
 * the deadline passes, then cancels. Tokens are static: a cancelled
 * token may still be written by the driver until the child is gone. */
#include "../http.h"
#include "uefi_private.h"

/* UEFI 2.10 appendix D status codes gnu-efi does not name. */
#ifndef EFI_NETWORK_UNREACHABLE
#define EFI_NETWORK_UNREACHABLE EFIERR(100)
#define EFI_HOST_UNREACHABLE EFIERR(101)
#define EFI_PORT_UNREACHABLE EFIERR(103)
#endif

static EFI_GUID tcp4_sb_guid = EFI_TCP4_SERVICE_BINDING_PROTOCOL;
static EFI_GUID tcp4_guid = EFI_TCP4_PROTOCOL;

static const char *tcp4_found;          /* how the binding was found, for messages */
static char tcp4_station[40];           /* the address it was configured with */

static EFI_TCP4_CONNECTION_TOKEN conn_tok;
static EFI_TCP4_IO_TOKEN io_tok;
static EFI_TCP4_CLOSE_TOKEN close_tok;
static EFI_TCP4_TRANSMIT_DATA tx_data;
static EFI_TCP4_RECEIVE_DATA rx_data;

/* The TCP4 service binding for the boot NIC: on the boot device's path
 * (EDK2 installs it on the NIC's handle, the parent of its PXE child), after
 * connecting the drivers to it (an iPXE SNP handle gets the firmware's
 * network stack only then), else the first one there is. */
static EFI_SERVICE_BINDING *find_tcp4_binding(void)
{
    EFI_GUID dpg = DEVICE_PATH_PROTOCOL;
    EFI_HANDLE boot = uefi_boot_device(), h, *handles = NULL;
    EFI_DEVICE_PATH *dp;
    EFI_SERVICE_BINDING *sb = NULL;
    UINTN count = 0;

    for (int pass = 0; boot && pass < 2 && !sb; pass++) {
        if (pass == 1)
            uefi_call_wrapper(bm_st->BootServices->ConnectController, 4, boot, NULL, NULL, TRUE);
        if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, boot, &dpg, (void **)&dp) != EFI_SUCCESS)
            break;
        if (uefi_call_wrapper(bm_st->BootServices->LocateDevicePath, 3, &tcp4_sb_guid, &dp, &h) == EFI_SUCCESS)
            uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &tcp4_sb_guid, (void **)&sb);
        tcp4_found = pass ? "the boot NIC after connecting its drivers" : "the boot NIC";
    }
    if (!sb && uefi_call_wrapper(bm_st->BootServices->LocateHandleBuffer, 5, ByProtocol, &tcp4_sb_guid, NULL, &count,
                                 &handles) == EFI_SUCCESS) {
        if (count)
            uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, handles[0], &tcp4_sb_guid, (void **)&sb);
        tcp4_found = "the first NIC with TCP4 (not the boot NIC)";
        uefi_call_wrapper(bm_st->BootServices->FreePool, 1, handles);
    }
    return sb;
}

/* Poll until the token's event is signalled; cancel it at the deadline. */
static EFI_STATUS wait_token(EFI_TCP4 *tcp, EFI_TCP4_COMPLETION_TOKEN *t, uint64_t deadline_ns)
{
    while (uefi_call_wrapper(bm_st->BootServices->CheckEvent, 1, t->Event) == EFI_NOT_READY) {
        if (plat_now_ns() >= deadline_ns) {
            uefi_call_wrapper(tcp->Cancel, 2, tcp, t);
            return EFI_TIMEOUT;
        }
        uefi_call_wrapper(tcp->Poll, 1, tcp);
    }
    return t->Status;
}

static const char *tcp_status_text(EFI_STATUS st)
{
    if (st == EFI_TIMEOUT)
        return "timed out";
    if (st == EFI_CONNECTION_REFUSED)
        return "connection refused";
    if (st == EFI_CONNECTION_RESET)
        return "connection reset";
    if (st == EFI_CONNECTION_FIN)
        return "the server closed the connection";
    if (st == EFI_NO_MAPPING)
        return "no IPv4 address on this NIC";
    if (st == EFI_NETWORK_UNREACHABLE || st == EFI_HOST_UNREACHABLE || st == EFI_PORT_UNREACHABLE)
        return "unreachable";
    return "failed";
}

/* Configure the child for ip:port: the PXE addresses, else the default. */
static EFI_STATUS tcp_configure(EFI_TCP4 *tcp, const uint8_t ip[4], uint16_t port, uint64_t deadline_ns)
{
    EFI_TCP4_CONFIG_DATA cd;
    uint8_t station[4], mask[4], router[4];
    bool have = uefi_pxe_addresses(station, mask, router);
    EFI_STATUS st;

    memset(&cd, 0, sizeof(cd));
    if (have)
        snprintf(tcp4_station, sizeof(tcp4_station), "%u.%u.%u.%u/%u.%u.%u.%u", station[0], station[1], station[2],
                 station[3], mask[0], mask[1], mask[2], mask[3]);
    else
        bm_strlcpy(tcp4_station, "the firmware's default address", sizeof(tcp4_station));
    cd.TimeToLive = 64;
    cd.AccessPoint.UseDefaultAddress = !have;
    if (have) {
        memcpy(&cd.AccessPoint.StationAddress, station, 4);
        memcpy(&cd.AccessPoint.SubnetMask, mask, 4);
    }
    memcpy(&cd.AccessPoint.RemoteAddress, ip, 4);
    cd.AccessPoint.RemotePort = port;
    cd.AccessPoint.ActiveFlag = TRUE;
    /* The default address may still be on its way (DHCP): EFI_NO_MAPPING. */
    while ((st = uefi_call_wrapper(tcp->Configure, 2, tcp, &cd)) == EFI_NO_MAPPING && plat_now_ns() < deadline_ns)
        plat_delay_ns(100000000ull);
    if (st == EFI_SUCCESS && have && (router[0] | router[1] | router[2] | router[3])) {
        EFI_IPv4_ADDRESS zero = { { 0, 0, 0, 0 } }, gw;
        memcpy(&gw, router, 4);
        uefi_call_wrapper(tcp->Routes, 5, tcp, FALSE, &zero, &zero, &gw);
    }
    return st;
}

/* Send len bytes, in pieces the send buffer takes. */
static EFI_STATUS tcp_send(EFI_TCP4 *tcp, const void *data, size_t len, uint64_t deadline_ns)
{
    const uint8_t *p = data;

    while (len) {
        UINT32 n = len > 65536 ? 65536 : (UINT32)len;
        EFI_STATUS st;
        tx_data.Push = TRUE;
        tx_data.Urgent = FALSE;
        tx_data.DataLength = n;
        tx_data.FragmentCount = 1;
        tx_data.FragmentTable[0].FragmentLength = n;
        tx_data.FragmentTable[0].FragmentBuffer = (void *)p;
        io_tok.Packet.TxData = &tx_data;
        st = uefi_call_wrapper(tcp->Transmit, 2, tcp, &io_tok);
        if (st == EFI_SUCCESS)
            st = wait_token(tcp, &io_tok.CompletionToken, deadline_ns);
        if (st != EFI_SUCCESS)
            return st;
        p += n;
        len -= n;
    }
    return EFI_SUCCESS;
}

/* Receive until the server closes, resp is full or holds an HTTP head. */
static long tcp_receive(EFI_TCP4 *tcp, char *resp, size_t cap, uint64_t deadline_ns, EFI_STATUS *last)
{
    size_t got = 0;

    *last = EFI_SUCCESS;
    while (got < cap && !http_head_complete(resp, got)) {
        EFI_STATUS st;
        rx_data.UrgentFlag = FALSE;
        rx_data.DataLength = (UINT32)(cap - got);
        rx_data.FragmentCount = 1;
        rx_data.FragmentTable[0].FragmentLength = (UINT32)(cap - got);
        rx_data.FragmentTable[0].FragmentBuffer = resp + got;
        io_tok.Packet.RxData = &rx_data;
        st = uefi_call_wrapper(tcp->Receive, 2, tcp, &io_tok);
        if (st == EFI_SUCCESS)
            st = wait_token(tcp, &io_tok.CompletionToken, deadline_ns);
        if (st != EFI_SUCCESS) {
            *last = st;
            break;
        }
        got += rx_data.DataLength;
    }
    return (long)got;
}

static long exchange(EFI_TCP4 *tcp, const uint8_t ip[4], uint16_t port, const void *head, size_t head_len,
                     const void *body, size_t body_len, char *resp, size_t resp_cap, uint64_t deadline_ns,
                     char *why, size_t why_len)
{
    EFI_STATUS st = tcp_configure(tcp, ip, port, deadline_ns);
    long got;

    if (st != EFI_SUCCESS) {
        snprintf(why, why_len, "TCP4 configure: %s (0x%lx)", tcp_status_text(st), (unsigned long)st);
        return st == EFI_NO_MAPPING ? BM_ENODEV : BM_EIO;
    }
    st = uefi_call_wrapper(tcp->Connect, 2, tcp, &conn_tok);
    if (st == EFI_SUCCESS)
        st = wait_token(tcp, &conn_tok.CompletionToken, deadline_ns);
    if (st != EFI_SUCCESS) {
        snprintf(why, why_len, "connect: %s", tcp_status_text(st));
        return st == EFI_TIMEOUT ? BM_ETIMEDOUT : BM_EIO;
    }
    st = tcp_send(tcp, head, head_len, deadline_ns);
    if (st == EFI_SUCCESS)
        st = tcp_send(tcp, body, body_len, deadline_ns);
    if (st != EFI_SUCCESS) {
        snprintf(why, why_len, "send: %s", tcp_status_text(st));
        return st == EFI_TIMEOUT ? BM_ETIMEDOUT : BM_EIO;
    }
    got = tcp_receive(tcp, resp, resp_cap, deadline_ns, &st);
    if (got == 0 && st != EFI_SUCCESS) {
        snprintf(why, why_len, "receive: %s", tcp_status_text(st));
        return st == EFI_TIMEOUT ? BM_ETIMEDOUT : BM_EIO;
    }
    /* A graceful close, bounded; the child goes away after it anyway. */
    close_tok.AbortOnClose = FALSE;
    if (uefi_call_wrapper(tcp->Close, 2, tcp, &close_tok) == EFI_SUCCESS)
        wait_token(tcp, &close_tok.CompletionToken, plat_now_ns() + 2000000000ull);
    return got;
}

long plat_tcp_exchange(const uint8_t ip[4], uint16_t port, const void *head, size_t head_len, const void *body,
                       size_t body_len, char *resp, size_t resp_cap, uint64_t deadline_ns, char *why,
                       size_t why_len)
{
    EFI_SERVICE_BINDING *sb = find_tcp4_binding();
    EFI_HANDLE child = NULL;
    EFI_TCP4 *tcp;
    EFI_EVENT ev[3] = { NULL, NULL, NULL };
    long rc = BM_ENODEV;

    if (!sb) {
        snprintf(why, why_len, "the firmware has no TCP4 protocol on the boot NIC");
        return BM_ENODEV;
    }
    if (uefi_call_wrapper(sb->CreateChild, 2, sb, &child) != EFI_SUCCESS ||
        uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, child, &tcp4_guid, (void **)&tcp) != EFI_SUCCESS) {
        snprintf(why, why_len, "TCP4: no child");
        goto out;
    }
    for (int i = 0; i < 3; i++) {
        if (uefi_call_wrapper(bm_st->BootServices->CreateEvent, 5, 0, 0, NULL, NULL, &ev[i]) != EFI_SUCCESS) {
            snprintf(why, why_len, "TCP4: no event");
            goto out;
        }
    }
    conn_tok.CompletionToken.Event = ev[0];
    io_tok.CompletionToken.Event = ev[1];
    close_tok.CompletionToken.Event = ev[2];
    rc = exchange(tcp, ip, port, head, head_len, body, body_len, resp, resp_cap, deadline_ns, why, why_len);
    if (rc < 0) {
        size_t n = strlen(why);
        snprintf(why + n, why_len - n, " (TCP4 of %s, from %s)", tcp4_found, tcp4_station);
    }
    /* Configure(NULL) resets the instance: pending tokens end aborted. */
    uefi_call_wrapper(tcp->Configure, 2, tcp, NULL);
out:
    if (child)
        uefi_call_wrapper(sb->DestroyChild, 2, sb, child);
    for (int i = 0; i < 3; i++)
        if (ev[i])
            uefi_call_wrapper(bm_st->BootServices->CloseEvent, 1, ev[i]);
    return rc;
}
