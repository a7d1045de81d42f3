/* The screen's picture of the run, built from the records as they pass. */
#include "screen_private.h"
#include "../disk/plan.h"

static uint64_t json_u64_or(const char *json, const char *key, uint64_t dflt)
{
    double v;
    return screen_json_num(json, key, &v) && v >= 0 ? bm_double_to_u64(v) : dflt;
}

/* "16M", "512K", "1.5G" */
static void size_short(char *buf, size_t cap, uint64_t bytes)
{
    if (bytes >= (1ull << 30) && !(bytes % (1ull << 30)))
        snprintf(buf, cap, "%lluG", (unsigned long long)(bytes >> 30));
    else if (bytes >= (1ull << 20))
        snprintf(buf, cap, "%lluM", (unsigned long long)(bytes >> 20));
    else
        snprintf(buf, cap, "%lluK", (unsigned long long)(bytes >> 10));
}

/* ---- Records into the model --------------------------------------------------------------- */

void screen_model_reset(struct screen_model *m, uint64_t now_ns)
{
    memset(m, 0, sizeof(*m));
    m->t0_ns = m->phase_t0_ns = now_ns;
    bm_strlcpy(m->phase, "starting", sizeof(m->phase));
}

static void set_phase(struct screen_model *m, const char *phase, uint64_t now_ns)
{
    if (strcmp(m->phase, phase)) {
        bm_strlcpy(m->phase, phase, sizeof(m->phase));
        m->phase_t0_ns = now_ns;
    }
}

static void add_message(struct screen_model *m, enum plat_colour colour, const char *text)
{
    struct screen_message *msg;

    /* Errors are never pushed out by notes: when full, drop the oldest note. */
    if (m->nmessages == SCREEN_MESSAGES) {
        unsigned drop = 0;
        while (drop < SCREEN_MESSAGES && m->messages[drop].colour == PLAT_COLOUR_ERROR)
            drop++;
        if (drop == SCREEN_MESSAGES)
            return;
        memmove(&m->messages[drop], &m->messages[drop + 1], (SCREEN_MESSAGES - drop - 1) * sizeof(m->messages[0]));
        m->nmessages--;
    }
    msg = &m->messages[m->nmessages++];
    msg->colour = colour;
    sink_screen_text(msg->text, sizeof(msg->text), text);
}

static void on_message(struct screen_model *m, const char *type, const char *json)
{
    char where[64], message[180], line[260];
    bool error = !strcmp(type, "error");

    screen_json_str(json, "where", where, sizeof(where));
    screen_json_str(json, "message", message, sizeof(message));
    snprintf(line, sizeof(line), "%s %s: %s", error ? "ERROR" : "note", where, message);
    add_message(m, error ? PLAT_COLOUR_ERROR : PLAT_COLOUR_WARN, line);
    if (error)
        m->errors++;
    else
        m->notes++;
}

/* A finding: its sentence, warnings in the warning colour, for the top. */
static void on_finding(struct screen_model *m, const char *json)
{
    char sev[8], text[190], line[200];
    struct screen_message *f;

    if (m->nfindings >= SCREEN_FINDINGS) {
        m->findings_unkept++;
        return;
    }
    screen_json_str(json, "severity", sev, sizeof(sev));
    screen_json_str(json, "text", text, sizeof(text));
    f = &m->findings[m->nfindings++];
    f->colour = strcmp(sev, "warn") ? PLAT_COLOUR_VALUE : PLAT_COLOUR_WARN;
    snprintf(line, sizeof(line), "%s %s", strcmp(sev, "warn") ? "info" : "WARN", text);
    sink_screen_text(f->text, sizeof(f->text), line);
}

