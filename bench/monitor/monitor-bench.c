/* monitor-bench: fan-out load on an ovsdb-server, for bench/monitor.sh.
 *
 * Opens N client connections to the server's unix socket.  Each sends
 * "monitor_cond_since" for the given tables with no condition, like
 * ovn-controller with ovn-monitor-all=true, then reads and discards the
 * updates, counting bytes and messages (and hashing them), and answers
 * echo requests.  A separate writer connection applies a northd-like
 * workload (workload.c); before each transaction it waits until every
 * client has received the previous one's update, so that no client gets
 * two transactions merged into one update.
 *
 * It measures the server's CPU time (utime + stime from /proc), its peak
 * RSS during the workload (VmHWM, reset through /proc/PID/clear_refs when
 * the workload starts) and the wall
 * time of the workload, the time from sending each transaction until the
 * last client has its update, and collects the server log's "Unreasonably
 * long ...ms poll interval" warnings written during the workload.  Results
 * go to stdout as "key value" lines.  It exits non-zero if the clients did
 * not all receive the same bytes, or if a transaction fails, or if a client
 * gets two transactions in one update.  For comparisons between runs, it
 * prints an exact hash of the updates and one of their byte counts, which
 * does not depend on the order of object members.
 *
 * Usage: monitor-bench --socket PATH --server-pid PID
 *                      (--tables T1,T2,... | --requests FILE)
 *                      [--server-log FILE] [--clients N] [--txns K]
 *                      [--warmup W] [--batch L] [--dps D] [--db NAME]
 *                      [--timeout S] [--gate FILE] [--conditional GROUP]
 *                      [--capture PREFIX]
 *
 * --tables monitors all columns of the tables; --requests FILE holds the
 * <monitor-requests> JSON object itself, e.g. with explicit column lists.
 *
 * --warmup W applies W transactions of the workload before the measured K
 * (after the setup transaction, before --gate): the first two transactions
 * of the workload only insert, the later ones also update and delete.
 *
 * --conditional GROUP: clients i = 0..N-1 are in groups g = i / GROUP, and
 * monitor Logical_Flow, Port_Binding and MAC_Binding with a condition, like
 * ovn-controller with ovn-monitor-all=false: the rows of bench datapath
 * g % D (D = --dps), and for Port_Binding also the rows bound to chassis g
 * (a chassis that does not exist: it only makes the condition of every
 * group different).  Clients of a group send identical requests and must
 * receive identical bytes; other groups differ.  The other tables are
 * monitored without condition.
 *
 * --capture PREFIX: the first client of each group G writes the request it
 * sends to PREFIX.G.req and every byte it receives to PREFIX.G.stream, for
 * monitor-control.
 *
 * --readers R: the clients are read by R threads, client i by thread
 * i % R, each with an event loop of its own, so that the clients' sockets
 * are drained in parallel, as separate client processes drain them; the
 * writer stays in the main thread.  Without it, one loop reads every
 * client in turn. */

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "jsonrpc-scan.h"
#include "util.h"
#include "workload.h"

#define MAX_CLIENTS 1000
#define MAX_READERS 64
#define READ_SIZE (256 * 1024)

/* epoll tokens (data.u32) that are not a connection's index + 1. */
#define WAKE_TOKEN (MAX_CLIENTS + 2)  /* A reader read something. */
#define STOP_TOKEN (MAX_CLIENTS + 3)  /* The readers must exit. */

/* One monitoring client connection. */
struct client {
    int fd;                     /* Socket. */
    int idx;                    /* Index in 'clients', -1 for the writer. */
    int group;                  /* Group of identical conditions. */
    FILE *capture;              /* --capture stream of the group, or NULL. */
    struct jr_scan scan;        /* Framing state. */
    bool replied;               /* Got the reply to "monitor_cond_since"
                                 * (atomic: the main thread reads it). */
    uint64_t init_bytes;        /* Bytes of that reply. */
    uint64_t n_updates;         /* "update3" notifications received
                                 * (atomic: the main thread reads it). */
    uint64_t n_echoes;          /* Echo requests answered (atomic). */
    uint64_t bytes;             /* Bytes of updates since the last reset. */
    uint64_t msgs;              /* Updates since the last reset. */
    uint64_t hash;              /* Hash of those updates, in order. */
    uint64_t hist_hash;         /* Same, of their byte counts. */
    uint64_t init_hash;         /* Hash of the monitor reply. */
    uint64_t init_hist_hash;    /* Hash of its byte counts. */
};

/* The writer connection. */
struct writer {
    int fd;                     /* Socket. */
    struct jr_scan scan;        /* Framing state. */
    int next_id;                /* Id of the next request. */
    int last_reply;             /* Id of the last reply, -1 if none. */
    bool failed;                /* A transaction reported an error. */
    char detail[512];           /* First bytes of the failing reply. */
};

/* Options. */
static const char *socket_path;
static const char *tables_arg;
static char *requests;          /* Contents of the --requests file. */
static const char *server_log;
static const char *gate_file;   /* --gate: wait for it before the workload. */
static const char *db_name = "OVN_Southbound";
static int server_pid;
static int n_clients = 120;
static int n_txns = 20;
static unsigned int batch = 1000;
static unsigned int n_dps = 10;
static int timeout_s = 600;
static int n_warmup;
static int group_size;          /* --conditional GROUP, 0 without. */
static const char *capture;     /* --capture PREFIX. */
static int n_groups = 1;

