/* bench-fanout: in-process fan-out benchmark of the ovsdb-monitor model.
 *
 * Builds a Southbound-like database (logical flows, port bindings), connects
 * N unconditional clients to one monitor in the given cache mode, then runs
 * K northd-like transactions, each followed by a flush of every client.
 * Two sections are measured: the initial replies, and the updates (each
 * commit, which updates the change sets and drops stale cache entries, and
 * the flush that sends every client its update).  Building the
 * transactions is left out.
 *
 * Under valgrind --tool=callgrind --instr-atstart=no, only the measured
 * section is instrumented (CALLGRIND_START/STOP_INSTRUMENTATION).
 *
 * With --groups G, client i is conditional (monitor_cond_since only): it
 * monitors the logical flows of table (i mod G), and every port binding,
 * so that the clients form G groups of identical conditions.
 *
 * Every client uses the same monitor id, as ovsdb-idl clients of one
 * database do (["monid", <database name>]), unless --ids distinct.
 *
 * Prints one line of key=value pairs. */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ovsdb-monitor.h"
#include "om-sb-columns.h"
#include "om-util.h"
#include "openvswitch/json.h"

#ifdef HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_DUMP_STATS_AT(NAME)
#endif

static uint64_t rng = 42;

static uint64_t
rnd(void)
{
    return om_splitmix64(&rng);
}

static void
usage(void)
{
    printf("usage: bench-fanout [--mode no-cache|json-cache|serialized-cache"
           "|shared|shared-cond]\n       [--clients N] [--txns K] [--rows R]"
           " [--batch B] [--version 1|2|3|mix]\n       [--ids same|distinct]"
           " [--groups G]\n");
}

static void
die(const char *msg)
{
    fprintf(stderr, "bench-fanout: %s\n", msg);
    exit(2);
}

static long
parse_num(const char *s, long min, long max, const char *what)
{
    char *end;
    long n = strtol(s, &end, 10);

    if (!*s || *end || n < min || n > max) {
        fprintf(stderr, "bench-fanout: bad %s '%s' (expected %ld..%ld)\n",
                what, s, min, max);
        exit(2);
    }
    return n;
}

static uint64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* Sets 'col' of row 'uuid' of 't' in 'txn' to 'v', and frees 'v'. */
static void
set_json(struct om_txn *txn, struct om_table *t, const char *uuid,
         const char *col, struct json *v)
{
    if (!om_txn_set(txn, t, uuid, col, v, NULL)) {
        die("set failed");
    }
    json_destroy(v);
}

static void
set_string(struct om_txn *txn, struct om_table *t, const char *uuid,
           const char *col, const char *value)
{
    set_json(txn, t, uuid, col, json_string_create(value));
}

static void
set_int(struct om_txn *txn, struct om_table *t, const char *uuid,
        const char *col, long long value)
{
    set_json(txn, t, uuid, col, json_integer_create(value));
}

/* Fills a logical flow with northd-like content. */
static void
fill_flow(struct om_txn *txn, struct om_table *lf, const char *uuid,
          unsigned int n)
{
    char buf[256];

    snprintf(buf, sizeof buf, "inport == \"lsp-%u\" && eth.src == "
             "{00:00:00:%02x:%02x:%02x} && ip4.src == 10.%u.%u.%u",
             n % 5000, n & 0xff, (n >> 8) & 0xff, (unsigned int) rnd() & 0xff,
             n % 250, (n / 250) % 250, (unsigned int) rnd() % 250);
    set_string(txn, lf, uuid, "match", buf);
    snprintf(buf, sizeof buf, "reg0[%u] = 1; ct_next; next(pipeline=ingress"
             ", table=%u);", (unsigned int) rnd() % 16,
             (unsigned int) rnd() % 30);
    set_string(txn, lf, uuid, "actions", buf);
    set_int(txn, lf, uuid, "priority", (long long) (rnd() % 200) * 10);
    set_int(txn, lf, uuid, "table_id", (long long) (rnd() % 30));
    set_string(txn, lf, uuid, "pipeline", rnd() % 2 ? "ingress" : "egress");

    set_json(txn, lf, uuid, "external_ids",
             json_from_string("[\"map\",[[\"source\",\"northd.c:1234\"],"
                              "[\"stage-name\",\"ls_in_port_sec_l2\"]]]"));
}

