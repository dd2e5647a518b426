#!/usr/bin/python3
# Copyright (c) 2026 The ovs-json-perf authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Damaged database files, read by two builds of OVSDB side by side.

One build (A, the reference) writes a database, standalone or clustered,
with a fixed series of transactions.  Every case damages that file one way:
it is cut at or inside a record, a record's JSON is changed under a correct
header (bytes flipped, NUL and control bytes, a forged or repeated _uuid,
deep nesting, huge strings, numbers out of range, rows of the wrong shape,
semantic errors followed by more records, entries and snapshots that are
not what raft wrote), or records are repeated, dropped or swapped.

Each side then reads its own copy the ways a user would: ovsdb-tool
(query, or show-log and cluster-to-standalone for a clustered file), and
ovsdb-server: load, select every row, write one row, restart, compact,
restart.  Every step's outcome is compared: how it ended (ok, an error, a
crash by signal, a hang), the rows as JSON values (members in any order,
row UUIDs the file does not hold written as "new"), and the error message
with numbers, paths and the UUIDs the file does not hold masked.  A case
differs if any step does.

The series documents differences that are not defects (DOCUMENTED): a
case that differs only by one of them is counted apart.

Prints progress to stderr every 25 cases; on stdout, one line a case
("same", "same but for a documented difference" or "DIFF") and a closing
line:
  hostile: N KIND cases, N steps compared, N differences, N documented
  differences, N crashes (A N, B N)
and exits 1 if any case differs.
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid

TIMEOUT = 10            # seconds a program may take before it hangs
SCHEMA_NAME = "Hostile"
HEADER_RE = re.compile(rb"(OVSDB JSON|OVSDB CLUSTER) (\d+) ([0-9a-f]{40})\n")
# The members of raft's records other than entries: such a record holds
# no table changes.
RAFT_KEYS = {"cluster_id", "server_id", "prev_data", "prev_term", "term",
             "vote", "commit_index", "leader", "index", "note"}
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}"
                     r"-[0-9a-f]{12}")


# ---------------------------------------------------------------------------
# Records of a database file.

class Record:
    """One record of a database file."""

    def __init__(self, magic, body):
        self.magic = magic      # b"OVSDB JSON" or b"OVSDB CLUSTER"
        self.body = body        # the bytes the header counts, newline too

    def json(self):
        return json.loads(self.body)

    def with_json(self, value):
        return Record(self.magic, (json.dumps(value) + "\n").encode())

    def with_text(self, text):
        return Record(self.magic, text.encode() + b"\n")

    def bytes(self):
        sha1 = hashlib.sha1(self.body).hexdigest().encode()
        return b"%s %d %s\n" % (self.magic, len(self.body), sha1) + self.body


def split_records(data):
    """The well-formed records of DATA."""
    records, pos = [], 0
    while pos < len(data):
        m = HEADER_RE.match(data, pos)
        if not m:
            break
        end = m.end() + int(m.group(2))
        records.append(Record(m.group(1), data[m.end():end]))
        pos = end
    return records


def join(records):
    return b"".join(r.bytes() for r in records)


# ---------------------------------------------------------------------------
# The transactions that make the database, and the damage done to it.

def transactions(big, rng):
    """The transactions that make the file: strong and weak references,
    strings on both sides of 23 bytes, sets and maps, an update, a
    mutation, a delete, and with BIG a row holding a BIG-byte string.
    Every insert names its row's UUID, drawn from RNG, so that a seed
    makes the same file: the order of rows in tables, and so what a
    damaged file does, depends on their UUIDs."""
    def t(*ops):
        return [SCHEMA_NAME] + list(ops)
    txns = [t({"op": "insert", "table": "U", "uuid-name": "u1",
               "row": {"label": "u1", "e": "a"}},
              {"op": "insert", "table": "U", "uuid-name": "u2",
               "row": {"label": "u2"}},
              {"op": "insert", "table": "T",
               "row": {"name": "one", "n": 1,
                       "ref": ["named-uuid", "u1"],
                       "weak": ["named-uuid", "u2"]}},
              {"op": "insert", "table": "T",
               "row": {"name": "zero", "ref": ["named-uuid", "u2"]}})]
    for i, name in enumerate(["two", "three", "four", "five", "six"], 2):
        txns.append(t({"op": "insert", "table": "T", "row": {
            "name": name, "n": i * 1000003, "x": i / 3.0,
            "flag": i % 2 == 0,
            "s": ["set", ["s" * k for k in range(1, 3 * i)] + ["x" * 22,
                                                              "y" * 23,
                                                              "z" * 24]],
            "m": ["map", [["k%d" % k, -k] for k in range(i)]]}}))
    txns.append(t({"op": "update", "table": "T",
                   "where": [["name", "==", "one"]],
                   "row": {"n": -5, "s": ["set", ["a" * 23, "b" * 40]]}}))
    txns.append(t({"op": "mutate", "table": "T",
                   "where": [["name", "==", "two"]],
                   "mutations": [["m", "insert", ["map", [["new", 7]]]],
                                 ["n", "*=", -3]]}))
    txns.append(t({"op": "delete", "table": "T",
                   "where": [["name", "==", "three"]]}))
    if big:
        txns.append(t({"op": "insert", "table": "T",
                       "row": {"name": "big", "s": ["set", ["b" * big]]}}))
    for txn in txns:
        for op in txn[1:]:
            if op["op"] == "insert":
                op["uuid"] = str(_uuid(rng))
    return txns


