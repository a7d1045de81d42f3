/* NUMA matrix: latency and read bandwidth from the CPUs of each node to the
 * memory of each node, when ACPI SRAT describes more than one proximity
 * domain. Buffers are placed by physical range (the firmware's identity
 * map makes that a placement on the node). */
#include "mem_engine.h"
#include "mem_machine.h"
#include "mem_srat.h"
#include "../record.h"

#define NUMA_MAX_NODES 16

struct numa_node {
    uint32_t domain;
    unsigned ncpus;
    unsigned cpus[MEM_MAX_CPUS];
    uint64_t mem_bytes;   /* present (not hot-plug) memory SRAT gives it */
};

static struct srat_info srat;
static struct numa_node nodes[NUMA_MAX_NODES];
static uint8_t *node_bufs[MEM_MAX_CPUS];

/* mem_numa: one cell of the matrix. */
static void emit_numa(const struct numa_node *from, const struct numa_node *to, const struct mem_spread *lat,
                      const struct mem_spread *gbps, uint64_t lat_bytes, uint64_t bw_bytes)
{
    static struct record r;
    char human[200];

    record_begin(&r, "mem_numa");
    json_u64(&r.j, "from_node", from->domain);
    json_u64(&r.j, "to_node", to->domain);
    json_num(&r.j, "latency_ns", lat->min, 2);
    json_num(&r.j, "latency_ns_median", lat->median, 2);
    json_num(&r.j, "latency_ns_max", lat->max, 2);
    json_num(&r.j, "read_gbps", gbps->max, 3);
    json_num(&r.j, "read_gbps_median", gbps->median, 3);
    json_u64(&r.j, "threads", from->ncpus);
    json_u64(&r.j, "latency_bytes", lat_bytes);
    json_u64(&r.j, "bandwidth_bytes", bw_bytes);
    snprintf(human, sizeof(human), "memory numa: cpus of node %u -> memory of node %u: %.1f ns, %.2f GB/s read (%u threads)",
             from->domain, to->domain, lat->min, gbps->max, from->ncpus);
    record_emit(&r, human);
}

/* Pages inside one of the domain's present memory ranges. */
static void *alloc_on_node(uint32_t domain, uint64_t bytes)
{
    for (unsigned i = 0; i < srat.nmems; i++) {
        const struct srat_mem *r = &srat.mems[i];
        void *p;
        if (r->domain != domain || r->hotplug)
            continue;
        p = plat_alloc_pages_in_range(bytes, r->base, r->base + r->length);
        if (p)
            return p;
    }
    return NULL;
}

/* Group our CPUs and SRAT's memory by domain. Returns the node count. */
static unsigned collect_nodes(unsigned cpus)
{
    unsigned n = 0;

    memset(nodes, 0, sizeof(nodes));
    for (unsigned d = 0; d < srat.ndomains && n < NUMA_MAX_NODES; d++) {
        struct numa_node *nd = &nodes[n];
        nd->domain = srat.domains[d];
        for (unsigned c = 0; c < cpus; c++)
            if (srat_domain_of_plat_cpu(&srat, plat_cpu_apic_id(c)) == (int64_t)nd->domain)
                nd->cpus[nd->ncpus++] = c;
        for (unsigned i = 0; i < srat.nmems; i++)
            if (srat.mems[i].domain == nd->domain && !srat.mems[i].hotplug)
                nd->mem_bytes += srat.mems[i].length;
        if (nd->ncpus || nd->mem_bytes)
            n++;
    }
    return n;
}

/* Give back one node's test buffers. */
static void free_node_bufs(uint8_t **chase, uint64_t lat_bytes, unsigned nbufs, uint64_t bw_bytes)
{
    if (*chase)
        plat_free_pages(*chase, lat_bytes);
    *chase = NULL;
    for (unsigned i = 0; i < nbufs; i++) {
        if (node_bufs[i])
            plat_free_pages(node_bufs[i], bw_bytes);
        node_bufs[i] = NULL;
    }
}

/* Round down to whole pages, at least two. */
static uint64_t whole_pages(uint64_t v) { return MAX(v / MEM_PAGE * MEM_PAGE, 2 * MEM_PAGE); }