static int n_readers;           /* --readers R, 0 without. */

/* A thread that reads a share of the clients (--readers). */
struct reader {
    pthread_t thread;           /* The thread. */
    int epfd;                   /* Its epoll set: its clients and 'stop_fd'. */
    char *buf;                  /* Its read buffer, READ_SIZE bytes. */
};

static struct client *clients;
static struct writer writer;
static int epfd;                /* The main thread's epoll set. */
static struct reader readers[MAX_READERS];
static int wake_fd = -1;        /* eventfd: a reader read something. */
static int stop_fd = -1;        /* eventfd: the readers must exit. */

static double
now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A "KEY:  N kB" field of /proc/PID/status, in kB; -1 if missing. */
static long
server_status_kb(const char *key)
{
    char path[64], line[256];
    size_t len = strlen(key);
    long kb = -1;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%d/status", server_pid);
    f = fopen(path, "r");
    if (!f) {
        fatal("%s: %s (is the server running?)", path, strerror(errno));
    }
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, key, len) && line[len] == ':') {
            kb = strtol(line + len + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb;
}

/* Resets the server's peak RSS (VmHWM) to its current RSS.  Returns false
 * if the kernel does not allow it (then VmHWM includes the initial
 * contents). */
static bool
server_reset_peak_rss(void)
{
    char path[64];
    FILE *f;
    bool ok;

    snprintf(path, sizeof path, "/proc/%d/clear_refs", server_pid);
    f = fopen(path, "w");
    if (!f) {
        return false;
    }
    ok = fputs("5", f) >= 0;
    ok = !fclose(f) && ok;
    return ok;
}

/* Time on CPU of all threads of the server in nanoseconds, from the first
 * field of /proc/PID/task/TID/schedstat, or -1 where the kernel has no
 * schedstat.  Unlike utime and stime, which count clock ticks (10 ms),
 * it is exact, which matters for short runs and single transactions. */
static long long
server_cpu_ns(void)
{
    static bool unavailable;
    char path[64];
    long long sum = 0;
    struct dirent *de;
    DIR *dir;

    if (unavailable) {
        return -1;
    }
    snprintf(path, sizeof path, "/proc/%d/task", server_pid);
    dir = opendir(path);
    if (!dir) {
        fatal("%s: %s (is the server running?)", path, strerror(errno));
    }
    while ((de = readdir(dir)) != NULL) {
        char file[400];
        long long ns;
        FILE *f;

        if (de->d_name[0] == '.') {
            continue;
        }
        snprintf(file, sizeof file, "%s/%s/schedstat", path, de->d_name);
        f = fopen(file, "r");
        if (!f) {
            if (errno == ENOENT && access("/proc/self/schedstat", F_OK)) {
                unavailable = true;
                closedir(dir);
                return -1;
            }
            continue;           /* The thread just exited. */
        }
        if (fscanf(f, "%lld", &ns) == 1) {
            sum += ns;
        }
        fclose(f);
    }
    closedir(dir);
    return sum;
}

/* Server CPU time in seconds: from schedstat where the kernel has it,
 * otherwise utime + stime.  'utime' and 'stime', if nonnull, get utime and
 * stime from /proc/PID/stat (in clock ticks). */
static double
server_cpu(double *utime, double *stime)
{
    long long ns = server_cpu_ns();

    char path[64], buf[4096];
    unsigned long long ut, st;
    FILE *f;
    size_t n;
    char *p;

    snprintf(path, sizeof path, "/proc/%d/stat", server_pid);
    f = fopen(path, "r");
    if (!f) {
        fatal("%s: %s (is the server running?)", path, strerror(errno));
    }
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';

    /* Fields after the command name, which is in parentheses: state is
     * field 3, utime 14 and stime 15. */
    p = strrchr(buf, ')');
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
                     "%llu %llu", &ut, &st) != 2) {
        fatal("%s: cannot parse", path);
    }
    double hz = sysconf(_SC_CLK_TCK);
    if (utime) {
        *utime = ut / hz;
    }
    if (stime) {
        *stime = st / hz;
    }
    return ns >= 0 ? ns / 1e9 : (ut + st) / hz;
}

static double
self_cpu(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6
           + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static long
file_size(const char *path)
{
    FILE *f = fopen(path, "r");
    long size;

    if (!f) {
        fatal("%s: %s", path, strerror(errno));
    }
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fclose(f);
    return size;
}

static void
send_all(int fd, const char *data, size_t n)
{
    while (n) {
        ssize_t r = write(fd, data, n);

        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN) {
                /* Our sockets are non-blocking; wait until writable. */
                struct pollfd pfd = { .fd = fd, .events = POLLOUT };

                poll(&pfd, 1, -1);
                continue;
            }
            fatal("write to server: %s", strerror(errno));
        }
        data += r;
        n -= r;
    }
}