int
main(int argc, char *argv[])
{
    enum om_cache_mode mode = OM_CACHE_SERIALIZED;
    long n_clients = 10, n_txns = 5, n_rows = 2000, batch = 50;
    const char *version = "3";
    bool distinct_ids = false;
    long n_groups = 0;
    static const struct option options[] = {
        { "mode", required_argument, NULL, 'm' },
        { "clients", required_argument, NULL, 'c' },
        { "txns", required_argument, NULL, 't' },
        { "rows", required_argument, NULL, 'r' },
        { "batch", required_argument, NULL, 'b' },
        { "version", required_argument, NULL, 'v' },
        { "ids", required_argument, NULL, 'i' },
        { "groups", required_argument, NULL, 'g' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int opt;

    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'm':
            if (!om_cache_mode_from_string(optarg, &mode)) {
                fprintf(stderr, "bench-fanout: unknown mode '%s'\n", optarg);
                return 2;
            }
            break;
        case 'c': n_clients = parse_num(optarg, 1, 100000, "--clients"); break;
        case 't': n_txns = parse_num(optarg, 0, 100000, "--txns"); break;
        case 'r': n_rows = parse_num(optarg, 0, 10000000, "--rows"); break;
        case 'b': batch = parse_num(optarg, 1, 100000, "--batch"); break;
        case 'v':
            if (strcmp(optarg, "1") && strcmp(optarg, "2")
                && strcmp(optarg, "3") && strcmp(optarg, "mix")) {
                fprintf(stderr, "bench-fanout: bad --version '%s'\n", optarg);
                return 2;
            }
            version = optarg;
            break;
        case 'g': n_groups = parse_num(optarg, 0, 30, "--groups"); break;
        case 'i':
            if (strcmp(optarg, "same") && strcmp(optarg, "distinct")) {
                fprintf(stderr, "bench-fanout: bad --ids '%s'\n", optarg);
                return 2;
            }
            distinct_ids = !strcmp(optarg, "distinct");
            break;
        case 'h':
            usage();
            return 0;
        default:
            usage();
            return 2;
        }
    }
    if (n_groups && strcmp(version, "3") && strcmp(version, "2")) {
        fprintf(stderr, "bench-fanout: --groups needs --version 2 or 3\n");
        return 2;
    }
    if (optind != argc) {
        fprintf(stderr, "bench-fanout: unexpected argument '%s'\n",
                argv[optind]);
        return 2;
    }

    static const struct om_column_def lf_cols[] = {
        OM_SB_LOGICAL_FLOW_COLUMNS,
        { "external_ids", OM_MAP, OM_STRING, OM_STRING },
    };
    static const struct om_column_def pb_cols[] = {
        OM_SB_PORT_BINDING_COLUMNS,
    };
    struct om_db *db = om_db_create(7);
    struct om_table *lf = om_db_add_table(db, "Logical_Flow", lf_cols,
                                          OM_ARRAY_SIZE(lf_cols));
    struct om_table *pb = om_db_add_table(db, "Port_Binding", pb_cols,
                                          OM_ARRAY_SIZE(pb_cols));
    struct om_monitor *mon = om_monitor_create(db, mode);
    if (!om_monitor_add_table(mon, lf, NULL, 0, OM_SEL_ALL, NULL)
        || !om_monitor_add_table(mon, pb, NULL, 0, OM_SEL_ALL, NULL)) {
        die("cannot monitor tables");
    }

    /* Initial contents, in transactions of 500 rows. */
    unsigned int n_flow = 0;
    for (long done = 0; done < n_rows; ) {
        struct om_txn *txn = om_txn_begin(db);
        for (long i = 0; i < 500 && done < n_rows; i++, done++) {
            fill_flow(txn, lf, om_txn_insert(txn, lf), n_flow++);
            if (done % 10 == 0) {
                char name[32];
                const char *uuid = om_txn_insert(txn, pb);
                snprintf(name, sizeof name, "lsp-%ld", done / 10);
                set_string(txn, pb, uuid, "logical_port", name);
                set_int(txn, pb, uuid, "tunnel_key", done / 10 + 1);
            }
        }
        om_txn_commit(txn);
    }

    struct om_client **clients = calloc(n_clients, sizeof *clients);
    uint64_t wall_initial, wall_updates = 0, t0;
    uint64_t hash = 14695981039346656037u;

    CALLGRIND_START_INSTRUMENTATION;
    t0 = now_ns();
    for (long i = 0; i < n_clients; i++) {
        enum om_version v = (!strcmp(version, "mix")
                             ? (enum om_version) (i % 3)
                             : (enum om_version) (version[0] - '1'));
        char id[32];
        if (distinct_ids) {
            snprintf(id, sizeof id, "sb-%ld", i);
        } else {
            snprintf(id, sizeof id, "monid-OVN_Southbound");
        }
        struct om_condition *cond = NULL;
        if (n_groups) {
            struct json *table_id = json_integer_create(i % n_groups);
            cond = om_condition_create();
            om_condition_add_equal(cond, "Logical_Flow", "table_id",
                                   table_id);
            om_condition_add_bool(cond, "Port_Binding", true);
            json_destroy(table_id);
        }
        clients[i] = om_client_create(mon, v, id, cond, NULL, NULL);
        om_condition_destroy(cond);
        if (!clients[i]) {
            die("cannot create a client");
        }
        if (i) {
            om_client_set_keep_output(clients[i], false);
        }
    }
    wall_initial = now_ns() - t0;
    CALLGRIND_STOP_INSTRUMENTATION;
    /* Callgrind: the initial replies in their own dump. */
    CALLGRIND_DUMP_STATS_AT("initial");
    const struct om_counters init_counters = *om_monitor_counters(mon);
    om_monitor_reset_counters(mon);

    for (long t = 0; t < n_txns; t++) {
        /* Client 0's bytes go into a checksum, compared across modes. */
        size_t len;
        const char *out = om_client_output(clients[0], &len);
        for (size_t i = 0; i < len; i++) {
            hash = (hash ^ (unsigned char) out[i]) * 1099511628211u;
        }
        om_client_clear_output(clients[0]);

        /* A northd-like batch: new flows, changed flows, removed flows, and
         * a port binding that goes up. */
        struct om_txn *txn = om_txn_begin(db);
        char (*uuids)[37];
        size_t n = om_table_row_uuids(lf, &uuids);
        for (long i = 0; i < batch / 2; i++) {
            fill_flow(txn, lf, om_txn_insert(txn, lf), n_flow++);
        }
        for (long i = 0; i < batch / 2 && n; i++) {
            set_string(txn, lf, uuids[rnd() % n], "actions",
                       rnd() % 2 ? "drop;" : "next;");
        }
        for (long i = 0; i < batch / 5 && n > (size_t) batch; i++) {
            om_txn_delete(txn, lf, uuids[(size_t) i * (n / batch)]);
        }
        free(uuids);
        n = om_table_row_uuids(pb, &uuids);
        if (n) {
            const char *u = uuids[rnd() % n];
            set_json(txn, pb, u, "up", json_boolean_create(true));
            set_string(txn, pb, u, "chassis", "chassis-1");
        }
        free(uuids);

        /* The commit is measured too: it drops the cache entries (in the
         * json-cache mode, whole trees). */
        CALLGRIND_START_INSTRUMENTATION;
        t0 = now_ns();
        om_txn_commit(txn);
        om_monitor_flush(mon);
        wall_updates += now_ns() - t0;
        CALLGRIND_STOP_INSTRUMENTATION;
    }
    size_t len;
    const char *out = om_client_output(clients[0], &len);
    for (size_t i = 0; i < len; i++) {
        hash = (hash ^ (unsigned char) out[i]) * 1099511628211u;
    }

    /* Bytes received per client (with distinct monitor ids, their lengths
     * differ). */
    uint64_t min_b = UINT64_MAX, max_b = 0;
    for (long i = 0; i < n_clients; i++) {
        uint64_t b = om_client_bytes(clients[i]);
        min_b = b < min_b ? b : min_b;
        max_b = b > max_b ? b : max_b;
    }

    CALLGRIND_DUMP_STATS_AT("updates");
    const struct om_counters *c = om_monitor_counters(mon);
    printf("mode=%s clients=%ld txns=%ld rows=%ld batch=%ld version=%s "
           "groups=%ld init_compositions=%" PRIu64 " init_serializations=%" PRIu64
           " init_bytes_sent=%" PRIu64 " init_bytes_verbatim=%" PRIu64
           " init_wall_ns=%" PRIu64
           " compositions=%" PRIu64 " serializations=%" PRIu64
           " bytes_serialized=%" PRIu64 " cache_hits=%" PRIu64
           " cache_misses=%" PRIu64 " messages=%" PRIu64
           " bytes_sent=%" PRIu64 " bytes_verbatim=%" PRIu64
           " client_bytes_min=%" PRIu64 " client_bytes_max=%" PRIu64
           " init_buffers=%" PRIu64 " init_bytes_buffered=%" PRIu64
           " buffers=%" PRIu64 " bytes_buffered=%" PRIu64
           " notifications_serialized=%" PRIu64
           " notifications_shared=%" PRIu64 " ids=%s"
           " checksum=%016" PRIx64 " wall_ns=%" PRIu64 "\n",
           om_cache_mode_name(mode), n_clients, n_txns, n_rows, batch,
           version, n_groups, init_counters.compositions, init_counters.serializations,
           init_counters.bytes_sent, init_counters.bytes_verbatim,
           wall_initial, c->compositions, c->serializations,
           c->bytes_serialized, c->cache_hits, c->cache_misses, c->messages,
           c->bytes_sent, c->bytes_verbatim, min_b, max_b,
           init_counters.buffers, init_counters.bytes_buffered, c->buffers,
           c->bytes_buffered, c->notifications_serialized,
           c->notifications_shared, distinct_ids ? "distinct" : "same", hash,
           wall_updates);

    om_db_destroy(db);
    free(clients);
    return 0;
}
