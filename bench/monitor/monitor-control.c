/* monitor-control: the control of the fan-out benchmark, for bench/monitor.sh.
 *
 * It plays an ovsdb-server that does nothing but write: it listens on a
 * unix socket and sends each monitoring client of monitor-bench the bytes
 * a real server sent to a client of the same group in a capture run
 * (monitor-bench --capture): the reply to its monitor request, then one
 * captured update per transaction of the writer.  Every client of a group
 * gets the same bytes from one buffer in memory, written with write() on
 * its non-blocking socket as the socket takes them, so its CPU time is the
 * floor for the per-client cost of a server: it composes, serializes and
 * copies nothing.
 *
 * Capture files, for groups G = 0, 1, ... (until PREFIX.G.req is missing):
 *   PREFIX.G.req      the monitor request the group's clients send;
 *   PREFIX.G.stream   the bytes a client of that group received: the reply
 *                     to the request, then "update3" notifications (and
 *                     echo requests, which are skipped).
 * A client is put in the group whose request is byte for byte the one it
 * sends; a request that matches no group is an error.
 *
 * Connections that send "transact" are writers.  Each transaction with
 * operations queues the next captured update of every group on all of its
 * clients, then gets the reply {"id":ID,"result":[{}],"error":null}; a
 * transaction without operations (monitor-bench's barrier) gets the reply
 * alone.  A transaction with operations after the last captured update is
 * answered with an error, which makes monitor-bench fail.
 *
 * Usage: monitor-control --socket PATH --capture PREFIX [--pidfile FILE]
 * It runs until killed. */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "jsonrpc-scan.h"
#include "util.h"
#include "workload.h"

/* A message of a capture: 'len' bytes at 'p'. */
struct span {
    const char *p;
    size_t len;
};

/* A group of clients with the same monitor request. */
struct group {
    uint64_t req_hash;          /* Hash of the request (jr_scan's FNV-1a). */
    uint64_t req_len;           /* Its length. */
    char *stream;               /* The captured bytes. */
    struct span reply;          /* The reply to the request. */
    struct span *updates;       /* The "update3" notifications, in order. */
    size_t n_updates;
};

/* Parsing a capture with jr_scan. */
struct parse {
    struct group *g;
    bool have_reply;
    const char *path;
};

/* What a connection is, from its first message. */
enum role { R_NEW, R_CLIENT, R_WRITER };

/* A connection: its input scanner and its output queue of spans (which
 * point into the capture or into 'own'). */
struct conn {
    int fd;
    enum role role;
    int group;                  /* Group of a client. */
    struct jr_scan scan;
    struct wbuf in;             /* Input not yet consumed by a message. */
    const char *chunk;          /* The chunk being scanned... */
    size_t chunk_at;            /* ...is at this offset in 'in'. */
    size_t used;                /* Bytes of 'in' up to the last message. */
    struct span *q;             /* Output queue. */
    size_t q_head, q_len, q_cap;
    size_t q_off;               /* Bytes of q[q_head] already written. */
    bool want_out;              /* EPOLLOUT is on. */
    struct wbuf own;            /* Replies this side composed. */
};

static const char *socket_path;
static const char *capture;
static const char *pidfile;

static struct group *groups;
static size_t n_groups;
static size_t next_update;      /* Captured updates sent so far. */

static struct conn **conns;     /* By fd. */
static int max_conns;
static int epfd;

static char *
slurp(const char *path, size_t *lenp, bool must)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    char *p;

    if (!f) {
        if (!must && errno == ENOENT) {
            return NULL;
        }
        fatal("%s: %s", path, strerror(errno));
    }
    if (fstat(fileno(f), &st)) {
        fatal("%s: %s", path, strerror(errno));
    }
    p = malloc(st.st_size + 1);
    if (!p || fread(p, 1, st.st_size, f) != (size_t) st.st_size) {
        fatal("%s: cannot read", path);
    }
    p[st.st_size] = '\0';
    fclose(f);
    *lenp = st.st_size;
    return p;
}