static int
connect_unix(void)
{
    struct sockaddr_un sun;
    int fd;

    unix_address(&sun, socket_path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fatal("socket: %s", strerror(errno));
    }
    for (int tries = 0; connect(fd, (struct sockaddr *) &sun, sizeof sun);
         tries++) {
        if ((errno != EAGAIN && errno != ECONNREFUSED) || tries > 200) {
            fatal("connect to %s: %s", socket_path, strerror(errno));
        }
        usleep(10000);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/* The conditions of the conditional workload: table, then the clauses
 * (ORed), each a column compared with "==" to the group's datapath ("dp")
 * or chassis ("ch"). */
static const struct cond_table {
    const char *table;
    const char *columns[2];
    const char *what[2];
} cond_tables[] = {
    { "Logical_Flow", { "logical_datapath", NULL }, { "dp", NULL } },
    { "Port_Binding", { "datapath", "chassis" }, { "dp", "ch" } },
    { "MAC_Binding", { "datapath", NULL }, { "dp", NULL } },
};

/* Appends the "where" member of 'ct' for group 'g'. */
static void
put_where(struct wbuf *b, const struct cond_table *ct, int g)
{
    wbuf_printf(b, "\"where\":[");
    for (int i = 0; i < 2 && ct->columns[i]; i++) {
        wbuf_printf(b, "%s[\"%s\",\"==\",", i ? "," : "", ct->columns[i]);
        if (!strcmp(ct->what[i], "dp")) {
            workload_put_dp_ref(b, g % n_dps);
        } else {
            workload_put_chassis_ref(b, g);
        }
        wbuf_printf(b, "]");
    }
    wbuf_printf(b, "]");
}

/* Appends the monitor requests of group 'g' ('reqs', with a "where" added
 * to the request of each table of 'cond_tables' it has, in conditional
 * mode).  'reqs' is an object whose members are "TABLE":[{...}]. */
static void
put_requests(struct wbuf *b, const char *reqs, int g)
{
    size_t n_found = 0;

    while (group_size) {
        const struct cond_table *ct = NULL;
        const char *at = NULL;

        /* The earliest table of 'cond_tables' left in 'reqs'. */
        for (size_t i = 0; i < sizeof cond_tables / sizeof *cond_tables; i++) {
            char key[64];
            const char *p;

            snprintf(key, sizeof key, "\"%s\":[{", cond_tables[i].table);
            p = strstr(reqs, key);
            if (p && (!at || p < at)) {
                at = p + strlen(key);
                ct = &cond_tables[i];
            }
        }
        if (!ct) {
            break;
        }
        wbuf_printf(b, "%.*s", (int) (at - reqs), reqs);
        put_where(b, ct, g);
        if (*at != '}') {
            wbuf_printf(b, ",");
        }
        reqs = at;
        n_found++;
    }
    if (group_size && !n_found) {
        fatal("--conditional: none of Logical_Flow, Port_Binding and "
              "MAC_Binding is monitored");
    }
    wbuf_printf(b, "%s", reqs);
}

/* Sends the monitor request: every table, all columns, without condition
 * as ovn-controller does with ovn-monitor-all=true, or in conditional mode
 * with the conditions of the client's group. */
static void
client_send_monitor(struct client *c)
{
    struct wbuf b = { 0 }, t = { 0 };
    const char *p = tables_arg ? tables_arg : "";

    wbuf_printf(&b, "{\"method\":\"monitor_cond_since\",\"params\":[\"%s\","
                "[\"monid\",\"%s\"],", db_name, db_name);
    if (requests) {
        put_requests(&b, requests, c->group);
    } else {
        wbuf_printf(&t, "{");
        for (bool first = true; *p; first = false) {
            size_t n = strcspn(p, ",");

            wbuf_printf(&t, "%s\"%.*s\":[{}]", first ? "" : ",", (int) n, p);
            p += n + (p[n] == ',');
        }
        wbuf_printf(&t, "}");
        put_requests(&b, t.p, c->group);
        wbuf_free(&t);
    }
    /* The same request id for every client, so that the replies are the
     * same bytes. */
    wbuf_printf(&b, ",\"00000000-0000-0000-0000-000000000000\"],"
                "\"id\":\"monitor\"}");
    send_all(c->fd, b.p, b.len);
    if (c->capture) {
        char path[4096];
        FILE *f;

        snprintf(path, sizeof path, "%s.%d.req", capture, c->group);
        f = fopen(path, "w");
        if (!f || fwrite(b.p, 1, b.len, f) != b.len || fclose(f)) {
            fatal("%s: cannot write", path);
        }
    }
    wbuf_free(&b);
}

static void
send_echo_reply(int fd, const struct jr_msg *msg)
{
    char id[128], reply[256];
    int n;

    if (jr_msg_id_text(msg, id, sizeof id)) {
        fatal("echo request without a usable id");
    }
    n = snprintf(reply, sizeof reply,
                 "{\"id\":%s,\"result\":[],\"error\":null}", id);
    send_all(fd, reply, n);
}

static int
client_msg(const struct jr_msg *msg, void *c_)
{
    struct client *c = c_;
    const char *method = jr_msg_method(msg);

    if (method && !strcmp(method, "update3")) {
        c->msgs++;
        c->bytes += msg->len;
        c->hash = (c->hash ^ msg->hash) * UINT64_C(0x100000001b3);
        c->hist_hash = (c->hist_hash ^ msg->hist_hash)
                       * UINT64_C(0x100000001b3);
        /* Last, with release: a main thread that sees the count sees the
         * counts and hashes before it. */
        __atomic_store_n(&c->n_updates, c->n_updates + 1, __ATOMIC_RELEASE);
    } else if (method && !strcmp(method, "echo")) {
        __atomic_fetch_add(&c->n_echoes, 1, __ATOMIC_RELAXED);
        send_echo_reply(c->fd, msg);
    } else if (jr_msg_is_reply(msg)) {
        if (jr_msg_has_error(msg)) {
            fatal("client %d: monitor_cond_since failed: %.*s", c->idx,
                  (int) (msg->len < JR_HEAD ? msg->len : JR_HEAD), msg->head);
        }
        c->init_bytes = msg->len;
        c->init_hash = msg->hash;
        c->init_hist_hash = msg->hist_hash;
        __atomic_store_n(&c->replied, true, __ATOMIC_RELEASE);
    } else {
        fatal("client %d: unexpected message: %.*s", c->idx,
              (int) (msg->len < JR_HEAD ? msg->len : JR_HEAD), msg->head);
    }
    return 0;
}

static int
writer_msg(const struct jr_msg *msg, void *w_)
{
    struct writer *w = w_;
    const char *method = jr_msg_method(msg);

    if (method && !strcmp(method, "echo")) {
        send_echo_reply(w->fd, msg);
        return 0;
    }
    if (!jr_msg_is_reply(msg)) {
        fatal("writer: unexpected message: %.*s",
              (int) (msg->len < JR_HEAD ? msg->len : JR_HEAD), msg->head);
    }
    if (jr_msg_has_error(msg)) {
        w->failed = true;
        snprintf(w->detail, sizeof w->detail, "%.*s",
                 (int) (msg->len < JR_HEAD ? msg->len : JR_HEAD), msg->head);
    }
    w->last_reply++;
    return 0;
}

/* The writer also checks the operations' results for errors, which are
 * inside "result"; it keeps whole replies for that (they are small). */
static struct wbuf writer_in;

static void
writer_check_ops(const char *data, size_t n)
{
    const char *err;

    wbuf_printf(&writer_in, "%.*s", (int) n, data);
    err = strstr(writer_in.p, "\"error\":\"");
    if (err) {
        fatal("writer: transaction failed: %.400s", err);
    }
    if (writer_in.len > 4096) {
        /* Keep a tail in case the marker straddles two reads. */
        memmove(writer_in.p, writer_in.p + writer_in.len - 16, 17);
        writer_in.len = 16;
    }
}

/* Reads what is available on connection 'idx' (-1: the writer) into
 * 'buf', READ_SIZE bytes. */
static void
conn_read(int idx, char *buf)
{
    int fd = idx < 0 ? writer.fd : clients[idx].fd;

    for (;;) {
        ssize_t n = read(fd, buf, READ_SIZE);
        int error;

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN) {
                return;
            }
            fatal("%s %d: read: %s", idx < 0 ? "writer" : "client", idx,
                  strerror(errno));
        }
        if (n == 0) {
            fatal("%s %d: server closed the connection",
                  idx < 0 ? "writer" : "client", idx);
        }
        if (idx >= 0 && clients[idx].capture
            && fwrite(buf, 1, n, clients[idx].capture) != (size_t) n) {
            fatal("--capture: write failed");
        }
        if (idx < 0) {
            writer_check_ops(buf, n);
            error = jr_scan_feed(&writer.scan, buf, n, writer_msg, &writer);
        } else {
            error = jr_scan_feed(&clients[idx].scan, buf, n, client_msg,
                                 &clients[idx]);
        }
        if (error) {
            fatal("%s %d: malformed JSON-RPC stream",
                  idx < 0 ? "writer" : "client", idx);
        }
        if (n < READ_SIZE) {
            return;
        }
    }
}

