/* Hostile input to the JSON writer and the screen: nesting past
 * JSON_MAX_DEPTH, strings that are not valid UTF-8, escape sequences in
 * device strings. Every record must stay valid UTF-8 JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "json.h"
#include "sinks.h"

/* A writer with guard bytes right behind it: need_comma[] is its last
 * member, so a write past it lands in the guard. */
static struct {
    struct json j;
    unsigned char guard[256];
} w;
static char buf[65536];

static void test_nesting_deeper_than_max_depth_is_an_overflow(void **state)
{
    (void)state;
    memset(&w, 0, sizeof(w));
    json_init(&w.j, buf, sizeof(buf));
    json_obj_begin(&w.j, NULL);
    for (int i = 0; i < 200; i++) {
        json_u64(&w.j, "n", (uint64_t)i);
        json_arr_begin(&w.j, "deeper");
        json_u64(&w.j, NULL, 1);
        json_u64(&w.j, NULL, 2);
    }
    for (int i = 0; i < 200; i++)
        json_arr_end(&w.j);
    json_obj_end(&w.j);
    for (size_t i = 0; i < sizeof(w.guard); i++)
        assert_int_equal(w.guard[i], 0);
    assert_true(w.j.overflow);
    assert_int_equal(w.j.depth, 0);
    /* The text is a cut prefix, never more than JSON_MAX_DEPTH deep. */
    int depth = 0, most = 0;
    for (const char *p = json_text(&w.j); *p; p++) {
        depth += (*p == '[' || *p == '{') - (*p == ']' || *p == '}');
        most = depth > most ? depth : most;
    }
    assert_true(most <= JSON_MAX_DEPTH);
}

static void test_max_depth_itself_still_fits(void **state)
{
    (void)state;
    json_init(&w.j, buf, sizeof(buf));
    for (int i = 0; i < JSON_MAX_DEPTH; i++)
        json_arr_begin(&w.j, NULL);
    json_u64(&w.j, NULL, 7);
    json_u64(&w.j, NULL, 8);
    for (int i = 0; i < JSON_MAX_DEPTH; i++)
        json_arr_end(&w.j);
    assert_false(w.j.overflow);
    assert_string_equal(json_text(&w.j), "[[[[[[[[[[[[[[[[7,8]]]]]]]]]]]]]]]]");
}

/* An independent strict UTF-8 check (RFC 3629): the code point of each
 * sequence, then its shortest length and its range. Returns the number of
 * code points, -1 when invalid; C0/C1/DEL code points are reported. */
static long utf8_check(const unsigned char *s, size_t n, int *controls)
{
    long count = 0;
    *controls = 0;
    for (size_t i = 0; i < n; count++) {
        unsigned c = s[i], len, cp;
        if (c < 0x80)
            len = 1, cp = c;
        else if ((c & 0xe0) == 0xc0)
            len = 2, cp = c & 0x1f;
        else if ((c & 0xf0) == 0xe0)
            len = 3, cp = c & 0x0f;
        else if ((c & 0xf8) == 0xf0)
            len = 4, cp = c & 0x07;
        else
            return -1;
        if (i + len > n)
            return -1;
        for (unsigned k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return -1;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000))
            return -1; /* overlong */
        if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
            return -1;
        if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
            (*controls)++;
        i += len;
    }
    return count;
}

/* The JSON string literal at *p (after the quote) decoded into out;
 * returns its length, or -1 when the literal is malformed. */
static long json_string_decode(const char *p, char *out, size_t cap, const char **end)
{
    size_t n = 0;
    while (*p != '"') {
        if (!*p || n + 4 >= cap)
            return -1;
        if (*p != '\\') {
            out[n++] = *p++;
            continue;
        }
        p++;
        switch (*p) {
        case '"': case '\\': case '/': out[n++] = *p; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'u': {
            unsigned v = 0;
            for (int k = 1; k <= 4; k++) {
                char h = p[k];
                if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
                    return -1;
                v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
            }
            if (v >= 0xd800 && v <= 0xdfff)
                return -1; /* the writer never needs surrogate escapes */
            if (v < 0x80) {
                out[n++] = (char)v;
            } else if (v < 0x800) {
                out[n++] = (char)(0xc0 | (v >> 6));
                out[n++] = (char)(0x80 | (v & 0x3f));
            } else {
                out[n++] = (char)(0xe0 | (v >> 12));
                out[n++] = (char)(0x80 | ((v >> 6) & 0x3f));
                out[n++] = (char)(0x80 | (v & 0x3f));
            }
            p += 4;
            break;
        }
        default:
            return -1;
        }
        p++;
    }
    *end = p + 1;
    out[n] = '\0';
    return (long)n;
}

/* {"k":"<s>"} through the writer: valid UTF-8 without raw controls, a
 * well-formed string literal; returns the decoded value in dec. */
