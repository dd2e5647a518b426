/* workload: northd-like OVN Southbound transactions.  See workload.h. */

#include "workload.h"
#include "util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kinds of rows, encoded in the first field of their UUIDs. */
enum row_kind {
    K_DATAPATH = 1,
    K_FLOW = 2,
    K_PORT = 3,
    K_MAC = 4,
    K_CHASSIS = 5,
};

/* Timestamps of MAC bindings start here (milliseconds, like OVN's). */
#define MAC_EPOCH UINT64_C(1700000000000)

void
wbuf_printf(struct wbuf *b, const char *fmt, ...)
{
    for (;;) {
        size_t room = b->cap - b->len;
        va_list args;
        int n;

        va_start(args, fmt);
        n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, args);
        va_end(args);
        if (n < 0) {
            fatal("vsnprintf failed");
        }
        if ((size_t) n < room) {
            b->len += n;
            return;
        }
        b->cap = b->cap * 2 + n + 1024;
        b->p = xrealloc(b->p, b->cap);
    }
}

void
wbuf_append(struct wbuf *b, const void *data, size_t n)
{
    if (b->cap - b->len <= n) {
        b->cap = b->cap * 2 + n + 1024;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void
wbuf_clear(struct wbuf *b)
{
    b->len = 0;
    if (b->p) {
        b->p[0] = '\0';
    }
}

void
wbuf_free(struct wbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* A 32-bit mix of 'x' (the murmur3 finalizer of its two halves). */
static uint32_t
mix32(uint64_t x)
{
    uint32_t h = (uint32_t) x ^ (uint32_t) (x >> 32) * 0x9e3779b1u;

    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* Appends the quoted UUID of row 'idx' of 'kind'.  ovsdb-server hashes a
 * UUID by its first 32 bits, so these must vary from row to row as they do
 * in real (random) UUIDs: with a constant prefix, every row of a kind lands
 * in one hash bucket and each lookup walks all of them.  The other fields
 * hold 'kind' and 'idx', which keeps the UUIDs unique. */
static void
put_uuid(struct wbuf *b, enum row_kind kind, uint64_t idx)
{
    wbuf_printf(b, "\"%08x-%04x-4%03x-8%03x-%012" PRIx64 "\"",
                mix32(((uint64_t) kind << 56) ^ idx),
                (unsigned int) (idx >> 48) & 0xffff,
                (unsigned int) kind & 0xfff, (unsigned int) (idx % 0xffd),
                idx & UINT64_C(0xffffffffffff));
}

static void
put_uuid_ref(struct wbuf *b, enum row_kind kind, uint64_t idx)
{
    wbuf_printf(b, "[\"uuid\",");
    put_uuid(b, kind, idx);
    wbuf_printf(b, "]");
}

/* Appends ",{"op":"<op>","table":"<table>"" and, for updates and deletes,
 * a "where" that selects the row by UUID. */
static void
put_op(struct wbuf *b, const char *op, const char *table,
       enum row_kind kind, uint64_t idx)
{
    wbuf_printf(b, ",{\"op\":\"%s\",\"table\":\"%s\"", op, table);
    if (!strcmp(op, "insert")) {
        wbuf_printf(b, ",\"uuid\":");
        put_uuid(b, kind, idx);
    } else {
        wbuf_printf(b, ",\"where\":[[\"_uuid\",\"==\",");
        put_uuid_ref(b, kind, idx);
        wbuf_printf(b, "]]");
    }
}

/* Byte 'n' of a MAC or IP address made from 'idx'. */
static unsigned int
octet(uint64_t idx, int n)
{
    return (unsigned int) (idx >> (8 * n)) & 0xff;
}

static void
put_flow_row(struct wbuf *b, const struct workload *w, uint64_t i)
{
    static const char *stages[] = {
        "ls_in_port_sec_l2", "ls_in_acl", "ls_in_lb", "ls_in_l2_lkup",
        "ls_out_acl", "ls_out_port_sec_l2", "lr_in_ip_routing",
        "lr_in_arp_resolve",
    };
    /* Flows of kinds 0 and 1 match a port and an address from the low
     * three octets of 'i': port security in, an ACL out. */
    static const char *const port_flows[] = {
        "\"match\":\"inport == \\\"bench-lsp-%u\\\" && "
        "eth.src == {0a:58:0a:%02x:%02x:%02x}\",\"actions\":\"next;\",",
        "\"match\":\"outport == \\\"bench-lsp-%u\\\" && "
        "ip4 && ip4.dst == 10.%u.%u.%u\",\"actions\":\"reg0[1] = 1; next;\",",
    };
    unsigned int port = (unsigned int) (i % 4093);
    unsigned int stage = (unsigned int) (i % 8);

    wbuf_printf(b, ",\"row\":{\"logical_datapath\":");
    put_uuid_ref(b, K_DATAPATH, i % w->n_dps);
    wbuf_printf(b, ",\"pipeline\":\"%s\",\"table_id\":%u,\"priority\":%u,",
                stage < 4 || stage > 5 ? "ingress" : "egress",
                (unsigned int) (i % 29), 50 + (unsigned int) (i % 7) * 50);
    switch (i % 4) {
    case 0:
    case 1:
        wbuf_printf(b, port_flows[i % 4], port, octet(i, 2), octet(i, 1),
                    octet(i, 0));
        break;
    case 2:
        wbuf_printf(b, "\"match\":\"ct.new && ip4.dst == 172.30.%u.%u && "
                    "tcp.dst == %u\",\"actions\":\"reg1 = 172.30.%u.%u; "
                    "reg2[0..15] = %u; ct_lb_mark(backends=10.%u.%u.%u:8080,"
                    "10.%u.%u.%u:8080);\",",
                    octet(i, 1), octet(i, 0), 1024 + port, octet(i, 1),
                    octet(i, 0), 1024 + port, octet(i, 2), octet(i, 1),
                    octet(i, 0), octet(i + 1, 2), octet(i + 1, 1),
                    octet(i + 1, 0));
        break;
    default:
        wbuf_printf(b, "\"match\":\"eth.dst == 0a:58:0a:%02x:%02x:%02x\","
                    "\"actions\":\"outport = \\\"bench-lsp-%u\\\"; "
                    "output;\",",
                    octet(i, 2), octet(i, 1), octet(i, 0), port);
        break;
    }
    wbuf_printf(b, "\"external_ids\":[\"map\",[[\"source\",\"northd.c:%u\"],"
                "[\"stage-hint\",\"%08x\"],[\"stage-name\",\"%s\"]]]}}",
                10000 + (unsigned int) (i % 977),
                (unsigned int) (i * 2654435761u), stages[stage]);
}

static void
put_port_row(struct wbuf *b, const struct workload *w, uint64_t i)
{
    wbuf_printf(b, ",\"row\":{\"logical_port\":\"bench-lsp-%" PRIu64 "\","
                "\"datapath\":", i);
    put_uuid_ref(b, K_DATAPATH, i % w->n_dps);
    wbuf_printf(b, ",\"tunnel_key\":%u,\"type\":\"\","
                "\"mac\":\"0a:58:0a:%02x:%02x:%02x 10.%u.%u.%u\","
                "\"options\":[\"map\",[[\"requested-chassis\",\"node-%u\"]]],"
                "\"external_ids\":[\"map\",[[\"namespace\",\"bench\"],"
                "[\"pod\",\"true\"]]]}}",
                (unsigned int) (i / w->n_dps) + 1,
                octet(i, 2), octet(i, 1), octet(i, 0),
                octet(i, 2), octet(i, 1), octet(i, 0),
                (unsigned int) (i % 120));
}

static void
put_mac_row(struct wbuf *b, const struct workload *w, uint64_t i)
{
    wbuf_printf(b, ",\"row\":{\"logical_port\":\"bench-lrp-%u\","
                "\"ip\":\"10.%u.%u.%u\",\"mac\":\"0a:58:0b:%02x:%02x:%02x\","
                "\"timestamp\":%" PRIu64 ",\"datapath\":",
                (unsigned int) (i % w->n_dps),
                128 + octet(i, 2) % 128, octet(i, 1), octet(i, 0),
                octet(i, 2), octet(i, 1), octet(i, 0), MAC_EPOCH + i);
    put_uuid_ref(b, K_DATAPATH, i % w->n_dps);
    wbuf_printf(b, "}}");
}

static void
txn_begin(const struct workload *w, struct wbuf *b)
{
    wbuf_clear(b);
    wbuf_printf(b, "{\"method\":\"transact\",\"params\":[\"%s\"", w->db);
}

static void
txn_end(struct wbuf *b, int id)
{
    wbuf_printf(b, "],\"id\":%d}", id);
}

void
workload_init(struct workload *w, const char *db, unsigned int n_dps,
              unsigned int batch)
{
    memset(w, 0, sizeof *w);
    w->db = db;
    w->n_dps = n_dps ? n_dps : 1;
    w->batch = batch ? batch : 1;
}

/* The transaction that creates the datapaths the workload uses. */
void
workload_setup(struct workload *w, struct wbuf *b, int id)
{
    txn_begin(w, b);
    for (unsigned int i = 0; i < w->n_dps; i++) {
        put_op(b, "insert", "Datapath_Binding", K_DATAPATH, i);
        wbuf_printf(b, ",\"row\":{\"tunnel_key\":%u,\"external_ids\":"
                    "[\"map\",[[\"logical-switch\",\"bench-ls-%u\"],"
                    "[\"name\",\"bench-ls-%u\"]]]}}",
                    16777215 - i, i, i);
    }
    txn_end(b, id);
}

/* The next transaction of the workload. */
void
workload_next(struct workload *w, struct wbuf *b, int id)
{
    unsigned int L = w->batch;
    unsigned int n_ports = L / 20 ? L / 20 : 1;
    unsigned int n_macs = L / 10 ? L / 10 : 1;
    uint64_t i;

    txn_begin(w, b);

    /* Deletes the oldest quarter batch once enough flows are live. */
    if (w->next_flow - w->first_flow >= 2 * (uint64_t) L) {
        for (i = 0; i < L / 4; i++) {
            put_op(b, "delete", "Logical_Flow", K_FLOW, w->first_flow++);
            wbuf_printf(b, "}");
        }
    }
    /* Rewrites the actions of a quarter of the previous batch. */
    if (w->next_flow >= L) {
        for (i = 0; i < L / 4; i++) {
            uint64_t f = w->next_flow - L + 4 * i;

            put_op(b, "update", "Logical_Flow", K_FLOW, f);
            wbuf_printf(b, ",\"row\":{\"actions\":\"reg0[1] = 1; "
                        "reg9[3] = %u; next;\"}}", w->n_txns);
        }
    }
    for (i = 0; i < L; i++) {
        put_op(b, "insert", "Logical_Flow", K_FLOW, w->next_flow);
        put_flow_row(b, w, w->next_flow++);
    }

    /* Port bindings: claim the previous batch, add a new one. */
    if (w->next_port >= n_ports) {
        for (i = w->next_port - n_ports; i < w->next_port; i++) {
            put_op(b, "update", "Port_Binding", K_PORT, i);
            wbuf_printf(b, ",\"row\":{\"up\":true,\"options\":[\"map\","
                        "[[\"iface-id-ver\",\"%u\"],"
                        "[\"requested-chassis\",\"node-%u\"]]]}}",
                        w->n_txns, (unsigned int) (i % 120));
        }
    }
    for (i = 0; i < n_ports; i++) {
        put_op(b, "insert", "Port_Binding", K_PORT, w->next_port);
        put_port_row(b, w, w->next_port++);
    }

    /* MAC bindings: refresh half of the previous batch, learn new ones. */
    if (w->next_mac >= n_macs) {
        for (i = w->next_mac - n_macs; i < w->next_mac; i += 2) {
            put_op(b, "update", "MAC_Binding", K_MAC, i);
            wbuf_printf(b, ",\"row\":{\"timestamp\":%" PRIu64 "}}",
                        MAC_EPOCH + i + 1000 * (w->n_txns + 1));
        }
    }
    for (i = 0; i < n_macs; i++) {
        put_op(b, "insert", "MAC_Binding", K_MAC, w->next_mac);
        put_mac_row(b, w, w->next_mac++);
    }

    txn_end(b, id);
    w->n_txns++;
}

/* A transaction that changes nothing: a barrier. */
void
workload_noop(const struct workload *w, struct wbuf *b, int id)
{
    txn_begin(w, b);
    txn_end(b, id);
}

void
workload_put_dp_ref(struct wbuf *b, unsigned int dp)
{
    put_uuid_ref(b, K_DATAPATH, dp);
}

void
workload_put_chassis_ref(struct wbuf *b, unsigned int ch)
{
    put_uuid_ref(b, K_CHASSIS, ch);
}