/* Adds 'fd' to the epoll set 'set' with the token 'token'. */
static void
epoll_add_token(int set, int fd, uint32_t token)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = token };

    if (epoll_ctl(set, EPOLL_CTL_ADD, fd, &ev)) {
        fatal("epoll_ctl: %s", strerror(errno));
    }
}

/* Adds connection 'idx' (-1: the writer) to the epoll set that reads it:
 * its reader's with --readers, else the main thread's. */
static void
epoll_add(int fd, int idx)
{
    int set = idx >= 0 && n_readers ? readers[idx % n_readers].epfd : epfd;

    epoll_add_token(set, fd, idx + 1);
}

/* A reader's event loop: reads its clients until 'stop_fd' is readable,
 * and after each round tells the main thread through 'wake_fd'. */
static void *
reader_main(void *r_)
{
    struct reader *r = r_;
    struct epoll_event events[256];

    for (;;) {
        int n = epoll_wait(r->epfd, events, 256, -1);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            fatal("reader: epoll_wait: %s", strerror(errno));
        }
        for (int i = 0; i < n; i++) {
            if (events[i].data.u32 == STOP_TOKEN) {
                return NULL;
            }
            conn_read((int) events[i].data.u32 - 1, r->buf);
        }
        if (eventfd_write(wake_fd, 1)) {
            fatal("reader: eventfd_write: %s", strerror(errno));
        }
    }
}

