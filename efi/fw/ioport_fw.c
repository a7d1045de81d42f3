/* x86 I/O port access (the PM timer, PCI ports 0xcf8/0xcfc, 16550 UARTs). */
#include "fw_private.h"

void plat_outb(uint16_t port, uint8_t v) { __asm__ __volatile__("outb %0, %1" ::"a"(v), "Nd"(port)); }
uint8_t plat_inb(uint16_t port)
{
    uint8_t v;
    __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
void plat_outl(uint16_t port, uint32_t v) { __asm__ __volatile__("outl %0, %1" ::"a"(v), "Nd"(port)); }
uint32_t plat_inl(uint16_t port)
{
    uint32_t v;
    __asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