/* The matrix: for each node's memory, latency and read bandwidth from each node's CPUs. */
int mem_run_numa(struct mem_ctx *m)
{
    static double lat_ns[NUMA_MAX_NODES][NUMA_MAX_NODES], read_gbps[NUMA_MAX_NODES][NUMA_MAX_NODES];
    const uint8_t *t = plat_acpi_table("SRAT", 0);
    unsigned nn, max_cpus = 0, passes = m->plan.level == LEVEL_FULL ? m->plan.lat_passes : 3;
    uint64_t len;
    char line[256];
    size_t pos;

    if (!t)
        return BM_OK;
    len = t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24;
    if (srat_parse(t, len, &srat) != BM_OK) {
        record_error(MEM_WHERE, "ACPI SRAT is malformed (%llu bytes): no NUMA matrix", (unsigned long long)len);
        return BM_OK;
    }
    nn = collect_nodes(m->cpus);
    if (nn < 2)
        return BM_OK;
    if (srat.ndomains > NUMA_MAX_NODES)
        record_note(MEM_WHERE, "SRAT lists %u proximity domains; the NUMA matrix covers the first %u", srat.ndomains,
                    NUMA_MAX_NODES);
    if (!mem_numa_placement()) {
        record_note(MEM_WHERE, "SRAT lists %u NUMA nodes, but this build cannot place memory on a node: no NUMA matrix",
                    nn);
        return BM_OK;
    }
    for (unsigned i = 0; i < nn; i++)
        max_cpus = MAX(max_cpus, nodes[i].ncpus);

    for (unsigned i = 0; i < nn; i++)
        for (unsigned j = 0; j < nn; j++)
            lat_ns[i][j] = read_gbps[i][j] = -1;

    for (unsigned j = 0; j < nn; j++) {
        const struct numa_node *to = &nodes[j];
        uint64_t lat_bytes, bw_bytes;
        uint8_t *chase = NULL;
        void *start;
        bool ok = true;

        if (!to->mem_bytes)
            continue;
        /* Leave most of the node free: a quarter for the chase, a quarter
         * shared by the readers. */
        lat_bytes = whole_pages(MIN(m->plan.lat_max_bytes, to->mem_bytes / 4));
        bw_bytes = MIN(m->plan.bw_bytes, m->plan.bw_all_bytes * m->cpus / MAX(max_cpus, 1u));
        bw_bytes = whole_pages(MIN(bw_bytes, to->mem_bytes / 4 / MAX(max_cpus, 1u)));
        chase = alloc_on_node(to->domain, lat_bytes);
        ok = chase != NULL;
        for (unsigned c = 0; ok && c < max_cpus; c++)
            ok = (node_bufs[c] = alloc_on_node(to->domain, bw_bytes)) != NULL;
        if (!ok) {
            record_error(MEM_WHERE, "cannot allocate NUMA test buffers in the memory of node %u", to->domain);
            free_node_bufs(&chase, lat_bytes, max_cpus, bw_bytes);
            continue;
        }
        start = mem_chain_in(m, chase, lat_bytes, MEM_FULL_RANDOM);

        for (unsigned i = 0; i < nn; i++) {
            const struct numa_node *from = &nodes[i];
            struct mem_spread ls, bs;
            struct mem_team team;
            void *cursor = start;
            int rc;

            if (!from->ncpus)
                continue;
            if (plat_abort_requested()) {
                free_node_bufs(&chase, lat_bytes, max_cpus, bw_bytes);
                return BM_EABORT;
            }
            ui_progress("memory numa: cpus of node %u -> memory of node %u", from->domain, to->domain);
            rc = mem_chase_on(m, from->cpus[0], &cursor, lat_bytes, passes, &ls, NULL);
            if (rc == BM_OK) {
                mem_team_init(&team, from->cpus, from->ncpus);
                rc = mem_bandwidth_on(m, &team, MEM_BW_READ, node_bufs, bw_bytes, passes, m->plan.bw_pass_ns / 2,
                                      &bs);
            }
            if (rc != BM_OK) {
                record_error(MEM_WHERE, "NUMA node %u -> %u: %s", from->domain, to->domain, bm_strerror(rc));
                continue;
            }
            emit_numa(from, to, &ls, &bs, lat_bytes, bw_bytes);
            lat_ns[i][j] = ls.min;
            read_gbps[i][j] = bs.max;
        }
        free_node_bufs(&chase, lat_bytes, max_cpus, bw_bytes);
    }

    /* The matrices for people: rows are the CPUs' node, columns the memory's. */
    for (int which = 0; which < 2; which++) {
        ui_text("NUMA %s (row: cpus of node, column: memory of node)",
                which == 0 ? "latency, ns" : "read bandwidth, GB/s");
        pos = (size_t)snprintf(line, sizeof(line), "  %8s", "");
        for (unsigned j = 0; j < nn && pos < sizeof(line); j++)
            pos += (size_t)snprintf(line + pos, sizeof(line) - pos, " %8s%-2u", "mem ", nodes[j].domain);
        ui_text("%s", line);
        for (unsigned i = 0; i < nn; i++) {
            if (!nodes[i].ncpus)
                continue;
            pos = (size_t)snprintf(line, sizeof(line), "  cpus %-3u", nodes[i].domain);
            for (unsigned j = 0; j < nn && pos < sizeof(line); j++) {
                double v = which == 0 ? lat_ns[i][j] : read_gbps[i][j];
                if (v < 0)
                    pos += (size_t)snprintf(line + pos, sizeof(line) - pos, " %10s", "-");
                else
                    pos += (size_t)snprintf(line + pos, sizeof(line) - pos, " %10.1f", v);
            }
            ui_text("%s", line);
        }
    }
    return BM_OK;
}
