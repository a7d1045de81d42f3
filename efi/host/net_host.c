/* The network on Linux: plain sockets, so the upload runs against a real
 * server in host tests. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "../http.h"
#include "host_private.h"

/* Wait until fd is ready for events or the deadline passes. */
static bool wait_fd(int fd, short events, uint64_t deadline_ns)
{
    struct pollfd p = { fd, events, 0 };
    uint64_t now = plat_now_ns();
    int ms = now >= deadline_ns ? 0 : (int)((deadline_ns - now) / 1000000u) + 1;

    return poll(&p, 1, ms) == 1;
}

static bool send_all(int fd, const char *p, size_t n, uint64_t deadline_ns)
{
    while (n) {
        ssize_t w;
        if (!wait_fd(fd, POLLOUT, deadline_ns))
            return false;
        w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

long plat_tcp_exchange(const uint8_t ip[4], uint16_t port, const void *head, size_t head_len, const void *body,
                       size_t body_len, char *resp, size_t resp_cap, uint64_t deadline_ns, char *why,
                       size_t why_len)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    size_t got = 0;
    long rc = BM_EIO;

    if (fd < 0) {
        snprintf(why, why_len, "socket: %s", strerror(errno));
        return BM_ENODEV;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    memcpy(&sa.sin_addr, ip, 4);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
        snprintf(why, why_len, "connect: %s", strerror(errno));
        goto out;
    }
    if (!wait_fd(fd, POLLOUT, deadline_ns)) {
        snprintf(why, why_len, "connect: timed out");
        rc = BM_ETIMEDOUT;
        goto out;
    }
    {
        int e = 0;
        socklen_t l = sizeof(e);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l);
        if (e) {
            snprintf(why, why_len, "connect: %s", strerror(e));
            goto out;
        }
    }
    if (!send_all(fd, head, head_len, deadline_ns) || !send_all(fd, body, body_len, deadline_ns)) {
        snprintf(why, why_len, "send failed or timed out");
        goto out;
    }
    while (got < resp_cap) {
        ssize_t r;
        if (!wait_fd(fd, POLLIN, deadline_ns)) {
            snprintf(why, why_len, "no answer before the deadline");
            rc = BM_ETIMEDOUT;
            goto out;
        }
        r = recv(fd, resp + got, resp_cap - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
        resp[got < resp_cap ? got : resp_cap - 1] = '\0';
        if (http_head_complete(resp, got))
            break;
    }
    rc = (long)got;
out:
    close(fd);
    return rc;
}