/* Creates the readers' epoll sets and the main thread's wake-up. */
static void
readers_init(void)
{
    wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    stop_fd = eventfd(0, EFD_CLOEXEC);
    if (wake_fd < 0 || stop_fd < 0) {
        fatal("eventfd: %s", strerror(errno));
    }
    epoll_add_token(epfd, wake_fd, WAKE_TOKEN);
    for (int t = 0; t < n_readers; t++) {
        readers[t].epfd = epoll_create1(EPOLL_CLOEXEC);
        readers[t].buf = malloc(READ_SIZE);
        if (readers[t].epfd < 0 || !readers[t].buf) {
            fatal("reader %d: %s", t, strerror(errno));
        }
        epoll_add_token(readers[t].epfd, stop_fd, STOP_TOKEN);
    }
}

/* Starts the readers, once their clients are in their epoll sets. */
static void
readers_start(void)
{
    for (int t = 0; t < n_readers; t++) {
        int error = pthread_create(&readers[t].thread, NULL, reader_main,
                                   &readers[t]);

        if (error) {
            fatal("pthread_create: %s", strerror(error));
        }
    }
}

/* Stops the readers and waits for them. */
static void
readers_stop(void)
{
    if (!n_readers) {
        return;
    }
    if (eventfd_write(stop_fd, 1)) {
        fatal("eventfd_write: %s", strerror(errno));
    }
    for (int t = 0; t < n_readers; t++) {
        pthread_join(readers[t].thread, NULL);
        close(readers[t].epfd);
        free(readers[t].buf);
    }
    close(wake_fd);
    close(stop_fd);
}

typedef bool done_fn(void *aux);

/* Runs the event loop until 'done' returns true. */
static void
run_until(done_fn *done, void *aux, const char *what)
{
    static char buf[READ_SIZE];
    struct epoll_event events[256];
    double deadline = now() + timeout_s;

    while (!done(aux)) {
        int n = epoll_wait(epfd, events, 256, 1000);

        if (n < 0 && errno != EINTR) {
            fatal("epoll_wait: %s", strerror(errno));
        }
        for (int i = 0; i < n; i++) {
            eventfd_t count;

            if (events[i].data.u32 == WAKE_TOKEN) {
                /* A reader's news: 'done' looks at what it read. */
                eventfd_read(wake_fd, &count);
            } else {
                conn_read((int) events[i].data.u32 - 1, buf);
            }
        }
        if (writer.failed) {
            fatal("writer: request failed: %s", writer.detail);
        }
        if (now() > deadline) {
            fatal("timeout after %d s waiting for %s", timeout_s, what);
        }
    }
}

static bool
all_replied(void *aux)
{
    (void) aux;
    for (int i = 0; i < n_clients; i++) {
        if (!__atomic_load_n(&clients[i].replied, __ATOMIC_ACQUIRE)) {
            return false;
        }
    }
    return true;
}

/* Waits for the reply to request 'id' and, if 'updates' is non-negative,
 * until every client has received that many updates in total. */
struct wait_txn {
    int id;                     /* Request id whose reply is awaited. */
    int64_t updates;            /* Updates each client must have, or -1. */
};

static bool
txn_done(void *aux)
{
    const struct wait_txn *wt = aux;

    if (writer.last_reply < wt->id) {
        return false;
    }
    if (wt->updates >= 0) {
        for (int i = 0; i < n_clients; i++) {
            if (__atomic_load_n(&clients[i].n_updates, __ATOMIC_ACQUIRE)
                < (uint64_t) wt->updates) {
                return false;
            }
        }
    }
    return true;
}

/* Sends a transaction and waits for its reply and, when 'updates' >= 0,
 * until every client has that many updates.  Returns the seconds taken. */
static double
transact(struct wbuf *txn, int id, int64_t updates, const char *what)
{
    struct wait_txn wt = { .id = id, .updates = updates };
    double t0 = now();

    send_all(writer.fd, txn->p, txn->len);
    run_until(txn_done, &wt, what);
    for (int i = 0; i < n_clients && updates >= 0; i++) {
        uint64_t got = __atomic_load_n(&clients[i].n_updates,
                                       __ATOMIC_ACQUIRE);

        if (got != (uint64_t) updates) {
            fatal("client %d got %" PRIu64 " updates, expected %" PRId64
                  " (updates merged or split)", i, got, updates);
        }
    }
    return now() - t0;
}

static void
reset_counts(void)
{
    for (int i = 0; i < n_clients; i++) {
        clients[i].bytes = clients[i].msgs = 0;
        clients[i].hash = UINT64_C(0xcbf29ce484222325);
        clients[i].hist_hash = UINT64_C(0xcbf29ce484222325);
    }
}

static int
cmp_double(const void *a_, const void *b_)
{
    double a = *(const double *) a_, b = *(const double *) b_;

    return (a > b) - (a < b);
}

/* Percentile 'p' of sorted 'v' with linear interpolation. */
static double
percentile(const double *v, int n, double p)
{
    double rank = p / 100.0 * (n - 1);
    int lo = (int) rank;

    if (lo + 1 >= n) {
        return v[n - 1];
    }
    return v[lo] + (rank - lo) * (v[lo + 1] - v[lo]);
}

/* Prints the "Unreasonably long ...ms poll interval" warnings written to
 * the server log after offset 'from', as one line of milliseconds. */
