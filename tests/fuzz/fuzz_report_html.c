/* The HTML report: lines of a (hostile) .jsonl through the record reader
 * and the page writer. Aborts if record text could open markup: the page's
 * own markup never holds "<script", "<img" or "<iframe", so any of them in
 * the output came from a record unescaped. */
#include "fuzz.h"
#include "platform.h"
#include "report/html.h"
#include "report/jscan.h"

static const char *const types[] = { "run", "end", "system", "dimm", "dimm_summary", "pci", "error", "note",
                                     "disk", "disk_result", "mem_info", "mem_latency", "mem_bandwidth",
                                     "mem_loaded_latency", "mem_numa", "verdict" };

static char tail[16];
static int bad;

static int check(void *ctx, const void *data, size_t len)
{
    /* Search across chunk boundaries: the end of the last chunk, then this one. */
    static char window[sizeof(tail) + 4096 + 1];
    size_t t = strlen(tail), n = len < 4096 ? len : 4096, total, keep;

    (void)ctx;
    memcpy(window, tail, t);
    memcpy(window + t, data, n);
    window[t + n] = '\0';
    for (size_t i = 0; i < t + n; i++)
        if (window[i] == '\0')
            bad = 1; /* the page never holds a NUL */
    if (strstr(window, "<script") || strstr(window, "<img") || strstr(window, "<iframe"))
        bad = 1;
    total = t + n;
    keep = total < sizeof(tail) - 1 ? total : sizeof(tail) - 1;
    memcpy(tail, window + total - keep, keep);
    tail[keep] = '\0';
    return BM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct html_data d;
    char *text = fuzz_cstr(data, n), *line = text;

    html_data_init(&d);
    while (line && *line) {
        char *next = strchr(line, '\n');
        char type[24];
        if (next)
            *next++ = '\0';
        js_get_str(line, "type", type, sizeof(type));
        /* A type the reader knows, so every handler sees hostile fields. */
        html_data_feed(&d, type[0] ? type : types[(uint8_t)line[0] % (sizeof(types) / sizeof(types[0]))], line);
        line = next;
    }
    tail[0] = '\0';
    bad = 0;
    html_report_write(&d, "fuzz.jsonl", check, NULL);
    free(text);
    if (bad)
        abort();
    return 0;
}
