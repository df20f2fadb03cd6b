#!/usr/bin/env python3
# annot.py JMHOUT TRACE : maps a trace's pcs to the C2/C1 nmethods printed in JMHOUT, per op 1
import re, sys, html
txt = open(sys.argv[1], errors='replace').read().split('\n')
meths = []
cur = None
for l in txt:
    m = re.match(r'Compiled method \((c[12])\)\s+\d+\s+(\d+)\s.*?\s(\S+::\S+)', l)
    if m: cur = [m.group(1), m.group(2), m.group(3)]
    m = re.match(r'\s*main code\s+\[0x([0-9a-f]+),0x([0-9a-f]+)\]', l)
    if m and cur: meths.append((int(m.group(1), 16), int(m.group(2), 16), cur)); cur = None
tr = open(sys.argv[2]).read().split('### op ')[1].split('\n')[1:]
def who(pc):
    best = None
    for a, b, c in meths:
        if a <= pc < b: best = c  # the last printed one at that address
    return best
prev = None; n = 0
for l in tr:
    m = re.match(r'0x([0-9a-f]+)', l)
    if not m: continue
    w = who(int(m.group(1), 16)); key = tuple(w) if w else ('?',)
    if key != prev:
        if prev: print('%5d  %s' % (n, ' '.join(prev)))
        prev = key; n = 0
    n += 1
print('%5d  %s' % (n, ' '.join(prev)))