static void
print_poll_intervals(long from)
{
    const char *marker = "Unreasonably long ";
    char line[4096];
    FILE *f;
    int n = 0;

    printf("poll_intervals");
    if (!server_log) {
        printf("\n");
        return;
    }
    f = fopen(server_log, "r");
    if (!f) {
        fatal("%s: %s", server_log, strerror(errno));
    }
    fseek(f, from, SEEK_SET);
    while (fgets(line, sizeof line, f)) {
        char *p = strstr(line, marker);
        long ms;

        if (p && sscanf(p + strlen(marker), "%ldms poll interval", &ms) == 1) {
            printf(" %ld", ms);
            n++;
        }
    }
    fclose(f);
    printf("\npoll_count %d\n", n);
}

/* The first client of the group of client 'i'. */
static const struct client *
group_first(int i)
{
    return &clients[clients[i].group * (group_size ? group_size : n_clients)];
}

/* Every client got the same bytes as the first of its group. */
static void
check_same_bytes(const char *phase)
{
    for (int i = 0; i < n_clients; i++) {
        const struct client *c = &clients[i], *f = group_first(i);

        if (c->bytes != f->bytes || c->msgs != f->msgs || c->hash != f->hash) {
            fatal("%s: client %d (group %d) got %" PRIu64 " bytes in %"
                  PRIu64 " updates (hash %016" PRIx64 "), client %d got %"
                  PRIu64 " bytes in %" PRIu64 " (hash %016" PRIx64 ")",
                  phase, i, c->group, c->bytes, c->msgs, c->hash, f->idx,
                  f->bytes, f->msgs, f->hash);
        }
    }
}

/* One hash of the groups' hashes (offset 'off' in struct client), in
 * order; with a single group, its own hash. */
static uint64_t
groups_hash(size_t off)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);

    if (n_groups == 1) {
        return *(const uint64_t *) ((const char *) &clients[0] + off);
    }
    for (int g = 0; g < n_groups; g++) {
        const struct client *c = group_first(g * (group_size ? group_size : 1));

        h = (h ^ *(const uint64_t *) ((const char *) c + off))
            * UINT64_C(0x100000001b3);
    }
    return h;
}

/* Prints "KEY v0 v1 ..." of the first client of each group. */
static void
print_groups(const char *key, size_t off, bool hex)
{
    printf("%s", key);
    for (int g = 0; g < n_groups; g++) {
        const struct client *c = group_first(g * (group_size ? group_size : 1));
        uint64_t v = *(const uint64_t *) ((const char *) c + off);

        if (hex) {
            printf(" %016" PRIx64, v);
        } else {
            printf(" %" PRIu64, v);
        }
    }
    printf("\n");
}

/* Prints PREFIX "bytes_per_client" (with groups, the mean over all
 * clients), PREFIX "bytes_total" ('total'), and PREFIX "content_hash" and
 * PREFIX "bytes_hash", the groups_hash() of the hashes at offsets
 * 'content' and 'bytes' in struct client. */
static void
print_totals(const char *prefix, uint64_t total, size_t content, size_t bytes)
{
    printf("%sbytes_per_client %" PRIu64 "\n", prefix, total / n_clients);
    printf("%sbytes_total %" PRIu64 "\n", prefix, total);
    printf("%scontent_hash %016" PRIx64 "\n", prefix, groups_hash(content));
    printf("%sbytes_hash %016" PRIx64 "\n", prefix, groups_hash(bytes));
}

/* "NAME_cpus LIST" with the CPUs process 'pid' (0: this one) may run on. */
static void
print_cpus(const char *name, int pid)
{
    char path[64], line[512];
    FILE *f;

    snprintf(path, sizeof path, pid ? "/proc/%d/status" : "/proc/self/status",
             pid);
    f = fopen(path, "r");
    if (!f) {
        return;
    }
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "Cpus_allowed_list:", 18)) {
            printf("%s_cpus %s", name, line + 18 + strspn(line + 18, " \t"));
            break;
        }
    }
    fclose(f);
}

/* Returns the contents of 'path', trailing white space removed. */
static char *
read_file(const char *path)
{
    struct wbuf b = { 0 };
    char buf[65536];
    size_t n;
    FILE *f = fopen(path, "r");

    if (!f) {
        fatal("%s: %s", path, strerror(errno));
    }
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        wbuf_printf(&b, "%.*s", (int) n, buf);
    }
    fclose(f);
    while (b.len && strchr(" \t\r\n", b.p[b.len - 1])) {
        b.p[--b.len] = '\0';
    }
    if (!b.len || b.p[0] != '{') {
        fatal("%s: expected a JSON object of monitor requests", path);
    }
    return b.p;
}

static void
usage(void)
{
    printf("usage: monitor-bench --socket PATH --server-pid PID\n"
           "         (--tables T1,T2,... | --requests FILE)\n"
           "         [--server-log FILE] [--clients N] [--txns K] "
           "[--batch L]\n"
           "         [--warmup W] [--dps D] [--db NAME] [--timeout SECONDS]\n"
           "         [--gate FILE] [--conditional GROUP] [--capture PREFIX]\n"
           "         [--readers R]\n");
}

