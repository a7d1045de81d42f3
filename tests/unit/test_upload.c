#define _GNU_SOURCE
/* upload=: the URL rules, the PUT head, the status line, and whole uploads
 * against a real socket server on 127.0.0.1 (the host platform's
 * plat_tcp_exchange is plain sockets): exact bytes, HTTP status in the
 * upload record, a server that is down or refuses gives an error record
 * within upload_timeout=. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config.h"
#include "http.h"
#include "platform.h"
#include "record.h"
#include "upload.h"
#include "cfg_files.h"
#include "run_ident.h"

static void test_url_rules(void **state)
{
    struct http_url u;

    (void)state;
    assert_int_equal(http_url_parse("http://10.0.2.2:8080/rack/results/", &u), BM_OK);
    assert_int_equal(u.ip[0], 10);
    assert_int_equal(u.ip[3], 2);
    assert_int_equal(u.port, 8080);
    assert_string_equal(u.path, "/rack/results");
    assert_int_equal(http_url_parse("http://192.168.1.5", &u), BM_OK);
    assert_int_equal(u.port, 80);
    assert_string_equal(u.path, "/");
    assert_int_equal(http_url_parse("https://10.0.0.1/", &u), BM_EINVAL);
    assert_int_equal(http_url_parse("http://results.example/", &u), BM_EINVAL); /* no DNS */
    assert_int_equal(http_url_parse("http://10.0.0.1:0/", &u), BM_EINVAL);
    assert_int_equal(http_url_parse("http://10.0.0.1:65536/", &u), BM_EINVAL);
    assert_int_equal(http_url_parse("http://10.0.0.1:/", &u), BM_EINVAL);
    assert_int_equal(http_url_parse("http://10.0.0.1/a b", &u), BM_EINVAL);
    assert_int_equal(http_url_parse("http://10.0.0.1/a?x=1", &u), BM_EINVAL);
    assert_int_equal(http_url_parse("http://10.0.0.1/a%2", &u), BM_EINVAL);
    assert_int_equal(http_url_parse("http://user@10.0.0.1/", &u), BM_EINVAL);
}

static void test_put_head_and_status_line(void **state)
{
    struct http_url u;
    char head[512];
    size_t n;

    (void)state;
    assert_int_equal(http_url_parse("http://10.0.2.2:8080/up", &u), BM_OK);
    n = http_put_head(head, sizeof(head), &u, "20261201-120000-S 1.jsonl", 1234, NULL);
    assert_true(n > 0 && n == strlen(head));
    assert_non_null(strstr(head, "PUT /up/20261201-120000-S%201.jsonl HTTP/1.1\r\n"));
    assert_non_null(strstr(head, "\r\nHost: 10.0.2.2:8080\r\n"));
    assert_non_null(strstr(head, "\r\nContent-Length: 1234\r\n"));
    assert_true(n >= 4 && !memcmp(head + n - 4, "\r\n\r\n", 4));
    assert_int_equal(http_put_head(head, 40, &u, "x", 1, NULL), 0);
    n = http_put_head(head, sizeof(head), &u, "x", 1, "Authorization: Bearer abc\r\n");
    assert_non_null(strstr(head, "\r\nAuthorization: Bearer abc\r\n\r\n"));
    assert_true(http_bearer_token_ok("rack-7.A_b~c+d/e==", 128));
    assert_false(http_bearer_token_ok("", 128));
    assert_false(http_bearer_token_ok("a b", 128));
    assert_false(http_bearer_token_ok("ab\r\nX-Evil: 1", 128));
    assert_false(http_bearer_token_ok("a=b", 128));
    assert_false(http_bearer_token_ok("abcd", 3));
    assert_int_equal(http_response_status("HTTP/1.1 201 Created\r\n\r\n", 25), 201);
    assert_int_equal(http_response_status("HTTP/1.0 204\r\n", 14), 204);
    assert_int_equal(http_response_status("HTTP/1.1 20", 11), BM_EBUSY);
    assert_int_equal(http_response_status("HTP/1.1 200 OK\r\n", 16), BM_EINVAL);
    assert_int_equal(http_response_status("HTTP/1.1 2x0 OK\r\n", 17), BM_EINVAL);
    assert_int_equal(http_response_status("HTTP/1.1 099 OK\r\n", 17), BM_EINVAL);
    assert_int_equal(http_response_status("HTTP/1.1 2000 OK\r\n", 18), BM_EINVAL);
    assert_true(http_head_complete("HTTP/1.1 200 OK\r\n\r\n", 19));
    assert_false(http_head_complete("HTTP/1.1 200 OK\r\n", 17));
    assert_int_equal(upload_backoff_ms(1), 500);
    assert_int_equal(upload_backoff_ms(3), 2000);
    assert_int_equal(upload_backoff_ms(20), 8000);
}

