/* ACPI IORT (IO Remapping Table, Arm DEN 0049E): whether a PCI segment's
 * root complex makes device DMA coherent with the CPU caches. baremark's
 * drivers do no cache maintenance: their DMA buffers are only right where
 * the root complex snoops the caches, as SBSA requires of PCIe (SBSA
 * "PCIe I/O coherency": the IORT root complex node's CCA = 1). */
#ifndef BAREMARK_IORT_H
#define BAREMARK_IORT_H

#include "platform.h"

#define IORT_OFF_NODE_COUNT 36
#define IORT_OFF_NODE_ARRAY 40
#define IORT_NODE_HEADER 16         /* type u8, length u16, revision u8, id u32, mappings u32, mapping ref u32 */
#define IORT_NODE_PCI_ROOT_COMPLEX 2
#define IORT_RC_OFF_CCA 16          /* memory access properties: Cache Coherency Attribute u32 */
#define IORT_RC_OFF_SEGMENT 28      /* PCI segment number u32 */
#define IORT_RC_MIN_LENGTH 36
#define IORT_CCA_COHERENT 1

/* The root complex node of segment seg in the IORT table (len readable
 * bytes; the header's length is honoured when shorter). BM_OK: CCA 1,
 * coherent; BM_ENOTSUP: CCA 0, DMA is not coherent; BM_ENODEV: no node for
 * that segment; BM_EINVAL: not an IORT table, or malformed. why gets one
 * sentence each way. */
int iort_pci_coherent(const void *table, size_t len, uint16_t seg, char *why, size_t whylen);

#endif
