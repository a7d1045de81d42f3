/* CPUs on Linux: one pinned thread per CPU. */
#include "host_private.h"

unsigned plat_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

uint32_t plat_cpu_apic_id(unsigned i) { return i; }

struct host_job {
    plat_cpu_fn fn;
    void *arg;
    unsigned index;
};

static void pin_to_cpu(unsigned i)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(i, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *host_thread(void *p)
{
    struct host_job *job = p;
    pin_to_cpu(job->index);
    job->fn(job->index, job->arg);
    return NULL;
}

int plat_run_on_cpus(unsigned n, plat_cpu_fn fn, void *arg)
{
    pthread_t threads[256];
    struct host_job jobs[256];
    unsigned started = 1;
    cpu_set_t old;

    if (n == 0)
        return BM_EINVAL;
    if (n > plat_cpu_count())
        n = plat_cpu_count();
    if (n > 256)
        n = 256;
    for (unsigned i = 1; i < n; i++) {
        jobs[i] = (struct host_job){ fn, arg, i };
        if (pthread_create(&threads[i], NULL, host_thread, &jobs[i]) != 0)
            break;
        started++;
    }
    pthread_getaffinity_np(pthread_self(), sizeof(old), &old);
    pin_to_cpu(0);
    fn(0, arg);
    pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
    for (unsigned i = 1; i < started; i++)
        pthread_join(threads[i], NULL);
    return (int)started;
}
