/* The JSON writer with random strings and nesting: the output is always
 * strict UTF-8 without raw control characters, within the buffer. */
#include "fuzz.h"
#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static char buf[4096];
    struct json j;
    size_t i = 0;

    json_init(&j, buf, n ? 64 + (size_t)data[0] * 15 : sizeof(buf));
    json_obj_begin(&j, NULL);
    /* Each op byte: what to do next; strings run to the next 0 byte. */
    while (i < n) {
        uint8_t op = data[i++];
        size_t end = i;
        while (end < n && data[end])
            end++;
        char *s = fuzz_cstr(data + i, end - i);
        switch (op % 6) {
        case 0: json_str(&j, s, s); break;
        case 1: json_obj_begin(&j, s); break;
        case 2: json_arr_begin(&j, NULL); break;
        case 3: json_obj_end(&j); break;
        case 4: json_arr_end(&j); break;
        default: json_num(&j, "n", (double)(int8_t)op * 1.25, op & 7); break;
        }
        free(s);
        i = end + 1;
    }
    while (j.depth > 0)
        json_obj_end(&j);
    if (j.len >= j.cap || strlen(json_text(&j)) != j.len)
        abort();
    if (!fuzz_utf8_clean((const unsigned char *)json_text(&j), j.len))
        abort();
    return 0;
}
