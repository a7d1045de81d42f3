/* Inline SVG charts (html_svg.h). Coordinates are in a fixed viewBox; the
 * page's CSS scales the picture down to the window or the printed page. */
#include "html_svg.h"

static const char *const colours[CHART_MAX_SERIES] = { "#1f4e9c", "#b22222", "#2e7d32", "#6a1b9a",
                                                       "#e65100", "#00838f", "#5d4037", "#455a64" };
static const char *const dashes[4] = { "", "7 4", "2 3", "9 3 2 3" };

#define PAD_L 66
#define PAD_R 18
#define PAD_T 30
#define PLOT_H 200
#define LEGEND_ROW 16

struct scale {
    enum chart_axis kind;
    double lo, hi, p0, p1;
    bool whole;              /* whole-number ticks */
};

static double sc_t(const struct scale *s, double v)
{
    if (s->kind == AXIS_LINEAR)
        return v;
    if (v <= 0)
        v = s->lo > 0 ? s->lo : 1e-9;
    return s->kind == AXIS_LOG2 ? hl_log2(v) : hl_log2(v) / 3.32192809488736234787;
}

static double sc_px(const struct scale *s, double v)
{
    double a = sc_t(s, s->lo), b = sc_t(s, s->hi);
    return s->p0 + (sc_t(s, v) - a) / (b - a) * (s->p1 - s->p0);
}

/* 1, 2 or 5 times a power of ten, at least x. */
static double nice_step(double x)
{
    double p = 1;

    if (!(x > 0) || x > 1e18)
        return 1;
    while (p * 10 <= x)
        p *= 10;
    while (p > x && p > 1e-12)
        p /= 10;
    if (p >= x)
        return p;
    if (2 * p >= x)
        return 2 * p;
    if (5 * p >= x)
        return 5 * p;
    return 10 * p;
}

/* The axis range covering lo..hi: linear from 0, log to whole powers. */
static void scale_fit(struct scale *s, double lo, double hi, bool from_zero)
{
    if (s->kind == AXIS_LINEAR) {
        double step, q;
        if (from_zero && lo > 0)
            lo = 0;
        if (hi <= lo)
            hi = lo + 1;
        step = nice_step((hi - lo) / 5);
        /* Whole steps below lo; past 2^53 every double is whole already, and
         * the cast would be undefined past int64_t. */
        q = lo / step - (lo < 0 ? 1 : 0);
        s->lo = from_zero ? lo : step * (q > -9e15 && q < 9e15 ? (double)(int64_t)q : q);
        s->hi = s->lo;
        for (int i = 0; s->hi < hi * 1.0001 && i < 64; i++)
            s->hi += step;
        if (s->hi < hi)
            s->hi = hi;
        return;
    }
    {
        double base = s->kind == AXIS_LOG2 ? 2 : 10;
        if (!(lo > 0))
            lo = hi > 0 ? hi / base : 1;
        if (!(hi > lo))
            hi = lo * base;
        s->lo = 1;
        for (int i = 0; s->lo > lo && i < 128; i++)
            s->lo /= base;
        for (int i = 0; s->lo * base <= lo && i < 128; i++)
            s->lo *= base;
        s->hi = s->lo;
        for (int i = 0; s->hi < hi && i < 128; i++)
            s->hi *= base;
    }
}

static void tick_label(char *b, size_t cap, double v, enum chart_xfmt f)
{
    if (f == XFMT_BYTES)
        fmt_bytes(b, cap, v);
    else
        fmt_num(b, cap, v);
}

/* Tick values of an axis (at most cap). */
static unsigned ticks(const struct scale *s, double *t, unsigned cap)
{
    unsigned n = 0;

    if (s->kind == AXIS_LINEAR) {
        double step = nice_step((s->hi - s->lo) / 5);
        if (s->whole && step < 1)
            step = 1;
        for (double v = s->lo; v <= s->hi * 1.0001 + 1e-12 && n < cap; v += step)
            t[n++] = v;
        return n;
    }
    {
        double base = s->kind == AXIS_LOG2 ? 2 : 10;
        int k = 0, every = 1, i = 0;
        for (double v = s->lo; v <= s->hi * 1.0001; v *= base)
            k++;
        while (k / every > 9)
            every++;
        for (double v = s->lo; v <= s->hi * 1.0001 && n < cap; v *= base, i++)
            if (i % every == 0)
                t[n++] = v;
    }
    return n;
}

