#!/usr/bin/python3
"""Sends N transactions, one at a time, each inserting one row into table T
of database "dlex", over one JSON-RPC connection to a unix socket.
Contents are deterministic (sha256 of the index), ~300 bytes per row."""
import hashlib, json, socket, sys

path, n = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
dec = json.JSONDecoder()
buf = ''

def recv_msg():
    global buf
    while True:
        b = buf.lstrip()
        if b:
            try:
                obj, end = dec.raw_decode(b)
                buf = b[end:]
                return obj
            except ValueError:
                pass
        chunk = s.recv(65536)
        if not chunk:
            raise SystemExit("connection closed")
        buf += chunk.decode()

def h(i, tag, k):
    out = ''
    j = 0
    while len(out) < k:
        out += hashlib.sha256(('%d-%s-%d' % (i, tag, j)).encode()).hexdigest()
        j += 1
    return out[:k]

errors = 0
for i in range(n):
    row = {"name": "row-%06d-%s" % (i, h(i, 'n', 24)),
           "a": "external_ids:" + h(i, 'a', 64),
           "b": "options:" + h(i, 'b', 96),
           "c": "description " + h(i, 'c', 80),
           "n": i}
    req = {"method": "transact",
           "params": ["dlex", {"op": "insert", "table": "T", "row": row}],
           "id": i}
    s.sendall(json.dumps(req).encode())
    while True:
        msg = recv_msg()
        if msg.get("method") == "echo":
            s.sendall(json.dumps({"result": msg["params"], "error": None,
                                  "id": msg["id"]}).encode())
            continue
        break
    if msg.get("id") != i or msg.get("error") is not None \
       or any("error" in r for r in msg.get("result", [])):
        errors += 1
        sys.stderr.write("txn %d: %s\n" % (i, json.dumps(msg)))
print("sent %d transactions, %d errors" % (n, errors))
sys.exit(1 if errors else 0)
