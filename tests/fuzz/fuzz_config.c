/* baremark.cfg and the command line: config_parse_file, config_parse_args. */
#include "fuzz.h"
#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct config c;
    char err[CONFIG_ERR_LEN];
    char *text = fuzz_cstr(data, n);

    config_defaults(&c);
    (void)config_nul_line(text, n);
    (void)config_parse_file(&c, text, err, sizeof(err));
    config_defaults(&c);
    (void)config_parse_args(&c, text, err, sizeof(err));
    if (c.out[sizeof(c.out) - 1] != '\0' || bm_path_has_dot_part(c.out))
        abort(); /* out= must never leave the results volume */
    if (c.scan_range_set && c.scan_first_lba > c.scan_last_lba)
        abort(); /* scan_range= never leaves an empty or reversed range */
    free(text);
    return 0;
}