static int
parse_msg(const struct jr_msg *msg, void *pa_)
{
    struct parse *pa = pa_;
    struct group *g = pa->g;
    const char *method = jr_msg_method(msg);
    struct span s = { msg->end - msg->len, msg->len };

    if (!pa->have_reply) {
        if (!jr_msg_is_reply(msg) || jr_msg_has_error(msg)) {
            fatal("%s: the first message is not a successful reply", pa->path);
        }
        g->reply = s;
        pa->have_reply = true;
    } else if (method && !strcmp(method, "update3")) {
        g->updates = xrealloc(g->updates, (g->n_updates + 1) * sizeof s);
        g->updates[g->n_updates++] = s;
    } else if (!method || strcmp(method, "echo")) {
        fatal("%s: unexpected message %.*s", pa->path,
              (int) (msg->len < JR_HEAD ? msg->len : JR_HEAD), msg->head);
    }
    return 0;
}

static int
hash_msg(const struct jr_msg *msg, void *g_)
{
    struct group *g = g_;

    g->req_hash = msg->hash;
    g->req_len = msg->len;
    return 0;
}

/* Loads PREFIX.G.req and PREFIX.G.stream for G = 0, 1, ... */
static void
load_captures(void)
{
    for (;;) {
        char path[4096];
        struct jr_scan scan;
        struct parse pa;
        struct group g;
        size_t len;
        char *req;

        memset(&g, 0, sizeof g);
        snprintf(path, sizeof path, "%s.%zu.req", capture, n_groups);
        req = slurp(path, &len, false);
        if (!req) {
            break;
        }
        jr_scan_init(&scan);
        if (jr_scan_feed(&scan, req, len, hash_msg, &g) || !g.req_len) {
            fatal("%s: not one JSON-RPC message", path);
        }
        free(req);

        snprintf(path, sizeof path, "%s.%zu.stream", capture, n_groups);
        g.stream = slurp(path, &len, true);
        memset(&pa, 0, sizeof pa);
        pa.g = &g;
        pa.path = path;
        jr_scan_init(&scan);
        if (jr_scan_feed(&scan, g.stream, len, parse_msg, &pa)
            || scan.depth) {
            fatal("%s: malformed or truncated JSON-RPC stream", path);
        }
        if (!pa.have_reply) {
            fatal("%s: no reply to the monitor request", path);
        }
        for (size_t i = 0; i < n_groups; i++) {
            if (groups[i].req_hash == g.req_hash) {
                fatal("%s: groups %zu and %zu send the same request",
                      path, i, n_groups);
            }
        }
        if (n_groups && g.n_updates != groups[0].n_updates) {
            fatal("%s: %zu updates, group 0 has %zu", path, g.n_updates,
                  groups[0].n_updates);
        }
        groups = xrealloc(groups, (n_groups + 1) * sizeof *groups);
        groups[n_groups++] = g;
    }
    if (!n_groups) {
        fatal("no capture %s.0.req", capture);
    }
}

static void
set_out(struct conn *c, bool on)
{
    struct epoll_event ev = {
        .events = EPOLLIN | (on ? EPOLLOUT : 0),
        .data.fd = c->fd,
    };

    if (c->want_out != on) {
        if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev)) {
            fatal("epoll_ctl: %s", strerror(errno));
        }
        c->want_out = on;
    }
}

static void
conn_close(struct conn *c)
{
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    conns[c->fd] = NULL;
    free(c->q);
    wbuf_free(&c->in);
    wbuf_free(&c->own);
    free(c);
}

/* Writes what the socket takes.  Returns false if the connection closed. */
static bool
conn_flush(struct conn *c)
{
    while (c->q_len) {
        const struct span *s = &c->q[c->q_head];
        ssize_t n = write(c->fd, s->p + c->q_off, s->len - c->q_off);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN) {
                set_out(c, true);
                return true;
            }
            conn_close(c);      /* The peer went away. */
            return false;
        }
        c->q_off += n;
        if (c->q_off == s->len) {
            c->q_off = 0;
            c->q_head = (c->q_head + 1) % c->q_cap;
            c->q_len--;
        }
    }
    wbuf_clear(&c->own);
    set_out(c, false);
    return true;
}

