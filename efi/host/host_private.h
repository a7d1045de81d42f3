/* What the files of the Linux platform layer (efi/host/) share with each
 * other and with nothing else. The seam itself is efi/platform.h; the
 * simulated PCI functions tests attach are efi/platform_sim.h. */
#ifndef BAREMARK_HOST_PRIVATE_H
#define BAREMARK_HOST_PRIVATE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../platform.h"
#include "../platform_sim.h"

/* sim_pci_host.c: the simulated function a test attached at a, or NULL. */
struct plat_sim_dev *host_sim_at(struct pci_addr a);
/* sim_pci_host.c: byte port I/O to a simulated port block (0xff / dropped
 * where none is attached). */
uint8_t host_sim_inb(uint16_t port);
void host_sim_outb(uint16_t port, uint8_t v);

/* clock_host.c: start the clock and measure the TSC rate (plat_init). */
void host_clock_init(void);
/* CLOCK_MONOTONIC in ns, without the time simulated devices made pass. */
uint64_t host_mono_ns(void);

#endif
