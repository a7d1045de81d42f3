/* Streaming JSON writer (RFC 8259 output: UTF-8, escaped control bytes). */
#include "json.h"

void json_init(struct json *j, char *buf, size_t cap)
{
    memset(j, 0, sizeof(*j));
    j->buf = buf;
    j->cap = cap;
    if (cap)
        buf[0] = '\0';
}

static void emit(struct json *j, const char *s, size_t n)
{
    if (j->overflow)
        return;
    if (j->len + n + 1 > j->cap) {
        j->overflow = true;
        return;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void emit_c(struct json *j, char c)
{
    emit(j, &c, 1);
}

/* A JSON string that is valid UTF-8 whatever bytes it is given (device
 * and SMBIOS strings are what the hardware returns): valid UTF-8 is kept
 * as it is, each invalid or truncated sequence becomes U+FFFD, and control
 * characters (C0, DEL, C1 = U+0080..U+009F) and U+2028/U+2029 are \u
 * escapes, so no raw escape sequence reaches a terminal showing the line. */
static void emit_string(struct json *j, const char *s)
{
    static const char hex[] = "0123456789abcdef";

    emit_c(j, '"');
    while (s && *s) {
        uint32_t cp;
        size_t n = bm_utf8_next(s, &cp);

        switch (cp) {
        case '"':  emit(j, "\\\"", 2); break;
        case '\\': emit(j, "\\\\", 2); break;
        case '\n': emit(j, "\\n", 2); break;
        case '\r': emit(j, "\\r", 2); break;
        case '\t': emit(j, "\\t", 2); break;
        case '\b': emit(j, "\\b", 2); break;
        case '\f': emit(j, "\\f", 2); break;
        case BM_UTF8_INVALID:
            emit(j, "\xef\xbf\xbd", 3); /* U+FFFD REPLACEMENT CHARACTER */
            break;
        default:
            if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029) {
                char u[6] = { '\\', 'u', hex[cp >> 12], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15], hex[cp & 15] };
                emit(j, u, 6);
            } else {
                emit(j, s, n);
            }
        }
        s += n;
    }
    emit_c(j, '"');
}

/* If the value just written did not fit, drop all of it: output stays
 * cut at a value boundary. */
static void rollback_if_overflow(struct json *j, size_t mark)
{
    if (j->overflow && mark < j->cap) {
        j->len = mark;
        j->buf[mark] = '\0';
    }
}

/* Comma and key before a value at the current depth. Scopes deeper than
 * JSON_MAX_DEPTH were refused by open_scope (overflow), so nothing is
 * tracked for them. */
static void prefix(struct json *j, const char *key)
{
    if (j->depth > 0 && j->depth <= JSON_MAX_DEPTH) {
        if (j->need_comma[j->depth - 1])
            emit_c(j, ',');
        j->need_comma[j->depth - 1] = true;
    }
    if (key) {
        emit_string(j, key);
        emit_c(j, ':');
    }
}

/* Nesting deeper than JSON_MAX_DEPTH is an overflow, like a full buffer:
 * the depth is still counted so that the closing calls pair up. */
static void open_scope(struct json *j, const char *key, char c)
{
    if (j->depth >= JSON_MAX_DEPTH) {
        j->overflow = true;
        j->depth++;
        return;
    }
    prefix(j, key);
    emit_c(j, c);
    j->need_comma[j->depth] = false;
    j->depth++;
}

static void close_scope(struct json *j, char c)
{
    if (j->depth > 0)
        j->depth--;
    emit_c(j, c);
}

void json_obj_begin(struct json *j, const char *key) { open_scope(j, key, '{'); }
void json_obj_end(struct json *j) { close_scope(j, '}'); }
void json_arr_begin(struct json *j, const char *key) { open_scope(j, key, '['); }
void json_arr_end(struct json *j) { close_scope(j, ']'); }

void json_str(struct json *j, const char *key, const char *v)
{
    size_t mark = j->len;
    prefix(j, key);
    emit_string(j, v ? v : "");
    rollback_if_overflow(j, mark);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
    prefix(j, key);
    emit(j, tmp, (size_t)n);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof(tmp), "%lld", (long long)v);
    prefix(j, key);
    emit(j, tmp, (size_t)n);
}

void json_num(struct json *j, const char *key, double v, int decimals)
{
    char tmp[48];
    int n;

    prefix(j, key);
    if (v != v || v > 1e18 || v < -1e18) {
        emit(j, "null", 4);
        return;
    }
    if (decimals < 0)
        decimals = 0;
    if (decimals > 9)
        decimals = 9;
    n = snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
    if (decimals > 0) {
        while (n > 1 && tmp[n - 1] == '0')
            n--;
        if (tmp[n - 1] == '.')
            n--;
    }
    if (n == 2 && tmp[0] == '-' && tmp[1] == '0')
        n = snprintf(tmp, sizeof(tmp), "0");
    emit(j, tmp, (size_t)n);
}

void json_bool(struct json *j, const char *key, bool v)
{
    prefix(j, key);
    emit(j, v ? "true" : "false", v ? 4 : 5);
}

void json_null(struct json *j, const char *key)
{
    prefix(j, key);
    emit(j, "null", 4);
}

void json_raw(struct json *j, const char *key, const char *raw)
{
    size_t mark = j->len;
    prefix(j, key);
    emit(j, raw, strlen(raw));
    rollback_if_overflow(j, mark);
}

const char *json_text(const struct json *j)
{
    return j->cap ? j->buf : "";
}
