/* The results file: created on the boot volume or a volume named by its
 * label, written, flushed, closed; and where that volume is. */
#include "uefi_private.h"

static EFI_HANDLE results_volume_handle;   /* device handle of the results volume */
static EFI_FILE_HANDLE results_root;      /* NULL: no results file was created */

void plat_file_stored_as(const char *path, char *out, size_t cap) { bm_strlcpy(out, path, cap); }

/* Create each folder of path in turn, then the file (truncated). */
void *plat_file_create(const char *path)
{
    CHAR16 wpath[256];
    EFI_FILE_HANDLE f, root;
    EFI_HANDLE volume = uefi_boot_device();
    const char *colon = strchr(path, ':');
    size_t n;

    if (colon && (!strchr(path, '\\') || colon < strchr(path, '\\'))) {
        char label[64];
        snprintf(label, sizeof(label), "%.*s", (int)(colon - path), path);
        root = uefi_find_writable_volume(label, &volume);
        path = colon + 1;
    } else {
        root = plat_boot_volume_writable() ? uefi_boot_root() : NULL;
    }
    /* config refuses ".." in out=; a firmware file system other than
     * EDK2's (whose FatLocateOFile stops ".." at the root) might not. */
    if (!root || bm_path_has_dot_part(path))
        return NULL;
    uefi_ascii_to_ucs2(wpath, ARRAY_SIZE(wpath), path);
    n = StrLen(wpath);
    for (size_t i = 1; i < n; i++) {
        if (wpath[i] != L'\\')
            continue;
        wpath[i] = 0;
        if (uefi_call_wrapper(root->Open, 5, root, &f, wpath,
                              EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
                              EFI_FILE_DIRECTORY) == EFI_SUCCESS)
            uefi_call_wrapper(f->Close, 1, f);
        wpath[i] = L'\\';
    }
    /* An old file of the same name: delete it so we never append to it. */
    if (uefi_call_wrapper(root->Open, 5, root, &f, wpath, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0) ==
        EFI_SUCCESS)
        uefi_call_wrapper(f->Delete, 1, f);
    if (uefi_call_wrapper(root->Open, 5, root, &f, wpath,
                          EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, 0) != EFI_SUCCESS)
        return NULL;
    results_root = root;
    results_volume_handle = volume;
    return f;
}

int plat_file_write(void *h, const void *data, size_t len)
{
    EFI_FILE_HANDLE f = h;
    UINTN n = len;
    if (uefi_call_wrapper(f->Write, 3, f, &n, (void *)data) != EFI_SUCCESS || n != len)
        return BM_EIO;
    return BM_OK;
}

int plat_file_flush(void *h)
{
    EFI_FILE_HANDLE f = h;
    return uefi_call_wrapper(f->Flush, 1, f) == EFI_SUCCESS ? BM_OK : BM_EIO;
}

void plat_file_close(void *h)
{
    EFI_FILE_HANDLE f = h;
    if (f)
        uefi_call_wrapper(f->Close, 1, f);
}

long plat_results_file_read(const char *path, char *buf, size_t cap)
{
    const char *colon = strchr(path, ':');

    if (!results_root)
        return BM_ENODEV;
    return uefi_read_file(results_root, colon ? colon + 1 : path, buf, cap);
}

EFI_HANDLE uefi_results_volume_handle(void) { return results_root ? results_volume_handle : NULL; }

void plat_results_location(struct plat_boot_location *loc)
{
    uefi_volume_location(results_root ? results_volume_handle : NULL, results_root != NULL, loc);
}

void uefi_results_close(void)
{
    if (results_root && results_root != uefi_boot_root())
        uefi_call_wrapper(results_root->Close, 1, results_root);
    results_root = NULL;
}
