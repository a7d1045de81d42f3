/* The firmware's image handle and system table, set by efi_main before
 * anything else runs. Alone in a file so that every other file may read
 * them without depending on the code that starts the platform. */
#include "uefi_private.h"

EFI_HANDLE bm_image_handle;
EFI_SYSTEM_TABLE *bm_st;