/* ---- A server on 127.0.0.1 --------------------------------------------- */

static struct {
    int listen_fd;
    uint16_t port;
    const char *answer;      /* the response to send */
    char got[65536];         /* what the last request held */
    size_t got_len;
    unsigned requests;
} srv;

static void *serve(void *arg)
{
    (void)arg;
    for (;;) {
        int fd = accept(srv.listen_fd, NULL, NULL);
        ssize_t r;
        if (fd < 0)
            return NULL;
        srv.got_len = 0;
        /* read until the client shuts down or the Content-Length is in */
        while ((r = recv(fd, srv.got + srv.got_len, sizeof(srv.got) - srv.got_len, 0)) > 0) {
            char *hend, *cl;
            srv.got_len += (size_t)r;
            hend = memmem(srv.got, srv.got_len, "\r\n\r\n", 4);
            cl = hend ? memmem(srv.got, (size_t)(hend - srv.got), "Content-Length: ", 16) : NULL;
            if (cl && srv.got_len >= (size_t)(hend + 4 - srv.got) + strtoul(cl + 16, NULL, 10))
                break;
        }
        srv.requests++;
        send(fd, srv.answer, strlen(srv.answer), 0);
        close(fd);
    }
}

static void start_server(const char *answer)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t l = sizeof(sa);
    pthread_t t;

    srv.answer = answer;
    srv.requests = 0;
    srv.listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(bind(srv.listen_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(srv.listen_fd, 4), 0);
    getsockname(srv.listen_fd, (struct sockaddr *)&sa, &l);
    srv.port = ntohs(sa.sin_port);
    pthread_create(&t, NULL, serve, NULL);
    pthread_detach(t);
}

/* Records the upload and error records, and every record's text. */
static char last_upload[1024], last_error[1024], all_text[65536];

static void keep(struct sink *s, const char *type, const char *json, const char *human)
{
    size_t n = strlen(all_text);

    (void)s;
    snprintf(all_text + n, sizeof(all_text) - n, "%s\n%s\n", json, human ? human : "");
    if (!strcmp(type, "upload"))
        snprintf(last_upload, sizeof(last_upload), "%s", json);
    if (!strcmp(type, "error"))
        snprintf(last_error, sizeof(last_error), "%s", json);
}

static struct sink keeper = { "keeper", keep, NULL, NULL, NULL, NULL };

static void emit_some(void)
{
    static struct record r;

    for (int i = 0; i < 3; i++) {
        record_begin(&r, "note");
        json_str(&r.j, "where", "test");
        json_u64(&r.j, "i", (uint64_t)i);
        record_emit(&r, NULL);
    }
}

/* The identity of a machine with serial S1, no MAC, a fixed run id. */
static struct run_ident test_ident(void)
{
    static const uint64_t entropy[2] = { 1, 2 };
    struct run_ident id;

    run_ident_make(&id, entropy, "rdrand", "", "S1", NULL, NULL);
    return id;
}

/* upload= from args, the sinks a run has, three records collected. */
static void begin_upload(const char *args, const char *name)
{
    static struct config c;
    struct run_ident id = test_ident();
    char err[CONFIG_ERR_LEN];

    (void)name;
    config_defaults(&c);
    assert_int_equal(config_parse_args(&c, args, err, sizeof(err)), BM_OK);
    sinks_reset();
    sinks_add(&keeper);
    sinks_add(upload_begin(&c, NULL, "20261201-120000-S1.jsonl", &id, "20261201-120000"));
    emit_some();
    last_upload[0] = last_error[0] = all_text[0] = '\0';
}

