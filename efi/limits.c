/* Limits: parsing and matching. */
#include "limits.h"
#include "platform.h"

bool limits_match(const char *pattern, const char *name)
{
    size_t n = strlen(pattern);

    if (!name || !*name)
        return false;
    if (!strcmp(pattern, "*"))
        return true;
    if (n > 0 && pattern[n - 1] == '*')
        return !strncmp(pattern, name, n - 1);
    return !strcmp(pattern, name);
}

/* Positive decimal with an optional fraction ("1500", "0.5"). */
static bool parse_number(const char *s, double *out)
{
    double v = 0, scale = 1;
    bool digits = false, dot = false;

    for (; *s; s++) {
        if (*s >= '0' && *s <= '9') {
            digits = true;
            if (dot) {
                scale /= 10;
                v += (*s - '0') * scale;
            } else {
                v = v * 10 + (*s - '0');
            }
        } else if (*s == '.' && !dot) {
            dot = true;
        } else {
            return false;
        }
    }
    if (!digits || v <= 0)
        return false;
    *out = v;
    return true;
}

/* The limit for subject+test, created if new. */
static struct limit *limit_slot(struct limit_set *ls, const char *subject, const char *test)
{
    for (unsigned i = 0; i < ls->count; i++)
        if (!strcmp(ls->items[i].subject, subject) && !strcmp(ls->items[i].test, test))
            return &ls->items[i];
    if (ls->count >= LIMITS_MAX)
        return NULL;
    struct limit *l = &ls->items[ls->count++];
    memset(l, 0, sizeof(*l));
    bm_strlcpy(l->subject, subject, sizeof(l->subject));
    bm_strlcpy(l->test, test, sizeof(l->test));
    return l;
}

static int set_bound(struct limit *l, const char *key, double v)
{
    if (!strcmp(key, "min_mbps"))
        l->min_mbps = v;
    else if (!strcmp(key, "min_iops"))
        l->min_iops = v;
    else if (!strcmp(key, "max_lat_us"))
        l->max_lat_us = v;
    else
        return BM_EINVAL;
    return BM_OK;
}

int limits_parse_option(struct limit_set *ls, const char *key, const char *value)
{
    char buf[256];
    char *p = buf;
    struct limit_set tmp = *ls;

    if (!*value || strlen(value) >= sizeof(buf))
        return BM_EINVAL;
    bm_strlcpy(buf, value, sizeof(buf));
    while (p) {
        char *comma = strchr(p, ',');
        char *colon;
        const char *test = "*";
        double v;
        struct limit *l;

        if (comma)
            *comma = '\0';
        colon = strrchr(p, ':');
        if (colon) {
            *colon = '\0';
            test = p;
            p = colon + 1;
            if (!*test || strlen(test) >= sizeof(l->test))
                return BM_EINVAL;
        }
        if (!parse_number(p, &v))
            return BM_EINVAL;
        l = limit_slot(&tmp, "*", test);
        if (!l || set_bound(l, key, v) != BM_OK)
            return BM_EINVAL;
        p = comma ? comma + 1 : NULL;
    }
    *ls = tmp;
    return BM_OK;
}

int limits_parse_file(struct limit_set *ls, const char *text, char *err, size_t errlen)
{
    return limits_parse_named(ls, "limits.cfg", text, err, errlen);
}

int limits_parse_named(struct limit_set *ls, const char *name, const char *text, char *err, size_t errlen)
{
    unsigned lineno = 0;

    while (*text) {
        char line[256], *words[8], *hash, *p;
        const char *end = strchr(text, '\n');
        size_t n = end ? (size_t)(end - text) : strlen(text);
        unsigned nw = 0;
        struct limit *l;

        lineno++;
        if (n >= sizeof(line)) {
            snprintf(err, errlen, "%s line %u: line too long", name, lineno);
            return BM_EINVAL;
        }
        memcpy(line, text, n);
        line[n] = '\0';
        text = end ? end + 1 : text + n;
        hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        for (p = line; *p && nw < ARRAY_SIZE(words);) {
            while (*p == ' ' || *p == '\t' || *p == '\r')
                *p++ = '\0';
            if (!*p)
                break;
            words[nw++] = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '\r')
                p++;
        }
        if (nw == 0)
            continue;
        if (nw < 3) {
            snprintf(err, errlen, "%s line %u: expected 'DISK TEST key=value...' (DISK and TEST may be *)",
                     name, lineno);
            return BM_EINVAL;
        }
        if (strlen(words[0]) >= sizeof(l->subject) || strlen(words[1]) >= sizeof(l->test) ||
            !(l = limit_slot(ls, words[0], words[1]))) {
            snprintf(err, errlen, "%s line %u: too many limits or names too long", name, lineno);
            return BM_EINVAL;
        }
        for (unsigned i = 2; i < nw; i++) {
            char *eq = strchr(words[i], '=');
            double v;
            if (!eq) {
                snprintf(err, errlen, "%s line %u: '%s' is not key=value", name, lineno, words[i]);
                return BM_EINVAL;
            }
            *eq = '\0';
            if (!parse_number(eq + 1, &v) || set_bound(l, words[i], v) != BM_OK) {
                snprintf(err, errlen,
                         "%s line %u: bad limit '%s=%s': expected min_mbps, min_iops or max_lat_us with a "
                         "positive number",
                         name, lineno, words[i], eq + 1);
                return BM_EINVAL;
            }
        }
    }
    return BM_OK;
}