static long
int_arg(const char *name, const char *s, long min, long max)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < min || v > max) {
        fatal("--%s: expected an integer in [%ld, %ld], got '%s'", name,
              min, max, s);
    }
    return v;
}

static void
parse_options(int argc, char *argv[])
{
    static const struct option opts[] = {
        { "socket", required_argument, NULL, 's' },
        { "tables", required_argument, NULL, 't' },
        { "requests", required_argument, NULL, 'r' },
        { "server-pid", required_argument, NULL, 'p' },
        { "server-log", required_argument, NULL, 'l' },
        { "gate", required_argument, NULL, 'g' },
        { "clients", required_argument, NULL, 'n' },
        { "txns", required_argument, NULL, 'k' },
        { "batch", required_argument, NULL, 'b' },
        { "dps", required_argument, NULL, 'd' },
        { "db", required_argument, NULL, 'D' },
        { "timeout", required_argument, NULL, 'T' },
        { "warmup", required_argument, NULL, 'w' },
        { "conditional", required_argument, NULL, 'C' },
        { "capture", required_argument, NULL, 'c' },
        { "readers", required_argument, NULL, 'R' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's': socket_path = optarg; break;
        case 't': tables_arg = optarg; break;
        case 'r': requests = read_file(optarg); break;
        case 'p':
            server_pid = int_arg("server-pid", optarg, 1, 1 << 30);
            break;
        case 'l': server_log = optarg; break;
        case 'g': gate_file = optarg; break;
        case 'n':
            n_clients = int_arg("clients", optarg, 1, MAX_CLIENTS);
            break;
        case 'k': n_txns = int_arg("txns", optarg, 1, 100000); break;
        case 'b': batch = int_arg("batch", optarg, 4, 1000000); break;
        case 'd': n_dps = int_arg("dps", optarg, 1, 10000); break;
        case 'D': db_name = optarg; break;
        case 'T': timeout_s = int_arg("timeout", optarg, 1, 86400); break;
        case 'w': n_warmup = int_arg("warmup", optarg, 0, 100000); break;
        case 'C':
            group_size = int_arg("conditional", optarg, 1, MAX_CLIENTS);
            break;
        case 'c': capture = optarg; break;
        case 'R':
            n_readers = int_arg("readers", optarg, 1, MAX_READERS);
            break;
        case 'h': usage(); exit(0);
        default: usage(); exit(1);
        }
    }
    if (optind < argc) {
        fatal("unexpected argument '%s'", argv[optind]);
    }
    if (!socket_path || !server_pid) {
        fatal("--socket and --server-pid are required");
    }
    if (!requests == !(tables_arg && *tables_arg)) {
        fatal("exactly one of --tables and --requests is required");
    }
    if (group_size) {
        n_groups = (n_clients + group_size - 1) / group_size;
    }
}

/* Connects the clients and waits for all initial contents. */
static void
connect_clients(void)
{
    double t0 = now(), cpu0 = server_cpu(NULL, NULL);

    clients = calloc(n_clients, sizeof *clients);
    if (!clients) {
        fatal("out of memory");
    }
    for (int i = 0; i < n_clients; i++) {
        struct client *c = &clients[i];

        c->idx = i;
        c->group = group_size ? i / group_size : 0;
        if (capture && group_first(i) == c) {
            char path[4096];

            snprintf(path, sizeof path, "%s.%d.stream", capture, c->group);
            c->capture = fopen(path, "w");
            if (!c->capture) {
                fatal("%s: %s", path, strerror(errno));
            }
        }
        c->fd = connect_unix();
        jr_scan_init(&c->scan);
        epoll_add(c->fd, i);
        client_send_monitor(c);
    }
    readers_start();
    run_until(all_replied, NULL, "the initial contents");
    uint64_t init_total = 0;
    for (int i = 0; i < n_clients; i++) {
        const struct client *c = &clients[i], *f = group_first(i);

        if (c->init_bytes != f->init_bytes || c->init_hash != f->init_hash) {
            fatal("initial contents: client %d (group %d) got %" PRIu64
                  " bytes (hash %016" PRIx64 "), client %d got %" PRIu64
                  " (hash %016" PRIx64 ")", i, c->group, c->init_bytes,
                  c->init_hash, f->idx, f->init_bytes, f->init_hash);
        }
        init_total += c->init_bytes;
    }
    printf("init_seconds %.3f\n", now() - t0);
    printf("init_server_cpu_s %.3f\n", server_cpu(NULL, NULL) - cpu0);
    print_totals("init_", init_total, offsetof(struct client, init_hash),
                 offsetof(struct client, init_hist_hash));
}