def data_of(rec):
    """The table changes a record holds, or None: a standalone record is
    one; a raft entry holds them as the second element of "data"."""
    try:
        v = rec.json()
    except ValueError:
        return None
    if isinstance(v, dict) and "data" in v:
        d = v["data"]
        if isinstance(d, list) and len(d) == 2 and isinstance(d[1], dict):
            return d[1]
        return None
    if not isinstance(v, dict) or "tables" in v or RAFT_KEYS & set(v):
        return None
    return v


def put_data(rec, data):
    """REC with its table changes replaced by DATA."""
    v = rec.json()
    if isinstance(v, dict) and "data" in v:
        v["data"][1] = data
        return rec.with_json(v)
    return rec.with_json(data)


def rows_of(data):
    """(table, uuid, row) for every row change of DATA."""
    out = []
    for table, rows in sorted(data.items()):
        if table.startswith("_") or not isinstance(rows, dict):
            continue
        for uuid, row in rows.items():
            out.append((table, uuid, row))
    return out


def replace_member(text, old, new):
    """TEXT with its first occurrence of OLD replaced by NEW."""
    i = text.index(old)
    return text[:i] + new + text[i + len(old):]


def copy(value):
    """A deep copy of a JSON value."""
    return json.loads(json.dumps(value))


class Damage:
    """The damaged files made from one database file: each method adds one
    kind of damage, as (name, file bytes) cases."""

    def __init__(self, records, rng, long_run):
        self.records = records      # The undamaged file's records.
        self.rng = rng              # Chooses flipped bytes and new UUIDs.
        self.long_run = long_run    # Bigger damage (--long).
        self.whole = join(records)  # The undamaged file.
        self.offsets = []           # Where each record starts in it.
        pos = 0
        for r in records:
            self.offsets.append(pos)
            pos += len(r.bytes())
        self.cases = []             # (name, file bytes) of every case.

    def add(self, name, data):
        self.cases.append((name, data))

    def with_record(self, name, i, rec):
        """The file with record I replaced by REC."""
        self.add(name, join(self.records[:i] + [rec]
                            + self.records[i + 1:]))

    def with_data(self, name, i, data):
        """The file with record I's table changes replaced by DATA."""
        self.with_record(name, i, put_data(self.records[i], data))

    def text_edit(self, name, i, fn):
        """The file with record I's JSON text rewritten by FN, if FN finds
        what it rewrites."""
        try:
            text = fn(self.records[i].body.decode().rstrip("\n"))
        except (ValueError, IndexError):
            return
        self.with_record(name, i, self.records[i].with_text(text))

    def cuts(self):
        """Cut at and inside every record; garbage, a wrong length or a
        wrong SHA-1 at the end."""
        records, whole, offsets = self.records, self.whole, self.offsets
        n = len(records)
        for i in range(1, n):
            head = len(records[i].bytes()) - len(records[i].body)
            self.add("cut-before-%d" % i, whole[:offsets[i]])
            self.add("cut-in-header-%d" % i, whole[:offsets[i] + head // 2])
            self.add("cut-after-header-%d" % i, whole[:offsets[i] + head])
            self.add("cut-in-body-%d" % i,
                     whole[:offsets[i] + head + len(records[i].body) // 2])
            self.add("cut-before-newline-%d" % i,
                     whole[:offsets[i + 1] - 1] if i + 1 < n else whole[:-1])
        last = records[-1]
        self.add("trailing-garbage", whole + b"garbage\n")
        self.add("trailing-header", whole + last.bytes()[:40])
        self.add("wrong-length", whole[:offsets[-1]] + last.bytes().replace(
            b" %d " % len(last.body), b" %d " % (len(last.body) + 1), 1))
        self.add("wrong-sha1", whole[:offsets[-1]] + re.sub(
            rb"[0-9a-f]{40}", b"0" * 40, last.bytes(), count=1))

    def bytes_changed(self, first):
        """Bytes flipped or inserted in the JSON of each record from FIRST
        on, under a correct header."""
        for i in range(first, len(self.records)):
            magic = self.records[i].magic
            body = self.records[i].body.rstrip(b"\n")
            for _ in range(3 if self.long_run else 1):
                p = self.rng.randrange(len(body))
                byte = self.rng.choice(b'"{}[],:0-e.\\ a\x00\x01\xff')
                self.with_record("flip-%d-%d" % (i, p), i, Record(
                    magic, body[:p] + bytes([byte]) + body[p + 1:] + b"\n"))
            m = re.search(rb"[0-9](?=[^0-9])", body)
            if m:
                p = m.end()
                self.with_record("nul-after-digit-%d" % i, i, Record(
                    magic, body[:p] + b"\x00 23" + body[p:] + b"\n"))
            m = re.search(rb'"[a-z]', body)
            if m:
                p = m.start() + 1
                for tag, byte in (("nul", b"\x00"), ("control", b"\x01"),
                                  ("bad-utf8", b"\xff\xfe")):
                    self.with_record("%s-in-string-%d" % (tag, i), i, Record(
                        magic, body[:p] + byte + body[p:] + b"\n"))

    def rows_changed(self):
        """For each record with table changes, its first row changed: in
        its values (row_values), its shape (row_shapes) and what it names
        (row_references)."""
        all_rows = []
        for i in range(1, len(self.records)):
            data = data_of(self.records[i])
            rows = rows_of(data) if data is not None else []
            if not rows:
                continue
            table, uuid, row = rows[0]
            if isinstance(row, dict):
                self.row_values(i, data, table, uuid, all_rows)
            self.row_shapes(i, data, table, uuid)
            if all_rows:
                self.row_references(i, data, all_rows)
            all_rows += rows

    def row_values(self, i, data, table, uuid, all_rows):
        """Record I's row UUID of TABLE with an unknown column, values of
        the wrong type or out of range, deep nesting, a huge string, a
        forged _uuid, and repeated."""
        d = copy(data)
        d[table][uuid]["bogus"] = 1
        self.with_data("unknown-column-%d" % i, i, d)
        d = copy(data)
        d[table][uuid]["name" if table == "T" else "label"] = 5
        self.with_data("wrong-type-%d" % i, i, d)
        member = '"%s":{' % uuid

        def prepend(text):
            """A rewrite that puts TEXT first in the row's members."""
            return lambda t: replace_member(t, member, member + text + ",")
        if table == "T":
            for tag, value in (("int-overflow", "9223372036854775808"),
                               ("huge-exponent", "1e400"),
                               ("real-for-int", "1.5"),
                               ("negative-zero", "-0")):
                self.text_edit("%s-%d" % (tag, i), i, prepend('"n":' + value))
        depth = 100000 if self.long_run else 20000
        self.text_edit("deep-nesting-%d" % i, i,
                       prepend('"s":' + "[" * depth + "]" * depth))
        huge = (100 << 20) if self.long_run else (8 << 20)
        self.text_edit("huge-string-%d" % i, i,
                       prepend('"s":"%s"' % ("h" * huge)))
        earlier = [u for _, u, _ in all_rows]
        if earlier:
            # A row that sets its _uuid to an earlier row's.
            d = copy(data)
            d[table][uuid]["_uuid"] = ["uuid", earlier[0]]
            self.with_data("forged-uuid-member-%d" % i, i, d)
            # A row change keyed by an earlier row's UUID.
            d = copy(data)
            d[table][earlier[-1]] = d[table].pop(uuid)
            self.with_data("forged-uuid-key-%d" % i, i, d)
        # The same row twice in one record (a repeated JSON member).
        self.text_edit("repeated-row-%d" % i, i, lambda t: replace_member(
            t, member, '"%s":{"n":77},%s' % (uuid, member)))

    def row_shapes(self, i, data, table, uuid):
        """Record I with a row or a table of the wrong shape, an unknown
        table, a bad UUID, a delete or a change of a row nobody made."""
        for name, change in (
                ("row-is-array", lambda d: d[table].update({uuid: [1, 2]})),
                ("table-is-string", lambda d: d.update({table: "rows"})),
                ("unknown-table",
                 lambda d: d.update({"NoSuchTable": {uuid: {}}})),
                ("bad-uuid", lambda d: d[table].update({"not-a-uuid": {}})),
                ("delete-unknown-row", lambda d: d[table].update(
                    {str(_uuid(self.rng)): None})),
                ("modify-unknown-row", lambda d: d[table].update(
                    {str(_uuid(self.rng)): {"n": 3} if table == "T"
                     else {}}))):
            d = copy(data)
            change(d)
            self.with_data("%s-%d" % (name, i), i, d)

    def row_references(self, i, data, all_rows):
        """Record I deleting every row of the records before it, some
        still referenced."""
        d = copy(data)
        for t in ("T", "U"):
            d.setdefault(t, {})
        for _, u, _ in all_rows:
            d["U" if any(u == x[1] and x[0] == "U" for x in all_rows)
              else "T"][u] = None
        self.with_data("delete-referenced-%d" % i, i, d)

    def records_moved(self):
        """Each record repeated, dropped, and swapped with the next."""
        records = self.records
        for i in range(1, len(records)):
            self.add("repeat-%d" % i, join(records[:i + 1] + records[i:]))
            self.add("drop-%d" % i, join(records[:i] + records[i + 1:]))
            if i + 1 < len(records):
                self.add("swap-%d" % i, join(
                    records[:i] + [records[i + 1], records[i]]
                    + records[i + 2:]))

    def bad_then_delete(self):
        """A record with a semantic error (an unknown column), followed by
        more records, one of which deletes the row the bad one made."""
        records = self.records
        for i in range(1, len(records) - 2):
            data = data_of(records[i])
            later = data_of(records[i + 2])
            rows = [r for r in rows_of(data or {}) if isinstance(r[2], dict)]
            if not rows or later is None:
                continue
            table, uuid, _ = rows[0]
            d = copy(data)
            d[table][uuid]["bogus"] = 1
            later = copy(later)
            later.setdefault(table, {})[uuid] = None
            self.add("bad-then-delete-%d" % i, join(
                records[:i] + [put_data(records[i], d), records[i + 1],
                               put_data(records[i + 2], later)]
                + records[i + 3:]))

    def several_violations(self):
        """The last record's changes replaced by rows with several
        violations (two dangling strong references, a duplicate index
        value), in a different order for each of three variants: the
        commit names the first violation it meets."""
        last = max(i for i in range(len(self.records))
                   if data_of(self.records[i]) is not None)
        for k in range(3):
            d = {key: v for key, v in data_of(self.records[last]).items()
                 if key.startswith("_")}
            u = sorted(str(_uuid(self.rng)) for _ in range(5))
            rows = [{"name": "v1", "ref": ["uuid", u[0]]},
                    {"name": "v2", "ref": ["uuid", u[1]]},
                    {"name": "dup"}, {"name": "dup"}]
            self.rng.shuffle(rows)
            d["T"] = {u[2 + j] if j < 3 else str(_uuid(self.rng)): r
                      for j, r in enumerate(rows)}
            self.with_data("several-violations-%d" % k, last, d)

    def standalone_records(self):
        """A record appended that is no database change at all."""
        for tag, text in (("empty-object", "{}"), ("array", "[]"),
                          ("null", "null"), ("string", '"x"'),
                          ("date-string", '{"_date":"x"}'),
                          ("comment-number", '{"_comment":5}'),
                          ("is-diff-string", '{"_is_diff":"yes"}')):
            self.add("record-%s" % tag, self.whole + Record(
                b"OVSDB JSON", text.encode() + b"\n").bytes())

    def raft(self):
        """The header's snapshot and the first and last entries changed
        the ways raft never writes them."""
        records = self.records
        header = records[0].json()
        if "prev_data" in header:
            prev = header["prev_data"]
            for tag, value in (("null", None), ("string", "x"),
                               ("object", {}), ("one-element", [prev[0]]),
                               ("three-elements", prev + [None]),
                               ("no-schema", [None, prev[1]])):
                h = copy(header)
                h["prev_data"] = value
                self.with_record("snapshot-%s" % tag, 0,
                                 records[0].with_json(h))
            if isinstance(prev[0], dict):
                h = copy(header)
                h["prev_data"][0]["name"] = "Other"
                self.with_record("snapshot-wrong-name", 0,
                                 records[0].with_json(h))
        entries = [i for i in range(1, len(records))
                   if isinstance(records[i].json(), dict)
                   and "data" in records[i].json()]
        for i in entries[:1] + entries[-1:]:
            for tag, value in (("null-null", [None, None]), ("string", "x"),
                               ("object", {}), ("one-element", [None])):
                e = records[i].json()
                e["data"] = value
                self.with_record("entry-%s-%d" % (tag, i), i,
                                 records[i].with_json(e))
            d = data_of(records[i])
            rows = [r for r in rows_of(d or {}) if isinstance(r[2], dict)]
            if rows:
                d[rows[0][0]][rows[0][1]]["bogus"] = 1
                self.with_data("entry-unknown-column-%d" % i, i, d)


def damage(records, rng, clustered, long_run):
    """Every case made from RECORDS: (name, file bytes)."""
    d = Damage(records, rng, long_run)
    d.cuts()
    d.bytes_changed(0 if clustered else 1)
    d.rows_changed()
    d.records_moved()
    d.bad_then_delete()
    d.several_violations()
    if clustered:
        d.raft()
    else:
        d.standalone_records()
    return d.cases


def _uuid(rng):
    return uuid.UUID(int=rng.getrandbits(128), version=4)


# ---------------------------------------------------------------------------
# Running one side.

class Side:
    """One build: its programs and a working directory per case."""

    def __init__(self, name, bindir):
        self.name = name
        self.bindir = bindir

    def bin(self, program):
        for sub in ("ovsdb", "utilities", ""):
            p = os.path.join(self.bindir, sub, program)
            if os.access(p, os.X_OK):
                return p
        raise SystemExit("hostile: no %s in %s" % (program, self.bindir))


def run(cmd, cwd, timeout=TIMEOUT):
    """(outcome, stdout, stderr) of CMD: outcome is "ok", "error" (a
    nonzero exit), "crash SIGNAME" or "hang"."""
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return "hang", e.stdout or b"", e.stderr or b""
    if p.returncode < 0:
        return "crash " + signal.Signals(-p.returncode).name, p.stdout, \
            p.stderr
    return ("ok" if p.returncode == 0 else "error"), p.stdout, p.stderr


# The UUIDs of the file being read, each with a name made of letters
# ("row-ab"), by their order in the file: set by run_case for the case it
# runs, read by mask().
CASE_UUIDS = {}


def uuid_names(data):
    """A name for each UUID in DATA, by first appearance."""
    names = {}
    for u in UUID_RE.findall(data.decode(errors="replace")):
        if u not in names:
            k, name = len(names), ""
            while True:
                name = chr(ord("a") + k % 26) + name
                k //= 26
                if not k:
                    break
            names[u] = "row-" + name
    return names


def mask(text):
    """An error message with what may differ between equal builds masked:
    UUIDs the file does not hold (a UUID it holds is named by CASE_UUIDS,
    so a message naming another row differs), numbers, paths."""
    text = text.decode(errors="replace") if isinstance(text, bytes) else text
    text = UUID_RE.sub(lambda m: CASE_UUIDS.get(m.group(0), "<uuid>"), text)
    text = re.sub(r"/[^\s:\"']+", "<path>", text)
    text = re.sub(r"\d+", "<n>", text)
    return text.strip()


# The differences from the reference that the series documents as not
# defects: (name, function that rewrites a step's outcome so that the
# difference goes away).  A case that differs only by these is counted
# apart, not as a difference.
ROW_PAIR_RE = re.compile(r"First row, with UUID (\S+), (.*?)\.  "
                         r"Second row, with UUID (\S+), (.*?)\.")
VIOLATION_RE = re.compile(r"^(referential integrity violation|constraint "
                          r"violation): .*")


def rows_in_any_order(text):
    """An index violation names its two rows in the order the check met
    them, which is the order the rows were loaded in."""
    def both(m):
        return "Rows: %s" % " / ".join(sorted(
            ["%s, %s" % (m.group(1), m.group(2)),
             "%s, %s" % (m.group(3), m.group(4))]))
    return ROW_PAIR_RE.sub(both, text)


def first_violation(text):
    """A commit that fails reports the first violation it meets, in the
    order the tables and rows entered the transaction: with several, the
    message may name another row (and another kind of violation)."""
    return VIOLATION_RE.sub("a violation", text)


DOCUMENTED = [("an error names the rows of a violation in another order",
               rows_in_any_order),
              ("with several violations, an error names another",
               first_violation)]


def documented(steps, fns=None):
    """STEPS with every documented difference (or those of FNS) rewritten
    away."""
    def fix(v):
        if isinstance(v, str):
            for fn in fns or [fn for _, fn in DOCUMENTED]:
                v = fn(v)
            return v
        if isinstance(v, list):
            return [fix(x) for x in v]
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        return v
    return [(name, fix(r)) for name, r in steps]


def log_errors(text):
    """The messages of the ERR and EMER lines of the log TEXT."""
    return [ln.split("|", 4)[-1] for ln in text.splitlines()
            if re.search(r"\|(ERR|EMER)\|", ln)]


def error_line(stderr, logfile=None):
    """The first error a program or its log gave, masked."""
    lines = []
    if logfile and os.path.exists(logfile):
        with open(logfile, errors="replace") as f:
            lines = log_errors(f.read())
    if not lines:
        lines = [ln for ln in stderr.decode(errors="replace").splitlines()
                 if ln.strip() and not re.search(r"\|(INFO|DBG|WARN)\|", ln)]
    return mask(lines[0]) if lines else ""


def select_all():
    return json.dumps([SCHEMA_NAME] + [{"op": "select", "table": t,
                                        "where": []} for t in ("T", "U")])


def normalize(reply, known):
    """A query's reply as a JSON value to compare: rows sorted, _version
    dropped, a UUID that the damaged file does not hold written "new"."""
    def fix(v):
        if isinstance(v, list):
            if len(v) == 2 and v[0] == "uuid" and isinstance(v[1], str):
                return ["uuid", v[1] if v[1] in known else "new"]
            if len(v) == 2 and v[0] in ("set", "map"):
                return [v[0], sorted((fix(x) for x in v[1]), key=json.dumps)]
            return [fix(x) for x in v]
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items() if k != "_version"}
        return v
    out = []
    for r in reply if isinstance(reply, list) else [reply]:
        if isinstance(r, dict) and "rows" in r:
            out.append(sorted((fix(row) for row in r["rows"]),
                              key=json.dumps))
        else:
            out.append(fix(r))
    return out


def query_outcome(cmd, cwd, known, logfile=None):
    outcome, out, err = run(cmd, cwd)
    if outcome != "ok":
        return {"status": outcome, "error": error_line(err, logfile)}
    try:
        return {"status": "ok", "rows": normalize(json.loads(out), known)}
    except ValueError:
        return {"status": "ok", "output": mask(out)}


class Server:
    """An ovsdb-server of one side on one database file."""

    def __init__(self, side, d, db):
        self.side, self.d, self.db = side, d, db
        self.proc = None
        self.sock = os.path.join(d, "sock")
        self.ctl = os.path.join(d, "ctl")
        self.log = os.path.join(d, "log")
        self.log_pos = 0        # How much of the log new_errors() read.

    def new_errors(self):
        """The errors it logged since the last call, masked, each once: how
        often a server repeats a storage error depends on its main loop's
        passes, which depend on timing."""
        if not os.path.exists(self.log):
            return []
        with open(self.log, "rb") as f:
            f.seek(self.log_pos)
            text = f.read().decode(errors="replace")
            self.log_pos = f.tell()
        return list(dict.fromkeys(mask(e) for e in log_errors(text)))

    def start(self):
        """None once it answers, or the outcome of its failure."""
        for f in (self.sock, self.ctl):
            if os.path.exists(f):
                os.unlink(f)
        self.errf = open(os.path.join(self.d, "stderr"), "wb")
        self.proc = subprocess.Popen(
            [self.side.bin("ovsdb-server"), "--no-chdir",
             "--log-file=" + self.log, "--remote=punix:" + self.sock,
             "--unixctl=" + self.ctl, self.db],
            cwd=self.d, stdout=subprocess.DEVNULL, stderr=self.errf)
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            if self.proc.poll() is not None:
                return self.ended()
            if os.path.exists(self.sock) and os.path.exists(self.ctl):
                return None
            time.sleep(0.02)
        self.kill()
        return {"status": "hang", "error": "no socket"}

    def ended(self):
        rc = self.proc.returncode
        self.errf.close()
        with open(os.path.join(self.d, "stderr"), "rb") as f:
            err = f.read()
        self.proc = None
        status = ("crash " + signal.Signals(-rc).name if rc < 0
                  else "ok" if rc == 0 else "error")
        return {"status": status, "error": error_line(err, self.log)}

    def appctl(self, *args):
        return run([self.side.bin("ovs-appctl"), "-t", self.ctl] + list(args),
                   self.d)

    def client(self, verb, txn):
        return [self.side.bin("ovsdb-client"), "--timeout=%d" % TIMEOUT,
                verb, "unix:" + self.sock, txn]

    def stop(self):
        """None if it exits when asked, or the outcome of how it ended."""
        if self.proc is None:
            return {"status": "gone"}
        if self.proc.poll() is not None:
            return self.ended()
        self.appctl("exit")
        try:
            self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            return {"status": "hang", "error": "exit"}
        r = self.ended()
        return None if r["status"] == "ok" else r

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.errf.close()
            self.proc = None


def server_steps(side, d, db, known, clustered):
    """The server's steps on DB: load and select, one write, restart and
    select, compact, restart and select.  Stops when the server fails to
    start or stop; a select or a write that fails is compared, and the
    steps go on (compacting a database that did not load is a step too)."""
    steps = []
    s = Server(side, d, db)

    def select(name):
        r = None
        deadline = time.time() + (TIMEOUT if clustered else 0)
        while True:
            r = query_outcome(s.client("query", select_all()), d, known,
                              s.log)
            txt = json.dumps(r)
            if clustered and time.time() < deadline and (
                    "not yet available" in txt or "not leader" in txt):
                time.sleep(0.2)
                continue
            break
        steps.append((name, r))

    def start(name):
        r = s.start()
        if r is not None:
            steps.append((name, r))
            return False
        steps.append((name, {"status": "ok"}))
        return True

    def stop(name):
        """Stops the server; the step holds the errors it logged since it
        started."""
        r = s.stop()
        if r is not None:
            steps.append((name, r))
            return False
        steps.append((name, {"status": "ok", "errors": s.new_errors()}))
        return True

    try:
        if not start("load"):
            return steps
        select("select")
        write = json.dumps([SCHEMA_NAME, {"op": "insert", "table": "T",
                                          "row": {"name": "after"}}])
        r = query_outcome(s.client("transact", write), d, known, s.log)
        steps.append(("write", r))
        if not (stop("stop") and start("restart")):
            return steps
        select("select after restart")
        o, out, err = s.appctl("ovsdb-server/compact")
        steps.append(("compact", {"status": o, "error": mask(err)}))
        if stop("stop after compact") and start("restart after compact"):
            select("select after compact")
            stop("last stop")
        return steps
    finally:
        s.kill()


def tool_steps(side, d, db, known, clustered):
    """What ovsdb-tool makes of DB."""
    tool = side.bin("ovsdb-tool")
    if not clustered:
        return [("ovsdb-tool query",
                 query_outcome([tool, "query", db, select_all()], d, known))]
    steps = []
    o, out, err = run([tool, "show-log", db], d)
    steps.append(("ovsdb-tool show-log", {"status": o,
                                          "error": error_line(err)}))
    out_db = os.path.join(d, "standalone")
    o, out, err = run([tool, "cluster-to-standalone", out_db, db], d)
    steps.append(("ovsdb-tool cluster-to-standalone",
                  {"status": o, "error": error_line(err)}))
    if o == "ok":
        steps.append(("query of the standalone copy", query_outcome(
            [tool, "query", out_db, select_all()], d, known)))
    return steps


def run_case(side, work, name, data, clustered):
    """SIDE's steps on the case NAME, whose file is DATA (CASE_UUIDS names
    its UUIDs)."""
    d = os.path.join(work, name, side.name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    db = os.path.join(d, "db")
    known = CASE_UUIDS
    with open(db, "wb") as f:
        f.write(data)
    steps = tool_steps(side, d, db, known, clustered)
    with open(db, "wb") as f:
        f.write(data)
    steps += server_steps(side, d, db, known, clustered)
    return steps


# ---------------------------------------------------------------------------
# The database each case damages.

def rpc_transact(sock, txn):
    """The result of one "transact" request to the server at SOCK.  A
    request goes over the socket, not a command line: a large row does
    not fit in one argument."""
    with socket.socket(socket.AF_UNIX) as c:
        c.settimeout(TIMEOUT)
        c.connect(sock)
        c.sendall(json.dumps({"method": "transact", "params": txn,
                              "id": 0}).encode())
        buf = b""
        while True:
            chunk = c.recv(1 << 16)
            if not chunk:
                raise SystemExit("hostile: the server hung up")
            buf += chunk
            try:
                reply = json.loads(buf)
            except ValueError:
                continue
            if reply.get("id") == 0:
                return reply


def make_base(side, work, schema, clustered, big, rng):
    """The undamaged file, written by SIDE's ovsdb-server, its rows' UUIDs
    drawn from RNG: for a clustered one, compacted half way, so that it has
    a snapshot and entries."""
    d = os.path.join(work, "base")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    db = os.path.join(d, "db")
    tool = side.bin("ovsdb-tool")
    if clustered:
        # Every damaged copy has this address: the cases run one at a time.
        subprocess.run([tool, "create-cluster", db, schema,
                        "unix:" + os.path.join(d, "raft")], check=True)
    else:
        subprocess.run([tool, "create", db, schema], check=True)
    s = Server(side, d, db)
    if s.start() is not None:
        raise SystemExit("hostile: %s cannot start on a new database"
                         % side.name)
    try:
        txns = transactions(big, rng)
        for k, t in enumerate(txns):
            if clustered and k == len(txns) // 2:
                s.appctl("ovsdb-server/compact")
            deadline = time.time() + TIMEOUT
            while True:
                reply = rpc_transact(s.sock, t)
                if reply.get("error") is None and not any(
                        isinstance(r, dict) and "error" in r
                        for r in reply.get("result") or []):
                    break
                if time.time() > deadline:
                    raise SystemExit("hostile: transaction %d failed: %s"
                                     % (k, json.dumps(reply)[:300]))
                time.sleep(0.2)
        if s.stop() is not None:
            raise SystemExit("hostile: the new database's server did not "
                             "stop")
    finally:
        s.kill()
    with open(db, "rb") as f:
        return f.read()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--a", required=True, help="the reference's build")
    p.add_argument("--b", required=True, help="the candidate's build")
    p.add_argument("--work", required=True, help="a scratch directory")
    p.add_argument("--schema", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--clustered", action="store_true")
    p.add_argument("--long", action="store_true",
                   help="three byte flips a record, 100 MB strings, "
                   "nesting 100,000 deep, a row of 1 MB")
    p.add_argument("--only", help="run only the cases whose name has this")
    p.add_argument("--max-cases", type=int, default=0,
                   help="run at most this many cases, chosen by the seed")
    args = p.parse_args()

    args.schema = os.path.abspath(args.schema)
    a, b = Side("A", args.a), Side("B", args.b)
    rng = random.Random(args.seed)
    base = make_base(a, args.work, args.schema, args.clustered,
                     (1 << 20) if args.long else 4000,
                     random.Random(args.seed * 7919 + 1))
    records = split_records(base)
    if join(records) != base:
        raise SystemExit("hostile: the new file is not a series of records")
    cases = damage(records, rng, args.clustered, args.long)
    cases.insert(0, ("undamaged", base))
    if args.only:
        cases = [c for c in cases if args.only in c[0]]
    if args.max_cases and len(cases) > args.max_cases:
        keep = set(rng.sample(range(1, len(cases)), args.max_cases - 1))
        cases = [c for k, c in enumerate(cases) if k == 0 or k in keep]

    kind = "clustered" if args.clustered else "standalone"
    diffs = steps_compared = n_documented = 0
    crashes = {"A": 0, "B": 0}
    t0 = time.time()
    for k, (name, data) in enumerate(cases):
        if k and k % 25 == 0:
            print("hostile: %s: %d of %d cases, %d differences (%d s)"
                  % (kind, k, len(cases), diffs, time.time() - t0),
                  file=sys.stderr, flush=True)
        CASE_UUIDS.clear()
        CASE_UUIDS.update(uuid_names(data))
        sa = run_case(a, args.work, name, data, args.clustered)
        sb = run_case(b, args.work, name, data, args.clustered)
        for side, steps in (("A", sa), ("B", sb)):
            if any(r["status"].startswith("crash") for _, r in steps):
                crashes[side] += 1
        steps_compared += max(len(sa), len(sb))
        if sa == sb:
            print("%s %s: same (%s)" % (kind, name, ", ".join(
                "%s %s" % (s, r["status"]) for s, r in sa)))
            shutil.rmtree(os.path.join(args.work, name), ignore_errors=True)
            continue
        if documented(sa) == documented(sb):
            n_documented += 1
            print("%s %s: same but for a documented difference: %s" % (
                kind, name, "; ".join(
                    what for what, fn in DOCUMENTED
                    if documented(sa, [fn]) != sa
                    or documented(sb, [fn]) != sb)))
            continue
        diffs += 1
        print("DIFF %s %s (files in %s):" % (kind, name,
                                             os.path.join(args.work, name)))
        for j in range(max(len(sa), len(sb))):
            ra = sa[j] if j < len(sa) else ("-", {})
            rb = sb[j] if j < len(sb) else ("-", {})
            mark = "  " if ra == rb else "! "
            print("  %sA %s: %s" % (mark, ra[0], json.dumps(ra[1])[:300]))
            if ra != rb:
                print("  %sB %s: %s" % (mark, rb[0], json.dumps(rb[1])[:300]))
        sys.stdout.flush()
    print("hostile: %d %s cases, %d steps compared, %d differences, "
          "%d documented differences, %d crashes (A %d, B %d)"
          % (len(cases), kind, steps_compared, diffs, n_documented,
             crashes["A"] + crashes["B"], crashes["A"], crashes["B"]))
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
