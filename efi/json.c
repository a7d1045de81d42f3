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

static void emit_string(struct json *j, const char *s)
{
    static const char hex[] = "0123456789abcdef";

    emit_c(j, '"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"':  emit(j, "\\\"", 2); break;
        case '\\': emit(j, "\\\\", 2); break;
        case '\n': emit(j, "\\n", 2); break;
        case '\r': emit(j, "\\r", 2); break;
        case '\t': emit(j, "\\t", 2); break;
        case '\b': emit(j, "\\b", 2); break;
        case '\f': emit(j, "\\f", 2); break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
                emit(j, u, 6);
            } else {
                emit_c(j, (char)c);
            }
        }
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

/* Comma and key before a value at the current depth. */
static void prefix(struct json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->need_comma[j->depth - 1])
            emit_c(j, ',');
        j->need_comma[j->depth - 1] = true;
    }
    if (key) {
        emit_string(j, key);
        emit_c(j, ':');
    }
}

static void open_scope(struct json *j, const char *key, char c)
{
    prefix(j, key);
    emit_c(j, c);
    if (j->depth < JSON_MAX_DEPTH)
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
