/* A preallocated results file as earlier runs left it on the stick
 * (efi/jsonl_tail.c: where the next run's records go). Aborts if the next
 * run would start past the final '\n' or inside a kept line, or a cut line
 * is not one line ending at the last non-blank byte. */
#include "fuzz.h"
#include "jsonl_tail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    struct jsonl_tail t;
    char *img;

    if (n < 1 || n > 1 << 20)
        return 0;
    img = malloc(n);
    memcpy(img, data, n);
    img[n - 1] = '\n';
    jsonl_tail_scan(img, (uint32_t)n, &t);
    if (t.end > n - 1 || t.end + t.cut_bytes > n - 1)
        abort();
    if (t.end && t.end < n - 1 && img[t.end - 1] != '\n')
        abort();
    for (uint32_t i = t.end; i < t.end + t.cut_bytes; i++)
        if (img[i] == '\n')
            abort();
    for (uint32_t i = t.end + t.cut_bytes; i < n - 1; i++)
        if (img[i] != ' ' && img[i] != '\n' && img[i] != '\r' && img[i] != '\t')
            abort();
    free(img);
    return 0;
}
