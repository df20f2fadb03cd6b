# gdb -p PID -batch -x trace.py, run by ./count: env CALL=0x.. (the stub loop's call into the engine), OUT=file, N=ops, PID=pid
# Counts the instructions of one iteration of the JMH stub loop (call site to call site) by single-stepping the
# benchmark thread; a call into native code (libjvm, libc, the vDSO: System.nanoTime) is run to its return and
# counted as one "native" step (single-stepping the vDSO clock loops forever in this VM).
import gdb, os
call = int(os.environ['CALL'], 16)
n = int(os.environ.get('N', '5')); out = open(os.environ['OUT'], 'w')
native = []
for l in open('/proc/%s/maps' % os.environ['PID']):
    p = l.split()
    if len(p) >= 6 and (p[5].startswith('/') or p[5] in ('[vdso]', '[vsyscall]')):
        a, b = p[0].split('-'); native.append((int(a, 16), int(b, 16), p[5].split('/')[-1]))
def nat(pc):
    for a, b, nm in native:
        if a <= pc < b: return nm
    return None
gdb.execute('set pagination off'); gdb.execute('set confirm off')
for s in ('SIGSEGV', 'SIGILL', 'SIGBUS', 'SIGUSR2', 'SIGQUIT', 'SIGCONT', 'SIGPIPE', 'SIGCHLD'):
    gdb.execute('handle %s nostop noprint pass' % s)
bp = gdb.Breakpoint('*0x%x' % call)
counts = []
for k in range(n + 1):
    gdb.execute('set scheduler-locking off')
    for _ in range(200):
        try:
            gdb.execute('continue', to_string=True)
        except gdb.error:
            pass
        if int(gdb.parse_and_eval('$pc')) == call and (k == 0 or gdb.selected_thread().num == me): break
    if k == 0:
        me = gdb.selected_thread().num; bp.thread = me
    gdb.execute('set scheduler-locking step')
    bp.enabled = False
    c = 0; nc = 0; trace = []
    while c < 20000:
        pc = int(gdb.parse_and_eval('$pc'))
        if pc == call and c > 0: break
        nm = nat(pc)
        if nm:
            ret = int(gdb.parse_and_eval('*(unsigned long*)$rsp'))
            sym = gdb.execute('info symbol 0x%x' % pc, to_string=True).strip().split(' in ')[0]
            trace.append('0x%x: NATIVE %s (%s)' % (pc, sym, nm))
            t = gdb.Breakpoint('*0x%x' % ret, internal=True); t.thread = me
            for _ in range(200):
                try:
                    gdb.execute('continue', to_string=True)
                except gdb.error:
                    pass
                if gdb.selected_thread().num == me and int(gdb.parse_and_eval('$pc')) == ret: break
                gdb.execute('thread %d' % me, to_string=True)
            t.delete()
            nc += 1; c += 1
            continue
        trace.append(gdb.execute('x/i $pc', to_string=True).strip().lstrip('=> '))
        gdb.execute('stepi', to_string=True); c += 1
    bp.enabled = True
    if k > 0:
        counts.append((c, nc))
        out.write('### op %d: %d steps, %d native calls among them\n' % (k, c, nc)); out.write('\n'.join(trace) + '\n')
out.write('COUNTS %s\n' % counts); out.close()
bp.delete()
gdb.execute('set scheduler-locking off')
gdb.execute('detach')
