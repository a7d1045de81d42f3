/* The options the image was started with (shell, iPXE, boot entry). */
#include "uefi_private.h"

static char *load_options;
static bool load_options_lost;

/* Without memory for them the options are refused by name, not dropped. */
const char *plat_load_options(void)
{
    return load_options ? load_options : load_options_lost ? "baremark load_options=out_of_memory" : "";
}

/* LoadOptions from the shell or iPXE are UCS-2 text; boot-manager entries
 * may carry binary data, which we ignore. The text is taken whole,
 * whatever its length: config_parse_args refuses a line it cannot take
 * rather than have options silently cut off here. */
void uefi_load_options_init(const EFI_LOADED_IMAGE *image)
{
    const CHAR16 *p = image->LoadOptions;
    size_t chars = image->LoadOptionsSize / 2, n = 0;
    char *text;

    load_options = NULL;
    if (!p || !chars)
        return;
    for (n = 0; n < chars && p[n]; n++)
        if (p[n] != '\t' && (p[n] < 0x20 || p[n] >= 0x7f))
            return; /* not text */
    text = plat_alloc(n + 1);
    if (!text) {
        load_options_lost = true;
        return;
    }
    for (size_t i = 0; i < n; i++)
        text[i] = (char)p[i];
    text[n] = '\0';
    load_options = text;
}
