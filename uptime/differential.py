#!/usr/bin/python3
# Licensed under the Apache License, Version 2.0.
"""A seeded random OVSDB workload, played into two ovsdb-servers at once.

Server A is the reference (stock), server B the candidate (patched).  One
writer sends each transaction to both.  Every other client is a pair of
connections, one to each server, that does the same thing on both: monitor
(v1, monitor_cond, monitor_cond_since), change its conditions, reconnect
from its last transaction ID, cancel and monitor again, select, take and
give back locks, echo.

After each step every connection gets an echo whose reply marks the end of
the step (the server flushes a session's monitor updates before it reads
its next request), so each connection's messages of a step are known
exactly.  Those of A and of B must be equal as JSON values: object member
order is free, arrays and values must match, except the rows of a select
result (a set) and what differs by nature between two servers: _version
UUIDs and transaction IDs (each side's IDs are named in the order they
appear, so they must still appear in the same places).

Prints one line per progress report and ends with "differential: N steps,
N transactions, N messages compared, N mismatches".  Exits 1 on the first
mismatch (unless --keep-going), printing both messages.
"""

import argparse
import codecs
import json
import random
import select
import socket
import sys
import time
import uuid as uuidlib

DB = "Differential"
TABLES = ["Root", "Child", "Big"]
COLORS = ["red", "green", "blue"]
# Root's columns that a monitor may select.
ROOT_COLUMNS = {"name", "i", "r", "b", "s", "u", "e", "small", "opt", "set_i",
                "set_s", "set_r", "map_ss", "map_ib", "kids", "weak", "wkid",
                "kidmap"}


# ---------------------------------------------------------------------------
# JSON-RPC connection.

class Conn:
    """One JSON-RPC connection to an ovsdb-server's unix socket."""

    def __init__(self, path, name):
        self.path = path        # The server's unix socket.
        self.name = name        # For messages: "A:client3".
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buf = ""           # Received text not yet parsed.
        self.parts = []         # Text received since, not yet joined.
        self.utf8 = codecs.getincrementaldecoder("utf-8")()
        self.inbox = []         # Parsed messages not yet taken.
        self.decoder = json.JSONDecoder()
        self.closed = False

    def send(self, msg):
        data = json.dumps(msg, separators=(",", ":")).encode()
        self.sock.sendall(data)

    def close(self):
        if not self.closed:
            self.sock.close()
            self.closed = True

    def fileno(self):
        return self.sock.fileno()

    def read_some(self):
        """Reads what the socket has and parses every complete message."""
        data = self.sock.recv(1 << 20)
        if not data:
            raise RuntimeError("%s: the server closed the connection"
                               % self.name)
        text = self.utf8.decode(data)
        self.parts.append(text)
        # A message is a JSON object: try only when the text could end one,
        # and join the pieces of a large message only then, so that a
        # message of megabytes is not copied once per piece.
        if not text.rstrip().endswith("}"):
            return
        buf = self.buf + "".join(self.parts)
        self.parts = []
        i, n = 0, len(buf)
        while True:
            while i < n and buf[i] in " \t\r\n":
                i += 1
            if i >= n:
                break
            try:
                msg, i = self.decoder.raw_decode(buf, i)
            except ValueError:
                break
            self.inbox.append(msg)
        self.buf = buf[i:]


def pump(conns, until, timeout=60.0):
    """Reads from CONNS until UNTIL() is true; fails after TIMEOUT s."""
    deadline = time.monotonic() + timeout
    while not until():
        left = deadline - time.monotonic()
        if left <= 0:
            raise RuntimeError("no reply within %.0f s on %s" % (
                timeout, ", ".join(c.name for c in conns)))
        ready, _, _ = select.select([c for c in conns if not c.closed],
                                    [], [], left)
        for c in ready:
            c.read_some()


def has_reply(conn, rid):
    return any(m.get("id") == rid and "method" not in m for m in conn.inbox)


# ---------------------------------------------------------------------------
# Normalization and comparison.

class Namer:
    """Names one server's transaction IDs in the order they appear."""

    def __init__(self):
        self.names = {"00000000-0000-0000-0000-000000000000": "T0"}

    def name(self, txn_id):
        if txn_id not in self.names:
            self.names[txn_id] = "T%d" % len(self.names)
        return self.names[txn_id]


def strip_versions(x):
    """X with every _version member's value replaced by "V"."""
    if isinstance(x, dict):
        return {k: ("V" if k == "_version" else strip_versions(v))
                for k, v in x.items()}
    if isinstance(x, list):
        return [strip_versions(v) for v in x]
    return x