static void on_system(struct screen_model *m, const char *json)
{
    char a[64], b[64], fw[64], l1[24], l2[24], l3[24];
    uint64_t cpus = json_u64_or(json, "cpus", 0), sockets = json_u64_or(json, "sockets", 0);

    screen_json_str(json, "manufacturer", a, sizeof(a));
    screen_json_str(json, "product", b, sizeof(b));
    screen_json_str(json, "firmware", fw, sizeof(fw));
    snprintf(m->system, sizeof(m->system), "%s %s   firmware %s", a, b, fw);
    m->cache_bytes[0] = json_u64_or(json, "l1d_bytes", 0);
    m->cache_bytes[1] = json_u64_or(json, "l2_bytes", 0);
    m->cache_bytes[2] = json_u64_or(json, "l3_bytes", 0);
    size_short(l1, sizeof(l1), m->cache_bytes[0]);
    size_short(l2, sizeof(l2), m->cache_bytes[1]);
    size_short(l3, sizeof(l3), m->cache_bytes[2]);
    screen_json_str(json, "cpu", a, sizeof(a));
    snprintf(m->cpu, sizeof(m->cpu), "%s   %llu CPU%s, %llu socket%s   L1d %s L2 %s L3 %s", a,
             (unsigned long long)cpus, cpus == 1 ? "" : "s", (unsigned long long)sockets, sockets == 1 ? "" : "s",
             l1, l2, l3);
}

static void on_dimm_summary(struct screen_model *m, const char *json)
{
    const char *w = strstr(json, "\"warnings\":[");

    snprintf(m->memory, sizeof(m->memory), "%llu MB in %llu of %llu DIMM slots",
             (unsigned long long)json_u64_or(json, "total_mb", 0), (unsigned long long)json_u64_or(json, "populated", 0),
             (unsigned long long)json_u64_or(json, "slots", 0));
    m->dimm_slots = (unsigned)json_u64_or(json, "slots", 0);
    m->nwarnings = 0;
    /* The warnings array holds strings only: each one in turn. */
    for (w = w ? w + 12 : NULL; w && *w == '"' && m->nwarnings < SCREEN_WARNINGS;) {
        char tmp[160];
        w = screen_json_read_string(w, tmp, sizeof(tmp));
        sink_screen_text(m->warnings[m->nwarnings++], sizeof(m->warnings[0]), tmp);
        if (*w == ',')
            w++;
    }
}

static struct screen_disk *find_disk(struct screen_model *m, const char *id, bool add)
{
    for (unsigned i = 0; i < m->ndisks; i++)
        if (!strcmp(m->disks[i].id, id))
            return &m->disks[i];
    if (!add || m->ndisks == SCREEN_DISKS)
        return NULL;
    bm_strlcpy(m->disks[m->ndisks].id, id, sizeof(m->disks[0].id));
    return &m->disks[m->ndisks++];
}

static void on_disk(struct screen_model *m, const char *json)
{
    char id[24], model[48], serial[48], path[24];
    struct screen_disk *d;

    screen_json_str(json, "id", id, sizeof(id));
    if (strstr(json, "\"selected\":false"))
        return;
    d = find_disk(m, id, true);
    if (!d) {
        m->disks_unkept++;
        return;
    }
    screen_json_str(json, "model", model, sizeof(model));
    screen_json_str(json, "serial", serial, sizeof(serial));
    screen_json_str(json, "path", path, sizeof(path));
    snprintf(d->label, sizeof(d->label), "%s  %s  (%s)", model, serial, path);
    if (strstr(json, "\"writes\":true"))
        m->disks_writable++;
}

static void on_disk_result(struct screen_model *m, const char *json)
{
    char id[24], test[28], rw[16];
    struct screen_disk *d;
    struct screen_test *t = NULL;
    unsigned w;

    screen_json_str(json, "disk", id, sizeof(id));
    screen_json_str(json, "test", test, sizeof(test));
    screen_json_str(json, "rw", rw, sizeof(rw));
    if (!strcmp(id, "all"))
        m->all_results++;
    else if (!screen_json_value(json, "concurrent"))
        m->disk_results++;
    d = find_disk(m, id, true);
    if (!d)
        return;
    if (!d->label[0] && !strcmp(id, "all"))
        bm_strlcpy(d->label, "all disks at once", sizeof(d->label));
    for (unsigned i = 0; i < d->ntests; i++)
        if (!strcmp(d->tests[i].name, test))
            t = &d->tests[i];
    if (!t) {
        if (d->ntests == SCREEN_TESTS)
            return;
        t = &d->tests[d->ntests++];
        bm_strlcpy(t->name, test, sizeof(t->name));
    }
    w = strstr(rw, "write") != NULL;
    t->has[w] = true;
    screen_json_num(json, "mbps", &t->mbps[w]);
    screen_json_num(json, "iops", &t->iops[w]);
    screen_json_num(json, "p99", &t->p99_us[w]);
}

