/* baremark-html IN.jsonl OUT.html: the report page of a results file,
 * drawn by the same code the application uses at the end of a run
 * (efi/report/). Built by `make host`. A line that is not a whole JSON
 * object (a run cut by a reset mid-line) is skipped and counted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "report/html.h"
#include "report/jscan.h"

static int write_file(void *ctx, const void *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len ? BM_OK : BM_EIO;
}

int main(int argc, char **argv)
{
    static struct html_data d;
    static char line[1 << 20];
    const char *base;
    struct html_write_info info;
    unsigned bad = 0;
    FILE *in, *out;

    if (argc != 3 || argv[1][0] == '-') {
        fprintf(stderr, "usage: baremark-html IN.jsonl OUT.html\n"
                        "Writes the self-contained HTML report of a baremark results file.\n");
        return 2;
    }
    in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    html_data_init(&d);
    while (fgets(line, sizeof(line), in)) {
        char type[24];
        const char *end = js_skip(line);
        /* A whole object and nothing after it but the line end. */
        if (line[0] != '{' || !end || (end[0] && end[0] != '\n' && end[0] != '\r')) {
            bad += line[0] != '\n';
            continue;
        }
        js_get_str(line, "type", type, sizeof(type));
        if (type[0])
            html_data_feed(&d, type, line);
    }
    fclose(in);
    d.bad_records = bad;
    out = fopen(argv[2], "w");
    if (!out) {
        perror(argv[2]);
        return 2;
    }
    base = strrchr(argv[1], '/');
    info = html_report_write(&d, base ? base + 1 : argv[1], write_file, out);
    if (fclose(out) != 0 || !info.ok) {
        fprintf(stderr, "baremark-html: %s: write failed\n", argv[2]);
        return 1;
    }
    fprintf(stderr, "baremark-html: %s: %llu bytes from %u records (%u unreadable lines skipped) in %.1f ms\n",
            argv[2], (unsigned long long)info.bytes, d.records, bad, info.ms);
    return 0;
}
