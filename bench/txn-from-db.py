#!/usr/bin/python3
"""txn-from-db.py DB SOCKET: sends the rows of the standalone database DB,
compacted into one record, to the server at unix socket SOCKET as one
"transact" that inserts every row with its UUID, and checks the reply."""
import json
import socket
import sys

db, path = sys.argv[1], sys.argv[2]
with open(db) as f:
    lines = [line for line in f.read().split("\n") if line]
# A compacted standalone file: a header line and the schema, then, if the
# database has rows, a header line and the record that inserts them all.
if len(lines) not in (2, 4):
    sys.exit("%s: %d records, not a compacted standalone database"
             % (db, len(lines) // 2))
schema = json.loads(lines[1])
data = json.loads(lines[3]) if len(lines) == 4 else {}
ops = [schema["name"]]
for table, rows in data.items():
    if table.startswith("_"):
        continue
    for uuid, row in rows.items():
        ops.append({"op": "insert", "table": table, "uuid": uuid,
                    "row": row})
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
s.sendall(json.dumps({"method": "transact", "params": ops,
                      "id": 1}).encode())
dec = json.JSONDecoder()
buf = ""
while True:
    chunk = s.recv(1 << 20)
    if not chunk:
        sys.exit("connection closed")
    buf += chunk.decode()
    try:
        msg, _ = dec.raw_decode(buf)
    except ValueError:
        continue
    if msg.get("id") != 1:
        buf = ""
        continue
    errors = [r for r in msg["result"] if r and "error" in r]
    if msg.get("error") or errors:
        sys.exit("transaction failed: %s" % (msg.get("error") or errors[:3]))
    print("inserted %d rows" % (len(ops) - 1))
    break