/* Latency at each cache level: the largest full_random size that fits in
 * half of it (the rest of the cache holds code, stack and page tables);
 * DRAM: the largest size measured, when it is larger than the L3. */
static void on_mem_latency(struct screen_model *m, const char *json)
{
    char pattern[24];
    uint64_t bytes = json_u64_or(json, "bytes", 0);
    double ns;

    screen_json_str(json, "pattern", pattern, sizeof(pattern));
    if (strcmp(pattern, "full_random") || !screen_json_num(json, "ns", &ns))
        return;
    for (unsigned lv = 0; lv < 3; lv++) {
        uint64_t below = lv ? m->cache_bytes[lv - 1] : 0;
        if (m->cache_bytes[lv] && bytes <= m->cache_bytes[lv] / 2 && bytes > below / 2 && bytes >= m->lat[lv].bytes)
            m->lat[lv] = (struct screen_lat){ bytes, ns };
    }
    /* DRAM only beyond the last level cache: with mem_max= below it the
     * run never left the caches. */
    if (bytes > m->cache_bytes[2] && bytes >= m->lat[3].bytes)
        m->lat[3] = (struct screen_lat){ bytes, ns };
}

static void on_mem_bandwidth(struct screen_model *m, const char *json)
{
    static const char *const ops[3] = { "read", "write", "copy" };
    char op[16];
    uint64_t threads = json_u64_or(json, "threads", 0);
    double gbps;

    screen_json_str(json, "op", op, sizeof(op));
    if (!screen_json_num(json, "gbps", &gbps) || !threads)
        return;
    for (unsigned i = 0; i < 3; i++)
        if (!strcmp(op, ops[i])) {
            if (threads == 1)
                m->bw[i][0] = gbps;
            else if (threads >= m->bw_threads) {
                m->bw[i][1] = gbps;
                m->bw_threads = (unsigned)threads;
            }
        }
}

static void on_end(struct screen_model *m, const char *json)
{
    char status[16], note[120];
    double seconds = 0;
    uint64_t errors = json_u64_or(json, "errors", 0);

    screen_json_str(json, "status", status, sizeof(status));
    screen_json_num(json, "seconds", &seconds);
    screen_json_str(json, "note", note, sizeof(note));
    m->ended = true;
    bm_strlcpy(m->phase, "finished", sizeof(m->phase));
    m->progress[0] = '\0';
    snprintf(m->end_line, sizeof(m->end_line), "finished: %s, %llu error%s, %.0f s%s%s", status,
             (unsigned long long)errors, errors == 1 ? "" : "s", seconds, note[0] ? " - " : "", note);
}

/* Burn-in records carry "pass": a new pass starts its disk count again,
 * and the first pass's length is the measure of the ones still to come. */
static void on_pass(struct screen_model *m, const char *json, uint64_t now_ns)
{
    uint64_t pass = json_u64_or(json, "pass", 0);

    if (pass <= m->pass)
        return;
    if (m->pass == 1)
        m->pass1_ns = now_ns - m->pass_t0_ns;
    if (m->pass) {
        m->disk_results = 0;
        m->all_results = 0;
    }
    m->pass = (unsigned)pass;
    m->pass_t0_ns = now_ns;
}

