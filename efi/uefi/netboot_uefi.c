/* Netboot: files from the TFTP server the boot used, the boot NIC's MAC
 * and the addresses the PXE base code holds (for the upload). */
#include "../netboot.h"
#include "uefi_private.h"
#include "../devpath.h"

static EFI_PXE_BASE_CODE *pxe;             /* NULL: not booted through a PXE base code */
static struct netboot_server server;
static bool server_known;
static bool server_silent;                 /* a TFTP read timed out: ask it no more */
static char last_error[200];               /* why the last read failed, other than "no such file" */

/* After a firmware PXE boot or an iPXE chain: the TFTP server and the
 * boot file's folder (netboot_pick_server, as EDK2 PxeBcDhcp4BootInfo). */
void uefi_pxe_open(EFI_HANDLE device)
{
    EFI_GUID pxeg = EFI_PXE_BASE_CODE_PROTOCOL_GUID;
    struct pxe_packets pk;
    EFI_PXE_BASE_CODE_MODE *m;

    pxe = NULL;
    server_known = server_silent = false;
    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, device, &pxeg, (void **)&pxe) != EFI_SUCCESS ||
        !pxe->Mode || !pxe->Mode->Started || pxe->Mode->UsingIpv6) {
        pxe = NULL;
        return;
    }
    m = pxe->Mode;
    pk.dhcp_ack = m->DhcpAckReceived ? m->DhcpAck.Raw : NULL;
    pk.proxy_offer = m->ProxyOfferReceived ? m->ProxyOffer.Raw : NULL;
    pk.pxe_reply = m->PxeReplyReceived ? m->PxeReply.Raw : NULL;
    pk.len = sizeof(m->DhcpAck.Raw);
    server_known = netboot_pick_server(&pk, &server) == BM_OK;
}

/* The station address the PXE base code holds (firmware PXE or iPXE). */
bool uefi_pxe_station(uint8_t ip[4])
{
    if (!pxe || !pxe->Mode)
        return false;
    memcpy(ip, &pxe->Mode->StationIp.v4, 4);
    return ip[0] || ip[1] || ip[2] || ip[3];
}

/* Whether we were netbooted: iPXE installs a read-only file system serving
 * what it fetched on the same handle as its PXE base code; the firmware's
 * PXE boot has only the PXE base code. Either way the device has one. */
bool uefi_has_pxe_base_code(EFI_HANDLE device)
{
    EFI_GUID pxeg = EFI_PXE_BASE_CODE_PROTOCOL_GUID;
    void *unused;

    return uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, device, &pxeg, &unused) == EFI_SUCCESS;
}

/* One TFTP read through the PXE base code (UEFI 2.10 section 24.3),
 * relative to the boot file's folder. The firmware's own retries set how
 * long a silent server costs (EDK2: PXEBC_MTFTP_TIMEOUT x RETRIES, the
 * API cannot change it), so after one timeout the server is not asked
 * again: a wrong server costs one wait, not one per file. A TFTP error
 * comes back at once: "file not found" is BM_ENODEV, an access violation
 * or any other server error is said as such (netboot_tftp_error), from the
 * ERROR packet EDK2 keeps in the mode (PxeBcMtftp: TftpErrorReceived) or
 * the status iPXE turns it into (EFI_NOT_FOUND, EFI_ACCESS_DENIED). */
