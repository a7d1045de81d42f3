/* A small streaming JSON writer into a fixed buffer.
 *
 * Keys are passed with each value; inside arrays pass key = NULL. Numbers
 * that are not finite are written as null (JSON has no NaN). A buffer that
 * fills up sets overflow and the output is cut at a value boundary, never
 * mid-escape; so does nesting deeper than JSON_MAX_DEPTH. Strings come out
 * as valid UTF-8 whatever bytes they hold: invalid sequences become U+FFFD,
 * control characters (C0, DEL, C1) are \u escapes. */
#ifndef BAREMARK_JSON_H
#define BAREMARK_JSON_H

#include "lib/bmlib.h"

#define JSON_MAX_DEPTH 16

struct json {
    char *buf;
    size_t cap, len;
    bool overflow;
    int depth;
    bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, char *buf, size_t cap);
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *v);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
/* A decimal number with at most `decimals` digits after the point;
 * trailing zeros are dropped ("1.5", "2"). */
void json_num(struct json *j, const char *key, double v, int decimals);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* Append already-formatted JSON (an object or array built elsewhere). */
void json_raw(struct json *j, const char *key, const char *raw);
/* The finished text (always NUL-terminated). */
const char *json_text(const struct json *j);

#endif