void screen_model_record(struct screen_model *m, const char *type, const char *json, uint64_t now_ns)
{
    on_pass(m, json, now_ns);
    if (!strcmp(type, "run")) {
        char version[24], time[40];
        screen_json_str(json, "version", version, sizeof(version));
        screen_json_str(json, "time", time, sizeof(time));
        snprintf(m->version_time, sizeof(m->version_time), "baremark %s   %s", version, time);
    } else if (!strcmp(type, "system")) {
        on_system(m, json);
    } else if (!strcmp(type, "dimm_summary")) {
        on_dimm_summary(m, json);
    } else if (!strcmp(type, "dimm") || !strcmp(type, "spd")) {
        screen_model_memory_record(m, type, json);
    } else if (!strcmp(type, "disk")) {
        set_phase(m, "disks found", now_ns);
        on_disk(m, json);
    } else if (!strcmp(type, "disk_result")) {
        set_phase(m, "disks", now_ns);
        on_disk_result(m, json);
    } else if (!strncmp(type, "mem_", 4)) {
        set_phase(m, "memory", now_ns);
        if (!strcmp(type, "mem_latency"))
            on_mem_latency(m, json);
        else if (!strcmp(type, "mem_bandwidth"))
            on_mem_bandwidth(m, json);
        else
            screen_model_memory_record(m, type, json);
    } else if (!strcmp(type, "error") || !strcmp(type, "note")) {
        on_message(m, type, json);
    } else if (!strcmp(type, "finding")) {
        on_finding(m, json);
    } else if (!strcmp(type, "end")) {
        on_end(m, json);
    }
}

void screen_model_progress(struct screen_model *m, const char *text, uint64_t now_ns)
{
    if (!strncmp(text, "memory", 6))
        set_phase(m, "memory", now_ns);
    sink_screen_text(m->progress, sizeof(m->progress), text);
}

/* Free text (tables, pass markers): the last lines, in a quiet area. */
void screen_model_text(struct screen_model *m, const char *text)
{
    const char *p = text;

    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[160];
        if (len) {
            if (m->ntext == SCREEN_TEXT_LINES) {
                memmove(m->text[0], m->text[1], (SCREEN_TEXT_LINES - 1) * sizeof(m->text[0]));
                m->ntext--;
            }
            bm_strlcpy(line, p, MIN(len + 1, sizeof(line)));
            sink_screen_text(m->text[m->ntext++], sizeof(m->text[0]), line);
        }
        p = nl ? nl + 1 : NULL;
    }
}

/* "(k/n)" at the end of the memory engine's progress line. */
static bool progress_fraction(const char *s, double *done)
{
    const char *open = strrchr(s, '(');
    uint64_t k = 0, n = 0;
    char num[24];
    const char *slash;

    if (!open || !(slash = strchr(open, '/')) || slash - open - 1 <= 0 || slash - open - 1 >= (long)sizeof(num))
        return false;
    memcpy(num, open + 1, (size_t)(slash - open - 1));
    num[slash - open - 1] = '\0';
    if (!bm_parse_u64(num, &k))
        return false;
    bm_strlcpy(num, slash + 1, sizeof(num));
    if (strchr(num, ')'))
        *strchr(num, ')') = '\0';
    if (!bm_parse_u64(num, &n) || !n || k > n)
        return false;
    *done = (double)k / (double)n;
    return true;
}

double screen_model_seconds_left(const struct screen_model *m, const struct config *c, uint64_t now_ns)
{
    double left = 0, frac;
    unsigned all = m->ndisks - (find_disk((struct screen_model *)m, "all", false) != NULL);
    unsigned planned;

    if (m->ended || !c)
        return 0;
    planned = disk_plan_test_count(c, all, m->disks_writable, all);
    if (planned > m->disk_results + m->all_results)
        left += (planned - m->disk_results - m->all_results) * disk_plan_test_seconds(c);
    if (!strcmp(m->phase, "memory")) {
        /* The memory engine counts its steps: what is left at the pace so far. */
        if (!progress_fraction(m->progress, &frac) || frac <= 0)
            return -1;
        left += (double)(now_ns - m->phase_t0_ns) / 1e9 * (1 - frac) / frac;
    }
    /* Burn-in: the passes still to come, each as long as the first; with
     * duration= the run goes on until its time is up. */
    if (m->pass && c->passes > m->pass && !c->duration_s) {
        if (!m->pass1_ns)
            return -1;
        left += (double)(c->passes - m->pass) * (double)m->pass1_ns / 1e9;
    }
    if (c->duration_s) {
        double until = (double)c->duration_s - (double)(now_ns - m->t0_ns) / 1e9;
        left = MAX(left, until);
    }
    return left;
}
