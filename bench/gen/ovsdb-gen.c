/* ovsdb-gen: writes a synthetic OVN Northbound or Southbound database, shaped
 * like an ovn-kubernetes deployment, as a standalone OVSDB file.
 *
 * The file has two records, each "OVSDB JSON <length> <sha1>\n" followed by
 * <length> bytes of JSON text ending in a new-line (the SHA-1 is over those
 * bytes): the schema (compacted), then one transaction that inserts every
 * row.  Everything is a function of the seed and the node count; the node
 * count is derived from the requested number of atoms (counted the way
 * ovsdb-server counts them for "memory/show": one per set element, two per
 * map pair, over every column including _uuid and _version).
 *
 * Usage: ovsdb-gen --db nb|sb --schema FILE --atoms N [--seed S]
 *                  [--nodes N] [--stats FILE] -o OUTPUT
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha1.h"

/* ---------------------------------------------------------------------- */
/* Output buffer and statistics. */

/* A growable byte buffer. */
struct buf {
    char *p;                    /* Bytes, not null-terminated. */
    size_t len;                 /* Bytes used. */
    size_t cap;                 /* Bytes allocated. */
};

/* What was generated, for the report and the atom-count calibration. */
struct stats {
    uint64_t atoms;             /* As ovsdb-server counts them (including
                                 * _uuid and _version of each row). */
    uint64_t rows;              /* Rows in all tables. */
    uint64_t str_atoms;         /* String atoms (keys, values, elements). */
    uint64_t str_short;         /* ...of which at most 23 bytes long. */
    uint64_t str_bytes;         /* Total bytes of all string atoms. */
    uint64_t uuid_atoms;        /* UUID atoms. */
    uint64_t int_atoms;         /* Integer atoms. */
    uint64_t bool_atoms;        /* Boolean atoms. */
};

/* Per-table row and atom counts. */
struct table_stat {
    const char *name;           /* Table name. */
    uint64_t rows;              /* Rows generated. */
    uint64_t atoms;             /* Atoms in those rows. */
};

#define MAX_TABLES 64
#define SHORT_MAX 23

static struct buf out;
static struct stats st;
static struct table_stat tstats[MAX_TABLES];
static int n_tstats;
static struct table_stat *cur_table;
static bool top_first, tbl_first, row_first;
static int set_n, set_i;        /* Current set: size and elements written. */
static bool map_first;          /* Next map pair is the first one. */
static uint64_t seed;

