/* IORT root complex coherency (iort.h). The walk follows Linux
 * drivers/acpi/arm64/iort.c (iort_scan_node(): nodes back to back from
 * the node array offset, each its own length long, none past the table's
 * end) and its use of the CCA in iort_dma_setup() / acpi_dma_configure(). */
#include "iort.h"

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

int iort_pci_coherent(const void *table, size_t len, uint16_t seg, char *why, size_t whylen)
{
    const uint8_t *t = table;
    uint32_t tlen, count, off;

    if (!t || len < IORT_OFF_NODE_ARRAY + 4 || memcmp(t, "IORT", 4)) {
        snprintf(why, whylen, "not an IORT table");
        return BM_EINVAL;
    }
    tlen = le32(t + 4);
    if (tlen < len)
        len = tlen;
    if (len < IORT_OFF_NODE_ARRAY + 4) {
        snprintf(why, whylen, "IORT table truncated (%u bytes)", (unsigned)len);
        return BM_EINVAL;
    }
    count = le32(t + IORT_OFF_NODE_COUNT);
    off = le32(t + IORT_OFF_NODE_ARRAY);
    for (uint32_t i = 0; i < count; i++) {
        uint16_t nlen;

        if (off < IORT_OFF_NODE_ARRAY + 4 || off > len || len - off < IORT_NODE_HEADER) {
            snprintf(why, whylen, "IORT node %u lies outside the table (offset %u of %u)", i, off, (unsigned)len);
            return BM_EINVAL;
        }
        nlen = (uint16_t)(t[off + 1] | t[off + 2] << 8);
        if (nlen < IORT_NODE_HEADER || nlen > len - off) {
            snprintf(why, whylen, "IORT node %u has a bad length (%u bytes at offset %u)", i, nlen, off);
            return BM_EINVAL;
        }
        if (t[off] == IORT_NODE_PCI_ROOT_COMPLEX && nlen >= IORT_RC_MIN_LENGTH &&
            le32(t + off + IORT_RC_OFF_SEGMENT) == seg) {
            uint32_t cca = le32(t + off + IORT_RC_OFF_CCA);
            if (cca == IORT_CCA_COHERENT) {
                snprintf(why, whylen, "IORT: PCI segment %u's root complex is cache-coherent (CCA 1)", seg);
                return BM_OK;
            }
            snprintf(why, whylen, "IORT: PCI segment %u's root complex is not cache-coherent (CCA %u): device "
                     "DMA would need cache maintenance, which baremark's drivers do not do", seg, cca);
            return BM_ENOTSUP;
        }
        off += nlen;
    }
    snprintf(why, whylen, "IORT has no root complex node for PCI segment %u", seg);
    return BM_ENODEV;
}
