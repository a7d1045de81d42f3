/* Netboot facts from the DHCP/PXE packets the boot firmware kept: which
 * server serves the boot files and from which folder, and the router.
 * Portable, so the choice is unit-tested on the packets real firmware and
 * iPXE leave behind; efi/uefi/netboot_uefi.c hands the packets in. */
#ifndef BAREMARK_NETBOOT_H
#define BAREMARK_NETBOOT_H

#include "lib/bmlib.h"

/* A BOOTP/DHCP message as the PXE base code caches it (RFC 2131 section 2:
 * fixed header, magic cookie, options), at most this long. */
#define BOOTP_PACKET_MAX 1472
#define BOOTP_SIADDR_OFF 20
#define BOOTP_FILE_OFF 108
#define BOOTP_FILE_LEN 128
#define BOOTP_COOKIE_OFF 236
#define BOOTP_OPTIONS_OFF 240

/* DHCP options used here (RFC 2132). */
#define DHCP_OPT_ROUTER 3
#define DHCP_OPT_SERVER_ID 54
#define DHCP_OPT_TFTP_SERVER 66
#define DHCP_OPT_BOOTFILE 67

/* The packets the PXE base code mode holds (UEFI 2.10 section 24.3,
 * EFI_PXE_BASE_CODE_MODE): NULL when that one was not received. */
struct pxe_packets {
    const uint8_t *dhcp_ack;
    const uint8_t *proxy_offer;
    const uint8_t *pxe_reply;
    size_t len;                    /* bytes of each (BOOTP_PACKET_MAX) */
};

/* The boot server and the boot file's folder ("" or ending in '/'). */
struct netboot_server {
    uint8_t ip[4];
    char dir[BOOTP_FILE_LEN];
    const char *from;              /* "pxe_reply", "proxy_offer", "dhcp_ack" */
};

/* Option code in a DHCP message's options (after the magic cookie): its
 * data and length, or NULL. Pad and end are honoured; a truncated option
 * is not returned. */
const uint8_t *dhcp_option(const uint8_t *pkt, size_t len, uint8_t code, uint8_t *opt_len);

/* Which server the boot files came from, as EDK2 PxeBcDhcp4BootInfo()
 * decides it: the boot server's reply when there was one, else the proxy
 * offer, else the DHCP ACK; in that packet siaddr, else option 66 when it
 * is a dotted IPv4 address, else option 54. A packet that names no server
 * gives way to the next. iPXE fills PxeReply from its proxy-DHCP settings
 * (fakedhcp.c create_fakepxebsack), so after an iPXE chain this is the
 * proxy, not the DHCP server's next-server. BM_ENODEV when none names one. */
int netboot_pick_server(const struct pxe_packets *p, struct netboot_server *out);

/* The first router of the DHCP ACK (option 3); false when there is none. */
bool netboot_router(const struct pxe_packets *p, uint8_t ip[4]);

/* How a firmware TFTP read ended (the platform maps its own status to
 * this): a TFTP ERROR packet came (code and message known), or the
 * firmware said not found / access denied itself (iPXE's Mtftp turns the
 * packet into a status: efi_pxe.c), or the server was silent, or else. */
enum tftp_fw_result {
    TFTP_FW_ERROR_PACKET,
    TFTP_FW_NOT_FOUND,
    TFTP_FW_ACCESS_DENIED,
    TFTP_FW_TIMEOUT,
    TFTP_FW_OTHER,
};

/* RFC 1350 section 5 error codes (8: RFC 2347 option negotiation). */
#define TFTP_ERR_NOT_DEFINED 0
#define TFTP_ERR_NOT_FOUND 1
#define TFTP_ERR_ACCESS 2
#define TFTP_ERR_DISK_FULL 3
#define TFTP_ERR_ILLEGAL_OP 4
#define TFTP_ERR_UNKNOWN_TID 5
#define TFTP_ERR_EXISTS 6
#define TFTP_ERR_NO_USER 7
#define TFTP_ERR_OPTIONS 8
/* The firmware kept the server's message but not its code: EDK2 stores the
 * network-order 16-bit code cast to UINT8 (PxeBcMtftp4GetFileSize,
 * PxeBcMtftp4CheckPacket), which is 0 for every RFC code on x86. The
 * message then decides: "not found" means not there, "denied",
 * "permission" or "access violation" a refusal, anything else an error. */
#define TFTP_ERR_CODE_LOST 0xffff

/* A failed TFTP read as the caller must see it: BM_ENODEV only for "file
 * not found" (the file is simply not there), BM_EACCES for an access
 * violation, BM_ETIMEDOUT for a silent server, BM_EIO for every other
 * server error; why says so in words, with the server's address, the TFTP
 * code and the server's own message (printable ASCII only, cut). */
int netboot_tftp_error(enum tftp_fw_result r, unsigned code, const char *server_msg, size_t msg_len,
                       const uint8_t server[4], char *why, size_t cap);

/* PXELINUX's BOOTIF= value, "01-52-54-00-12-34-56" (ARP type 1, then the
 * MAC): the MAC, or false. */
bool netboot_parse_bootif(const char *s, size_t len, uint8_t mac[6]);

/* "a.b.c.d" -> ip; false unless exactly four numbers 0..255. */
bool netboot_parse_ipv4(const char *s, size_t len, uint8_t ip[4]);

#endif
