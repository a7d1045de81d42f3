/* The boot server from cached DHCP/PXE packets (netboot.h). */
#include "netboot.h"
#include "platform.h"

static const uint8_t dhcp_cookie[4] = { 99, 130, 83, 99 };

const uint8_t *dhcp_option(const uint8_t *pkt, size_t len, uint8_t code, uint8_t *opt_len)
{
    size_t i = BOOTP_OPTIONS_OFF;

    if (!pkt || len < BOOTP_OPTIONS_OFF || memcmp(pkt + BOOTP_COOKIE_OFF, dhcp_cookie, 4))
        return NULL;
    while (i < len) {
        uint8_t c = pkt[i];
        if (c == 255)
            break;
        if (c == 0) {
            i++;
            continue;
        }
        if (i + 2 > len || i + 2 + pkt[i + 1] > len)
            break;
        if (c == code) {
            *opt_len = pkt[i + 1];
            return pkt + i + 2;
        }
        i += 2 + (size_t)pkt[i + 1];
    }
    return NULL;
}

bool netboot_parse_ipv4(const char *s, size_t len, uint8_t ip[4])
{
    unsigned part = 0, val = 0, digits = 0;

    for (size_t i = 0; i <= len; i++) {
        char ch = i < len ? s[i] : '.';
        if (i == len && part != 3)
            return false;
        if (ch >= '0' && ch <= '9') {
            val = val * 10 + (unsigned)(ch - '0');
            if (++digits > 3 || val > 255)
                return false;
        } else if (ch == '.' && digits && part < 4) {
            ip[part++] = (uint8_t)val;
            val = digits = 0;
        } else {
            return false;
        }
    }
    return part == 4;
}

static bool ip_zero(const uint8_t ip[4]) { return !(ip[0] | ip[1] | ip[2] | ip[3]); }

/* The server one packet names, or false. */
static bool server_of(const uint8_t *pkt, size_t len, uint8_t ip[4])
{
    const uint8_t *o;
    uint8_t n;

    if (!pkt || len < BOOTP_OPTIONS_OFF)
        return false;
    memcpy(ip, pkt + BOOTP_SIADDR_OFF, 4);
    if (!ip_zero(ip))
        return true;
    o = dhcp_option(pkt, len, DHCP_OPT_TFTP_SERVER, &n);
    while (o && n && o[n - 1] == '\0')
        n--;
    if (o && netboot_parse_ipv4((const char *)o, n, ip) && !ip_zero(ip))
        return true;
    o = dhcp_option(pkt, len, DHCP_OPT_SERVER_ID, &n);
    if (o && n == 4 && !ip_zero(o)) {
        memcpy(ip, o, 4);
        return true;
    }
    return false;
}

/* The boot file's folder: the file field, else option 67, cut after the
 * last '/'. */