long uefi_tftp_read(const char *name, char *buf, size_t cap)
{
    char remote[256];
    UINT64 size = cap;
    EFI_IP_ADDRESS ip;
    EFI_STATUS st;

    last_error[0] = '\0';
    if (!pxe || !server_known || server_silent)
        return BM_ENODEV;
    snprintf(remote, sizeof(remote), "%s%s", server.dir, name);
    memset(buf, 0xff, cap);
    memset(&ip, 0, sizeof(ip));
    memcpy(&ip.v4, server.ip, 4);
    st = uefi_call_wrapper(pxe->Mtftp, 10, pxe, EFI_PXE_BASE_CODE_TFTP_READ_FILE, buf, FALSE, &size, NULL, &ip,
                           (UINT8 *)remote, NULL, FALSE);
    if (st == EFI_TIMEOUT)
        server_silent = true;
    if (st == EFI_BUFFER_TOO_SMALL)
        return BM_ENOSPC;
    if (st != EFI_SUCCESS) {
        EFI_PXE_BASE_CODE_MODE *m = pxe->Mode;
        /* EDK2's READ_FILE returns EFI_TFTP_ERROR without keeping the
         * ERROR packet (OVMF under test: TftpErrorReceived stays FALSE), so
         * "not found" and "access violation" look the same. Its file size
         * query keeps it (PxeBcMtftp4GetFileSize: the GetInfo packet's code
         * and message into Mode->TftpError): ask once more that way. */
        if (st == EFI_TFTP_ERROR && !m->TftpErrorReceived) {
            UINT64 fsize = 0;
            uefi_call_wrapper(pxe->Mtftp, 10, pxe, EFI_PXE_BASE_CODE_TFTP_GET_FILE_SIZE, NULL, FALSE, &fsize, NULL,
                              &ip, (UINT8 *)remote, NULL, FALSE);
        }
        enum tftp_fw_result r = st == EFI_TFTP_ERROR && m->TftpErrorReceived ? TFTP_FW_ERROR_PACKET
                                : st == EFI_NOT_FOUND || st == EFI_TFTP_ERROR ? TFTP_FW_NOT_FOUND
                                : st == EFI_ACCESS_DENIED                     ? TFTP_FW_ACCESS_DENIED
                                : st == EFI_TIMEOUT                           ? TFTP_FW_TIMEOUT
                                                                              : TFTP_FW_OTHER;
        /* EDK2 keeps only the low byte of the network-order code: 0 (netboot.h). */
        int rc = netboot_tftp_error(r, m->TftpError.ErrorCode ? m->TftpError.ErrorCode : TFTP_ERR_CODE_LOST,
                                    (const char *)m->TftpError.ErrorString,
                                    sizeof(m->TftpError.ErrorString), server.ip, last_error, sizeof(last_error));
        /* A silent server stays "not there" for the caller (the note says it did not answer). */
        if (rc == BM_ENODEV || rc == BM_ETIMEDOUT) {
            last_error[0] = '\0';
            return BM_ENODEV;
        }
        if (r == TFTP_FW_OTHER)
            snprintf(last_error + strlen(last_error), sizeof(last_error) - strlen(last_error), " (EFI status %lu)",
                     (unsigned long)(st & 0xffff));
        return rc;
    }
    /* iPXE's Mtftp (efi_pxe.c efi_pxe_mtftp) leaves BufferSize at the
     * buffer's size instead of the file's: the file then ends after the
     * last byte that is not the 0xff fill (never in a text file, while a
     * NUL byte stays in and is refused by the caller as in any file). */
    if (size >= cap)
        for (size = cap; size && (uint8_t)buf[size - 1] == 0xff; size--)
            ;
    return (long)size;
}

/* Why the last TFTP read failed (other than no such file), or 0. */
size_t uefi_tftp_error(char *buf, size_t cap)
{
    bm_strlcpy(buf, last_error, cap);
    return strlen(buf);
}

/* Where netboot files are looked for, for the notes. */
size_t uefi_tftp_describe(char *buf, size_t cap)
{
    if (!pxe || !server_known)
        return 0;
    return (size_t)snprintf(buf, cap, "tftp://%u.%u.%u.%u/%s (server from the %s%s)", server.ip[0], server.ip[1],
                            server.ip[2], server.ip[3], server.dir, server.from,
                            server_silent ? "; it did not answer" : "");
}

/* The boot NIC's MAC: the MAC node of the boot device's path (EDK2 puts
 * the PXE base code on a child of the NIC whose path ends MAC/IPv4; iPXE
 * on its SNP handle whose path ends in MAC), else its SNP mode. */
bool uefi_boot_nic_mac(EFI_HANDLE device, uint8_t mac[6])
{
    EFI_GUID dpg = DEVICE_PATH_PROTOCOL, snpg = EFI_SIMPLE_NETWORK_PROTOCOL_GUID;
    EFI_DEVICE_PATH *dp;
    EFI_SIMPLE_NETWORK *snp;

    if (!device)
        return false;
    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, device, &dpg, (void **)&dp) == EFI_SUCCESS &&
        devpath_mac_node(dp, DEVPATH_MAX_BYTES, mac))
        return true;
    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, device, &snpg, (void **)&snp) == EFI_SUCCESS &&
        snp->Mode && snp->Mode->HwAddressSize >= 6) {
        memcpy(mac, snp->Mode->CurrentAddress.Addr, 6);
        return true;
    }
    return false;
}

/* The station address, mask and router the PXE base code holds, and the
 * boot server; false when not netbooted over IPv4. */
bool uefi_pxe_addresses(uint8_t station[4], uint8_t mask[4], uint8_t router[4])
{
    struct pxe_packets pk;
    EFI_PXE_BASE_CODE_MODE *m;

    if (!pxe)
        return false;
    m = pxe->Mode;
    memcpy(station, &m->StationIp.v4, 4);
    memcpy(mask, &m->SubnetMask.v4, 4);
    memset(router, 0, 4);
    pk.dhcp_ack = m->DhcpAckReceived ? m->DhcpAck.Raw : NULL;
    pk.proxy_offer = pk.pxe_reply = NULL;
    pk.len = sizeof(m->DhcpAck.Raw);
    if (!netboot_router(&pk, router) && m->RouteTableEntries > 0)
        memcpy(router, &m->RouteTable[0].GwAddr.v4, 4);
    return station[0] || station[1] || station[2] || station[3];
}
