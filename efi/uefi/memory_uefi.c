/* Memory: pool and page allocations, and the firmware's memory map. */
#include "uefi_private.h"
#include "../fw/fw_private.h"

void *plat_alloc(size_t bytes)
{
    void *p = NULL;
    if (uefi_call_wrapper(bm_st->BootServices->AllocatePool, 3, EfiLoaderData, bytes, &p) != EFI_SUCCESS)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

void plat_free(void *p)
{
    if (p)
        uefi_call_wrapper(bm_st->BootServices->FreePool, 1, p);
}

static void *alloc_pages_typed(size_t bytes, EFI_ALLOCATE_TYPE type, EFI_PHYSICAL_ADDRESS addr)
{
    UINTN pages = (bytes + 4095) / 4096;

    if (uefi_call_wrapper(bm_st->BootServices->AllocatePages, 4, type, EfiLoaderData, pages, &addr) != EFI_SUCCESS)
        return NULL;
    memset((void *)(uintptr_t)addr, 0, pages * 4096);
    return (void *)(uintptr_t)addr;
}

void *plat_alloc_pages(size_t bytes, bool below_4g)
{
    if (below_4g)
        return alloc_pages_typed(bytes, AllocateMaxAddress, 0xffffffffull);
    return alloc_pages_typed(bytes, AllocateAnyPages, 0);
}

void plat_free_pages(void *p, size_t bytes)
{
    if (p)
        uefi_call_wrapper(bm_st->BootServices->FreePages, 2, (EFI_PHYSICAL_ADDRESS)(uintptr_t)p,
                          (bytes + 4095) / 4096);
}

uint64_t plat_virt_to_phys(const void *p) { return (uint64_t)(uintptr_t)p; }

/* UEFI identity-maps the device memory it assigned (UEFI 2.10, 2.3.4). */
int fw_map_mmio(uint64_t addr, uint64_t bytes) { return BM_OK; }

/* Visit every conventional-memory range of the firmware's memory map. */
static void for_each_free_range(void (*fn)(uint64_t start, uint64_t bytes, void *arg), void *arg)
{
    UINTN size = 0, key, desc_size;
    UINT32 desc_version;
    EFI_MEMORY_DESCRIPTOR *map = NULL;
    EFI_STATUS st;

    st = uefi_call_wrapper(bm_st->BootServices->GetMemoryMap, 5, &size, map, &key, &desc_size, &desc_version);
    if (st != EFI_BUFFER_TOO_SMALL)
        return;
    size += 8 * desc_size; /* the allocation below may add entries */
    map = plat_alloc(size);
    if (!map)
        return;
    st = uefi_call_wrapper(bm_st->BootServices->GetMemoryMap, 5, &size, map, &key, &desc_size, &desc_version);
    if (st == EFI_SUCCESS) {
        for (UINTN off = 0; off < size; off += desc_size) {
            EFI_MEMORY_DESCRIPTOR *d = (void *)((uint8_t *)map + off);
            if (d->Type == EfiConventionalMemory)
                fn(d->PhysicalStart, d->NumberOfPages * 4096ull, arg);
        }
    }
    plat_free(map);
}

static void sum_range(uint64_t start, uint64_t bytes, void *arg)
{
    (void)start;
    *(uint64_t *)arg += bytes;
}

uint64_t plat_free_memory_bytes(void)
{
    uint64_t total = 0;
    for_each_free_range(sum_range, &total);
    return total;
}

struct range_search {
    uint64_t lo, hi, bytes, found;
};

static void find_in_range(uint64_t start, uint64_t bytes, void *arg)
{
    struct range_search *s = arg;
    uint64_t a = MAX(start, s->lo), b = MIN(start + bytes, s->hi);

    a = ALIGN_UP(a, 2ull << 20); /* 2 MiB: keep large-page mappings whole */
    if (!s->found && b > a && b - a >= s->bytes)
        s->found = a;
}

void *plat_alloc_pages_in_range(size_t bytes, uint64_t lo, uint64_t hi)
{
    struct range_search s = { lo, hi, ALIGN_UP((uint64_t)bytes, 4096ull), 0 };

    for_each_free_range(find_in_range, &s);
    if (!s.found)
        return NULL;
    return alloc_pages_typed(bytes, AllocateAddress, s.found);
}
