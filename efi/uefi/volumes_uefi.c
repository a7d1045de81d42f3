/* FAT volumes: open one's root directory, find a writable one by label. */
#include "uefi_private.h"

/* The root directory of the file system on a handle, and whether it says
 * it is read-only. */
EFI_FILE_HANDLE uefi_open_root(EFI_HANDLE h, bool *read_only, char *label, size_t label_len)
{
    EFI_GUID fsg = SIMPLE_FILE_SYSTEM_PROTOCOL, infog = EFI_FILE_SYSTEM_INFO_ID;
    EFI_FILE_IO_INTERFACE *fs;
    EFI_FILE_HANDLE root;
    static uint8_t infobuf[1024];
    UINTN infosize = sizeof(infobuf);

    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &fsg, (void **)&fs) != EFI_SUCCESS)
        return NULL;
    if (uefi_call_wrapper(fs->OpenVolume, 2, fs, &root) != EFI_SUCCESS)
        return NULL;
    *read_only = false;
    if (label_len)
        label[0] = '\0';
    if (uefi_call_wrapper(root->GetInfo, 4, root, &infog, &infosize, infobuf) == EFI_SUCCESS) {
        EFI_FILE_SYSTEM_INFO *info = (EFI_FILE_SYSTEM_INFO *)infobuf;
        *read_only = info->ReadOnly;
        if (label_len)
            uefi_ucs2_to_ascii(label, label_len, info->VolumeLabel, label_len - 1);
    }
    return root;
}

/* A writable FAT volume by label among the file systems already connected. */
static EFI_FILE_HANDLE find_volume_connected(const char *want, EFI_HANDLE *handle_out)
{
    EFI_GUID fsg = SIMPLE_FILE_SYSTEM_PROTOCOL;
    EFI_HANDLE *handles = NULL;
    EFI_FILE_HANDLE found = NULL;
    UINTN count = 0;

    if (uefi_call_wrapper(bm_st->BootServices->LocateHandleBuffer, 5, ByProtocol, &fsg, NULL, &count, &handles) !=
        EFI_SUCCESS)
        return NULL;
    for (UINTN i = 0; i < count && !found; i++) {
        bool ro;
        char label[64];
        EFI_FILE_HANDLE root = uefi_open_root(handles[i], &ro, label, sizeof(label));
        if (!root)
            continue;
        if (!ro && (!strcmp(want, "*") || !bm_strcasecmp(label, want))) {
            found = root;
            *handle_out = handles[i];
        } else {
            uefi_call_wrapper(root->Close, 1, root);
        }
    }
    plat_free(handles);
    return found;
}

/* A writable FAT volume by label ("*": any). Firmware often connects only
 * the devices it boots from, so when none matches, connect every storage
 * controller and look again (safe here: this runs before any native
 * driver has taken a controller). */
EFI_FILE_HANDLE uefi_find_writable_volume(const char *want, EFI_HANDLE *handle_out)
{
    EFI_FILE_HANDLE root = find_volume_connected(want, handle_out);

    if (root)
        return root;
    uefi_connect_storage_controllers(NULL, 0, true);
    return find_volume_connected(want, handle_out);
}