static void
fatal(const char *fmt, ...)
{
    va_list args;

    fputs("ovsdb-gen: ", stderr);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

static void
reserve(size_t n)
{
    if (out.cap - out.len < n) {
        size_t cap = out.cap ? out.cap : 1 << 20;
        while (cap - out.len < n) {
            cap *= 2;
        }
        out.p = realloc(out.p, cap);
        if (!out.p) {
            fatal("out of memory (%zu bytes)", cap);
        }
        out.cap = cap;
    }
}

static void
put(const char *s, size_t n)
{
    reserve(n);
    memcpy(out.p + out.len, s, n);
    out.len += n;
}

static void
put_s(const char *s)
{
    put(s, strlen(s));
}

static void
put_c(char c)
{
    reserve(1);
    out.p[out.len++] = c;
}

/* Writes 's' as a JSON string. */
static void
put_jstr(const char *s)
{
    put_c('"');
    for (; *s; s++) {
        unsigned char c = *s;
        if (c == '"' || c == '\\') {
            put_c('\\');
            put_c(c);
        } else if (c < 0x20) {
            char tmp[8];
            put(tmp, snprintf(tmp, sizeof tmp, "\\u%04x", c));
        } else {
            put_c(c);
        }
    }
    put_c('"');
}

/* Returns a formatted string in one of a few rotating static buffers. */
static const char *
F(const char *fmt, ...)
{
    static char bufs[64][8192];
    static int next;
    char *b = bufs[next++ % 64];
    va_list args;

    va_start(args, fmt);
    int n = vsnprintf(b, sizeof bufs[0], fmt, args);
    va_end(args);
    if (n >= (int) sizeof bufs[0]) {
        fatal("internal error: formatted string too long");
    }
    return b;
}

/* ---------------------------------------------------------------------- */
/* Deterministic pseudo-randomness. */

static uint64_t
mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* A hash of the seed and up to three numbers. */
static uint64_t
H(uint64_t a, uint64_t b, uint64_t c)
{
    return mix64(seed ^ mix64(a ^ mix64(b ^ mix64(c))));
}

/* Writes the UUID of row 'idx' of table 'tid' into 'b'. */
static void
uuid_fmt(char b[37], int tid, uint64_t idx)
{
    uint64_t hi = H(tid, idx, 1), lo = H(tid, idx, 2);
    hi = (hi & ~0xf000ULL) | 0x4000ULL;             /* Version 4. */
    lo = (lo & ~(3ULL << 62)) | (2ULL << 62);       /* Variant 1. */
    snprintf(b, 37, "%08"PRIx64"-%04"PRIx64"-%04"PRIx64"-%04"PRIx64
             "-%012"PRIx64, hi >> 32, (hi >> 16) & 0xffff, hi & 0xffff,
             lo >> 48, (uint64_t) (lo & 0xffffffffffffULL));
}

static const char *
uuid_str(int tid, uint64_t idx)
{
    static char bufs[16][37];
    static int next;
    char *b = bufs[next++ % 16];
    uuid_fmt(b, tid, idx);
    return b;
}

/* ---------------------------------------------------------------------- */
/* JSON writers for tables, rows, columns and atoms. */

static void
count_atoms(uint64_t n)
{
    st.atoms += n;
    cur_table->atoms += n;
}

static void
table_begin(const char *name)
{
    if (n_tstats >= MAX_TABLES) {
        fatal("internal error: too many tables");
    }
    cur_table = &tstats[n_tstats++];
    cur_table->name = name;
    cur_table->rows = cur_table->atoms = 0;
    if (!top_first) {
        put_c(',');
    }
    top_first = false;
    put_jstr(name);
    put_s(":{");
    tbl_first = true;
}

static void
table_end(void)
{
    put_c('}');
}

static void
row_begin(int tid, uint64_t idx)
{
    char u[37];

    if (!tbl_first) {
        put_c(',');
    }
    tbl_first = false;
    uuid_fmt(u, tid, idx);
    put_c('"');
    put_s(u);
    put_s("\":{");
    row_first = true;
    cur_table->rows++;
    st.rows++;
    /* ovsdb-server counts the _uuid and _version columns as well. */
    count_atoms(2);
}

static void
row_end(void)
{
    put_c('}');
}

static void
col(const char *name)
{
    if (!row_first) {
        put_c(',');
    }
    row_first = false;
    put_jstr(name);
    put_c(':');
}

/* Atoms: each call writes one atom and counts it. */
static void
a_str(const char *s)
{
    size_t n = strlen(s);
    put_jstr(s);
    count_atoms(1);
    st.str_atoms++;
    st.str_bytes += n;
    if (n <= SHORT_MAX) {
        st.str_short++;
    }
}

static void
a_int(int64_t v)
{
    char tmp[24];
    put(tmp, snprintf(tmp, sizeof tmp, "%"PRId64, v));
    count_atoms(1);
    st.int_atoms++;
}

static void
a_bool(bool b)
{
    put_s(b ? "true" : "false");
    count_atoms(1);
    st.bool_atoms++;
}

static void
a_uuid(int tid, uint64_t idx)
{
    put_s("[\"uuid\",\"");
    put_s(uuid_str(tid, idx));
    put_s("\"]");
    count_atoms(1);
    st.uuid_atoms++;
}

/* Scalar columns. */
static void
c_str(const char *name, const char *s)
{
    col(name);
    a_str(s);
}

static void
c_int(const char *name, int64_t v)
{
    col(name);
    a_int(v);
}

static void
c_bool(const char *name, bool b)
{
    col(name);
    a_bool(b);
}

static void
c_ref(const char *name, int tid, uint64_t idx)
{
    col(name);
    a_uuid(tid, idx);
}

/* Sets: set_begin(name, n), then exactly n times elem() followed by one atom
 * writer, then set_end().  Like OVSDB itself, a one-element set is written as
 * the bare atom and an empty set is not written at all. */
static void
set_begin(const char *name, int n)
{
    set_n = n;
    set_i = 0;
    if (n == 0) {
        return;
    }
    col(name);
    if (n > 1) {
        put_s("[\"set\",[");
    }
}

static void
elem(void)
{
    if (set_i++ > 0) {
        put_c(',');
    }
}

static void
set_end(void)
{
    if (set_i != set_n) {
        fatal("internal error: set has %d elements, announced %d",
              set_i, set_n);
    }
    if (set_n > 1) {
        put_s("]]");
    }
}

/* A one-element string set. */
static void
c_str1(const char *name, const char *s)
{
    set_begin(name, 1);
    elem();
    a_str(s);
    set_end();
}

/* A one-element boolean set. */
static void
c_bool1(const char *name, bool b)
{
    set_begin(name, 1);
    elem();
    a_bool(b);
    set_end();
}

/* A one-element uuid set: row 'idx' of table 'tid'. */
static void
c_ref1(const char *name, int tid, uint64_t idx)
{
    set_begin(name, 1);
    elem();
    a_uuid(tid, idx);
    set_end();
}

/* A two-element uuid set: rows 'a' and 'b' of table 'tid'. */
static void
c_ref2(const char *name, int tid, uint64_t a, uint64_t b)
{
    set_begin(name, 2);
    elem();
    a_uuid(tid, a);
    elem();
    a_uuid(tid, b);
    set_end();
}

/* A uuid set of the 'n' rows 'first', 'first' + 1, ... of table 'tid'. */
static void
c_ref_range(const char *name, int tid, uint64_t first, uint64_t n)
{
    set_begin(name, n);
    for (uint64_t i = 0; i < n; i++) {
        elem();
        a_uuid(tid, first + i);
    }
    set_end();
}

/* Maps: map_begin(name), pairs with m_ss(), then map_end().  Empty maps are
 * not allowed here (just leave the column out). */
static void
map_begin(const char *name)
{
    col(name);
    put_s("[\"map\",[");
    map_first = true;
}

static void
m_ss(const char *k, const char *v)
{
    if (!map_first) {
        put_c(',');
    }
    map_first = false;
    put_c('[');
    a_str(k);
    put_c(',');
    a_str(v);
    put_c(']');
}

static void
map_end(void)
{
    put_s("]]");
}

/* ---------------------------------------------------------------------- */
/* The deployment model shared by NB and SB. */

#define PODS_PER_NODE 100       /* Pods on each node (at most 249). */
#define NS_PER_NODE 2           /* Namespaces per node. */
#define SVC_PER_NS 2            /* Services per namespace. */
#define POL_PER_NS 2            /* Network policies per namespace. */
#define MACB_PER_NODE 8         /* SB MAC bindings per gateway router. */

/* Sizes derived from the node count. */
struct model {
    uint64_t nodes;             /* Kubernetes nodes (chassis). */
    uint64_t pods;              /* nodes * PODS_PER_NODE. */
    uint64_t ns;                /* Namespaces. */
    uint64_t svcs;              /* Services (one load balancer each). */
    uint64_t pols;              /* Network policies. */
};

static struct model m;

static void
model_init(uint64_t nodes)
{
    m.nodes = nodes;
    m.pods = nodes * PODS_PER_NODE;
    m.ns = nodes * NS_PER_NODE;
    m.svcs = m.ns * SVC_PER_NS;
    m.pols = m.ns * POL_PER_NS;
}

static const char *ns_words[] = {
    "default", "kube-system", "monitoring", "ingress-nginx", "cert-manager",
    "payments", "frontend", "backend", "logging", "istio-system", "checkout",
    "catalog", "openshift-dns", "argocd", "data-pipeline", "search",
};
#define N_NS_WORDS (sizeof ns_words / sizeof ns_words[0])

static const char *app_words[] = {
    "nginx", "redis", "postgres", "api", "web", "worker", "prometheus",
    "grafana", "coredns", "fluentd", "envoy", "cart", "ads", "shipping",
    "recommendation", "kafka-broker", "elasticsearch-data", "auth",
};
#define N_APP_WORDS (sizeof app_words / sizeof app_words[0])

/* The alphabet Kubernetes uses for generated name suffixes. */
static const char k8s_alnum[] = "bcdfghjklmnpqrstvwxz2456789";

static const char *
node_name(uint64_t x)
{
    return F("ovn-worker-%"PRIu64, x);
}

static const char *
ns_name(uint64_t k)
{
    if (k < N_NS_WORDS) {
        return ns_words[k];
    }
    return F("%s-%"PRIu64, ns_words[k % N_NS_WORDS], k / N_NS_WORDS);
}

/* Pod 'g' lives on node g / PODS_PER_NODE in namespace g % m.ns. */
static uint64_t pod_node(uint64_t g) { return g / PODS_PER_NODE; }
static uint64_t pod_slot(uint64_t g) { return g % PODS_PER_NODE; }
static uint64_t pod_ns(uint64_t g) { return g % m.ns; }

/* The j-th pod of namespace k (j < pods_in_ns(k)). */
static uint64_t ns_pod(uint64_t k, uint64_t j) { return k + j * m.ns; }

static uint64_t
pods_in_ns(uint64_t k)
{
    return (m.pods - k + m.ns - 1) / m.ns;
}

/* Pod name, e.g. "default_nginx-7c5f6d8b9-x2xkq": namespace, deployment,
 * pod-template hash, and a 5-character suffix unique to the pod. */
static const char *
pod_name(uint64_t g)
{
    uint64_t k = pod_ns(g), j = g / m.ns, d = j % 4;
    char hash[11], sfx[6];
    uint64_t h = H(101, k, d);
    int hlen = 9 + (h & 1);
    for (int i = 0; i < hlen; i++) {
        hash[i] = k8s_alnum[(h >> (6 * i + 1)) % 27];
    }
    hash[hlen] = '\0';
    /* A bijection of g onto [0, 27^5): distinct pods get distinct suffixes. */
    uint64_t v = (g * 7368787ULL + (seed % 14348907ULL)) % 14348907ULL;
    for (int i = 0; i < 5; i++) {
        sfx[i] = k8s_alnum[v % 27];
        v /= 27;
    }
    sfx[5] = '\0';
    return F("%s_%s-%s-%s", ns_name(k),
             app_words[(k * 7 + d) % N_APP_WORDS], hash, sfx);
}

/* Node x's subnet is 10.A.B.0/24 with A.B = node_ab(x). */
static const char *
node_ab(uint64_t x)
{
    return F("%"PRIu64".%"PRIu64, (244 + x / 256) % 256, x % 256);
}

static const char *
node_abx(uint64_t x)
{
    return F("%02"PRIx64":%02"PRIx64, (244 + x / 256) % 256, x % 256);
}

static const char *
pod_ip(uint64_t g)
{
    return F("10.%s.%"PRIu64, node_ab(pod_node(g)), pod_slot(g) + 5);
}

static const char *
pod_mac(uint64_t g)
{
    return F("0a:58:0a:%s:%02"PRIx64, node_abx(pod_node(g)),
             pod_slot(g) + 5);
}

/* Node x's address on the external network: 172.18.C.D. */
static const char *
node_ext_ip(uint64_t x)
{
    return F("172.18.%"PRIu64".%"PRIu64, x / 250, x % 250 + 2);
}

static const char *
node_join_ip(uint64_t x)
{
    return F("100.64.%"PRIu64".%"PRIu64, (x + 2) / 250, (x + 2) % 250 + 1);
}

/* Chassis system-id of node x. */
static const char *
chassis_id(uint64_t x)
{
    return uuid_str(999, x);
}

/* Port group / address set names look like "a13757631697825269621". */
static const char *
hash_name(uint64_t kind, uint64_t a, uint64_t b)
{
    return F("a%"PRIu64, H(kind, a, b) >> 1);
}

static const char *
svc_ip(uint64_t t)
{
    return F("10.96.%"PRIu64".%"PRIu64, t / 250, t % 250 + 1);
}

static const int svc_ports[] = { 80, 443, 8080, 53, 9090, 6379, 5432 };

/* The port of VIP v (0 or 1) of service t. */
static int
svc_port(uint64_t t, int v)
{
    int port = svc_ports[H(201, t, 0) % 7];
    return !v ? port : port == 443 ? 8443 : 443;
}

/* Number of VIPs of service t (1 or 2) and backends per VIP (2 to 4). */
static int svc_n_vips(uint64_t t) { return 1 + (H(202, t, 0) % 3 == 0); }
static int svc_n_backends(uint64_t t) { return 2 + H(203, t, 0) % 3; }

/* "10.244.1.5:8080,10.244.2.7:8080": backends of service t, VIP v. */
static const char *
svc_backends(uint64_t t, int v)
{
    static char b[1024];
    uint64_t k = t % m.ns, n = pods_in_ns(k);
    int tport = v ? 8443 : 8080;
    size_t len = 0;

    b[0] = '\0';
    for (int i = 0; i < svc_n_backends(t) && (uint64_t) i < n; i++) {
        uint64_t g = ns_pod(k, (t / m.ns * 5 + i + v) % n);
        len += snprintf(b + len, sizeof b - len, "%s%s:%d", i ? "," : "",
                        pod_ip(g), tport);
    }
    return b;
}

static const char *
svc_name(uint64_t t)
{
    return F("%s-svc-%"PRIu64, app_words[H(204, t, 0) % N_APP_WORDS],
             t / m.ns);
}

/* "namespace/name" of service t. */
static const char *
svc_owner(uint64_t t)
{
    return F("%s/%s", ns_name(t % m.ns), svc_name(t));
}

/* Begins row t of table 'tid', the NB or SB load balancer of service t,
 * with the columns both have first: its name and protocol. */
static void
lb_row_begin(int tid, uint64_t t)
{
    row_begin(tid, t);
    c_str("name", F("Service_%s_TCP_cluster", svc_owner(t)));
    c_str1("protocol", "tcp");
}

/* The "vips" column of the load balancer of service t, NB or SB. */
static void
c_lb_vips(uint64_t t)
{
    map_begin("vips");
    for (int v = 0; v < svc_n_vips(t); v++) {
        m_ss(F("%s:%d", svc_ip(t), svc_port(t, v)),
             svc_backends(t, v));
    }
    map_end();
}

/* Begins row k of table 'tid', the NB or SB address set of namespace k:
 * its name and the addresses of its pods. */
static void
address_set_row_begin(int tid, uint64_t k)
{
    uint64_t n = pods_in_ns(k);

    row_begin(tid, k);
    c_str("name", hash_name(1, k, 0));
    set_begin("addresses", n);
    for (uint64_t j = 0; j < n; j++) {
        elem();
        a_str(pod_ip(ns_pod(k, j)));
    }
    set_end();
}

/* The "options" and "external_ids" of the port of pod g, NB or SB. */
static void
c_pod_port_maps(uint64_t g)
{
    map_begin("options");
    m_ss("iface-id-ver", uuid_str(77, g));
    m_ss("requested-chassis", node_name(pod_node(g)));
    map_end();
    map_begin("external_ids");
    m_ss("namespace", ns_name(pod_ns(g)));
    m_ss("pod", "true");
    map_end();
}

/* A uuid set of table 'tid': row 'row(x)' of each node x, then row 'last'
 * unless it is negative. */
static void
c_node_refs(const char *name, int tid, uint64_t (*row)(uint64_t x),
            int64_t last)
{
    set_begin(name, m.nodes + (last >= 0));
    for (uint64_t x = 0; x < m.nodes; x++) {
        elem();
        a_uuid(tid, row(x));
    }
    if (last >= 0) {
        elem();
        a_uuid(tid, last);
    }
    set_end();
}

/* ---------------------------------------------------------------------- */
/* Northbound. */

enum nb_tid {
    NB_GLOBAL = 1, NB_LS, NB_LSP, NB_AS, NB_PG, NB_LB, NB_LBG, NB_ACL,
    NB_LR, NB_LRP, NB_SR, NB_POL, NB_NAT, NB_GC,
};

/* Index spaces of the NB rows. */
#define LS_NODE(x) (3 * (x))
#define LS_EXT(x) (3 * (x) + 1)
#define LS_JOIN (3 * m.nodes)
#define LSP_POD(g) (g)
#define LSP_MGMT(x) (m.pods + 4 * (x))
#define LSP_STOR(x) (m.pods + 4 * (x) + 1)
#define LSP_BRETH(x) (m.pods + 4 * (x) + 2)
#define LSP_ETOR(x) (m.pods + 4 * (x) + 3)
#define LSP_JTOR(x) (m.pods + 4 * m.nodes + (x))
#define LSP_JTOR_CR (m.pods + 5 * m.nodes)
#define LR_GR(x) (x)
#define LR_CR (m.nodes)
#define LRP_RTOS(x) (3 * (x))
#define LRP_RTOJ(x) (3 * (x) + 1)
#define LRP_RTOE(x) (3 * (x) + 2)
#define LRP_RTOJ_CR (3 * m.nodes)
#define LBG_CLUSTER 0
#define LBG_SWITCH 1
#define LBG_ROUTER 2
#define PG_DENY(k) (k)
#define PG_POL(p) (m.ns + (p))
#define ACL_DENY(k, i) (4 * (k) + (i))
#define ACL_POL(p, i) (4 * m.ns + 3 * (p) + (i))
#define ACL_MGMT(x) (4 * m.ns + 3 * m.pols + (x))
#define NAT_PER_NODE (1 + PODS_PER_NODE / 10)

/* Some of them as functions, for c_node_refs(). */
static uint64_t lsp_jtor(uint64_t x) { return LSP_JTOR(x); }
static uint64_t lrp_rtos(uint64_t x) { return LRP_RTOS(x); }

static const char *
gr_name(uint64_t x)
{
    return F("GR_%s", node_name(x));
}

static void
nb_global(void)
{
    table_begin("NB_Global");
    row_begin(NB_GLOBAL, 0);
    c_str("name", "");
    c_int("nb_cfg", 4711);
    c_int("nb_cfg_timestamp", 1735689600123LL);
    c_int("sb_cfg", 4711);
    c_int("sb_cfg_timestamp", 1735689600456LL);
    c_int("hv_cfg", 4711);
    c_int("hv_cfg_timestamp", 1735689600789LL);
    c_bool("ipsec", false);
    map_begin("options");
    m_ss("e2e_timestamp", "1735689600");
    m_ss("mac_prefix", "0a:58:0a");
    m_ss("max_tunid", "16711680");
    m_ss("northd-backoff-interval-ms", "300");
    m_ss("northd_internal_version", "23.03.1-20.27.0-70.6");
    m_ss("svc_monitor_mac", "0a:58:0a:f4:00:fe");
    m_ss("use_logical_dp_groups", "true");
    map_end();
    map_begin("external_ids");
    m_ss("k8s-ovn-topo-version", "7");
    map_end();
    row_end();
    table_end();
}

static void
nb_ls_node(uint64_t x)
{
    row_begin(NB_LS, LS_NODE(x));
    c_str("name", node_name(x));
    set_begin("ports", PODS_PER_NODE + 2);
    for (uint64_t s = 0; s < PODS_PER_NODE; s++) {
        elem();
        a_uuid(NB_LSP, LSP_POD(x * PODS_PER_NODE + s));
    }
    elem();
    a_uuid(NB_LSP, LSP_MGMT(x));
    elem();
    a_uuid(NB_LSP, LSP_STOR(x));
    set_end();
    c_ref1("acls", NB_ACL, ACL_MGMT(x));
    c_ref2("load_balancer_group", NB_LBG, LBG_CLUSTER, LBG_SWITCH);
    map_begin("other_config");
    m_ss("exclude_ips", F("10.%s.2", node_ab(x)));
    m_ss("mcast_eth_src", F("0a:58:0a:%s:01", node_abx(x)));
    m_ss("mcast_ip4_src", F("10.%s.1", node_ab(x)));
    m_ss("mcast_querier", "true");
    m_ss("mcast_snoop", "true");
    m_ss("subnet", F("10.%s.0/24", node_ab(x)));
    map_end();
    row_end();
}

static void
nb_ls_ext(uint64_t x)
{
    row_begin(NB_LS, LS_EXT(x));
    c_str("name", F("ext_%s", node_name(x)));
    c_ref2("ports", NB_LSP, LSP_BRETH(x), LSP_ETOR(x));
    row_end();
}

static void
nb_ls_join(void)
{
    row_begin(NB_LS, LS_JOIN);
    c_str("name", "join");
    c_node_refs("ports", NB_LSP, lsp_jtor, LSP_JTOR_CR);
    row_end();
}

static void
nb_lsp_pod(uint64_t g)
{
    const char *addr = F("%s %s", pod_mac(g), pod_ip(g));

    row_begin(NB_LSP, LSP_POD(g));
    c_str("name", pod_name(g));
    c_str("type", "");
    c_str1("addresses", addr);
    c_str1("port_security", addr);
    c_bool1("up", true);
    c_pod_port_maps(g);
    row_end();
}

/* A switch port of type "router" peered with router port 'rp'. */
static void
nb_lsp_router(uint64_t idx, const char *name, const char *rp, bool ext)
{
    row_begin(NB_LSP, idx);
    c_str("name", name);
    c_str("type", "router");
    c_str1("addresses", "router");
    map_begin("options");
    m_ss("router-port", rp);
    if (ext) {
        m_ss("exclude-lb-vips-from-garp", "true");
        m_ss("nat-addresses", "router");
    }
    map_end();
    row_end();
}

static void
nb_lsp_node(uint64_t x)
{
    const char *n = node_name(x);

    row_begin(NB_LSP, LSP_MGMT(x));
    c_str("name", F("k8s-%s", n));
    c_str("type", "");
    c_str1("addresses", F("0a:58:0a:%s:02 10.%s.2", node_abx(x), node_ab(x)));
    c_bool1("up", true);
    row_end();

    nb_lsp_router(LSP_STOR(x), F("stor-%s", n), F("rtos-%s", n), false);

    row_begin(NB_LSP, LSP_BRETH(x));
    c_str("name", F("breth0_%s", n));
    c_str("type", "localnet");
    c_str1("addresses", "unknown");
    map_begin("options");
    m_ss("network_name", "physnet");
    map_end();
    row_end();

    nb_lsp_router(LSP_ETOR(x), F("etor-GR_%s", n), F("rtoe-GR_%s", n), true);
    nb_lsp_router(LSP_JTOR(x), F("jtor-GR_%s", n), F("rtoj-GR_%s", n),
                  false);
}

static void
nb_address_sets(void)
{
    table_begin("Address_Set");
    for (uint64_t k = 0; k < m.ns; k++) {
        address_set_row_begin(NB_AS, k);
        map_begin("external_ids");
        m_ss("ip-family", "v4");
        m_ss("k8s.ovn.org/id", F("default-network-controller:Namespace:%s:v4",
                                 ns_name(k)));
        m_ss("k8s.ovn.org/name", ns_name(k));
        m_ss("k8s.ovn.org/owner-controller", "default-network-controller");
        m_ss("k8s.ovn.org/owner-type", "Namespace");
        map_end();
        row_end();
    }
    table_end();
}

/* A set of the switch ports of the 'n' pods j = 'first', 'first' + 'step',
 * ... of namespace k. */
static void
c_ns_ports(const char *name, uint64_t k, uint64_t first, uint64_t step,
           uint64_t n)
{
    set_begin(name, n);
    for (uint64_t i = 0; i < n; i++) {
        elem();
        a_uuid(NB_LSP, LSP_POD(ns_pod(k, first + step * i)));
    }
    set_end();
}

static const char *
policy_name(uint64_t p)
{
    static const char *kinds[] = {
        "allow-from-frontend", "allow-same-namespace", "deny-all",
        "allow-monitoring", "allow-dns",
    };
    return F("%s-%"PRIu64, kinds[H(301, p, 0) % 5], p / m.ns);
}

/* Pods of namespace k selected by policy p: every other pod. */
static uint64_t
pol_n_ports(uint64_t p)
{
    uint64_t n = pods_in_ns(p % m.ns);
    uint64_t half = p / m.ns % 2;
    return n / 2 + (n % 2 && !half);
}

static void
nb_port_groups(void)
{
    table_begin("Port_Group");
    for (uint64_t k = 0; k < m.ns; k++) {
        uint64_t n = pods_in_ns(k);
        row_begin(NB_PG, PG_DENY(k));
        c_str("name", hash_name(2, k, 0));
        c_ns_ports("ports", k, 0, 1, n);
        c_ref_range("acls", NB_ACL, ACL_DENY(k, 0), 4);
        map_begin("external_ids");
        m_ss("name", F("%s_DefaultDeny", ns_name(k)));
        map_end();
        row_end();
    }
    for (uint64_t p = 0; p < m.pols; p++) {
        uint64_t k = p % m.ns, half = p / m.ns % 2, n = pol_n_ports(p);
        row_begin(NB_PG, PG_POL(p));
        c_str("name", hash_name(3, p, 0));
        c_ns_ports("ports", k, half, 2, n);
        c_ref_range("acls", NB_ACL, ACL_POL(p, 0), 3);
        map_begin("external_ids");
        m_ss("k8s.ovn.org/id",
             F("default-network-controller:NetworkPolicy:%s:%s",
               ns_name(k), policy_name(p)));
        m_ss("k8s.ovn.org/name", F("%s:%s", ns_name(k), policy_name(p)));
        m_ss("k8s.ovn.org/owner-controller", "default-network-controller");
        m_ss("k8s.ovn.org/owner-type", "NetworkPolicy");
        map_end();
        row_end();
    }
    table_end();
}

/* One ACL row. */
static void
nb_acl(uint64_t idx, const char *name, int prio, const char *dir,
       const char *match, const char *action, const char *owner,
       const char *id)
{
    row_begin(NB_ACL, idx);
    if (name) {
        c_str1("name", name);
    }
    c_int("priority", prio);
    c_str("direction", dir);
    c_str("match", match);
    c_str("action", action);
    c_bool("log", false);
    c_int("label", 0);
    map_begin("options");
    m_ss("apply-after-lb", "false");
    map_end();
    map_begin("external_ids");
    m_ss("k8s.ovn.org/id", id);
    m_ss("k8s.ovn.org/owner-controller", "default-network-controller");
    m_ss("k8s.ovn.org/owner-type", owner);
    map_end();
    row_end();
}

static void
nb_acls(void)
{
    table_begin("ACL");
    for (uint64_t k = 0; k < m.ns; k++) {
        const char *pg = hash_name(2, k, 0), *ns = ns_name(k);
        nb_acl(ACL_DENY(k, 0), F("%s_ingressDefaultDeny", ns), 1000,
               "to-lport", F("outport == @%s", pg), "drop", "NetpolNamespace",
               F("default-network-controller:NetpolNamespace:%s:Ingress:defaultDeny",
                 ns));
        nb_acl(ACL_DENY(k, 1), F("%s_ARPallowPolicy", ns), 1001, "to-lport",
               F("outport == @%s && (arp || nd)", pg), "allow",
               "NetpolNamespace",
               F("default-network-controller:NetpolNamespace:%s:Ingress:arpAllow",
                 ns));
        nb_acl(ACL_DENY(k, 2), F("%s_egressDefaultDeny", ns), 1000,
               "from-lport", F("inport == @%s", pg), "drop",
               "NetpolNamespace",
               F("default-network-controller:NetpolNamespace:%s:Egress:defaultDeny",
                 ns));
        nb_acl(ACL_DENY(k, 3), F("%s_ARPallowPolicy", ns), 1001,
               "from-lport", F("inport == @%s && (arp || nd)", pg), "allow",
               "NetpolNamespace",
               F("default-network-controller:NetpolNamespace:%s:Egress:arpAllow",
                 ns));
    }
    for (uint64_t p = 0; p < m.pols; p++) {
        uint64_t k = p % m.ns, k2 = (k + 1 + H(302, p, 0) % 7) % m.ns;
        const char *pg = hash_name(3, p, 0), *ns = ns_name(k);
        const char *pol = policy_name(p);
        for (int i = 0; i < 3; i++) {
            const char *match, *dir;
            int port = svc_ports[(p + i) % 7];
            if (i == 0) {
                dir = "to-lport";
                match = F("((ip4.src == {$%s, $%s})) && outport == @%s && "
                          "tcp && tcp.dst==%d", hash_name(1, k, 0),
                          hash_name(1, k2, 0), pg, port);
            } else if (i == 1) {
                dir = "to-lport";
                match = F("ip4.src == 10.%s.0/24 && outport == @%s && udp "
                          "&& udp.dst==%d",
                          node_ab(H(303, p, 0) % m.nodes), pg, port);
            } else {
                dir = "from-lport";
                match = F("ip4.dst == {$%s} && inport == @%s",
                          hash_name(1, k2, 0), pg);
            }
            char name[64];
            snprintf(name, sizeof name, "%s:%s:%s:%d", ns, pol,
                     i < 2 ? "Ingress" : "Egress", i);
            nb_acl(ACL_POL(p, i), name, 1001, dir, match, "allow-related",
                   "NetworkPolicy",
                   F("default-network-controller:NetworkPolicy:%s:%s:%s:%d:"
                     "%s:-1", ns, pol, i < 2 ? "Ingress" : "Egress", i,
                     i == 1 ? "UDP" : "TCP"));
        }
    }
    for (uint64_t x = 0; x < m.nodes; x++) {
        nb_acl(ACL_MGMT(x), NULL, 1001, "to-lport",
               F("ip4.src==10.%s.2", node_ab(x)), "allow-related",
               "NetpolNode", F("default-network-controller:NetpolNode:%s:"
                               "10.%s.2", node_name(x), node_ab(x)));
    }
    table_end();
}

static void
nb_load_balancers(void)
{
    table_begin("Load_Balancer");
    for (uint64_t t = 0; t < m.svcs; t++) {
        lb_row_begin(NB_LB, t);
        c_lb_vips(t);
        map_begin("options");
        m_ss("event", "false");
        m_ss("hairpin_snat_ip", "169.254.169.5 fd69::5");
        m_ss("neighbor_responder", "none");
        m_ss("reject", "true");
        m_ss("skip_snat", "false");
        map_end();
        map_begin("external_ids");
        m_ss("k8s.ovn.org/kind", "Service");
        m_ss("k8s.ovn.org/owner", svc_owner(t));
        map_end();
        row_end();
    }
    table_end();

    table_begin("Load_Balancer_Group");
    static const char *names[] = {
        "clusterLBGroup", "clusterSwitchLBGroup", "clusterRouterLBGroup",
    };
    for (int i = 0; i < 3; i++) {
        uint64_t n = 0;
        for (uint64_t t = 0; t < m.svcs; t++) {
            n += i == 0 || t % 10 == (uint64_t) i * 3;
        }
        row_begin(NB_LBG, i);
        c_str("name", names[i]);
        set_begin("load_balancer", n);
        for (uint64_t t = 0; t < m.svcs; t++) {
            if (i == 0 || t % 10 == (uint64_t) i * 3) {
                elem();
                a_uuid(NB_LB, t);
            }
        }
        set_end();
        row_end();
    }
    table_end();
}

static void
nb_routers(void)
{
    table_begin("Logical_Router");
    for (uint64_t x = 0; x < m.nodes; x++) {
        row_begin(NB_LR, LR_GR(x));
        c_str("name", gr_name(x));
        c_ref2("ports", NB_LRP, LRP_RTOJ(x), LRP_RTOE(x));
        c_ref_range("static_routes", NB_SR, m.nodes + 2 * x, 2);
        c_ref_range("nat", NB_NAT, x * NAT_PER_NODE, NAT_PER_NODE);
        c_ref2("load_balancer_group", NB_LBG, LBG_CLUSTER, LBG_ROUTER);
        map_begin("options");
        m_ss("always_learn_from_arp_request", "false");
        m_ss("chassis", chassis_id(x));
        m_ss("dynamic_neigh_routers", "true");
        m_ss("lb_force_snat_ip", "router_ip");
        m_ss("mac_binding_age_threshold", "300");
        m_ss("snat-ct-zone", "0");
        map_end();
        map_begin("external_ids");
        m_ss("physical_ip", node_ext_ip(x));
        m_ss("physical_ips", node_ext_ip(x));
        map_end();
        row_end();
    }
    row_begin(NB_LR, LR_CR);
    c_str("name", "ovn_cluster_router");
    c_node_refs("ports", NB_LRP, lrp_rtos, LRP_RTOJ_CR);
    c_ref_range("static_routes", NB_SR, 0, m.nodes);
    c_ref_range("policies", NB_POL, 0, 2 * m.nodes + 2);
    map_begin("options");
    m_ss("mcast_relay", "true");
    map_end();
    map_begin("external_ids");
    m_ss("k8s-cluster-router", "yes");
    m_ss("k8s-ovn-topo-version", "7");
    map_end();
    row_end();
    table_end();
}

static void
nb_lrp(uint64_t idx, const char *name, const char *mac, const char *net,
       int64_t gc)
{
    row_begin(NB_LRP, idx);
    c_str("name", name);
    c_str("mac", mac);
    c_str1("networks", net);
    if (gc >= 0) {
        c_ref1("gateway_chassis", NB_GC, gc);
    }
    map_begin("options");
    m_ss("gateway_mtu", "1400");
    map_end();
    row_end();
}

static void
nb_router_ports(void)
{
    table_begin("Logical_Router_Port");
    for (uint64_t x = 0; x < m.nodes; x++) {
        const char *n = node_name(x);
        nb_lrp(LRP_RTOS(x), F("rtos-%s", n),
               F("0a:58:0a:%s:01", node_abx(x)), F("10.%s.1/24", node_ab(x)),
               x);
        nb_lrp(LRP_RTOJ(x), F("rtoj-GR_%s", n),
               F("0a:58:64:40:%02"PRIx64":%02"PRIx64, (x + 2) >> 8 & 0xff,
                 (x + 2) & 0xff), F("%s/16", node_join_ip(x)), -1);
        nb_lrp(LRP_RTOE(x), F("rtoe-GR_%s", n),
               F("02:42:ac:12:%02"PRIx64":%02"PRIx64, x >> 8 & 0xff,
                 x & 0xff), F("%s/16", node_ext_ip(x)), -1);
    }
    nb_lrp(LRP_RTOJ_CR, "rtoj-ovn_cluster_router", "0a:58:64:40:00:01",
           "100.64.0.1/16", -1);
    table_end();

    table_begin("Gateway_Chassis");
    for (uint64_t x = 0; x < m.nodes; x++) {
        row_begin(NB_GC, x);
        c_str("name", F("rtos-%s-%s", node_name(x), chassis_id(x)));
        c_str("chassis_name", chassis_id(x));
        c_int("priority", 1);
        row_end();
    }
    table_end();
}

static void
nb_routes_policies_nat(void)
{
    table_begin("Logical_Router_Static_Route");
    for (uint64_t x = 0; x < m.nodes; x++) {
        row_begin(NB_SR, x);
        c_str("route_table", "");
        c_str("ip_prefix", F("10.%s.0/24", node_ab(x)));
        c_str("nexthop", node_join_ip(x));
        c_str1("policy", "src-ip");
        row_end();
    }
    for (uint64_t x = 0; x < m.nodes; x++) {
        row_begin(NB_SR, m.nodes + 2 * x);
        c_str("route_table", "");
        c_str("ip_prefix", "0.0.0.0/0");
        c_str("nexthop", "172.18.0.1");
        c_str1("output_port", F("rtoe-GR_%s", node_name(x)));
        row_end();
        row_begin(NB_SR, m.nodes + 2 * x + 1);
        c_str("route_table", "");
        c_str("ip_prefix", "10.244.0.0/16");
        c_str("nexthop", "100.64.0.1");
        row_end();
    }
    table_end();

    table_begin("Logical_Router_Policy");
    for (uint64_t x = 0; x < m.nodes; x++) {
        const char *n = node_name(x);
        row_begin(NB_POL, 2 * x);
        c_int("priority", 1004);
        c_str("match", F("inport == \"rtos-%s\" && ip4.dst == %s /* %s */",
                         n, node_ext_ip(x), n));
        c_str("action", "reroute");
        c_str1("nexthops", F("10.%s.2", node_ab(x)));
        map_begin("external_ids");
        m_ss("k8s.ovn.org/id",
             F("default-network-controller:EgressIP:1004:%s:ip4", n));
        m_ss("k8s.ovn.org/name", n);
        m_ss("k8s.ovn.org/owner-controller", "default-network-controller");
        m_ss("k8s.ovn.org/owner-type", "EgressIP");
        map_end();
        row_end();
        row_begin(NB_POL, 2 * x + 1);
        c_int("priority", 1003);
        c_str("match", F("ip4.src == 10.%s.2 && ip4.dst != 10.244.0.0/16 "
                         "/* inter-%s */", node_ab(x), n));
        c_str("action", "reroute");
        c_str1("nexthops", node_join_ip(x));
        row_end();
    }
    for (int i = 0; i < 2; i++) {
        row_begin(NB_POL, 2 * m.nodes + i);
        c_int("priority", 102 - i);
        c_str("match", i ? "ip4.src == 10.244.0.0/16 && ip4.dst == "
                           "100.64.0.0/16"
                         : "ip4.src == 10.244.0.0/16 && ip4.dst == "
                           "10.244.0.0/16");
        c_str("action", "allow");
        row_end();
    }
    table_end();

    table_begin("NAT");
    for (uint64_t x = 0; x < m.nodes; x++) {
        for (int i = 0; i < NAT_PER_NODE; i++) {
            row_begin(NB_NAT, x * NAT_PER_NODE + i);
            c_str("external_port_range", "");
            c_str("type", "snat");
            if (!i) {
                c_str("external_ip", node_ext_ip(x));
                c_str("logical_ip", "10.244.0.0/16");
            } else {
                uint64_t g = x * PODS_PER_NODE + (i - 1) * 10;
                c_str("external_ip", F("172.19.%"PRIu64".%"PRIu64,
                                       g / 250, g % 250 + 2));
                c_str("logical_ip", pod_ip(g));
                c_str1("logical_port", pod_name(g));
                map_begin("external_ids");
                m_ss("name", F("egressip-%"PRIu64, g));
                map_end();
            }
            map_begin("options");
            m_ss("stateless", "false");
            map_end();
            row_end();
        }
    }
    table_end();
}

static void
nb_generate(void)
{
    nb_global();

    table_begin("Logical_Switch");
    for (uint64_t x = 0; x < m.nodes; x++) {
        nb_ls_node(x);
        nb_ls_ext(x);
    }
    nb_ls_join();
    table_end();

    table_begin("Logical_Switch_Port");
    for (uint64_t g = 0; g < m.pods; g++) {
        nb_lsp_pod(g);
    }
    for (uint64_t x = 0; x < m.nodes; x++) {
        nb_lsp_node(x);
    }
    nb_lsp_router(LSP_JTOR_CR, "jtor-ovn_cluster_router",
                  "rtoj-ovn_cluster_router", false);
    table_end();

    nb_address_sets();
    nb_port_groups();
    nb_acls();
    nb_load_balancers();
    nb_routers();
    nb_router_ports();
    nb_routes_policies_nat();
}

/* ---------------------------------------------------------------------- */
/* Southbound. */

enum sb_tid {
    SB_GLOBAL = 41, SB_CHASSIS, SB_CHPRIV, SB_ENCAP, SB_DP, SB_PB, SB_MACB,
    SB_MCG, SB_IPMC, SB_LF, SB_DPG, SB_LB, SB_AS,
};

/* Datapaths: node switch, external switch and gateway router per node,
 * then the cluster router and the join switch. */
#define DP_LS(x) (3 * (x))
#define DP_EXT(x) (3 * (x) + 1)
#define DP_GR(x) (3 * (x) + 2)
#define DP_CR (3 * m.nodes)
#define DP_JOIN (3 * m.nodes + 1)
#define N_DP (3 * m.nodes + 2)
#define DPG_LS 0
#define DPG_GR 1

/* Port bindings: the pods, then 8 infrastructure ports per node. */
#define PB_POD(g) (g)
#define PB_NODE(x, i) (m.pods + 8 * (x) + (i))

static uint64_t n_flows;

static void
sb_global(void)
{
    table_begin("SB_Global");
    row_begin(SB_GLOBAL, 0);
    c_int("nb_cfg", 4711);
    c_bool("ipsec", false);
    map_begin("options");
    m_ss("e2e_timestamp", "1735689600");
    m_ss("mac_prefix", "0a:58:0a");
    m_ss("max_tunid", "16711680");
    m_ss("northd_internal_version", "23.03.1-20.27.0-70.6");
    m_ss("svc_monitor_mac", "0a:58:0a:f4:00:fe");
    m_ss("use_logical_dp_groups", "true");
    map_end();
    row_end();
    table_end();
}

static void
sb_chassis(void)
{
    table_begin("Chassis");
    for (uint64_t x = 0; x < m.nodes; x++) {
        row_begin(SB_CHASSIS, x);
        c_str("name", chassis_id(x));
        c_str("hostname", node_name(x));
        c_int("nb_cfg", 4711);
        c_ref1("encaps", SB_ENCAP, x);
        map_begin("other_config");
        m_ss("datapath-type", "");
        m_ss("iface-types", "afxdp,afxdp-nonpmd,bareudp,erspan,geneve,gre,"
             "gtpu,internal,ip6erspan,ip6gre,lisp,patch,srv6,stt,system,"
             "tap,vxlan");
        m_ss("is-interconn", "false");
        m_ss("ovn-bridge-mappings", "physnet:breth0");
        m_ss("ovn-chassis-mac-mappings", "");
        m_ss("ovn-cms-options", "");
        m_ss("ovn-ct-no-masked-label", "true");
        m_ss("ovn-enable-lflow-cache", "true");
        m_ss("ovn-limit-lflow-cache", "");
        m_ss("ovn-memlimit-lflow-cache-kb", "");
        m_ss("ovn-monitor-all", "true");
        m_ss("ovn-trim-limit-lflow-cache", "");
        m_ss("ovn-trim-timeout-ms", "");
        m_ss("ovn-trim-wmark-perc-lflow-cache", "");
        m_ss("port-up-notif", "true");
        map_end();
        row_end();
    }
    table_end();

    table_begin("Chassis_Private");
    for (uint64_t x = 0; x < m.nodes; x++) {
        row_begin(SB_CHPRIV, x);
        c_str("name", chassis_id(x));
        c_ref1("chassis", SB_CHASSIS, x);
        c_int("nb_cfg", 4711);
        c_int("nb_cfg_timestamp", 1735689600000LL + x);
        row_end();
    }
    table_end();

    table_begin("Encap");
    for (uint64_t x = 0; x < m.nodes; x++) {
        row_begin(SB_ENCAP, x);
        c_str("type", "geneve");
        c_str("ip", node_ext_ip(x));
        c_str("chassis_name", chassis_id(x));
        map_begin("options");
        m_ss("csum", "true");
        map_end();
        row_end();
    }
    table_end();
}

static void
sb_dp(uint64_t idx, const char *kind, uint64_t nb_idx, const char *name)
{
    row_begin(SB_DP, idx);
    c_int("tunnel_key", idx + 1);
    map_begin("external_ids");
    m_ss(kind, uuid_str(!strcmp(kind, "logical-switch") ? NB_LS : NB_LR,
                        nb_idx));
    m_ss("name", name);
    map_end();
    row_end();
}

static void
sb_datapaths(void)
{
    table_begin("Datapath_Binding");
    for (uint64_t x = 0; x < m.nodes; x++) {
        sb_dp(DP_LS(x), "logical-switch", LS_NODE(x), node_name(x));
        sb_dp(DP_EXT(x), "logical-switch", LS_EXT(x),
              F("ext_%s", node_name(x)));
        sb_dp(DP_GR(x), "logical-router", LR_GR(x), gr_name(x));
    }
    sb_dp(DP_CR, "logical-router", LR_CR, "ovn_cluster_router");
    sb_dp(DP_JOIN, "logical-switch", LS_JOIN, "join");
    table_end();

    table_begin("Logical_DP_Group");
    for (int i = 0; i < 2; i++) {
        row_begin(SB_DPG, i);
        set_begin("datapaths", m.nodes);
        for (uint64_t x = 0; x < m.nodes; x++) {
            elem();
            a_uuid(SB_DP, i == DPG_LS ? DP_LS(x) : DP_GR(x));
        }
        set_end();
        row_end();
    }
    table_end();
}

static void
sb_pb(uint64_t idx, const char *name, const char *type, uint64_t dp,
      int64_t key, const char *mac, int64_t chassis, const char *peer)
{
    row_begin(SB_PB, idx);
    c_str("logical_port", name);
    c_str("type", type);
    c_ref("datapath", SB_DP, dp);
    c_int("tunnel_key", key);
    if (mac) {
        c_str1("mac", mac);
    }
    if (chassis >= 0) {
        c_ref1("chassis", SB_CHASSIS, chassis);
        c_bool1("up", true);
    }
    if (peer) {
        map_begin("options");
        m_ss("peer", peer);
        map_end();
    }
    row_end();
}

static void
sb_port_bindings(void)
{
    table_begin("Port_Binding");
    for (uint64_t g = 0; g < m.pods; g++) {
        uint64_t x = pod_node(g);
        const char *addr = F("%s %s", pod_mac(g), pod_ip(g));
        row_begin(SB_PB, PB_POD(g));
        c_str("logical_port", pod_name(g));
        c_str("type", "");
        c_ref("datapath", SB_DP, DP_LS(x));
        c_int("tunnel_key", pod_slot(g) + 4);
        c_str1("mac", addr);
        c_str1("port_security", addr);
        c_ref("chassis", SB_CHASSIS, x);
        c_ref("requested_chassis", SB_CHASSIS, x);
        c_bool("up", true);
        c_pod_port_maps(g);
        row_end();
    }
    for (uint64_t x = 0; x < m.nodes; x++) {
        const char *n = node_name(x);
        sb_pb(PB_NODE(x, 0), F("k8s-%s", n), "", DP_LS(x), 1,
              F("0a:58:0a:%s:02 10.%s.2", node_abx(x), node_ab(x)), x, NULL);
        sb_pb(PB_NODE(x, 1), F("stor-%s", n), "patch", DP_LS(x), 2,
              "router", -1, F("rtos-%s", n));
        sb_pb(PB_NODE(x, 2), F("rtos-%s", n), "patch", DP_CR, x + 2,
              F("0a:58:0a:%s:01 10.%s.1/24", node_abx(x), node_ab(x)), -1,
              F("stor-%s", n));
        sb_pb(PB_NODE(x, 3), F("breth0_%s", n), "localnet", DP_EXT(x), 1,
              "unknown", -1, NULL);
        sb_pb(PB_NODE(x, 4), F("etor-GR_%s", n), "patch", DP_EXT(x), 2,
              "router", -1, F("rtoe-GR_%s", n));
        sb_pb(PB_NODE(x, 5), F("rtoe-GR_%s", n), "l3gateway", DP_GR(x), 1,
              F("02:42:ac:12:%02"PRIx64":%02"PRIx64" %s/16", x >> 8 & 0xff,
                x & 0xff, node_ext_ip(x)), x, F("etor-GR_%s", n));
        sb_pb(PB_NODE(x, 6), F("jtor-GR_%s", n), "l3gateway", DP_JOIN, x + 2,
              "router", x, F("rtoj-GR_%s", n));
        sb_pb(PB_NODE(x, 7), F("rtoj-GR_%s", n), "l3gateway", DP_GR(x), 2,
              F("0a:58:64:40:%02"PRIx64":%02"PRIx64" %s/16",
                (x + 2) >> 8 & 0xff, (x + 2) & 0xff, node_join_ip(x)), x,
              F("jtor-GR_%s", n));
    }
    table_end();
}

static void
sb_mac_bindings(void)
{
    table_begin("MAC_Binding");
    for (uint64_t x = 0; x < m.nodes; x++) {
        for (uint64_t i = 0; i < MACB_PER_NODE; i++) {
            uint64_t h = H(401, x, i);
            row_begin(SB_MACB, x * MACB_PER_NODE + i);
            c_str("logical_port", F("rtoe-GR_%s", node_name(x)));
            c_str("ip", F("172.18.%"PRIu64".%"PRIu64, 250 + i / 250,
                          i % 250 + 1));
            c_str("mac", F("02:42:%02x:%02x:%02x:%02x", (int) (h & 0xff),
                           (int) (h >> 8 & 0xff), (int) (h >> 16 & 0xff),
                           (int) (h >> 24 & 0xff)));
            c_int("timestamp", 1735689600000LL + (int64_t) (h % 86400000));
            c_ref("datapath", SB_DP, DP_GR(x));
            row_end();
        }
    }
    table_end();
}

static void
sb_mcg(uint64_t idx, uint64_t dp, const char *name, int key,
       uint64_t first_pb, uint64_t n_pb, const uint64_t *extra, int n_extra)
{
    row_begin(SB_MCG, idx);
    c_ref("datapath", SB_DP, dp);
    c_str("name", name);
    c_int("tunnel_key", key);
    set_begin("ports", n_pb + n_extra);
    for (uint64_t i = 0; i < n_pb; i++) {
        elem();
        a_uuid(SB_PB, first_pb + i);
    }
    for (int i = 0; i < n_extra; i++) {
        elem();
        a_uuid(SB_PB, extra[i]);
    }
    set_end();
    row_end();
}

static void
sb_multicast(void)
{
    table_begin("Multicast_Group");
    uint64_t idx = 0;
    for (uint64_t x = 0; x < m.nodes; x++) {
        uint64_t infra[2] = { PB_NODE(x, 0), PB_NODE(x, 1) };
        uint64_t ext[2] = { PB_NODE(x, 3), PB_NODE(x, 4) };
        sb_mcg(idx++, DP_LS(x), "_MC_flood", 32768, x * PODS_PER_NODE,
               PODS_PER_NODE, infra, 2);
        sb_mcg(idx++, DP_LS(x), "_MC_unknown", 32769, 0, 0, NULL, 0);
        sb_mcg(idx++, DP_LS(x), "_MC_mrouter_flood", 32770, 0, 0, infra + 1,
               1);
        sb_mcg(idx++, DP_LS(x), "_MC_flood_l2", 32773, x * PODS_PER_NODE,
               PODS_PER_NODE, infra, 2);
        sb_mcg(idx++, DP_EXT(x), "_MC_flood", 32768, 0, 0, ext, 2);
        sb_mcg(idx++, DP_EXT(x), "_MC_unknown", 32769, 0, 0, ext, 1);
    }
    table_end();

    table_begin("IP_Multicast");
    for (uint64_t x = 0; x < m.nodes; x++) {
        row_begin(SB_IPMC, x);
        c_ref("datapath", SB_DP, DP_LS(x));
        c_str("eth_src", F("0a:58:0a:%s:01", node_abx(x)));
        c_str("ip4_src", F("10.%s.1", node_ab(x)));
        c_str("ip6_src", "");
        c_int("seq_no", 0);
        c_bool("enabled", true);
        c_bool("querier", true);
        row_end();
    }
    table_end();
}

/* One logical flow.  'dp' >= 0 is a datapath, otherwise -1 - dp is a
 * datapath group. */
static void
lf(int64_t dp, bool egress, int table, int prio, const char *stage,
   int line, const char *match, const char *actions)
{
    row_begin(SB_LF, n_flows++);
    if (dp >= 0) {
        c_ref("logical_datapath", SB_DP, dp);
    } else {
        c_ref("logical_dp_group", SB_DPG, -1 - dp);
    }
    c_str("pipeline", egress ? "egress" : "ingress");
    c_int("table_id", table);
    c_int("priority", prio);
    c_str("match", match);
    c_str("actions", actions);
    map_begin("external_ids");
    m_ss("source", F("northd.c:%d", line));
    m_ss("stage-name", stage);
    if (line % 3 == 0) {
        m_ss("stage-hint", F("%08"PRIx64, H(501, line, prio) >> 32));
    }
    map_end();
    row_end();
}

/* The actions of a logical switch's ARP reply for 'ip' at 'mac'. */
static const char *
ls_arp_reply(const char *mac, const char *ip)
{
    return F("eth.dst = eth.src; eth.src = %s; arp.op = 2; /* ARP reply */ "
             "arp.tha = arp.sha; arp.sha = %s; arp.tpa = arp.spa; "
             "arp.spa = %s; outport = inport; flags.loopback = 1; output;",
             mac, mac, ip);
}

/* The actions of a logical router's ARP reply (its port's MAC is in
 * xreg0). */
static const char lr_arp_reply[] =
    "eth.dst = eth.src; eth.src = xreg0[0..47]; arp.op = 2; /* ARP reply */ "
    "arp.tha = arp.sha; arp.sha = xreg0[0..47]; arp.tpa <-> arp.spa; "
    "outport = inport; flags.loopback = 1; output;";

static void
sb_flows_pod(uint64_t g)
{
    const char *p = pod_name(g), *mac = pod_mac(g), *ip = pod_ip(g);
    uint64_t x = pod_node(g), s = pod_slot(g) + 5, dp = DP_LS(x);
    const char *ll = F("fe80::858:aff:fe%s%02"PRIx64, node_abx(x), s);

    lf(dp, false, 0, 50, "ls_in_check_port_sec", 5862,
       F("inport == \"%s\"", p), "reg0[15] = check_in_port_sec(); next;");
    lf(dp, false, 1, 90, "ls_in_apply_port_sec", 5901,
       F("inport == \"%s\" && eth.src == %s && ip4.src == {%s}", p, mac, ip),
       "next;");
    lf(dp, false, 22, 50, "ls_in_arp_rsp", 8452,
       F("arp.tpa == %s && arp.op == 1", ip), ls_arp_reply(mac, ip));
    lf(dp, false, 22, 100, "ls_in_arp_rsp", 8425,
       F("arp.tpa == %s && arp.op == 1 && inport == \"%s\"", ip, p),
       "next;");
    lf(dp, false, 22, 50, "ls_in_arp_rsp", 8515,
       F("nd_ns && ip6.dst == {%s, ff02::1:ff%s} && nd.target == %s", ll,
         F("%02"PRIx64":%02"PRIx64, x & 0xff, s), ll),
       F("nd_na { eth.src = %s; ip6.src = %s; nd.target = %s; nd.tll = %s; "
         "outport = inport; flags.loopback = 1; output; };", mac, ll, ll,
         mac));
    lf(dp, false, 27, 50, "ls_in_l2_lkup", 9408, F("eth.dst == %s", mac),
       F("outport = \"%s\"; output;", p));
    lf(dp, true, 9, 50, "ls_out_check_port_sec", 5950,
       F("outport == \"%s\"", p), "reg0[15] = check_out_port_sec(); next;");
    lf(DP_CR, false, 18, 100, "lr_in_arp_resolve", 12511,
       F("outport == \"rtos-%s\" && reg0 == %s", node_name(x), ip),
       F("eth.dst = %s; next;", mac));
}

static void
sb_flows_node(uint64_t x)
{
    const char *n = node_name(x), *ab = node_ab(x), *abx = node_abx(x);
    const char *eip = node_ext_ip(x);

    lf(DP_LS(x), false, 27, 50, "ls_in_l2_lkup", 9408,
       F("eth.dst == 0a:58:0a:%s:01", abx),
       F("outport = \"stor-%s\"; output;", n));
    lf(DP_LS(x), false, 27, 50, "ls_in_l2_lkup", 9408,
       F("eth.dst == 0a:58:0a:%s:02", abx),
       F("outport = \"k8s-%s\"; output;", n));
    lf(DP_LS(x), false, 22, 50, "ls_in_arp_rsp", 8452,
       F("arp.tpa == 10.%s.2 && arp.op == 1", ab),
       ls_arp_reply(F("0a:58:0a:%s:02", abx), F("10.%s.2", ab)));
    lf(DP_LS(x), false, 9, 1001, "ls_in_acl", 6704,
       F("reg0[7] == 1 && (ip4.src==10.%s.2)", ab),
       "reg0[1] = 1; next;");
    lf(DP_LS(x), false, 9, 1001, "ls_in_acl", 6704,
       F("reg0[8] == 1 && (ip4.src==10.%s.2)", ab), "next;");
    lf(DP_CR, false, 3, 90, "lr_in_ip_input", 11950,
       F("inport == \"rtos-%s\" && arp.op == 1 && arp.tpa == 10.%s.1 && "
         "arp.spa == 10.%s.0/24", n, ab, ab),
       lr_arp_reply);
    lf(DP_CR, false, 12, 74, "lr_in_ip_routing", 10215,
       F("ip4.dst == 10.%s.0/24", ab),
       F("ip.ttl--; reg8[0..15] = 0; reg0 = ip4.dst; reg1 = 10.%s.1; "
         "eth.src = 0a:58:0a:%s:01; outport = \"rtos-%s\"; "
         "flags.loopback = 1; next;", ab, abx, n));
    lf(DP_CR, false, 12, 73, "lr_in_ip_routing", 10215,
       F("ip4.src == 10.%s.0/24", ab),
       F("ip.ttl--; reg8[0..15] = 0; reg0 = %s; reg1 = 100.64.0.1; "
         "eth.src = 0a:58:64:40:00:01; outport = \"rtoj-ovn_cluster_router\";"
         " flags.loopback = 1; next;", node_join_ip(x)));
    lf(DP_CR, false, 14, 1004, "lr_in_policy", 10421,
       F("inport == \"rtos-%s\" && ip4.dst == %s /* %s */", n, eip, n),
       F("reg0 = 10.%s.2; reg1 = 10.%s.1; eth.src = 0a:58:0a:%s:01; "
         "outport = \"rtos-%s\"; flags.loopback = 1; reg8[0..15] = 0; next;",
         ab, ab, abx, n));
    lf(DP_GR(x), false, 4, 100, "lr_in_unsnat", 13701,
       F("ip && ip4.dst == %s", eip), "ct_snat;");
    lf(DP_GR(x), true, 3, 153, "lr_out_snat", 13855,
       F("ip && ip4.src == 10.244.0.0/16 && outport == \"rtoe-GR_%s\" && "
         "is_chassis_resident(\"rtoe-GR_%s\")", n, n),
       F("ct_snat(%s);", eip));
    lf(DP_GR(x), false, 3, 90, "lr_in_ip_input", 11950,
       F("inport == \"rtoe-GR_%s\" && arp.op == 1 && arp.tpa == %s && "
         "arp.spa == 172.18.0.0/16", n, eip),
       lr_arp_reply);
    lf(DP_GR(x), false, 12, 49, "lr_in_ip_routing", 10215,
       "ip4.dst == 172.18.0.0/16",
       F("ip.ttl--; reg8[0..15] = 0; reg0 = ip4.dst; reg1 = %s; eth.src = "
         "02:42:ac:12:%02"PRIx64":%02"PRIx64"; outport = \"rtoe-GR_%s\"; "
         "flags.loopback = 1; next;", eip, x >> 8 & 0xff, x & 0xff, n));
    lf(DP_GR(x), false, 0, 50, "lr_in_admission", 11502,
       F("eth.dst == 02:42:ac:12:%02"PRIx64":%02"PRIx64" && inport == "
         "\"rtoe-GR_%s\"", x >> 8 & 0xff, x & 0xff, n),
       "xreg0[0..47] = 02:42:ac:12:00:02; next;");
    lf(DP_EXT(x), false, 27, 50, "ls_in_l2_lkup", 9408,
       F("eth.dst == 02:42:ac:12:%02"PRIx64":%02"PRIx64, x >> 8 & 0xff,
         x & 0xff),
       F("outport = \"etor-GR_%s\"; output;", n));
    lf(DP_JOIN, false, 27, 50, "ls_in_l2_lkup", 9408,
       F("eth.dst == 0a:58:64:40:%02"PRIx64":%02"PRIx64,
         (x + 2) >> 8 & 0xff, (x + 2) & 0xff),
       F("outport = \"jtor-GR_%s\"; output;", n));
}

/* Stage defaults shared by all node switches or all gateway routers. */
static void
sb_flows_defaults(void)
{
    static const char *ls_stages[] = {
        "ls_in_check_port_sec", "ls_in_apply_port_sec", "ls_in_lookup_fdb",
        "ls_in_put_fdb", "ls_in_pre_acl", "ls_in_pre_lb",
        "ls_in_pre_stateful", "ls_in_acl_hint", "ls_in_acl_eval",
        "ls_in_acl_action", "ls_in_qos_mark", "ls_in_qos_meter", "ls_in_lb",
        "ls_in_acl_after_lb", "ls_in_stateful", "ls_in_pre_hairpin",
        "ls_in_nat_hairpin", "ls_in_hairpin", "ls_in_arp_rsp",
        "ls_in_dhcp_options", "ls_in_dhcp_response", "ls_in_dns_lookup",
        "ls_in_dns_response", "ls_in_external_port", "ls_in_l2_lkup",
        "ls_in_l2_unknown",
    };
    static const char *lr_stages[] = {
        "lr_in_admission", "lr_in_lookup_neighbor", "lr_in_learn_neighbor",
        "lr_in_ip_input", "lr_in_unsnat", "lr_in_defrag", "lr_in_dnat",
        "lr_in_ecmp_stateful", "lr_in_nd_ra_options", "lr_in_nd_ra_response",
        "lr_in_ip_routing_pre", "lr_in_ip_routing", "lr_in_ip_routing_ecmp",
        "lr_in_policy", "lr_in_policy_ecmp", "lr_in_arp_resolve",
        "lr_in_chk_pkt_len", "lr_in_larger_pkts", "lr_in_gw_redirect",
        "lr_in_arp_request",
    };
    static const char *ls_m[] = {
        "1", "ip", "ct.est && !ct.rel && !ct.new && !ct.inv && ct.rpl_dir",
        "ip && ct.trk && ct.est && !ct.rel && !ct.new && !ct.inv",
        "eth.mcast", "nd_rs || nd_ra", "reg0[2] == 1 && (ip4 || ip6)",
        "ct.inv || (ct.est && ct.rpl && ct_mark.blocked == 1)",
    };
    static const char *ls_a[] = {
        "next;", "drop;", "ct_next;", "reg0[0] = 1; next;",
        "reg0[9] = 0; reg0[10] = 0; next;", "outport = \"_MC_flood\"; output;",
        "reg8[16] = 1; next;", "ct_commit { ct_mark.blocked = 0; }; next;",
        "reg0[1] = 1; reg0[7] = 1; reg0[8] = 1; reg0[9] = 0; reg0[10] = 0;"
        " next;",
    };
    for (int i = 0; i < 26; i++) {
        for (int j = 0; j < 8; j++) {
            lf(-1 - DPG_LS, j == 7, i, j * 10, ls_stages[i], 5000 + 37 * i,
               ls_m[(i + j) % 8], ls_a[(i * 3 + j) % 9]);
        }
    }
    for (int i = 0; i < 20; i++) {
        for (int j = 0; j < 8; j++) {
            lf(-1 - DPG_GR, j == 7, i, j * 10, lr_stages[i], 11000 + 41 * i,
               ls_m[(i + j + 3) % 8], ls_a[(i + j) % 9]);
        }
    }
}

/* Load balancer flows of each service, on the datapath groups. */
static void
sb_flows_services(void)
{
    for (uint64_t t = 0; t < m.svcs; t++) {
        for (int v = 0; v < svc_n_vips(t); v++) {
            const char *ip = svc_ip(t), *be = svc_backends(t, v);
            int port = svc_port(t, v);
            lf(-1 - DPG_LS, false, 6, 120, "ls_in_pre_stateful", 6182,
               F("reg0[2] == 1 && ip4.dst == %s && tcp.dst == %d", ip, port),
               F("reg1 = %s; reg2[0..15] = %d; ct_lb_mark;", ip, port));
            lf(-1 - DPG_LS, false, 12, 120, "ls_in_lb", 7342,
               F("ct.new && ip4.dst == %s && tcp.dst == %d", ip, port),
               F("reg0[1] = 0; ct_lb_mark(backends=%s);", be));
            lf(-1 - DPG_GR, false, 6, 120, "lr_in_dnat", 10924,
               F("ct.new && !ct.rel && ip4 && ip4.dst == %s && tcp && "
                 "tcp.dst == %d", ip, port),
               F("flags.force_snat_for_lb = 1; ct_lb_mark(backends=%s; "
                 "force_snat);", be));
            lf(-1 - DPG_GR, false, 5, 100, "lr_in_defrag", 10766,
               F("ip && ip4.dst == %s && tcp", ip),
               "reg0 = ip4.dst; reg9[16..31] = tcp.dst; ct_dnat;");
        }
    }
}

/* Flows of the network policy ACLs, on the node switches' group. */
static void
sb_flows_acls(void)
{
    for (uint64_t p = 0; p < m.pols; p++) {
        uint64_t k = p % m.ns, k2 = (k + 1 + H(302, p, 0) % 7) % m.ns;
        const char *match = F("((ip4.src == {$%s, $%s})) && outport == @%s "
                              "&& tcp && tcp.dst==%d", hash_name(1, k, 0),
                              hash_name(1, k2, 0), hash_name(3, p, 0),
                              svc_ports[p % 7]);
        lf(-1 - DPG_LS, true, 4, 2001, "ls_out_acl_eval", 6704,
           F("reg0[7] == 1 && (%s)", match),
           "reg8[16] = 1; reg0[1] = 1; next;");
        lf(-1 - DPG_LS, true, 4, 2001, "ls_out_acl_eval", 6711,
           F("reg0[8] == 1 && (%s)", match), "reg8[16] = 1; next;");
    }
}

static void
sb_logical_flows(void)
{
    table_begin("Logical_Flow");
    n_flows = 0;
    sb_flows_defaults();
    for (uint64_t g = 0; g < m.pods; g++) {
        sb_flows_pod(g);
    }
    for (uint64_t x = 0; x < m.nodes; x++) {
        sb_flows_node(x);
    }
    sb_flows_services();
    sb_flows_acls();
    table_end();
}

static void
sb_lbs_and_sets(void)
{
    table_begin("Load_Balancer");
    for (uint64_t t = 0; t < m.svcs; t++) {
        lb_row_begin(SB_LB, t);
        c_ref("datapath_group", SB_DPG, DPG_LS);
        c_lb_vips(t);
        map_begin("options");
        m_ss("hairpin_snat_ip", "169.254.169.5 fd69::5");
        map_end();
        map_begin("external_ids");
        m_ss("lb_id", uuid_str(NB_LB, t));
        map_end();
        row_end();
    }
    table_end();

    table_begin("Address_Set");
    for (uint64_t k = 0; k < m.ns; k++) {
        address_set_row_begin(SB_AS, k);
        row_end();
    }
    table_end();
}

static void
sb_generate(void)
{
    sb_global();
    sb_chassis();
    sb_datapaths();
    sb_port_bindings();
    sb_mac_bindings();
    sb_multicast();
    sb_logical_flows();
    sb_lbs_and_sets();
}

/* ---------------------------------------------------------------------- */
/* Records and the file. */

static void
generate(bool sb, uint64_t nodes)
{
    model_init(nodes);
    memset(&st, 0, sizeof st);
    n_tstats = 0;
    out.len = 0;
    top_first = true;
    put_c('{');
    if (sb) {
        sb_generate();
    } else {
        nb_generate();
    }
    put_s(",\"_date\":1735689600000,\"_comment\":");
    put_jstr(F("ovsdb-gen %s nodes=%"PRIu64, sb ? "sb" : "nb", nodes));
    put_s("}\n");
}

/* Reads the schema and removes the white space outside strings. */
static char *
read_schema(const char *path, size_t *lenp)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fatal("%s: %s", path, strerror(errno));
    }
    size_t cap = 1 << 16, len = 0;
    char *s = malloc(cap);
    bool in_str = false, esc = false;
    int c;
    while ((c = getc(f)) != EOF) {
        if (!in_str && (c == ' ' || c == '\n' || c == '\t' || c == '\r')) {
            continue;
        }
        if (in_str) {
            if (esc) {
                esc = false;
            } else if (c == '\\') {
                esc = true;
            } else if (c == '"') {
                in_str = false;
            }
        } else if (c == '"') {
            in_str = true;
        }
        if (len + 2 >= cap) {
            cap *= 2;
            s = realloc(s, cap);
        }
        s[len++] = c;
    }
    fclose(f);
    if (!len || s[0] != '{' || s[len - 1] != '}' || in_str) {
        fatal("%s: not a JSON object", path);
    }
    s[len++] = '\n';
    *lenp = len;
    return s;
}