static void
conn_queue(struct conn *c, const char *p, size_t len)
{
    if (c->q_len == c->q_cap) {
        size_t cap = c->q_cap ? 2 * c->q_cap : 8;
        struct span *q = xrealloc(NULL, cap * sizeof *q);

        for (size_t i = 0; i < c->q_len; i++) {
            q[i] = c->q[(c->q_head + i) % c->q_cap];
        }
        free(c->q);
        c->q = q;
        c->q_head = 0;
        c->q_cap = cap;
    }
    c->q[(c->q_head + c->q_len++) % c->q_cap] = (struct span) { p, len };
}

/* Queues a reply this side composes.  Only on writers, whose queue holds
 * nothing else, and which wait for each reply before sending more: 'own'
 * is not reallocated while a span points into it. */
static void
conn_reply(struct conn *c, const char *id, bool error)
{
    size_t start = c->own.len;

    if (c->q_len) {
        fatal("writer sent a request before reading the last reply");
    }
    if (error) {
        wbuf_printf(&c->own, "{\"id\":%s,\"result\":null,\"error\":"
                    "\"monitor-control: no captured update left\"}", id);
    } else {
        wbuf_printf(&c->own, "{\"id\":%s,\"result\":[{}],\"error\":null}", id);
    }
    conn_queue(c, c->own.p + start, c->own.len - start);
}

/* The text of the "id" value of the JSON-RPC request 'm' (its last
 * top-level "id" member), in 'buf'. */
static void
request_id(const char *m, size_t len, char *buf, size_t size)
{
    const char *p = NULL;

    for (size_t i = len; i-- > 5;) {
        if (!memcmp(m + i - 5, "\"id\":", 5)) {
            p = m + i;
            break;
        }
    }
    if (!p) {
        fatal("request without an id: %.200s", m);
    }
    size_t n = strcspn(p, ",}");
    if (n == 0 || n >= size) {
        fatal("bad request id: %.200s", p);
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
}

/* True if the transaction 'm' has no operations: "params":["DB"]. */
static bool
txn_is_empty(const char *m)
{
    const char *p = strstr(m, "\"params\":[\"");

    if (!p) {
        return false;
    }
    p = strchr(p + 11, '"');
    return p && p[1] == ']';
}

static void
writer_txn(struct conn *w, const char *m, size_t len)
{
    char id[64];

    request_id(m, len, id, sizeof id);
    if (txn_is_empty(m)) {
        conn_reply(w, id, false);
        return;
    }
    if (next_update >= groups[0].n_updates) {
        conn_reply(w, id, true);
        return;
    }
    for (int fd = 0; fd < max_conns; fd++) {
        struct conn *c = conns[fd];

        if (c && c->role == R_CLIENT) {
            const struct span *u = &groups[c->group].updates[next_update];

            conn_queue(c, u->p, u->len);
            conn_flush(c);
        }
    }
    next_update++;
    conn_reply(w, id, false);
}

/* jr_scan callback on a connection's input. */
static int
conn_msg(const struct jr_msg *msg, void *c_)
{
    struct conn *c = c_;
    const char *method = jr_msg_method(msg);

    if (c->role == R_NEW) {
        if (method && !strcmp(method, "transact")) {
            c->role = R_WRITER;
        } else if (method && !strncmp(method, "monitor", 7)) {
            for (size_t i = 0; i < n_groups; i++) {
                if (groups[i].req_hash == msg->hash
                    && groups[i].req_len == msg->len) {
                    c->role = R_CLIENT;
                    c->group = i;
                    conn_queue(c, groups[i].reply.p, groups[i].reply.len);
                    return 0;
                }
            }
            fatal("a client's monitor request matches no captured group: "
                  "%.*s", (int) (msg->len < JR_HEAD ? msg->len : JR_HEAD),
                  msg->head);
        } else {
            fatal("unexpected first message: %.*s",
                  (int) (msg->len < JR_HEAD ? msg->len : JR_HEAD), msg->head);
        }
    }
    if (c->role == R_WRITER) {
        if (!method || strcmp(method, "transact")) {
            fatal("writer: unexpected message: %.*s",
                  (int) (msg->len < JR_HEAD ? msg->len : JR_HEAD), msg->head);
        }
        size_t end = c->chunk_at + (msg->end - c->chunk);

        writer_txn(c, c->in.p + end - msg->len, msg->len);
    } else if (c->role == R_CLIENT && !jr_msg_is_reply(msg)) {
        /* Clients only answer echo requests, which we never send. */
        fatal("client: unexpected message: %.*s",
              (int) (msg->len < JR_HEAD ? msg->len : JR_HEAD), msg->head);
    }
    c->used = c->chunk_at + (msg->end - c->chunk);
    return 0;
}

static void
conn_read(struct conn *c)
{
    char buf[65536];

    for (;;) {
        ssize_t n = read(c->fd, buf, sizeof buf);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno != EAGAIN) {
                conn_close(c);
            }
            return;
        }
        if (n == 0) {
            conn_close(c);
            return;
        }
        /* Keeps the bytes of the current message: conn_msg() finds a
         * writer's message in 'in'. */
        c->chunk_at = c->in.len;
        wbuf_append(&c->in, buf, n);
        c->chunk = c->in.p + c->chunk_at;
        c->used = 0;
        if (jr_scan_feed(&c->scan, c->chunk, n, conn_msg, c)) {
            fatal("malformed JSON-RPC input");
        }
        if (c->used) {
            memmove(c->in.p, c->in.p + c->used, c->in.len - c->used);
            c->in.len -= c->used;
        }
    }
}