static void dir_of(const uint8_t *pkt, size_t len, char *dir, size_t cap)
{
    const uint8_t *o;
    uint8_t n;
    char *slash;

    /* The file field is NUL-terminated inside its 128 bytes. */
    bm_copy_padded(dir, cap, pkt + BOOTP_FILE_OFF, strnlen((const char *)pkt + BOOTP_FILE_OFF, BOOTP_FILE_LEN));
    if (!dir[0] && (o = dhcp_option(pkt, len, DHCP_OPT_BOOTFILE, &n)) != NULL)
        bm_copy_padded(dir, cap, o, strnlen((const char *)o, n));
    slash = strrchr(dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        dir[0] = '\0';
}

int netboot_pick_server(const struct pxe_packets *p, struct netboot_server *out)
{
    const uint8_t *order[3] = { p->pxe_reply, p->proxy_offer, p->dhcp_ack };
    static const char *const names[3] = { "pxe_reply", "proxy_offer", "dhcp_ack" };

    memset(out, 0, sizeof(*out));
    for (int i = 0; i < 3; i++) {
        if (!server_of(order[i], p->len, out->ip))
            continue;
        dir_of(order[i], p->len, out->dir, sizeof(out->dir));
        out->from = names[i];
        return BM_OK;
    }
    return BM_ENODEV;
}

bool netboot_router(const struct pxe_packets *p, uint8_t ip[4])
{
    uint8_t n;
    const uint8_t *o = dhcp_option(p->dhcp_ack, p->len, DHCP_OPT_ROUTER, &n);

    if (!o || n < 4 || ip_zero(o))
        return false;
    memcpy(ip, o, 4);
    return true;
}

/* The RFC 1350 name of a TFTP error code. */
static const char *tftp_code_name(unsigned code)
{
    static const char *const names[] = { "not defined", "file not found", "access violation",
                                         "disk full or allocation exceeded", "illegal TFTP operation",
                                         "unknown transfer ID", "file already exists", "no such user",
                                         "option negotiation refused" };

    return code < ARRAY_SIZE(names) ? names[code] : "unknown code";
}

/* Does text hold word, ASCII case ignored? */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);

    for (; *text; text++) {
        size_t i = 0;
        while (i < n && text[i] && (text[i] | 0x20) == (word[i] | 0x20))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

int netboot_tftp_error(enum tftp_fw_result r, unsigned code, const char *server_msg, size_t msg_len,
                       const uint8_t server[4], char *why, size_t cap)
{
    char msg[96], where[40];
    size_t n = 0;

    for (size_t i = 0; server_msg && i < msg_len && server_msg[i] && n + 1 < sizeof(msg); i++)
        msg[n++] = server_msg[i] >= 0x20 && server_msg[i] < 0x7f ? server_msg[i] : '?';
    msg[n] = '\0';
    snprintf(where, sizeof(where), "the TFTP server %u.%u.%u.%u", server[0], server[1], server[2], server[3]);
    switch (r) {
    case TFTP_FW_NOT_FOUND:
        snprintf(why, cap, "%s has no such file", where);
        return BM_ENODEV;
    case TFTP_FW_ACCESS_DENIED:
        snprintf(why, cap, "%s refused it: access violation", where);
        return BM_EACCES;
    case TFTP_FW_TIMEOUT:
        snprintf(why, cap, "%s did not answer", where);
        return BM_ETIMEDOUT;
    case TFTP_FW_OTHER:
        snprintf(why, cap, "the firmware's TFTP read from %s failed", where + 4);
        return BM_EIO;
    case TFTP_FW_ERROR_PACKET:
        break;
    }
    if (code == TFTP_ERR_CODE_LOST) {
        bool absent = has_word(msg, "not found");
        bool refused = !absent && (has_word(msg, "denied") || has_word(msg, "permission") ||
                                   has_word(msg, "access violation"));
        snprintf(why, cap, "%s %s (the firmware kept no TFTP error code)%s%s%s", where,
                 absent ? "has no such file" : refused ? "refused it: access violation" : "answered with an error",
                 n ? ": \"" : "", msg, n ? "\"" : "");
        return absent ? BM_ENODEV : refused ? BM_EACCES : BM_EIO;
    }
    snprintf(why, cap, "%s %s: TFTP error %u (%s)%s%s%s", where,
             code == TFTP_ERR_ACCESS ? "refused it" : "answered with an error", code, tftp_code_name(code),
             n ? ": \"" : "", msg, n ? "\"" : "");
    if (code == TFTP_ERR_NOT_FOUND)
        return BM_ENODEV;
    return code == TFTP_ERR_ACCESS ? BM_EACCES : BM_EIO;
}

bool netboot_parse_bootif(const char *s, size_t len, uint8_t mac[6])
{
    /* "01-" then six hex pairs joined by '-': 3 + 17 characters */
    if (len != 20 || s[0] != '0' || s[1] != '1' || s[2] != '-')
        return false;
    for (int i = 0; i < 6; i++) {
        const char *p = s + 3 + 3 * i;
        int hi = bm_hex_digit(p[0]), lo = bm_hex_digit(p[1]);
        if (hi < 0 || lo < 0 || (i < 5 && p[2] != '-'))
            return false;
        mac[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}