static void
write_record(FILE *f, const char *data, size_t len)
{
    struct gen_sha1 ctx;
    uint8_t d[GEN_SHA1_LEN];

    gen_sha1_init(&ctx);
    gen_sha1_update(&ctx, data, len);
    gen_sha1_final(&ctx, d);
    fprintf(f, "OVSDB JSON %zu ", len);
    for (int i = 0; i < GEN_SHA1_LEN; i++) {
        fprintf(f, "%02x", d[i]);
    }
    fputc('\n', f);
    if (fwrite(data, 1, len, f) != len) {
        fatal("write failed: %s", strerror(errno));
    }
}

static uint64_t
parse_u64(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') {
        fatal("%s: '%s' is not a non-negative integer", opt, s);
    }
    return v;
}

static void
usage(void)
{
    fprintf(stderr,
            "usage: ovsdb-gen --db nb|sb --schema FILE (--atoms N | --nodes N)"
            " [--seed S] [--stats FILE] -o OUTPUT\n");
    exit(1);
}

int
main(int argc, char *argv[])
{
    const char *db = NULL, *schema = NULL, *output = NULL, *stats = NULL;
    const char *seed_str = "ovs-json-perf";
    uint64_t atoms = 0, nodes = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) {
            usage();
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--db")) {
            db = v;
        } else if (!strcmp(a, "--schema")) {
            schema = v;
        } else if (!strcmp(a, "--atoms")) {
            atoms = parse_u64(a, v);
        } else if (!strcmp(a, "--nodes")) {
            nodes = parse_u64(a, v);
        } else if (!strcmp(a, "--seed")) {
            seed_str = v;
        } else if (!strcmp(a, "--stats")) {
            stats = v;
        } else if (!strcmp(a, "-o")) {
            output = v;
        } else {
            usage();
        }
    }
    if (!db || !schema || !output || (!atoms == !nodes)) {
        usage();
    }
    bool sb = !strcmp(db, "sb");
    if (!sb && strcmp(db, "nb")) {
        fatal("--db must be nb or sb, not '%s'", db);
    }

    /* FNV-1a of the seed string. */
    seed = 0xcbf29ce484222325ULL;
    for (const char *p = seed_str; *p; p++) {
        seed = (seed ^ (unsigned char) *p) * 0x100000001b3ULL;
    }

    size_t schema_len;
    char *schema_text = read_schema(schema, &schema_len);

    if (!nodes) {
        /* Everything grows linearly with the node count: measure two small
         * sizes and solve for the requested number of atoms. */
        generate(sb, 2);
        uint64_t a2 = st.atoms;
        generate(sb, 4);
        double per_node = (st.atoms - a2) / 2.0;
        double base = a2 - 2 * per_node;
        double n = (atoms - base) / per_node;
        nodes = n < 1 ? 1 : (uint64_t) (n + 0.5);
    }
    if (nodes > 30000) {
        fatal("too many nodes (%"PRIu64"); the address plan allows 30000",
              nodes);
    }
    generate(sb, nodes);

    char *tmp = malloc(strlen(output) + 8);
    sprintf(tmp, "%s.tmp", output);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fatal("%s: %s", tmp, strerror(errno));
    }
    write_record(f, schema_text, schema_len);
    write_record(f, out.p, out.len);
    if (fclose(f) || rename(tmp, output)) {
        fatal("%s: %s", output, strerror(errno));
    }

    FILE *sf = stats ? fopen(stats, "w") : NULL;
    if (stats && !sf) {
        fatal("%s: %s", stats, strerror(errno));
    }
    for (int pass = 0; pass < 2; pass++) {
        FILE *o = pass ? sf : stdout;
        if (!o) {
            continue;
        }
        fprintf(o, "db=%s\nnodes=%"PRIu64"\npods=%"PRIu64"\nrows=%"PRIu64
                "\natoms=%"PRIu64"\ndata_atoms=%"PRIu64"\nstring_atoms=%"PRIu64
                "\nshort_string_atoms=%"PRIu64"\nshort_string_pct=%.1f\n"
                "string_bytes=%"PRIu64"\nuuid_atoms=%"PRIu64
                "\ninteger_atoms=%"PRIu64"\nboolean_atoms=%"PRIu64
                "\nfile_bytes=%zu\n",
                db, m.nodes, m.pods, st.rows, st.atoms, st.atoms - 2 * st.rows,
                st.str_atoms,
                st.str_short, 100.0 * st.str_short / st.str_atoms,
                st.str_bytes, st.uuid_atoms, st.int_atoms, st.bool_atoms,
                schema_len + out.len + 2 * 64);
        for (int i = 0; i < n_tstats; i++) {
            fprintf(o, "table.%s=%"PRIu64" rows %"PRIu64" atoms\n",
                    tstats[i].name, tstats[i].rows, tstats[i].atoms);
        }
    }
    if (sf && fclose(sf)) {
        fatal("%s: %s", stats, strerror(errno));
    }
    free(tmp);
    free(schema_text);
    free(out.p);
    return 0;
}
