/* upload=: http_url_parse, http_put_head and http_response_status on any
 * bytes. A URL that parses must give a head that fits and names its path. */
#include "fuzz.h"
#include "http.h"
#include "platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char *text = fuzz_cstr(data, n);
    struct http_url u;
    char head[1024];
    int st;

    if (http_url_parse(text, &u) == BM_OK) {
        size_t len = http_put_head(head, sizeof(head), &u, text, n, NULL);
        if (u.port == 0 || u.path[0] != '/' || strlen(u.path) >= sizeof(u.path))
            abort();
        if (len && (len != strlen(head) || memcmp(head, "PUT /", 5) || !http_head_complete(head, len)))
            abort();
        /* the encoded name never carries a raw space or line end */
        if (len && (strchr(head, '\n') - head) != (long)(strstr(head, " HTTP/1.1\r\n") - head) + 10)
            abort();
    }
    st = http_response_status(text, n);
    if (!(st == BM_EBUSY || st == BM_EINVAL || (st >= 100 && st <= 999)))
        abort();
    (void)http_head_complete(text, n);
    free(text);
    return 0;
}
