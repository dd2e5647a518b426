#!/usr/bin/python3
"""chaos-replaced.py FILE [+K|-K]...: whether the rows with key K (column
"k" of table "T") that a standalone conversion of FILE, a raft database
file, has (+K) or lacks (-K) against the cluster, are the work of log
entries that a later record of FILE replaced: an entry at the same index
from a later term, written after a leader change, takes the place of an
entry that was never committed.  +K: FILE inserts the row only in
replaced entries.  -K: FILE deletes the row only in replaced entries.
Prints the keys for which that holds; exits 1 unless it holds for all."""

import json
import re
import sys

HEADER = re.compile(rb'OVSDB [A-Z]+ ([0-9]+) [0-9a-f]+\n')


def records(data):
    """The JSON records of a database file, in order."""
    pos = 0
    while True:
        m = HEADER.match(data, pos)
        if not m:
            return
        end = m.end() + int(m.group(1))
        yield json.loads(data[m.end():end])
        pos = end


def table_rows(entry):
    """The rows of table T that a raft entry's data writes, by UUID: a
    row's columns, or None for a delete."""
    data = entry.get("data")
    if not isinstance(data, list) or len(data) != 2:
        return {}
    txn = data[1]
    rows = txn.get("T", {}) if isinstance(txn, dict) else {}
    return rows if isinstance(rows, dict) else {}


def main():
    data = open(sys.argv[1], "rb").read()
    wanted = sys.argv[2:]
    # Each entry's rows of table T, with whether a later record replaced
    # the entry.
    entries = []
    for rec in list(records(data))[1:]:
        if "index" not in rec or "term" not in rec:
            continue
        for e in entries:
            if e["index"] >= rec["index"] and e["term"] != rec["term"]:
                e["replaced"] = True
        entries.append({"index": rec["index"], "term": rec["term"],
                        "rows": table_rows(rec), "replaced": False})
    uuid_of = {}
    for e in entries:
        for uuid, row in e["rows"].items():
            if isinstance(row, dict) and "k" in row:
                uuid_of[row["k"]] = uuid

    def only_in_replaced(matches):
        kinds = {e["replaced"] for e in entries if matches(e["rows"])}
        return kinds == {True}

    found = []
    for w in wanted:
        k = int(w[1:])
        if w[0] == "+":
            ok = only_in_replaced(lambda rows: any(
                isinstance(r, dict) and r.get("k") == k
                for r in rows.values()))
        else:
            u = uuid_of.get(k)
            ok = u is not None and only_in_replaced(
                lambda rows: u in rows and rows[u] is None)
        if ok:
            found.append(w)
    print(" ".join(found))
    return 0 if len(found) == len(wanted) else 1


if __name__ == "__main__":
    sys.exit(main())
