/* Netboot: files from the TFTP server the firmware's PXE boot used. */
#include "uefi_private.h"

static EFI_PXE_BASE_CODE *pxe;             /* NULL: not booted through the firmware's PXE */
static EFI_IP_ADDRESS pxe_server;
static char pxe_dir[128];                  /* the boot file's folder on the TFTP server */

/* After a firmware PXE boot: the TFTP server and the boot file's folder. */
void uefi_pxe_open(EFI_HANDLE device)
{
    EFI_GUID pxeg = EFI_PXE_BASE_CODE_PROTOCOL_GUID;
    EFI_PXE_BASE_CODE_PACKET *pkt;
    char *slash;

    pxe = NULL;
    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, device, &pxeg, (void **)&pxe) != EFI_SUCCESS ||
        !pxe->Mode || !pxe->Mode->Started || pxe->Mode->UsingIpv6) {
        pxe = NULL;
        return;
    }
    /* A proxy DHCP server (dnsmasq's "proxy" mode) names the boot server
     * in its offer; otherwise the DHCP ACK does (RFC 2131 siaddr/file). */
    pkt = pxe->Mode->ProxyOfferReceived && pxe->Mode->ProxyOffer.Dhcpv4.BootpBootFile[0] ? &pxe->Mode->ProxyOffer
                                                                                         : &pxe->Mode->DhcpAck;
    memset(&pxe_server, 0, sizeof(pxe_server));
    memcpy(&pxe_server.v4, pkt->Dhcpv4.BootpSiAddr, 4);
    bm_copy_padded(pxe_dir, sizeof(pxe_dir), pkt->Dhcpv4.BootpBootFile, sizeof(pkt->Dhcpv4.BootpBootFile));
    slash = strrchr(pxe_dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        pxe_dir[0] = '\0';
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

/* One TFTP read through the firmware's PXE base code (UEFI 2.10 section 24.3),
 * relative to the boot file's folder. */
long uefi_tftp_read(const char *name, char *buf, size_t cap)
{
    char remote[256];
    UINT64 size = cap;
    EFI_STATUS st;

    if (!pxe)
        return BM_ENODEV;
    snprintf(remote, sizeof(remote), "%s%s", pxe_dir, name);
    st = uefi_call_wrapper(pxe->Mtftp, 10, pxe, EFI_PXE_BASE_CODE_TFTP_READ_FILE, buf, FALSE, &size, NULL,
                           &pxe_server, (UINT8 *)remote, NULL, FALSE);
    if (st == EFI_BUFFER_TOO_SMALL)
        return BM_ENOSPC;
    return st == EFI_SUCCESS ? (long)size : BM_ENODEV;
}