static double clamp_axis(double v, enum chart_axis kind)
{
    double lo = kind == AXIS_LINEAR ? -1e15 : 1e-9;
    return v < lo ? lo : v > 1e15 ? 1e15 : v;
}

unsigned chart_points(const struct chart *c)
{
    unsigned n = 0;
    for (unsigned i = 0; i < c->nseries; i++)
        n += c->series[i].n;
    return n;
}

static int cmp_x(const void *a, const void *b)
{
    double x = ((const struct hd_point *)a)->x, y = ((const struct hd_point *)b)->x;
    return x < y ? -1 : x > y;
}

static void marker(struct hout *o, unsigned i, double x, double y)
{
    const char *fill = i < 4 ? colours[i] : "#fff";

    switch (i % 4) {
    case 0:
        ho_fmt(o, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.6\"", x, y);
        break;
    case 1:
        ho_fmt(o, "<rect class=\"pt\" x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\"", x - 3.5, y - 3.5);
        break;
    case 2:
        ho_fmt(o, "<polygon class=\"pt\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"", x, y - 4.5, x + 4.5, y + 3.5,
               x - 4.5, y + 3.5);
        break;
    default:
        ho_fmt(o, "<polygon class=\"pt\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"", x, y - 5, x + 5, y, x,
               y + 5, x - 5, y);
    }
    ho_fmt(o, " fill=\"%s\" stroke=\"%s\" data-series=\"%u\">", fill, colours[i], i);
}