static void
accept_conns(int lfd)
{
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct epoll_event ev = { .events = EPOLLIN };
        struct conn *c;

        if (fd < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN) {
                return;
            }
            fatal("accept: %s", strerror(errno));
        }
        if (fd >= max_conns) {
            int n = fd * 2 + 16;

            conns = xrealloc(conns, n * sizeof *conns);
            memset(conns + max_conns, 0, (n - max_conns) * sizeof *conns);
            max_conns = n;
        }
        c = calloc(1, sizeof *c);
        if (!c) {
            fatal("out of memory");
        }
        c->fd = fd;
        jr_scan_init(&c->scan);
        conns[fd] = c;
        ev.data.fd = fd;
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)) {
            fatal("epoll_ctl: %s", strerror(errno));
        }
    }
}

static int
listen_unix(void)
{
    struct sockaddr_un sun;
    int fd;

    unix_address(&sun, socket_path);
    unlink(socket_path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *) &sun, sizeof sun)
        || listen(fd, 4096)) {
        fatal("listen on %s: %s", socket_path, strerror(errno));
    }
    return fd;
}

static void
usage(void)
{
    printf("usage: monitor-control --socket PATH --capture PREFIX "
           "[--pidfile FILE]\n");
}

int
main(int argc, char *argv[])
{
    static const struct option opts[] = {
        { "socket", required_argument, NULL, 's' },
        { "capture", required_argument, NULL, 'c' },
        { "pidfile", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = -1 };
    int opt, lfd;

    program_name = "monitor-control";

    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 's': socket_path = optarg; break;
        case 'c': capture = optarg; break;
        case 'p': pidfile = optarg; break;
        case 'h': usage(); exit(0);
        default: usage(); exit(1);
        }
    }
    if (optind < argc) {
        fatal("unexpected argument '%s'", argv[optind]);
    }
    if (!socket_path || !capture) {
        fatal("--socket and --capture are required");
    }
    signal(SIGPIPE, SIG_IGN);
    load_captures();

    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        fatal("epoll_create1: %s", strerror(errno));
    }
    lfd = listen_unix();
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev)) {
        fatal("epoll_ctl: %s", strerror(errno));
    }
    if (pidfile) {
        FILE *f = fopen(pidfile, "w");

        if (!f || fprintf(f, "%d\n", (int) getpid()) < 0 || fclose(f)) {
            fatal("%s: cannot write", pidfile);
        }
    }

    for (;;) {
        struct epoll_event events[256];
        int n = epoll_wait(epfd, events, 256, -1);

        if (n < 0 && errno != EINTR) {
            fatal("epoll_wait: %s", strerror(errno));
        }
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            struct conn *c;

            if (fd < 0) {
                accept_conns(lfd);
                continue;
            }
            c = conns[fd];
            if (c && (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
                conn_read(c);
                c = conns[fd];
            }
            if (c && c->q_len) {
                conn_flush(c);
            }
        }
    }
}
