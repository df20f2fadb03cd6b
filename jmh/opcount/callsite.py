import sys, re
# the stub loop's call into the engine: the last direct call annotated with an invoke from the benchmark method,
# not an uncommon trap's
L = open(sys.argv[1]).read().split('\n'); found = None
for j, l in enumerate(L):
    m = re.match(r'\s+([0-9a-f]+):\s.*\tcall\s+0x', l)
    if not m: continue
    before = L[max(0, j - 14):j]
    if any('UncommonTrapBlob' in x for x in L[max(0, j - 12):j]): continue
    if any(';*invoke' in x for x in before) and any('ClusterBenchmark::' in x for x in before):
        found = m.group(1)
print(found or '')
