/* SPD images of every generation: the input as read from a device (any
 * length up to 1024 bytes), then again with each known key byte forced,
 * so every decoder sees every input. Aborts if a decoded string is not
 * printable text or claims more bytes than the image has. */
#include "fuzz.h"
#include "platform.h"
#include "efi/inventory/spd.h"

static const uint8_t key_bytes[] = { SPD_TYPE_DDR2, SPD_TYPE_DDR2_FB, SPD_TYPE_DDR3, SPD_TYPE_DDR4, SPD_TYPE_DDR5 };

static void check_text(const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);

    if (n == cap)
        abort();
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            abort();
}

static void decode_one(const uint8_t *b, size_t n)
{
    struct spd_info info;

    if (spd_decode(b, n, &info) != BM_OK)
        return;
    check_text(info.mem_type, sizeof(info.mem_type));
    check_text(info.module_type, sizeof(info.module_type));
    check_text(info.manufacturer, sizeof(info.manufacturer));
    check_text(info.amb_vendor, sizeof(info.amb_vendor));
    check_text(info.part, sizeof(info.part));
    check_text(info.serial, sizeof(info.serial));
    check_text(info.date, sizeof(info.date));
    check_text(info.crc_note, sizeof(info.crc_note));
    if (n < info.bytes_expected && !info.truncated)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    uint8_t *img;

    if (n > SPD_MAX_BYTES)
        n = SPD_MAX_BYTES;
    /* Exactly n bytes: ASan sees any read past what the device gave. */
    img = fuzz_page(data, n, n ? n : 1);
    (void)spd_bytes_wanted(n > 2 ? img[2] : 0);
    decode_one(img, n);
    for (size_t k = 0; n >= 3 && k < sizeof(key_bytes); k++) {
        img[2] = key_bytes[k];
        decode_one(img, n);
    }
    free(img);
    return 0;
}