def first_difference(x, y, path="$"):
    """The path of the first place where X and Y differ, and their values
    there, or None if they are equal."""
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y:
                return ("%s.%s" % (path, k), x.get(k, "<absent>"),
                        y.get(k, "<absent>"))
            d = first_difference(x[k], y[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (a, b) in enumerate(zip(x, y)):
            d = first_difference(a, b, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if x == y else (path, x, y)


def canon(x):
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


# With --stock-defects: leave out what drop_empty_modifies() does.
DROP_EMPTY_MODIFIES = False


def drop_empty_modifies(table_updates):
    """TABLE_UPDATES less the row updates that modify no column, and the
    tables left with no row.  Such a row update says nothing; ovsdb-server
    sends one when a column that only a condition of a monitor sharing the
    change set watches has changed, so whether it does depends on the order
    in which it met its monitors, which differs from process to process
    (two stock servers differ).  Returns whether anything is left."""
    if not isinstance(table_updates, dict):
        return True
    for table in list(table_updates):
        rows = table_updates[table]
        if not isinstance(rows, dict):
            continue
        for uuid in list(rows):
            if rows[uuid] == {"modify": {}}:
                del rows[uuid]
        if not rows:
            del table_updates[table]
    return bool(table_updates)


def normalize(msg, namer, kinds):
    """MSG as it is compared, or None if it says nothing.  KINDS maps
    request ids to request methods."""
    msg = strip_versions(msg)
    method = msg.get("method")
    params = msg.get("params")
    if DROP_EMPTY_MODIFIES and method in ("update2", "update3") \
            and isinstance(params, list) and len(params) >= 2:
        if not drop_empty_modifies(params[-1]):
            return None
    if method == "update3" and isinstance(params, list) \
            and len(params) == 3:
        msg["params"][1] = namer.name(msg["params"][1])
    elif method is None:
        kind = kinds.get(canon(msg.get("id")))
        result = msg.get("result")
        if kind == "monitor_cond_since" and isinstance(result, list) \
                and len(result) == 3:
            result[1] = namer.name(result[1])
        elif isinstance(result, list):
            # A transaction's reply: a select's rows are a set.
            for r in result:
                if isinstance(r, dict) and isinstance(r.get("rows"), list):
                    r["rows"].sort(key=canon)
    return msg


# ---------------------------------------------------------------------------
# Random values.

ALPHABET = ("abcdefghijklmnopqrstuvwxyz0123456789 _-"
            "\"\\/\n\t\u0001\u00e9\u4e2d\U0001f600")


class Gen:
    """Seeded random values of every column type."""

    def __init__(self, rng):
        self.rng = rng

    def string(self):
        r = self.rng.random()
        if r < 0.45:
            n = self.rng.randint(0, 22)         # Fits inline.
        elif r < 0.65:
            n = self.rng.choice([23, 24, 22, 15, 16, 7, 8])
        elif r < 0.97:
            n = self.rng.randint(25, 120)
        elif r < 0.995:
            n = self.rng.randint(1000, 8000)
        else:
            n = self.rng.randint(50000, 150000)  # A large row.
        return "".join(self.rng.choice(ALPHABET) for _ in range(n)) \
            if n < 1000 else self.rng.choice(ALPHABET[:36]) * n

    def integer(self):
        return self.rng.choice([0, 1, -1, 2, 7, 42, 100, -100,
                                self.rng.randint(-1000, 1000),
                                self.rng.randint(-2**62, 2**62)])

    def real(self):
        return self.rng.choice([0.0, 1.5, -2.25, 1e10, 3.0,
                                round(self.rng.uniform(-1000, 1000), 3)])

    def uuid(self):
        return str(uuidlib.UUID(int=self.rng.getrandbits(128), version=4))

    def set_of(self, make, lo, hi):
        n = self.rng.randint(lo, hi)
        if self.rng.random() < 0.02:
            n = self.rng.randint(hi, 600)      # Now and then a big set.
        return ["set", [make() for _ in range(n)]]

    def small_set(self, make, hi):
        return ["set", [make() for _ in range(self.rng.randint(0, hi))]]

    def map_of(self, kmake, vmake, hi):
        n = self.rng.randint(0, hi)
        if self.rng.random() < 0.02:
            n = self.rng.randint(hi, 300)
        pairs = {}
        for _ in range(n):
            k = kmake()
            pairs[canon(k)] = [k, vmake()]
        return ["map", list(pairs.values())]


# ---------------------------------------------------------------------------
# The workload.

class Model:
    """What the writer believes exists, from server A's replies."""

    def __init__(self):
        self.roots = []          # UUIDs of Root rows.
        self.children = []       # UUIDs of Child rows.
        self.bigs = []           # UUIDs of Big rows.


class Writer:
    """Makes transactions and sends each to both servers."""

    def __init__(self, rng, a, b, stock_defects):
        self.rng = rng
        self.gen = Gen(rng)
        self.a = a
        self.b = b
        self.model = Model()
        self.next_id = 0
        self.resync = False     # Reload the model before the next step.
        # Not 0 or negative unless asked: on a negative column, stock
        # ovsdb-server divides by 0 (SIGFPE in mul_int()) and does not see
        # that a product by a negative factor overflows.
        self.factors = [0, 1, 2, 3, -7] if stock_defects else [1, 2, 3]

    def root_row(self, kids):
        g, r = self.gen, self.rng
        m = self.model
        row = {
            "name": "n%d" % r.randint(0, 5000),
            "i": g.integer(), "r": g.real(), "b": r.random() < 0.5,
            "s": g.string(), "u": ["uuid", g.uuid()],
            "e": r.choice(COLORS), "small": r.randint(-5, 5),
            "opt": g.small_set(g.string, 1),
            "set_i": g.set_of(lambda: r.randint(-20, 20), 0, 6),
            "set_s": g.small_set(g.string, 4),
            "set_r": g.set_of(g.real, 0, 3),
            "map_ss": g.map_of(g.string, g.string, 4),
            "map_ib": ["map", [[k, r.random() < 0.5]
                               for k in r.sample(range(10),
                                                 r.randint(0, 4))]],
            "kids": ["set", [["uuid", k] for k in kids]],
            "weak": ["set", [["uuid", u] for u in
                             r.sample(m.roots, min(len(m.roots),
                                                   r.randint(0, 3)))]],
        }
        if m.children and r.random() < 0.5:
            row["wkid"] = ["uuid", r.choice(m.children)]
        if kids and r.random() < 0.3:
            row["kidmap"] = ["map", [["k%d" % j, ["uuid", k]]
                                     for j, k in enumerate(kids)]]
        return row

    def where(self, allowed=None):
        """A random condition on Root, on the columns ALLOWED (a set of
        names; None: any column, _uuid too)."""
        r, g, m = self.rng, self.gen, self.model
        cands = [
            (0.15, {"_uuid"}, lambda: [["_uuid", "==", ["uuid", r.choice(
                m.roots)]]] if m.roots else []),
            (0.15, {"name"}, lambda: [["name", r.choice(["==", "!="]),
                                       "n%d" % r.randint(0, 5000)]]),
            (0.15, {"i"}, lambda: [["i", r.choice(["<", "<=", ">", ">=",
                                                   "==", "!="]),
                                    g.integer()]]),
            (0.10, {"set_i"}, lambda: [["set_i", r.choice(["includes",
                                                           "excludes"]),
                                        ["set", [r.randint(-20, 20)]]]]),
            (0.10, {"e", "b"}, lambda: [["e", "==", r.choice(COLORS)],
                                        ["b", "==", True]]),
            (0.10, {"map_ss"}, lambda: [["map_ss", r.choice(["includes",
                                                             "excludes"]),
                                         ["map", []]]]),
            (0.10, {"small"}, lambda: [["small", r.choice(["<", ">"]),
                                        r.randint(-5, 5)]]),
            (0.10, set(), lambda: [r.choice([True, False])]),
            (0.05, set(), lambda: []),
        ]
        if allowed is not None:
            cands = [c for c in cands if c[1] <= allowed]
        x = r.random() * sum(c[0] for c in cands)
        for weight, _, make in cands:
            x -= weight
            if x <= 0:
                return make()
        return cands[-1][2]()

    def op(self):
        """One random operation and the rows it would insert."""
        r, g, m = self.rng, self.gen, self.model
        c = r.random()
        if c < 0.30 or not m.roots:
            kids = [g.uuid() for _ in range(r.choice([0, 0, 1, 2, 3]))]
            u = g.uuid()
            ops = [{"op": "insert", "table": "Child", "uuid": k,
                    "row": {"n": r.randint(0, 9), "tag": g.string(),
                            "wroot": ["set", [["uuid", x] for x in
                                              r.sample(m.roots,
                                                       min(len(m.roots),
                                                           2))]]}}
                   for k in kids]
            ops.append({"op": "insert", "table": "Root", "uuid": u,
                        "row": self.root_row(kids)})
            return ops
        if c < 0.32 and len(m.bigs) >= 6:
            # The Big table stays at a few rows: every initial reply and
            # reconnection carries all of them.
            return [{"op": "delete", "table": "Big",
                     "where": [["_uuid", "==", ["uuid", r.choice(m.bigs)]]]}]
        if c < 0.32:
            # Now and then an update of megabytes.
            u = g.uuid()
            big = r.random() < 0.1
            return [{"op": "insert", "table": "Big", "uuid": u,
                     "row": {"k": r.randint(0, 9),
                             "blob": "x" * r.randint(0, 300000 if big
                                                     else 3000),
                             "items": ["set", ["i%d-%s" % (j, "y" * 30)
                                               for j in range(
                                                   r.randint(0, 20000 if big
                                                             else 50))]]}}]
        if c < 0.50:
            row = self.root_row([])
            del row["kids"]
            cols = r.sample(sorted(row), r.randint(1, 4))
            return [{"op": "update", "table": "Root", "where": self.where(),
                     "row": {k: row[k] for k in cols}}]
        if c < 0.60:
            muts = r.choice([
                [["i", r.choice(["+=", "-=", "/=", "%="]),
                  r.choice([0, 1, 2, 3, -7])]],
                [["i", "*=", r.choice(self.factors)]],
                [["set_i", r.choice(["insert", "delete"]),
                  ["set", [r.randint(-20, 20) for _ in range(3)]]]],
                [["map_ss", "insert", g.map_of(g.string, g.string, 2)]],
                [["map_ss", "delete", ["set", [g.string()]]]],
                [["r", "*=", 1.5], ["small", "+=", 1]],
            ])
            return [{"op": "mutate", "table": "Root", "where": self.where(),
                     "mutations": muts}]
        if c < 0.70:
            # Broad deletes only once the table is big enough, so that it
            # settles at a hundred rows or so.
            if len(m.roots) < 100:
                where = [["_uuid", "==", ["uuid", r.choice(m.roots)]]]
            else:
                where = self.where()
            return [{"op": "delete", "table": "Root", "where": where}]
        if c < 0.73 and m.children:
            # Often still referenced: a referential integrity error.
            return [{"op": "delete", "table": "Child",
                     "where": [["_uuid", "==",
                                ["uuid", r.choice(m.children)]]]}]
        if c < 0.76 and m.bigs:
            return [{"op": "delete", "table": "Big",
                     "where": [["_uuid", "==", ["uuid", r.choice(m.bigs)]]]}]
        if c < 0.85:
            op = {"op": "select", "table": r.choice(["Root", "Child"]),
                  "where": self.where() if r.random() < 0.5 else []}
            if op["table"] == "Child":
                op["where"] = []
            if r.random() < 0.5 and op["table"] == "Root":
                op["columns"] = r.sample(["name", "i", "s", "set_i",
                                          "map_ss", "kids", "weak"], 3)
            return [op]
        if c < 0.90:
            return [{"op": "wait", "timeout": 0, "table": "Root",
                     "where": self.where(), "columns": ["name"],
                     "until": r.choice(["==", "!="]), "rows": []}]
        if c < 0.93:
            return [{"op": "comment", "comment": g.string()[:100]}]
        if c < 0.95:
            return [{"op": "assert", "lock": r.choice(["w", "nobody"])}]
        if c < 0.97:
            return [{"op": "commit", "durable": False}]
        return [{"op": "abort"}]

    def transaction(self):
        """The params of one transact request."""
        ops = []
        for _ in range(self.rng.choice([1, 1, 1, 2, 3, 5])):
            ops.extend(self.op())
        return [DB] + ops

    def learn(self, params, result):
        """Updates the model from server A's RESULT of PARAMS."""
        m = self.model
        if not isinstance(result, list) or \
                any(isinstance(x, dict) and "error" in x for x in result):
            return
        for op in params[1:]:
            if op.get("op") == "insert":
                {"Root": m.roots, "Child": m.children,
                 "Big": m.bigs}[op["table"]].append(op["uuid"])
        if any(op.get("op") == "delete" for op in params[1:]) or \
                self.rng.random() < 0.05:
            self.resync = True

    def request(self, params):
        """Sends a transaction to both servers; returns (A's, B's) reply."""
        self.next_id += 1
        rid = ["txn", self.next_id]
        for c in (self.a, self.b):
            c.send({"method": "transact", "params": params, "id": rid})
        pump([self.a, self.b],
             lambda: has_reply(self.a, rid) and has_reply(self.b, rid))
        return rid


class Client:
    """A logical client: the same requests on a connection to each server."""

    def __init__(self, idx, kind, paths, table_spec):
        self.idx = idx
        self.kind = kind            # "v1", "cond", "since" or "plain".
        self.paths = paths          # The two servers' sockets.
        self.spec = table_spec      # Its monitor request (or conditions).
        self.last_id = [None, None]  # monitor_cond_since, per side.
        self.monid = ["m", idx, 0]
        self.conns = None
        self.locks = set()          # Locks it asked for, not given back.
        self.connect()

    def connect(self):
        self.conns = [Conn(p, "%s:client%d" % ("AB"[i], self.idx))
                      for i, p in enumerate(self.paths)]


class Hostile:
    """Connections that misbehave in the same way on both servers.

    Every few steps one opens to each server and sends garbage, half a
    message and leaves, stops in the middle of a message for a few steps,
    or sends a large request and never reads its reply.  Both servers must
    close a connection that sent garbage, and every other client must keep
    getting its updates: each step's barrier waits for every client."""

    KINDS = ("garbage", "half", "stall", "large")

    def __init__(self, rng, paths, large):
        self.rng = rng
        self.paths = paths          # The two servers' sockets.
        self.large = large          # Bytes of a "large" request.
        self.stalled = []           # [steps left, conns] stopped mid-message.
        self.counts = dict.fromkeys(self.KINDS, 0)

    def connect(self, kind):
        return [Conn(p, "%s:%s" % ("AB"[i], kind))
                for i, p in enumerate(self.paths)]

    @staticmethod
    def outcome(conn, timeout=10.0):
        """"closed" once the server closes CONN, "open" after TIMEOUT s."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "open"
            ready, _, _ = select.select([conn.sock], [], [], left)
            try:
                if ready and not conn.sock.recv(1 << 16):
                    return "closed"
            except OSError:
                return "closed"

    def step(self):
        """Closes the stalled connections whose time is up, and maybe starts
        one that misbehaves.  Returns [(what, outcomes)] to compare."""
        for x in self.stalled:
            x[0] -= 1
            if x[0] <= 0:
                for c in x[1]:
                    c.close()
        self.stalled = [x for x in self.stalled if x[0] > 0]
        r = self.rng
        if r.random() >= 0.05:
            return []
        kind = r.choice(self.KINDS)
        self.counts[kind] += 1
        conns = self.connect(kind)
        result = []
        if kind == "garbage":
            # A message cannot begin with "}".
            data = b"}" + bytes(r.randrange(256)
                                for _ in range(r.randint(0, 64)))
            for c in conns:
                c.sock.sendall(data)
            result.append(("garbage %s" % data[:16].hex(),
                           [self.outcome(c) for c in conns]))
            for c in conns:
                c.close()
        elif kind == "half":
            data = (b'{"method":"echo","id":1,"params":["'
                    + b"x" * r.randint(1, 100000))
            for c in conns:
                c.sock.sendall(data)
                c.close()
        elif kind == "stall":
            data = b'{"method":"transact","id":1,"params":["%s",{"op":' % (
                DB.encode())
            for c in conns:
                c.sock.sendall(data)
            self.stalled.append([r.randint(1, 20), conns])
        else:
            data = json.dumps({"method": "echo", "id": 1,
                               "params": ["y" * self.large]}).encode()
            for c in conns:
                c.sock.sendall(data)
                c.close()
        return result


class Run:
    """The whole run: writer, clients, steps and comparisons."""

    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.namers = [Namer(), Namer()]
        self.kinds = {}             # canon(request id) -> method
        self.steps = self.txns = self.compared = self.mismatches = 0
        self.committed = 0          # Transactions without an error.
        self.rid = 0
        self.last_txn = None        # The params of the last transaction.
        wa = Conn(args.a, "A:writer")
        wb = Conn(args.b, "B:writer")
        self.writer = Writer(random.Random(args.seed * 7919 + 1), wa, wb,
                             args.stock_defects)
        # Its own random numbers, so that the rest of a seed's run is the
        # same with or without it.
        self.hostile = (Hostile(random.Random(args.seed * 104729 + 2),
                                [args.a, args.b], args.hostile_large)
                        if args.hostile else None)
        self.clients = []
        self.shared_specs = [self.monitor_spec() for _ in range(3)]
        assert all(x is not None for x in self.shared_specs)
        kinds = ["v1", "cond", "since", "plain"]
        for i in range(args.clients):
            kind = kinds[i % len(kinds)]
            spec = (self.rng.choice(self.shared_specs)
                    if self.rng.random() < 0.5 else self.monitor_spec())
            self.clients.append(Client(i, kind, [args.a, args.b], spec))

    # Requests ---------------------------------------------------------

    def new_id(self, method):
        self.rid += 1
        rid = [method, self.rid]
        self.kinds[canon(rid)] = method
        return rid

    def both(self, client, method, params, wait=True):
        """Sends the same request on both of CLIENT's connections."""
        rid = self.new_id(method)
        for c in client.conns:
            c.send({"method": method, "params": params, "id": rid})
        if wait:
            pump(client.conns,
                 lambda: all(has_reply(c, rid) for c in client.conns))
        return rid

    def monitor_spec(self):
        """Columns, select flags and a condition for Root and Child."""
        r = self.rng
        cols = r.sample(sorted(ROOT_COLUMNS), r.randint(1, 8))
        if r.random() < 0.3:
            cols = None
        select = {k: r.random() < 0.85
                  for k in ("initial", "insert", "delete", "modify")}
        if not self.args.stock_defects:
            # Stock builds a monitor's initial reply from the change set of
            # an identical monitor that began earlier, which does not track
            # the kinds of change that monitor does not select: rows
            # inserted since are missing, rows deleted since are still
            # there.
            select["insert"] = select["delete"] = select["modify"] = True
        return {"columns": cols,
                "select": select,
                "where": (self.writer.where(self.condition_columns(cols))
                          if r.random() < 0.6 else []),
                "child_where": ([["n", "<", r.randint(0, 9)]]
                                if r.random() < 0.5 else [])}

    def condition_columns(self, cols):
        """The columns a monitor's conditions may use.  By default only
        those it selects: ovsdb-server reads past its row data when two
        monitors share a change set and one has a condition on a column it
        does not select, and sends empty "modify" row updates that depend
        on the order in which it met them (stock 3.5.0 and 4.0.0)."""
        if self.args.stock_defects:
            return ROOT_COLUMNS
        return ROOT_COLUMNS if cols is None else set(cols)

    @staticmethod
    def columns_of(where):
        return {c[0] for c in where if isinstance(c, list)}

    def monitor_request(self, client):
        spec = client.spec
        root = {"select": spec["select"]}
        if spec["columns"] is not None:
            root["columns"] = spec["columns"]
        if client.kind == "v1":
            return "monitor", [DB, client.monid,
                               {"Root": root, "Child": {}, "Big": {
                                   "columns": ["k", "items"]}}]
        if spec["where"]:
            root["where"] = spec["where"]
        child = {}
        if spec["child_where"]:
            child["where"] = spec["child_where"]
        # With no condition at all, the update is composed once for every
        # such client (the sorted, serialized path of the series).
        reqs = {"Root": [root], "Child": [child],
                "Big": [{"columns": ["k", "blob"]}]}
        if client.kind == "cond":
            return "monitor_cond", [DB, client.monid, reqs]
        return "monitor_cond_since", [DB, client.monid, reqs, None]

    def start_monitor(self, client):
        if client.kind == "plain":
            return
        method, params = self.monitor_request(client)
        if method == "monitor_cond_since":
            rid = self.new_id(method)
            for side, c in enumerate(client.conns):
                p = list(params)
                p[3] = client.last_id[side] or \
                    "00000000-0000-0000-0000-000000000000"
                c.send({"method": method, "params": p, "id": rid})
            pump(client.conns,
                 lambda: all(has_reply(c, rid) for c in client.conns))
        else:
            self.both(client, method, params)

    # Actions between transactions --------------------------------------

    def act(self, client):
        r = self.rng
        c = r.random()
        if client.kind in ("cond", "since") and c < 0.08:
            client.spec = dict(client.spec)
            allowed = self.condition_columns(client.spec["columns"])
            shared = [x["where"] for x in self.shared_specs
                      if self.columns_of(x["where"]) <= allowed]
            client.spec["where"] = (r.choice(shared)
                                    if shared and r.random() < 0.5
                                    else self.writer.where(allowed))
            self.both(client, "monitor_cond_change",
                      [client.monid, client.monid,
                       {"Root": [{"where": client.spec["where"]}]}])
        elif client.kind == "since" and c < 0.12:
            self.reconnect(client)
        elif client.kind in ("v1", "cond") and c < 0.11:
            self.both(client, "monitor_cancel", [client.monid])
            client.monid = ["m", client.idx, client.monid[2] + 1]
            self.start_monitor(client)
        elif c < 0.16:
            self.both(client, "transact",
                      [DB, {"op": "select", "table": "Root",
                            "where": self.writer.where(),
                            "columns": ["name", "i", "set_i"]}])
        elif c < 0.20:
            name = r.choice(["w", "x", "y"])
            method = r.choice(["lock", "steal", "unlock"])
            self.both(client, method, [name])
            if method == "unlock":
                client.locks.discard(name)
            else:
                client.locks.add(name)
        elif c < 0.22:
            self.both(client, "echo", [r.randint(0, 99), "e"])

    def reconnect(self, client):
        """Closes both connections and monitors again from the last ID."""
        # Its locks go to their next waiters now, not when the server
        # notices the closed connections, which is at no definite time.
        for name in sorted(client.locks):
            self.both(client, "unlock", [name])
        client.locks.clear()
        self.barrier(client.conns)  # Nothing is lost from the old ones.
        self.collect(client)
        for c in client.conns:
            c.close()
        client.connect()
        self.start_monitor(client)

    # Steps and comparison ----------------------------------------------

    def barrier(self, conns=None):
        """An echo on CONNS (every client's); waits for every reply."""
        rid = self.new_id("echo")
        if conns is None:
            conns = [c for cl in self.clients for c in cl.conns]
        for c in conns:
            c.send({"method": "echo", "params": ["barrier"], "id": rid})
        pump(conns, lambda: all(has_reply(c, rid) for c in conns))

    def take(self, conn, side, client=None):
        msgs = conn.inbox
        conn.inbox = []
        out = []
        for m in msgs:
            if m.get("method") == "echo" and "result" not in m:
                # The server's own probe: answer it, do not compare it.
                conn.send({"result": m.get("params"), "id": m.get("id"),
                           "error": None})
                continue
            if client is not None and client.kind == "since":
                self.note_last_id(client, side, m)
            m = normalize(m, self.namers[side], self.kinds)
            if m is not None:
                out.append(m)
        return out

    def note_last_id(self, client, side, m):
        """Keeps the transaction ID of M for CLIENT's reconnection."""
        if m.get("method") == "update3":
            client.last_id[side] = m["params"][1]
        elif self.kinds.get(canon(m.get("id"))) == \
                "monitor_cond_since" and "result" in m:
            client.last_id[side] = m["result"][1]

    def compare(self, what, a_msgs, b_msgs):
        self.compared += max(len(a_msgs), len(b_msgs))
        if a_msgs == b_msgs:
            return
        self.mismatches += 1
        print("MISMATCH at step %d, seed %d, %s:" % (
            self.steps, self.args.seed, what))
        for i in range(max(len(a_msgs), len(b_msgs))):
            x = a_msgs[i] if i < len(a_msgs) else None
            y = b_msgs[i] if i < len(b_msgs) else None
            if x != y:
                print("  message %d of the step differs (A has %d, B %d)"
                      % (i, len(a_msgs), len(b_msgs)))
                d = first_difference(x, y)
                if d:
                    print("  first difference at %s:" % d[0])
                    print("    A: %s" % canon(d[1])[:1000])
                    print("    B: %s" % canon(d[2])[:1000])
                print("  A: %s" % canon(x)[:2000])
                print("  B: %s" % canon(y)[:2000])
                break
        if self.args.verbose:
            print("  the step's transaction: %s" % canon(self.last_txn)[:3000])
            for side, msgs in (("A", a_msgs), ("B", b_msgs)):
                for m in msgs:
                    print("  %s| %s" % (side, canon(m)[:300]))
        if not self.args.keep_going:
            self.finish()
            sys.exit(1)

    def collect(self, client):
        a = self.take(client.conns[0], 0, client)
        b = self.take(client.conns[1], 1, client)
        self.compare("client%d (%s, monitoring %s)" % (
            client.idx, client.kind, canon(client.spec)), a, b)

    def step(self):
        w = self.writer
        params = w.transaction()
        self.last_txn = params
        rid = w.request(params)
        ra = self.take(w.a, 0)
        rb = self.take(w.b, 1)
        self.compare("writer, transaction %s" % canon(rid), ra, rb)
        for m in ra:
            if m.get("id") == rid:
                w.learn(params, m.get("result"))
                result = m.get("result")
                if isinstance(result, list) and not any(
                        isinstance(x, dict) and "error" in x
                        for x in result):
                    self.committed += 1
        self.txns += 1
        if w.resync:
            self.resync()
        for what, (a, b) in (self.hostile.step() if self.hostile else []):
            if a != b or a != "closed":
                self.mismatches += 1
                print("MISMATCH at step %d, seed %d, hostile client, %s: "
                      "A's connection is %s, B's %s (both must be closed)"
                      % (self.steps, self.args.seed, what, a, b), flush=True)
                if not self.args.keep_going:
                    self.finish()
                    sys.exit(1)
        for cl in self.clients:
            self.act(cl)
        self.barrier()
        for cl in self.clients:
            self.collect(cl)
        self.steps += 1

    def resync(self):
        """Reloads the writer's model from server A (after deletes)."""
        w = self.writer
        w.resync = False
        w.next_id += 1
        rid = ["sync", w.next_id]
        w.a.send({"method": "transact", "id": rid, "params": [
            DB,
            {"op": "select", "table": "Root", "where": [],
             "columns": ["_uuid", "name"]},
            {"op": "select", "table": "Child", "where": [],
             "columns": ["_uuid"]},
            {"op": "select", "table": "Big", "where": [],
             "columns": ["_uuid"]}]})
        pump([w.a], lambda: has_reply(w.a, rid))
        msgs = [m for m in w.a.inbox if m.get("id") == rid]
        w.a.inbox = [m for m in w.a.inbox if m.get("id") != rid]
        res = msgs[0]["result"]
        m = w.model
        m.roots = sorted(row["_uuid"][1] for row in res[0]["rows"])
        m.children = sorted(row["_uuid"][1] for row in res[1]["rows"])
        m.bigs = sorted(row["_uuid"][1] for row in res[2]["rows"])

    def run(self):
        # The writer holds lock "w", so that some asserts succeed.
        for c in (self.writer.a, self.writer.b):
            c.send({"method": "lock", "params": ["w"], "id": "lock-w"})
        pump([self.writer.a, self.writer.b],
             lambda: has_reply(self.writer.a, "lock-w") and
             has_reply(self.writer.b, "lock-w"))
        self.compare("writer lock", self.take(self.writer.a, 0),
                     self.take(self.writer.b, 1))
        for cl in self.clients:
            self.start_monitor(cl)
        self.barrier()
        for cl in self.clients:
            self.collect(cl)
        t0 = last = time.monotonic()
        while self.txns < self.args.txns:
            self.step()
            now = time.monotonic()
            if now - last >= self.args.progress:
                last = now
                print("differential: %d transactions, %d messages compared,"
                      " %d mismatches, %.0f s" % (
                          self.txns, self.compared, self.mismatches,
                          now - t0), flush=True)
        self.finish()
        return 1 if self.mismatches else 0

    def finish(self):
        m = self.writer.model
        print("differential: %d steps, %d transactions, %d messages "
              "compared, %d mismatches (%d transactions committed; %d, %d "
              "and %d rows in Root, Child and Big at the last count)" % (
                  self.steps, self.txns, self.compared, self.mismatches,
                  self.committed, len(m.roots), len(m.children),
                  len(m.bigs)), flush=True)
        if self.hostile:
            counts = ", ".join("%d %s" % (n, k)
                               for k, n in self.hostile.counts.items())
            print("differential: hostile clients: %s (large requests of "
                  "%d bytes)" % (counts, self.hostile.large), flush=True)


def contents(path, name):
    """Every row of every table of the server at PATH, less _version, as a
    sorted list of canonical JSON texts per table."""
    conn = Conn(path, name)
    ops = [{"op": "select", "table": t, "where": []} for t in TABLES]
    conn.send({"method": "transact", "id": "contents",
               "params": [DB] + ops})
    pump([conn], lambda: has_reply(conn, "contents"))
    reply = [m for m in conn.inbox if m.get("id") == "contents"][0]
    conn.close()
    if reply.get("error") is not None:
        raise RuntimeError("%s: select failed: %s" % (name, reply["error"]))
    return {t: sorted(canon(strip_versions(row)) for row in r["rows"])
            for t, r in zip(TABLES, reply["result"])}


def compare_contents(args):
    """--contents: the same rows on both servers (each table a set)."""
    a, b = contents(args.a, "A"), contents(args.b, "B")
    rows = sum(len(v) for v in a.values())
    for t in TABLES:
        if a[t] != b[t]:
            only_a = sorted(set(a[t]) - set(b[t]))
            only_b = sorted(set(b[t]) - set(a[t]))
            print("MISMATCH in the contents of table %s: %d rows on A, %d "
                  "on B; first only on A: %s; first only on B: %s" % (
                      t, len(a[t]), len(b[t]),
                      only_a[0][:300] if only_a else "-",
                      only_b[0][:300] if only_b else "-"), flush=True)
            return 1
    print("differential: contents: %d rows, the same on both" % rows,
          flush=True)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--a", required=True, help="reference server's socket")
    p.add_argument("--b", required=True, help="candidate server's socket")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--txns", type=int, default=200)
    p.add_argument("--clients", type=int, default=12)
    p.add_argument("--progress", type=float, default=30.0,
                   help="seconds between progress lines")
    p.add_argument("--stock-defects", action="store_true",
                   help="also what stock ovsdb-server gets wrong: "
                   "conditions on columns a monitor does not select (it "
                   "reads past its row data), \"*=\" 0 or a negative factor "
                   "on a negative integer (SIGFPE, or an overflow that is "
                   "not reported), and monitors that do not select "
                   "every kind of change (a second identical monitor's "
                   "initial reply misses the inserts and deletes since "
                   "the first began)")
    p.add_argument("--hostile", action="store_true",
                   help="every few steps a connection to both servers "
                   "sends garbage, half a message, stops in the middle of "
                   "one, or sends a --hostile-large request it never reads")
    p.add_argument("--hostile-large", type=int, default=1 << 20,
                   metavar="BYTES", help="size of a large request "
                   "(default 1 MB)")
    p.add_argument("--verbose", action="store_true",
                   help="print every message of a step that differs")
    p.add_argument("--keep-going", action="store_true",
                   help="count every mismatch instead of stopping")
    p.add_argument("--contents", action="store_true",
                   help="only compare what both servers hold: every row "
                   "of every table, less _version")
    args = p.parse_args()
    if args.contents:
        sys.exit(compare_contents(args))
    global DROP_EMPTY_MODIFIES
    DROP_EMPTY_MODIFIES = args.stock_defects
    sys.exit(Run(args).run())


if __name__ == "__main__":
    main()
