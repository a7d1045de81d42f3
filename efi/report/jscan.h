/* A tiny JSON reader for the report: finds a field in one record's text
 * (the records baremark itself wrote, so no need for a general parser) and
 * decodes strings and numbers. Every function takes a pointer to a value
 * (or to whitespace before it) and returns NULL/false when the text is not
 * what was asked for, so a record cut mid-way reads as "field missing". */
#ifndef BAREMARK_JSCAN_H
#define BAREMARK_JSCAN_H

#include "lib/bmlib.h"

/* The value after the value at p (p may point at whitespace), or NULL. */
const char *js_skip(const char *p);
/* In the object at obj, the value of key; key may be a dotted path
 * ("lat_us.p99") into nested objects. NULL when absent. */
const char *js_get(const char *obj, const char *key);
/* The first element of the array at arr (NULL when empty or not an array)
 * and the element after elem (NULL at the end). */
const char *js_first(const char *arr);
const char *js_next(const char *elem);
/* Decode the string at v into out (UTF-8, always NUL-terminated, cut at a
 * whole character). Control characters decode to '?'. */
bool js_str(const char *v, char *out, size_t cap);
/* The number at v (false for null, strings, anything else). */
bool js_num(const char *v, double *out);
/* true/false at v (false when not a boolean). */
bool js_true(const char *v);

/* Shorthands on an object: the field's string ("" when absent), number
 * (dflt when absent). */
void js_get_str(const char *obj, const char *key, char *out, size_t cap);
double js_get_num(const char *obj, const char *key, double dflt);

#endif
