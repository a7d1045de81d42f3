/* Inline SVG charts for the report: line charts (linear or log axes, with
 * marker lines for cache sizes or a link's ceiling), grouped bars and a
 * heat map. Series differ by dash pattern and marker shape as well as by
 * colour, so a black-and-white print still tells them apart. Every chart
 * carries data-chart (its kind) and data-points (points drawn), and every
 * point the class "pt", so tests count them in the DOM. */
#ifndef BAREMARK_HTML_SVG_H
#define BAREMARK_HTML_SVG_H

#include "html_data.h"
#include "html_out.h"

#define CHART_MAX_SERIES 8
#define CHART_W 640
#define CHART_H 300

enum chart_axis { AXIS_LINEAR, AXIS_LOG2, AXIS_LOG10 };
enum chart_xfmt { XFMT_NUM, XFMT_BYTES };

struct chart_series {
    const char *name;
    struct hd_point *pts;    /* sorted by x in place */
    unsigned n;
};

struct chart_mark {
    double at;
    const char *label;
};

struct chart {
    const char *kind;        /* data-chart */
    const char *title, *xlabel, *ylabel;
    enum chart_axis xaxis, yaxis;
    enum chart_xfmt xfmt;
    bool xzero;              /* linear x from 0, whole-number ticks (disk counts) */
    const char *const *xcats; /* categorical x: labels of x = 0, 1, ... */
    unsigned nxcats;
    struct chart_series series[CHART_MAX_SERIES];
    unsigned nseries;
    struct chart_mark vmarks[4], hmarks[2];
    unsigned nvmarks, nhmarks;
};

/* Points in all series (0: nothing worth drawing). */
unsigned chart_points(const struct chart *c);
void svg_line_chart(struct hout *o, struct chart *c);

struct bar_group {
    const char *label;
    double v[2];             /* <0: not measured */
};
/* Grouped bars: groups along x, two bars each (names[0] solid, names[1]
 * hatched). */
void svg_bar_chart(struct hout *o, const char *kind, const char *title, const char *ylabel, const char *names[2],
                   const struct bar_group *g, unsigned ng);
/* An n x n matrix as shaded cells with their values (v < 0: not measured). */
void svg_heat_map(struct hout *o, const char *kind, const char *title, const char *unit,
                  const double v[HD_MAX_NUMA][HD_MAX_NUMA], unsigned n);
/* A small min-median-max bar for a table cell. */
void svg_range(struct hout *o, double min, double median, double max);

#endif
