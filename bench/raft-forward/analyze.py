#!/usr/bin/python3
"""Summarizes OUT/NAME-nN-rR/{A,C}.callgrind (compare.sh): totals,
per-transaction cost (Ir(N) - Ir(0)) / N of build AFTER against build
BEFORE, and per-function (inclusive and self) differences.

Usage: analyze.py OUT N BEFORE AFTER"""
import glob, os, re, statistics, subprocess, sys

if len(sys.argv) != 5:
    sys.exit('usage: analyze.py OUT N BEFORE AFTER')
OUT, N, BEFORE, AFTER = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
LINE = re.compile(r'^\s*([\d,]+) \([^)]*\)\s+(.*?)\s+\[(.*)\]\s*$')

def annotate(path, inclusive):
    cache = path + ('.incl.txt' if inclusive else '.self.txt')
    if not os.path.exists(cache):
        txt = subprocess.run(['callgrind_annotate', '--threshold=100',
                              '--inclusive=' + ('yes' if inclusive else 'no'),
                              '--auto=no', path],
                             capture_output=True, text=True).stdout
        open(cache, 'w').write(txt)
    funcs = {}
    total = None
    for line in open(cache):
        m = LINE.match(line)
        if m:
            name = re.sub(r'^/[^ ]*?/(lib|ovsdb|utilities|include)/', r'\\1/', m.group(2))
            name = re.sub(r'^\./', '', name)
            funcs[name] = funcs.get(name, 0) + int(m.group(1).replace(',', ''))
        elif 'PROGRAM TOTALS' in line:
            total = int(line.split()[0].replace(',', ''))
    return total, funcs

def runs(build, n, server):
    return sorted(glob.glob('%s/%s-n%d-r*/%s.callgrind' % (OUT, build, n, server)))

def med(xs):
    return statistics.median(xs)

def fmt(x):
    return '{:,.0f}'.format(x)

for server in ('A', 'C'):
    print('\n## Server %s (%s)\n' % (server, 'leader' if server == 'A' else
                                      'passive follower'))
    res = {}
    for build in (BEFORE, AFTER):
        for n in (0, N):
            tots = []
            for p in runs(build, n, server):
                t, _ = annotate(p, False)
                tots.append(t)
            res[build, n] = tots
            print('%-6s N=%-5d runs=%d  Ir: %s  (median %s, min %s, max %s)'
                  % (build, n, len(tots), ' '.join(fmt(t) for t in tots),
                     fmt(med(tots)) if tots else '-',
                     fmt(min(tots)) if tots else '-',
                     fmt(max(tots)) if tots else '-'))
    if not all(res.values()):
        continue
    per = {}
    for build in (BEFORE, AFTER):
        # per-txn: median-based, and the range over all pairings
        m = (med(res[build, N]) - med(res[build, 0])) / N
        lo = (min(res[build, N]) - max(res[build, 0])) / N
        hi = (max(res[build, N]) - min(res[build, 0])) / N
        per[build] = m
        print('%-6s per-txn Ir: %s  (range %s .. %s)' % (build, fmt(m), fmt(lo), fmt(hi)))
    d = per[AFTER] - per[BEFORE]
    print('difference after-before per txn: %s Ir (%+.2f%% of before per-txn)'
          % (fmt(d), 100.0 * d / per[BEFORE]))

    for inclusive in (True, False):
        kind = 'inclusive' if inclusive else 'self'
        print('\n### %s: per-txn Ir by function, medians, (N - 0)/N\n' % kind)
        pf = {}
        for build in (BEFORE, AFTER):
            agg = {}
            for n in (0, N):
                fl = [annotate(p, inclusive)[1] for p in runs(build, n, server)]
                names = set().union(*fl)
                agg[n] = {k: med([f.get(k, 0) for f in fl]) for k in names}
            names = set(agg[0]) | set(agg[N])
            pf[build] = {k: (agg[N].get(k, 0) - agg[0].get(k, 0)) / N for k in names}
        names = set(pf[BEFORE]) | set(pf[AFTER])
        diffs = sorted(names, key=lambda k: -abs(pf[AFTER].get(k, 0) - pf[BEFORE].get(k, 0)))
        print('| function | %s/txn | %s/txn | diff/txn |' % (BEFORE, AFTER))
        print('|---|---:|---:|---:|')
        for k in diffs[:40 if inclusive else 25]:
            b, a = pf[BEFORE].get(k, 0), pf[AFTER].get(k, 0)
            print('| `%s` | %s | %s | %+.0f |' % (k, fmt(b), fmt(a), a - b))