static void axes(struct hout *o, const struct chart *c, const struct scale *sx, const struct scale *sy)
{
    double t[64];
    unsigned n;
    char b[32];
    double bottom = sy->p0, right = sx->p1;

    ho_fmt(o, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>", PAD_L, PAD_T,
           right - PAD_L, PLOT_H);
    n = ticks(sy, t, 64);
    for (unsigned i = 0; i < n; i++) {
        double y = sc_px(sy, t[i]);
        fmt_num(b, sizeof(b), t[i]);
        ho_fmt(o, "<line x1=\"%d\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", PAD_L, right, y, y);
        ho_fmt(o, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", PAD_L - 4, y + 4, b);
    }
    if (c->xcats) {
        for (unsigned i = 0; i < c->nxcats; i++) {
            ho_fmt(o, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">", sc_px(sx, i), bottom + 15);
            ho_text(o, c->xcats[i]);
            ho_raw(o, "</text>");
        }
    } else {
        n = ticks(sx, t, 64);
        for (unsigned i = 0; i < n; i++) {
            double x = sc_px(sx, t[i]);
            tick_label(b, sizeof(b), t[i], c->xfmt);
            ho_fmt(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.0f\" stroke=\"#eee\"/>", x, x, PAD_T, bottom);
            ho_fmt(o, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>", x, bottom + 15, b);
        }
    }
    ho_fmt(o, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">", (PAD_L + right) / 2, bottom + 31);
    ho_text(o, c->xlabel);
    ho_fmt(o, "</text><text transform=\"translate(14 %.0f) rotate(-90)\" text-anchor=\"middle\">",
           PAD_T + PLOT_H / 2.0);
    ho_text(o, c->ylabel);
    ho_raw(o, "</text>");
}

static void marks(struct hout *o, const struct chart *c, const struct scale *sx, const struct scale *sy)
{
    for (unsigned i = 0; i < c->nvmarks; i++) {
        double at = c->vmarks[i].at, x;
        if (!(at >= sx->lo && at <= sx->hi))
            continue;
        x = sc_px(sx, at);
        ho_fmt(o, "<line class=\"vmark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.0f\" stroke=\"#777\" "
                  "stroke-dasharray=\"3 3\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
               x, x, PAD_T, sy->p0, x, PAD_T - 4);
        ho_text(o, c->vmarks[i].label);
        ho_raw(o, "</text>");
    }
    for (unsigned i = 0; i < c->nhmarks; i++) {
        double y = sc_px(sy, c->hmarks[i].at);
        ho_fmt(o, "<line class=\"hmark\" x1=\"%d\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
                  "stroke-width=\"2\" stroke-dasharray=\"10 4\"/><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">",
               PAD_L, sx->p1, y, y, sx->p1 - 4, y - 5);
        ho_text(o, c->hmarks[i].label);
        ho_raw(o, "</text>");
    }
}

static void series(struct hout *o, const struct chart *c, unsigned i, const struct scale *sx, const struct scale *sy)
{
    const struct chart_series *s = &c->series[i];
    char bx[32], by[32];

    ho_fmt(o, "<g class=\"series\" data-name=\"");
    ho_text(o, s->name);
    ho_fmt(o, "\" data-points=\"%u\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"", s->n, colours[i]);
    if (dashes[i % 4][0])
        ho_fmt(o, " stroke-dasharray=\"%s\"", dashes[i % 4]);
    ho_raw(o, " points=\"");
    for (unsigned k = 0; k < s->n; k++)
        ho_fmt(o, "%.1f,%.1f ", sc_px(sx, s->pts[k].x), sc_px(sy, s->pts[k].y));
    ho_raw(o, "\"/>");
    for (unsigned k = 0; k < s->n; k++) {
        marker(o, i, sc_px(sx, s->pts[k].x), sc_px(sy, s->pts[k].y));
        if (c->xcats && s->pts[k].x >= 0 && s->pts[k].x < c->nxcats)
            bm_strlcpy(bx, c->xcats[(unsigned)s->pts[k].x], sizeof(bx));
        else
            tick_label(bx, sizeof(bx), s->pts[k].x, c->xfmt);
        fmt_num(by, sizeof(by), s->pts[k].y);
        ho_raw(o, "<title>");
        ho_text(o, s->name);
        ho_fmt(o, ": %s, %s</title></%s>", bx, by, i % 4 == 0 ? "circle" : i % 4 == 1 ? "rect" : "polygon");
    }
    ho_raw(o, "</g>");
}

/* The legend under the plot; returns the rows it took. */
static unsigned legend(struct hout *o, const struct chart *c, double top, bool draw)
{
    double x = PAD_L;
    unsigned row = 0;

    for (unsigned i = 0; i < c->nseries; i++) {
        double w = 34 + 6.2 * (double)strlen(c->series[i].name) + 14;
        double y;
        if (x + w > CHART_W - PAD_R && x > PAD_L) {
            x = PAD_L;
            row++;
        }
        y = top + row * LEGEND_ROW;
        if (draw) {
            ho_fmt(o, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"1.8\"",
                   x, x + 26, y - 4, y - 4, colours[i]);
            if (dashes[i % 4][0])
                ho_fmt(o, " stroke-dasharray=\"%s\"", dashes[i % 4]);
            ho_raw(o, "/>");
            ho_fmt(o, "<g class=\"key\">");
            marker(o, i, x + 13, y - 4);
            ho_fmt(o, "</%s></g><text x=\"%.0f\" y=\"%.0f\">", i % 4 == 0 ? "circle" : i % 4 == 1 ? "rect" : "polygon",
                   x + 32, y);
            ho_text(o, c->series[i].name);
            ho_raw(o, "</text>");
        }
        x += w;
    }
    return c->nseries ? row + 1 : 0;
}

static void svg_open(struct hout *o, const char *kind, const char *title, unsigned points, unsigned h)
{
    ho_fmt(o, "<figure><svg class=\"chart\" data-chart=\"%s\" data-points=\"%u\" xmlns=\"http://www.w3.org/2000/svg\" "
              "viewBox=\"0 0 %d %u\" width=\"%d\" height=\"%u\" role=\"img\" aria-label=\"",
           kind, points, CHART_W, h, CHART_W, h);
    ho_text(o, title);
    ho_fmt(o, "\"><text class=\"ct\" x=\"%d\" y=\"18\">", CHART_W / 2);
    ho_text(o, title);
    ho_raw(o, "</text>");
}

static void svg_close(struct hout *o)
{
    ho_raw(o, "</svg></figure>\n");
}

void svg_line_chart(struct hout *o, struct chart *c)
{
    struct scale sx = { c->xaxis, 0, 0, PAD_L + 8, CHART_W - PAD_R - 8, c->xzero };
    struct scale sy = { c->yaxis, 0, 0, PAD_T + PLOT_H, PAD_T };
    double xlo = 1e300, xhi = -1e300, ylo = 1e300, yhi = -1e300;
    unsigned rows, h;

    for (unsigned i = 0; i < c->nseries; i++) {
        qsort(c->series[i].pts, c->series[i].n, sizeof(struct hd_point), cmp_x);
        for (unsigned k = 0; k < c->series[i].n; k++) {
            const struct hd_point *p = &c->series[i].pts[k];
            xlo = p->x < xlo ? p->x : xlo;
            xhi = p->x > xhi ? p->x : xhi;
            ylo = p->y < ylo ? p->y : ylo;
            yhi = p->y > yhi ? p->y : yhi;
        }
    }
    /* Records are measurements, but a hostile or broken file must not make
     * an axis endless: keep the range to what a chart can show. */
    xlo = clamp_axis(xlo, c->xaxis), xhi = clamp_axis(xhi, c->xaxis);
    ylo = clamp_axis(ylo, c->yaxis), yhi = clamp_axis(yhi, c->yaxis);
    for (unsigned i = 0; i < c->nhmarks; i++) {
        ylo = c->hmarks[i].at < ylo ? c->hmarks[i].at : ylo;
        yhi = c->hmarks[i].at > yhi ? c->hmarks[i].at : yhi;
    }
    if (c->xcats) {
        sx.lo = -0.5;
        sx.hi = c->nxcats - 0.5;
    } else {
        scale_fit(&sx, xlo, xhi, false);
        if (c->xaxis == AXIS_LINEAR && c->xzero) {
            sx.lo = 0;
            sx.hi = xhi + 1;
        } else if (c->xaxis == AXIS_LINEAR) {
            sx.lo = xlo;
            sx.hi = xhi > xlo ? xhi : xlo + 1;
        }
    }
    scale_fit(&sy, ylo, yhi * 1.05, true);
    rows = legend(o, c, 0, false);
    h = PAD_T + PLOT_H + 40 + rows * LEGEND_ROW + 4;
    svg_open(o, c->kind, c->title, chart_points(c), h);
    axes(o, c, &sx, &sy);
    marks(o, c, &sx, &sy);
    for (unsigned i = 0; i < c->nseries; i++)
        series(o, c, i, &sx, &sy);
    legend(o, c, PAD_T + PLOT_H + 52, true);
    svg_close(o);
}

void svg_bar_chart(struct hout *o, const char *kind, const char *title, const char *ylabel, const char *names[2],
                   const struct bar_group *g, unsigned ng)
{
    struct chart c = { 0 };
    struct scale sx = { AXIS_LINEAR, -0.5, ng - 0.5, PAD_L, CHART_W - PAD_R };
    struct scale sy = { AXIS_LINEAR, 0, 0, PAD_T + PLOT_H, PAD_T };
    double hi = 0, gw = (sx.p1 - sx.p0) / (ng ? ng : 1);
    unsigned bars = 0;
    const char *cats[8];

    for (unsigned i = 0; i < ng && i < 8; i++) {
        cats[i] = g[i].label;
        for (int k = 0; k < 2; k++) {
            hi = g[i].v[k] > hi ? g[i].v[k] : hi;
            bars += g[i].v[k] >= 0;
        }
    }
    c.xcats = cats;
    c.nxcats = ng < 8 ? ng : 8;
    c.xlabel = "";
    c.ylabel = ylabel;
    scale_fit(&sy, 0, hi * 1.1, true);
    svg_open(o, kind, title, bars, PAD_T + PLOT_H + 52);
    ho_raw(o, "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
              "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fff\"/>"
              "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b22222\" stroke-width=\"3\"/></pattern></defs>");
    axes(o, &c, &sx, &sy);
    for (unsigned i = 0; i < c.nxcats; i++) {
        for (int k = 0; k < 2; k++) {
            double x = sx.p0 + gw * i + gw * (0.15 + 0.35 * k), top;
            char b[32];
            if (g[i].v[k] < 0)
                continue;
            top = sc_px(&sy, g[i].v[k]);
            fmt_num(b, sizeof(b), g[i].v[k]);
            ho_fmt(o, "<rect class=\"pt bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                      "stroke=\"#000\"><title>%s: %s</title></rect>",
                   x, top, gw * 0.33, sy.p0 - top, k ? "url(#hatch)" : "#1f4e9c", names[k], b);
            ho_fmt(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", x + gw * 0.165, top - 3, b);
        }
    }
    for (int k = 0; k < 2; k++) {
        double x = PAD_L + 180.0 * k;
        ho_fmt(o, "<rect x=\"%.0f\" y=\"%d\" width=\"14\" height=\"10\" fill=\"%s\" stroke=\"#000\"/>"
                  "<text x=\"%.0f\" y=\"%d\">%s</text>",
               x, PAD_T + PLOT_H + 30, k ? "url(#hatch)" : "#1f4e9c", x + 20, PAD_T + PLOT_H + 39, names[k]);
    }
    svg_close(o);
}

void svg_heat_map(struct hout *o, const char *kind, const char *title, const char *unit,
                  const double v[HD_MAX_NUMA][HD_MAX_NUMA], unsigned n)
{
    double lo = 1e300, hi = -1e300, cell = n ? 320.0 / n : 0;
    unsigned cells = 0;
    char b[32];

    for (unsigned i = 0; i < n; i++)
        for (unsigned k = 0; k < n; k++)
            if (v[i][k] >= 0) {
                lo = v[i][k] < lo ? v[i][k] : lo;
                hi = v[i][k] > hi ? v[i][k] : hi;
                cells++;
            }
    svg_open(o, kind, title, cells, 410);
    ho_fmt(o, "<text x=\"%d\" y=\"44\" text-anchor=\"middle\">memory node (%s)</text>", 160 + 120, unit);
    ho_raw(o, "<text transform=\"translate(40 220) rotate(-90)\" text-anchor=\"middle\">CPU node</text>");
    for (unsigned i = 0; i < n; i++) {
        ho_fmt(o, "<text x=\"%.0f\" y=\"62\" text-anchor=\"middle\">%u</text>", 120 + cell * (i + 0.5), i);
        ho_fmt(o, "<text x=\"108\" y=\"%.0f\" text-anchor=\"end\">%u</text>", 70 + cell * (i + 0.5) + 4, i);
        for (unsigned k = 0; k < n; k++) {
            double f = hi > lo ? (v[i][k] - lo) / (hi - lo) : 0;
            unsigned grey = f > 0 ? (f < 1 ? (unsigned)(235 - 175 * f) : 60) : 235;
            if (v[i][k] < 0)
                continue;
            fmt_num(b, sizeof(b), v[i][k]);
            ho_fmt(o, "<rect class=\"pt cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                      "fill=\"rgb(%u,%u,%u)\" stroke=\"#fff\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                      "fill=\"%s\">%s</text>",
                   120 + cell * k, 70 + cell * i, cell, cell, grey, grey, grey + (grey < 235 ? 20 : 0),
                   120 + cell * (k + 0.5), 70 + cell * (i + 0.5) + 4, f > 0.55 ? "#fff" : "#000", b);
        }
    }
    svg_close(o);
}

void svg_range(struct hout *o, double min, double median, double max)
{
    double span = max > 0 ? max : 1;
    double x0 = 4 + 112 * (min / span), xm = 4 + 112 * (median / span);

    ho_fmt(o, "<svg class=\"range\" width=\"120\" height=\"14\" viewBox=\"0 0 120 14\">"
              "<line x1=\"4\" x2=\"116\" y1=\"7\" y2=\"7\" stroke=\"#ccc\"/>"
              "<line x1=\"%.1f\" x2=\"116\" y1=\"7\" y2=\"7\" stroke=\"#000\" stroke-width=\"3\"/>"
              "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"1\" y2=\"13\" stroke=\"#b22222\" stroke-width=\"2\"/></svg>",
           x0, xm, xm);
}