static void test_upload_sends_exactly_the_results_lines(void **state)
{
    char url[64];
    const char *body;

    (void)state;
    start_server("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
    snprintf(url, sizeof(url), "x upload=http://127.0.0.1:%u/rack", srv.port);
    begin_upload(url, "20261201-120000-S1.jsonl");
    assert_int_equal(upload_now(UPLOAD_FINAL, 0), BM_OK);
    assert_int_equal(srv.requests, 1);
    {
        char want[200];
        struct run_ident id = test_ident();
        snprintf(want, sizeof(want), "PUT /rack/20261201-120000-S1-nomac-%s.final.jsonl HTTP/1.1\r\n", id.run_id);
        assert_non_null(strstr(srv.got, want));
    }
    assert_null(strstr(srv.got, "Authorization:"));     /* no token set: none sent */
    body = strstr(srv.got, "\r\n\r\n") + 4;
    assert_string_equal(body, "{\"type\":\"note\",\"where\":\"test\",\"i\":0}\n"
                              "{\"type\":\"note\",\"where\":\"test\",\"i\":1}\n"
                              "{\"type\":\"note\",\"where\":\"test\",\"i\":2}\n");
    assert_non_null(strstr(last_upload, "\"status\":201"));
    assert_non_null(strstr(last_upload, "\"ok\":true"));
    assert_string_equal(last_error, "");
    sinks_close();
    close(srv.listen_fd);
}

static void test_refused_upload_is_an_error_and_not_retried(void **state)
{
    char url[64];

    (void)state;
    start_server("HTTP/1.1 405 Not Allowed\r\n\r\n");
    snprintf(url, sizeof(url), "x upload=http://127.0.0.1:%u/", srv.port);
    begin_upload(url, "r.jsonl");
    assert_int_equal(upload_now(UPLOAD_FINAL, 0), BM_EIO);
    assert_int_equal(srv.requests, 1);
    assert_non_null(strstr(last_upload, "\"status\":405"));
    assert_non_null(strstr(last_error, "HTTP 405"));
    sinks_close();
    close(srv.listen_fd);
}

static void test_server_down_gives_up_within_the_timeout(void **state)
{
    uint64_t t0;

    (void)state;
    /* port 9 (discard) on loopback: nothing listens, connect is refused */
    begin_upload("x upload=http://127.0.0.1:9/ upload_timeout=2", "r.jsonl");
    t0 = plat_now_ns();
    assert_int_not_equal(upload_now(UPLOAD_FINAL, 0), BM_OK);
    assert_true(plat_now_ns() - t0 < 3000000000ull);
    assert_non_null(strstr(last_upload, "\"ok\":false"));
    assert_non_null(strstr(last_upload, "refused"));
    assert_non_null(strstr(last_upload, "\"attempts\":3"));
    assert_non_null(strstr(last_error, "local copies are kept"));
    sinks_close();
}

static void test_bad_upload_options_are_refused(void **state)
{
    static struct config c;
    char err[CONFIG_ERR_LEN];

    (void)state;
    config_defaults(&c);
    assert_int_equal(c.upload_timeout_s, 30);
    assert_int_equal(config_parse_args(&c, "x upload=ftp://10.0.0.1/", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "upload"));
    assert_int_equal(config_parse_args(&c, "x upload_timeout=0", err, sizeof(err)), BM_EINVAL);
    assert_int_equal(config_parse_args(&c, "x upload=http://10.0.0.1/ upload=off", err, sizeof(err)), BM_OK);
    assert_string_equal(c.upload, "");
}

/* started, pass<N>, final: one name each, so a collector keeps the latest
 * per run id and a retried one replaces itself. */
static void test_each_stage_has_its_own_name_and_header(void **state)
{
    char url[80], want[200];
    struct run_ident id = test_ident();
    static const char *const stages[] = { "started", "pass2", "final" };

    (void)state;
    start_server("HTTP/1.1 204 No Content\r\n\r\n");
    snprintf(url, sizeof(url), "x upload=http://127.0.0.1:%u/rack", srv.port);
    begin_upload(url, NULL);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(upload_now(i == 0 ? UPLOAD_STARTED : i == 1 ? UPLOAD_PASS : UPLOAD_FINAL, 2), BM_OK);
        snprintf(want, sizeof(want), "PUT /rack/20261201-120000-S1-nomac-%s.%s.jsonl HTTP/1.1\r\n", id.run_id,
                 stages[i]);
        assert_non_null(strstr(srv.got, want));
        snprintf(want, sizeof(want), "\r\nX-Baremark-Run-Id: %s\r\nX-Baremark-Stage: %s\r\n", id.run_id, stages[i]);
        assert_non_null(strstr(srv.got, want));
        snprintf(want, sizeof(want), "\"stage\":\"%s\"", stages[i]);
        assert_non_null(strstr(last_upload, want));
    }
    assert_int_equal(srv.requests, 3);
    sinks_close();
    close(srv.listen_fd);
}

