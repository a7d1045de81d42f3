/* Port I/O on Arm: there is no I/O address space (PCI I/O BARs, where a
 * root complex has them, are memory-mapped windows, which the drivers do
 * not use). Reads answer all ones, as an empty x86 port does, and writes go
 * nowhere, so code that probes a port finds nothing; callers that need
 * ports check plat_has_port_io() first and say "not on this architecture". */
#include "fw_private.h"

void plat_outb(uint16_t port, uint8_t v) { (void)port, (void)v; }
uint8_t plat_inb(uint16_t port) { return (void)port, 0xff; }
void plat_outl(uint16_t port, uint32_t v) { (void)port, (void)v; }
uint32_t plat_inl(uint16_t port) { return (void)port, 0xffffffffu; }
