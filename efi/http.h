/* The little HTTP/1.1 the upload needs (RFC 9110/9112): an http:// URL with
 * an IPv4 host, one PUT request head, the status line of the answer.
 * Portable and unit-tested; the bytes travel through plat_tcp_exchange. */
#ifndef BAREMARK_HTTP_H
#define BAREMARK_HTTP_H

#include "lib/bmlib.h"

#define HTTP_URL_MAX 191           /* bytes of upload= (without the NUL) */
#define HTTP_PATH_MAX 160

struct http_url {
    uint8_t ip[4];
    uint16_t port;                 /* 80 unless given */
    char path[HTTP_PATH_MAX];      /* "/" or "/folder" (no trailing '/') */
};

/* "http://A.B.C.D[:PORT][/PATH]": no user info, query or fragment; the
 * path takes RFC 3986 unreserved characters, '/', '%XX' and
 * "!$&'()*+,;=:@" only. BM_EINVAL otherwise. */
int http_url_parse(const char *url, struct http_url *u);

/* The head of "PUT <path>/<name>" with a body of body_len bytes, name
 * percent-encoded, and the header lines of extra (each ending in CRLF;
 * NULL or "" for none). Returns its length, or 0 when it does not fit cap. */
size_t http_put_head(char *buf, size_t cap, const struct http_url *u, const char *name, size_t body_len,
                     const char *extra);

/* RFC 6750 section 2.1: a bearer token is b64token, 1*( ALPHA / DIGIT /
 * "-" / "." / "_" / "~" / "+" / "/" ) *"="; at most max bytes. */
bool http_bearer_token_ok(const char *token, size_t max);

/* The status code of a response's first line ("HTTP/1.1 201 Created"):
 * 100..599, BM_EBUSY when the line is not complete yet, BM_EINVAL when it
 * is not an HTTP status line. */
int http_response_status(const char *resp, size_t len);

/* resp[0..len) holds a whole response head (ends in an empty line). */
bool http_head_complete(const char *resp, size_t len);

#endif
