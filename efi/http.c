/* HTTP/1.1 request head and status line (http.h). */
#include "http.h"
#include "netboot.h"
#include "platform.h"

static bool unreserved(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '-' ||
           ch == '.' || ch == '_' || ch == '~';
}

static bool hex_digit(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* RFC 3986 path characters (pchar and '/'), '%' only as %XX. */
static bool path_ok(const char *p)
{
    for (; *p; p++) {
        if (*p == '%') {
            if (!hex_digit(p[1]) || !hex_digit(p[2]))
                return false;
            p += 2;
        } else if (!unreserved(*p) && !strchr("/!$&'()*+,;=:@", *p)) {
            return false;
        }
    }
    return true;
}

int http_url_parse(const char *url, struct http_url *u)
{
    const char *host, *end, *colon;
    size_t plen;

    memset(u, 0, sizeof(*u));
    if (strlen(url) > HTTP_URL_MAX || strncmp(url, "http://", 7))
        return BM_EINVAL;
    host = url + 7;
    end = strchr(host, '/');
    if (!end)
        end = host + strlen(host);
    colon = memchr(host, ':', (size_t)(end - host));
    if (!netboot_parse_ipv4(host, (size_t)((colon ? colon : end) - host), u->ip))
        return BM_EINVAL;
    u->port = 80;
    if (colon) {
        uint32_t port = 0;
        if (colon + 1 == end || end - colon > 6)
            return BM_EINVAL;
        for (const char *p = colon + 1; p < end; p++) {
            if (*p < '0' || *p > '9')
                return BM_EINVAL;
            port = port * 10 + (uint32_t)(*p - '0');
        }
        if (port == 0 || port > 65535)
            return BM_EINVAL;
        u->port = (uint16_t)port;
    }
    if (!path_ok(end) || strlen(end) >= sizeof(u->path))
        return BM_EINVAL;
    bm_strlcpy(u->path, *end ? end : "/", sizeof(u->path));
    plen = strlen(u->path);
    while (plen > 1 && u->path[plen - 1] == '/')
        u->path[--plen] = '\0';
    return BM_OK;
}

size_t http_put_head(char *buf, size_t cap, const struct http_url *u, const char *name, size_t body_len,
                     const char *extra)
{
    static const char hex[] = "0123456789ABCDEF";
    char enc[3 * 192 + 1];
    size_t n = 0;
    int len;

    for (; *name && n + 4 < sizeof(enc); name++) {
        if (unreserved(*name)) {
            enc[n++] = *name;
        } else {
            enc[n++] = '%';
            enc[n++] = hex[(unsigned char)*name >> 4];
            enc[n++] = hex[(unsigned char)*name & 15];
        }
    }
    enc[n] = '\0';
    len = snprintf(buf, cap,
                   "PUT %s%s%s HTTP/1.1\r\n"
                   "Host: %u.%u.%u.%u:%u\r\n"
                   "User-Agent: baremark\r\n"
                   "Content-Type: application/octet-stream\r\n"
                   "Content-Length: %lu\r\n"
                   "Connection: close\r\n"
                   "%s"
                   "\r\n",
                   u->path, strcmp(u->path, "/") ? "/" : "", enc, u->ip[0], u->ip[1], u->ip[2], u->ip[3], u->port,
                   (unsigned long)body_len, extra ? extra : "");
    return len > 0 && (size_t)len < cap ? (size_t)len : 0;
}

int http_response_status(const char *resp, size_t len)
{
    const char *eol = memchr(resp, '\n', len);
    size_t line;
    int code = 0;

    /* RFC 9112 section 4: HTTP-version SP 3DIGIT SP [reason] CRLF */
    if (memcmp(resp, "HTTP/", len < 5 ? len : 5))
        return BM_EINVAL;
    if (!eol)
        return len > 512 ? BM_EINVAL : BM_EBUSY;
    line = (size_t)(eol - resp);
    if (line < 12 || memcmp(resp, "HTTP/1.", 7) || !(resp[7] >= '0' && resp[7] <= '9') || resp[8] != ' ')
        return BM_EINVAL;
    for (int i = 9; i < 12; i++) {
        if (resp[i] < '0' || resp[i] > '9')
            return BM_EINVAL;
        code = code * 10 + (resp[i] - '0');
    }
    if (code < 100 || (line > 12 && resp[12] != ' ' && resp[12] != '\r'))
        return BM_EINVAL;
    return code;
}

bool http_head_complete(const char *resp, size_t len)
{
    for (size_t i = 0; i + 4 <= len; i++)
        if (!memcmp(resp + i, "\r\n\r\n", 4))
            return true;
    return false;
}

bool http_bearer_token_ok(const char *token, size_t max)
{
    size_t n = 0;

    for (; token[n] && token[n] != '='; n++)
        if (!unreserved(token[n]) && token[n] != '+' && token[n] != '/')
            return false;
    if (!n)
        return false;
    for (; token[n] == '='; n++)
        ;
    return !token[n] && n <= max;
}