#define TOKEN "rk7-Zq9_secret~token+/=="

/* A served file holding the token: the bytes a test greps for. */
static long token_cfg_read(const char *path, char *buf, size_t cap)
{
    static const char text[] = "mem=off\nupload_token = " TOKEN "\n";

    if (strcmp(path, "\\baremark\\baremark.cfg"))
        return BM_ENODEV;
    assert_true(cap > sizeof(text));
    memcpy(buf, text, sizeof(text) - 1);
    return (long)sizeof(text) - 1;
}

/* upload_token=: in the Authorization header of every upload, and in no
 * record (the run record's options, the upload records), no human line
 * and no error message. */
static void test_token_is_sent_as_bearer_and_shown_nowhere(void **state)
{
    static struct config c;
    static struct cfg_load_log log;
    struct machine_ident mid = { 0 };
    struct run_ident id = test_ident();
    char args[160], err[CONFIG_ERR_LEN];

    (void)state;
    start_server("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
    snprintf(args, sizeof(args), "baremark.efi upload=http://127.0.0.1:%u/r upload_token=" TOKEN " time=3", srv.port);
    assert_int_equal(cfg_load_options(&c, &mid, args, token_cfg_read, &log, err, sizeof(err)), BM_OK);
    assert_string_equal(c.upload_token, TOKEN);
    /* what the run record shows of the options */
    assert_null(strstr(c.args, TOKEN));
    assert_null(strstr(c.file_args, TOKEN));
    assert_non_null(strstr(c.args, "upload_token=" CONFIG_HIDDEN " time=3"));
    assert_string_equal(c.file_args, "mem=off upload_token=" CONFIG_HIDDEN);
    sinks_reset();
    sinks_add(&keeper);
    sinks_add(upload_begin(&c, NULL, "r.jsonl", &id, "20261201-120000"));
    all_text[0] = '\0';
    emit_some();
    assert_int_equal(upload_now(UPLOAD_STARTED, 0), BM_OK);
    assert_non_null(strstr(srv.got, "\r\nAuthorization: Bearer " TOKEN "\r\n"));
    assert_int_equal(upload_now(UPLOAD_FINAL, 0), BM_OK);
    assert_non_null(strstr(srv.got, "\r\nAuthorization: Bearer " TOKEN "\r\n"));
    assert_non_null(strstr(all_text, "\"type\":\"upload\""));
    assert_null(strstr(all_text, TOKEN));
    assert_null(strstr(all_text, "secret~token"));
    sinks_close();
    close(srv.listen_fd);
    /* a bad token is refused without being repeated */
    assert_int_equal(config_parse_args(&c, "x upload_token=hush%41token", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "upload_token"));
    assert_null(strstr(err, "hush"));
    assert_int_equal(config_parse_named(&c, "b.cfg", "upload_token secret77\n", err, sizeof(err)), BM_EINVAL);
    assert_null(strstr(err, "secret77"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_rules),
        cmocka_unit_test(test_put_head_and_status_line),
        cmocka_unit_test(test_upload_sends_exactly_the_results_lines),
        cmocka_unit_test(test_refused_upload_is_an_error_and_not_retried),
        cmocka_unit_test(test_server_down_gives_up_within_the_timeout),
        cmocka_unit_test(test_bad_upload_options_are_refused),
        cmocka_unit_test(test_each_stage_has_its_own_name_and_header),
        cmocka_unit_test(test_token_is_sent_as_bearer_and_shown_nowhere),
    };
    plat_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