int
main(int argc, char *argv[])
{
    struct workload w;
    struct wbuf txn = { 0 };
    double *lat;
    int64_t updates;

    setvbuf(stdout, NULL, _IOLBF, 0);
    parse_options(argc, argv);
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        fatal("epoll_create1: %s", strerror(errno));
    }
    printf("clients %d\ntxns %d\nwarmup %d\nbatch %u\ndps %u\n", n_clients,
           n_txns, n_warmup, batch, n_dps);
    printf("group_size %d\ngroups %d\n", group_size, n_groups);
    printf("readers %d\n", n_readers);
    if (n_readers) {
        readers_init();
    }
    print_cpus("load", 0);
    print_cpus("server", server_pid);

    connect_clients();

    writer.fd = connect_unix();
    jr_scan_init(&writer.scan);
    writer.last_reply = -1;
    epoll_add(writer.fd, -1);

    /* The datapaths, not measured. */
    workload_init(&w, db_name, n_dps, batch);
    workload_setup(&w, &txn, writer.next_id);
    updates = 1;
    transact(&txn, writer.next_id++, updates, "the setup transaction");

    /* The warm-up, not measured either. */
    double warm_cpu0 = server_cpu(NULL, NULL);
    for (int k = 0; k < n_warmup; k++) {
        workload_next(&w, &txn, writer.next_id);
        transact(&txn, writer.next_id++, ++updates, "a warm-up update");
    }
    printf("warmup_server_cpu_s %.3f\n", server_cpu(NULL, NULL) - warm_cpu0);

    /* With --gate, say so and wait for FILE, so that the caller can read
     * the server's counters or attach a profiler right before the
     * workload. */
    if (gate_file) {
        double deadline = now() + timeout_s;

        printf("workload_ready 1\n");
        fflush(stdout);
        while (access(gate_file, F_OK)) {
            if (now() > deadline) {
                fatal("--gate: %s did not appear in %d s", gate_file,
                      timeout_s);
            }
            usleep(10000);
        }
    }

    /* The workload. */
    lat = calloc(n_txns, sizeof *lat);
    double *txn_cpu = calloc(n_txns, sizeof *txn_cpu);
    reset_counts();
    long log_from = server_log ? file_size(server_log) : 0;
    double ut0, st0, ut1, st1;
    long rss0 = server_status_kb("VmRSS");
    bool peak_reset = server_reset_peak_rss();
    double cpu0 = server_cpu(&ut0, &st0), self0 = self_cpu();
    double t0 = now();
    uint64_t txn_bytes = 0;

    for (int k = 0; k < n_txns; k++) {
        double c0 = server_cpu(NULL, NULL);

        workload_next(&w, &txn, writer.next_id);
        txn_bytes += txn.len;
        lat[k] = transact(&txn, writer.next_id++, ++updates,
                          "a transaction's update");
        txn_cpu[k] = server_cpu(NULL, NULL) - c0;
    }
    double wall = now() - t0;
    double cpu1 = server_cpu(&ut1, &st1), self1 = self_cpu();
    long peak_rss = server_status_kb("VmHWM");

    /* A barrier: once its reply is here, the server has been back to its
     * poll loop, and has logged the last long poll interval, if any. */
    workload_noop(&w, &txn, writer.next_id);
    transact(&txn, writer.next_id++, -1, "the barrier transaction");

    check_same_bytes("workload");

    qsort(lat, n_txns, sizeof *lat, cmp_double);
    printf("server_cpu_s %.4f\nserver_utime_s %.3f\nserver_stime_s %.3f\n",
           cpu1 - cpu0, ut1 - ut0, st1 - st0);
    printf("server_cpu_source %s\n", server_cpu_ns() >= 0 ? "schedstat" : "stat");
    printf("wall_s %.3f\n", wall);
    /* Peak RSS during the workload (VmHWM after resetting it to the RSS
     * at the start), and the RSS at the start. */
    printf("server_rss_start_kb %ld\nserver_peak_rss_kb %ld\n"
           "server_peak_rss_reset %d\n", rss0, peak_rss, peak_reset);
    printf("client_cpu_s %.3f\n", self1 - self0);
    printf("txn_bytes %" PRIu64 "\n", txn_bytes);
    /* Server CPU of each measured transaction, in order: the same shape
     * after the warm-up, so a trend means the cost grows with the size of
     * the database. */
    printf("txn_server_cpu_ms");
    for (int k = 0; k < n_txns; k++) {
        printf(" %.2f", 1000 * txn_cpu[k]);
    }
    printf("\n");
    uint64_t total = 0;
    for (int i = 0; i < n_clients; i++) {
        total += clients[i].bytes;
    }
    printf("updates_per_client %" PRIu64 "\n", clients[0].msgs);
    print_totals("", total, offsetof(struct client, hash),
                 offsetof(struct client, hist_hash));
    print_groups("group_bytes", offsetof(struct client, bytes), false);
    print_groups("group_hashes", offsetof(struct client, hash), true);
    printf("fanout_ms_median %.1f\nfanout_ms_p95 %.1f\nfanout_ms_max %.1f\n",
           1000 * percentile(lat, n_txns, 50),
           1000 * percentile(lat, n_txns, 95), 1000 * lat[n_txns - 1]);
    uint64_t echoes = 0;
    for (int i = 0; i < n_clients; i++) {
        echoes += __atomic_load_n(&clients[i].n_echoes, __ATOMIC_RELAXED);
    }
    printf("echoes %" PRIu64 "\n", echoes);
    print_poll_intervals(log_from);

    readers_stop();
    for (int i = 0; i < n_clients; i++) {
        close(clients[i].fd);
        if (clients[i].capture && fclose(clients[i].capture)) {
            fatal("--capture: write failed");
        }
    }
    close(writer.fd);
    free(clients);
    free(requests);
    free(lat);
    free(txn_cpu);
    wbuf_free(&txn);
    wbuf_free(&writer_in);
    return 0;
}