static void write_and_check(const char *s, char *dec, size_t cap)
{
    const char *text, *end;
    int controls;

    json_init(&w.j, buf, sizeof(buf));
    json_obj_begin(&w.j, NULL);
    json_str(&w.j, "k", s);
    json_obj_end(&w.j);
    assert_false(w.j.overflow);
    text = json_text(&w.j);
    assert_true(utf8_check((const unsigned char *)text, strlen(text), &controls) >= 0);
    assert_int_equal(controls, 0);
    assert_memory_equal(text, "{\"k\":\"", 6);
    assert_true(json_string_decode(text + 6, dec, cap, &end) >= 0);
    assert_string_equal(end, "}");
}

static void test_invalid_utf8_becomes_replacement_characters(void **state)
{
    static const struct {
        const char *in, *want; /* want: the decoded string value */
    } cases[] = {
        { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" }, /* kept */
        { "a\xc0\xafz", "a\xef\xbf\xbd\xef\xbf\xbdz" },                 /* overlong '/' */
        { "\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },      /* overlong, 3 bytes */
        { "\xed\xa0\x80x", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx" },    /* surrogate D800 */
        { "\xed\xbf\xbf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },      /* surrogate DFFF */
        { "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* above U+10FFFF */
        { "\xf5\x80", "\xef\xbf\xbd\xef\xbf\xbd" },
        { "ab\xe2\x82", "ab\xef\xbf\xbd" },                              /* truncated at the end */
        { "\xe2\x82x", "\xef\xbf\xbdx" },                                /* truncated mid-string */
        { "\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd" },
        { "\x80", "\xef\xbf\xbd" },                                      /* lone continuation */
        { "\xc2\x9b" "2J", "\xc2\x9b" "2J" },                            /* C1 CSI: escaped, value kept */
        { "\x1b[2J", "\x1b[2J" },                                        /* ESC: escaped */
        { "\xe2\x80\xa8", "\xe2\x80\xa8" },                              /* U+2028 */
    };
    static char dec[4096];
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        write_and_check(cases[i].in, dec, sizeof(dec));
        assert_string_equal(dec, cases[i].want);
    }
    write_and_check("\xc2\x9b", dec, sizeof(dec));
    assert_string_equal(json_text(&w.j), "{\"k\":\"\\u009b\"}");
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned next_byte(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 24) & 0xff;
}

static void test_random_bytes_always_make_valid_utf8_json(void **state)
{
    static char in[600], dec[8192];
    /* Bytes that make UTF-8 hard: lead bytes, continuations, C1, ESC. */
    static const unsigned char nasty[] = { 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
                                           0x80, 0x9b, 0xa0, 0xbf, 0x1b, '"', '\\', 0x7f, 0x01 };
    (void)state;
    for (int round = 0; round < 20000; round++) {
        size_t n = next_byte() % 300, valid_in;
        int controls;
        for (size_t i = 0; i < n; i++) {
            unsigned b = next_byte();
            in[i] = (char)((b & 1) ? nasty[(b >> 1) % sizeof(nasty)] : (next_byte() | 1));
        }
        in[n] = '\0';
        write_and_check(in, dec, sizeof(dec));
        /* Valid input comes back byte for byte. */
        valid_in = utf8_check((const unsigned char *)in, strlen(in), &controls) >= 0;
        if (valid_in)
            assert_string_equal(dec, in);
    }
}

static void test_screen_text_has_no_escape_sequences(void **state)
{
    char out[128];
    (void)state;
    sink_screen_text(out, sizeof(out), "disk \x1b[2J\x1b]0;pwned\x07 \xc2\x9b" "31m \x9b" "1m caf\xc3\xa9\r\n\tok");
    assert_string_equal(out, "disk ?[2J?]0;pwned? ?31m ?1m caf\xc3\xa9?\n\tok");
    /* Never cut inside a sequence: "\xe2\x82\xac" needs three bytes. */
    assert_int_equal(sink_screen_text(out, 5, "abc\xe2\x82\xac"), 3);
    assert_string_equal(out, "abc");
    for (int round = 0; round < 5000; round++) {
        char in[200];
        int controls;
        size_t n = next_byte() % 190, len;
        for (size_t i = 0; i < n; i++)
            in[i] = (char)(next_byte() | 1);
        in[n] = '\0';
        len = sink_screen_text(out, sizeof(out), in);
        assert_int_equal(len, strlen(out));
        assert_true(utf8_check((const unsigned char *)out, len, &controls) >= 0);
        for (size_t i = 0; i < len; i++)
            controls -= out[i] == '\n' || out[i] == '\t';
        assert_int_equal(controls, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting_deeper_than_max_depth_is_an_overflow),
        cmocka_unit_test(test_max_depth_itself_still_fits),
        cmocka_unit_test(test_invalid_utf8_becomes_replacement_characters),
        cmocka_unit_test(test_random_bytes_always_make_valid_utf8_json),
        cmocka_unit_test(test_screen_text_has_no_escape_sequences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
