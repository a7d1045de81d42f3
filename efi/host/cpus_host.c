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

static __thread bool on_ap;

bool plat_on_bsp(void) { return !on_ap; }

static void *host_thread(void *p)
{
    struct host_job *job = p;
    on_ap = true;
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

/* The engine's CPUs: a thread each, waited for on the real clock (a
 * simulated device may move plat_now_ns() on by seconds at once). */
static struct {
    pthread_t thread;
    struct host_job job;
    bool taken;
    int done;
} started[256];

static void *started_thread(void *p)
{
    struct host_job *job = p;

    host_thread(p);
    __atomic_store_n(&started[job->index].done, 1, __ATOMIC_RELEASE);
    return NULL;
}

int plat_cpu_start(unsigned cpu, plat_cpu_fn fn, void *arg)
{
    if (cpu == 0 || cpu >= plat_cpu_count() || cpu >= 256)
        return BM_EINVAL;
    if (started[cpu].taken && plat_cpu_wait(cpu, 0) != BM_OK)
        return BM_EBUSY;
    started[cpu].job = (struct host_job){ fn, arg, cpu };
    started[cpu].done = 0;
    if (pthread_create(&started[cpu].thread, NULL, started_thread, &started[cpu].job) != 0)
        return BM_EIO;
    started[cpu].taken = true;
    return BM_OK;
}

int plat_cpu_wait(unsigned cpu, uint64_t timeout_ns)
{
    uint64_t deadline = host_mono_ns() + timeout_ns;

    if (cpu == 0 || cpu >= 256 || !started[cpu].taken)
        return BM_EINVAL;
    while (!__atomic_load_n(&started[cpu].done, __ATOMIC_ACQUIRE)) {
        if (host_mono_ns() >= deadline)
            return BM_ETIMEDOUT;
        sched_yield();
    }
    pthread_join(started[cpu].thread, NULL);
    started[cpu].taken = false;
    return BM_OK;
}
