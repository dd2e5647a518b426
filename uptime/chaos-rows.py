#!/usr/bin/python3
# chaos-rows.py: the rows of a select reply on stdin (an ovsdb-client or
# ovsdb-tool query of table T), printed one per line as "k<TAB>v<TAB>m",
# sorted, so that two replies compare as text.  _uuid and _version are
# left out: each member and each replay makes its own.  Exits 1 on input
# that is not such a reply.
import json
import sys


def main():
    try:
        reply = json.load(sys.stdin)
        rows = reply[0]["rows"]
    except (ValueError, LookupError, TypeError) as e:
        sys.stderr.write("chaos-rows: not a select reply: %s\n" % e)
        return 1
    out = []
    for row in rows:
        m = row.get("m", ["map", []])
        pairs = sorted(m[1]) if isinstance(m, list) and m[0] == "map" else m
        out.append("%d\t%s\t%s" % (row["k"], row["v"],
                                    json.dumps(pairs, sort_keys=True)))
    for line in sorted(out):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
