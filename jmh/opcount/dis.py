#!/usr/bin/env python3
"""Disassemble one nmethod from a JDK PrintAssembly log printed without hsdis (hex [MachCode]).
usage: dis.py LOG COMPILE_ID  -> prints objdump output interleaved with the log's annotations"""
import re, sys, subprocess, tempfile, html
log, cid = sys.argv[1], sys.argv[2]
lines = open(log, errors='replace').read().split('\n')
# find "Compiled method (c2) ... <cid> " header
start = None
for i, l in enumerate(lines):
    if l.startswith('Compiled method (c2)') and re.search(r'\s%s\s' % cid, l):
        start = i
if start is None: sys.exit('no compile %s' % cid)
print(lines[start])
code = {}
notes = {}
i = start
mc = False
while i < len(lines):
    l = html.unescape(lines[i])
    if l.startswith('[/MachCode]'): break
    if '[MachCode]' in l: mc = True
    m = re.match(r'\s*0x([0-9a-f]+): (.*)$', l)
    if mc and m:
        addr = int(m.group(1), 16); rest = m.group(2)
        if rest.startswith(';'):
            notes.setdefault(addr, []).append(rest)
            # following comment lines
            j = i + 1
            while j < len(lines) and re.match(r'\s+;', lines[j]) and not re.match(r'\s*0x', lines[j]):
                notes[addr].append(html.unescape(lines[j]).strip()); j += 1
            i = j; continue
        hexs = rest.replace('|', ' ').split()
        b = bytes.fromhex(''.join(hexs))
        for k, byte in enumerate(b): code[addr + k] = byte
    i += 1
lo = min(code); hi = max(code)
buf = bytes(code.get(a, 0x90) for a in range(lo, hi + 1))
with tempfile.NamedTemporaryFile(delete=False) as f: f.write(buf); fn = f.name
out = subprocess.run(['objdump', '-D', '-b', 'binary', '-mi386:x86-64', '--adjust-vma=0x%x' % lo, fn], capture_output=True, text=True).stdout
na = sorted(notes)
for l in out.split('\n'):
    m = re.match(r'\s*([0-9a-f]+):\t', l)
    if m:
        a = int(m.group(1), 16)
        # print notes whose 4-aligned address range covers this instruction start
        while na and na[0] <= a + 3:
            for n in notes[na.pop(0)]: print('            ' + n)
        print(l)
