/* Memory on Linux: the C heap and anonymous mappings (physical = virtual). */
#include "host_private.h"

void *plat_alloc(size_t bytes) { return calloc(1, bytes ? bytes : 1); }
void plat_free(void *p) { free(p); }

void *plat_alloc_pages(size_t bytes, bool below_4g)
{
    void *p;
    bytes = ALIGN_UP(bytes, (size_t)4096);
    /* Below 4 GiB when asked: drivers put 32-bit addresses of these
     * pages in front of (simulated) devices. */
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (below_4g ? MAP_32BIT : 0), -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    /* Large pages where the kernel allows: the firmware maps memory with
     * 2 MiB/1 GiB pages, and memory latency depends on TLB reach. */
    madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 0, bytes);
    return p;
}

void plat_free_pages(void *p, size_t bytes)
{
    if (p)
        munmap(p, ALIGN_UP(bytes, (size_t)4096));
}

void *plat_alloc_pages_in_range(size_t bytes, uint64_t lo, uint64_t hi)
{
    (void)lo;
    (void)hi;
    return plat_alloc_pages(bytes, false);
}

uint64_t plat_virt_to_phys(const void *p) { return (uint64_t)(uintptr_t)p; }

uint64_t plat_free_memory_bytes(void)
{
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}
