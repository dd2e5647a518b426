#!/usr/bin/python3
"""Reads a clustered ovsdb file and reports the compact JSON size of the
"data" of the raft log entries that insert into table T (= the "data" of
the execute_command_requests that carried them)."""
import json, sys
f = open(sys.argv[1], 'rb')
sizes = []
while True:
    hdr = f.readline()
    if not hdr:
        break
    length = int(hdr.split()[2])
    rec = json.loads(f.read(length))
    d = rec.get("data") if isinstance(rec, dict) else None
    if isinstance(d, list) and len(d) == 2 and isinstance(d[1], dict) and "T" in d[1]:
        sizes.append(len(json.dumps(d, separators=(',', ':'))))
if sizes:
    print("entries %d mean_bytes %.1f min %d max %d total %d"
          % (len(sizes), sum(sizes) / len(sizes), min(sizes), max(sizes), sum(sizes)))
else:
    print("entries 0")
