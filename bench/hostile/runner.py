#!/usr/bin/env python3
"""runner.py BIN [LABEL...] : runs cases.tsv (see run.sh)."""
import sys, os, re, subprocess, shutil, time, json
import checks
HERE=os.path.dirname(os.path.abspath(__file__))
ROOT=os.environ.get('HOSTILE_WORK') or os.path.join(os.environ.get('TMPDIR','/tmp'),'scalinglaws-hostile')
os.makedirs(ROOT, exist_ok=True); os.chdir(ROOT)
BIN=os.path.abspath(sys.argv[1]); want=set(sys.argv[2:])
cases=[]
for ln in open(os.path.join(HERE,'cases.tsv')):
    if not ln.strip() or ln.startswith('#'): continue
    p=ln.rstrip('\n').split('\t')
    if len(p)!=4: print('BAD CASE LINE', ln); continue
    cases.append(p)
os.makedirs('out', exist_ok=True)
PANIC=re.compile(r'panicked|stack overflow|RUST_BACKTRACE|SIGABRT|Aborted|core dumped|memory allocation of .* failed', re.I)
res=[]; t0=time.time()
def parse_time(f):
    d={}
    try:
        for l in open(f):
            if ':' in l: k,v=l.strip().rsplit(':',1) if 'Elapsed' not in l else (l.split('(h:mm:ss or m:ss):')[0].strip(), l.split('):',1)[1].strip()); d[k.strip()]=v.strip()
    except FileNotFoundError: pass
    def wall(s):
        try:
            parts=[float(x) for x in s.split(':')]; t=0
            for x in parts: t=t*60+x
            return t
        except Exception: return -1
    w=wall(d.get('Elapsed (wall clock) time','-1'))
    cpu=float(d.get('User time (seconds)',0))+float(d.get('System time (seconds)',0))
    rss=int(d.get('Maximum resident set size (kbytes)',0))/1024
    return w,cpu,rss
for label,cls,expect,cmd in cases:
    if want and label not in want: continue
    T=f'{ROOT}/tmp/{label}'; shutil.rmtree(T, ignore_errors=True); os.makedirs(T)
    for junk in ('-','--'):
        if os.path.lexists(junk): os.remove(junk)
    so=f'out/{label}.stdout'; se=f'out/{label}.stderr'; tf=f'out/{label}.time'
    env=dict(os.environ, SL=BIN, T=T, RUST_BACKTRACE='0')
    with open(so,'wb') as fo, open(se,'wb') as fe:
        p=subprocess.run(['/usr/bin/time','-v','-o',tf,'timeout','-k','5','70','bash','-c',cmd], stdout=fo, stderr=fe, stdin=subprocess.DEVNULL, env=env, cwd=ROOT)
    rc=p.returncode
    wall,cpu,rss=parse_time(tf)
    if rc!=0 and rc>128 and wall<0: pass
    out=open(so,'rb').read().decode('utf-8','replace'); err=open(se,'rb').read().decode('utf-8','replace')
    fails=[]
    pan = bool(PANIC.search(err)) or (rc>=101 and rc not in (124,)) 
    if pan: fails.append(f'PANIC rc={rc}')
    if rc==124 or wall>60: fails.append(f'HANG wall={wall:.0f}s')
    toks=expect.split()
    memlim=2048
    for t in toks:
        if t.startswith('mem='): memlim=float(t[4:])
    if rss>memlim: fails.append(f'RSS {rss:.0f}MB>{memlim:.0f}')
    if os.path.lexists('-'): fails.append("created file '-'")
    for t in toks:
        m=re.match(r"(rc|err|out|check|mem|maxerr|cpu|wall)(=|~|!~|!=|<=)(.*)$", t)
        if not m: fails.append('bad expect token '+t); continue
        k,op,v=m.groups()
        if k=='rc':
            ok = str(rc) in v.split('|') if op=='=' else str(rc) not in v.split('|')
            if not ok: fails.append(f'rc={rc} want {op}{v}')
        elif k in ('err','out'):
            # err~ is checked only on a refusal (rc!=0), out~ only on success (rc==0)
            if (k=='err' and rc==0) or (k=='out' and rc!=0): continue
            s=err if k=='err' else out
            try: hit=re.search(v, s, re.I|re.S) is not None
            except re.error as e: fails.append(f'bad regex {v}: {e}'); continue
            if op=='~' and not hit: fails.append(f'{k} lacks /{v}/')
            if op=='!~' and hit: fails.append(f'{k} has /{v}/')
        elif k in ('cpu','wall'):
            val=cpu if k=='cpu' else wall
            if val>float(v): fails.append(f'{k}={val:.1f}s > {v}')
        elif k=='maxerr':
            if len(err)>int(v): fails.append(f'stderr {len(err)} chars > {v}')
        elif k=='check':
            try: ok,msg=getattr(checks,v)(out=out,err=err,rc=rc,T=T,label=label)
            except Exception as e: ok,msg=False,f'check {v} crashed: {type(e).__name__}: {e}'
            if not ok: fails.append(f'{v}: {msg}')
    # default readable-message rule for refusals
    if rc not in (0,124) and not pan and 'maxerr' not in expect and len(err)>4000: fails.append(f'stderr {len(err)} chars (unreadable)')
    st='PASS' if not fails else 'FAIL'
    first=(err.strip().splitlines() or [''])[0][:160]
    line=f'{label}\t{cls}\trc={rc}\twall={wall:.1f}\tcpu={cpu:.1f}\trssMB={rss:.0f}\t{"PANIC" if pan else "-"}\t{st}\t{"; ".join(fails)[:300]}'
    print(line, flush=True)
    res.append(dict(label=label,cls=cls,rc=rc,wall=wall,cpu=cpu,rss=rss,panic=pan,status=st,fails=fails,expect=expect,cmd=cmd,err1=first))
    shutil.rmtree(T, ignore_errors=True) if st=='PASS' else None
json.dump(res, open('out/results.json' if not want else 'out/results_partial.json','w'), indent=1)
from collections import Counter
c=Counter((r['cls'],r['status']) for r in res)
print('\nSUMMARY', f'{len(res)} cases, {sum(r["status"]=="PASS" for r in res)} pass, {sum(r["status"]=="FAIL" for r in res)} fail, {time.time()-t0:.0f}s')
for cl in sorted(set(r['cls'] for r in res)):
    print(f'  {cl:8s} pass={c[(cl,"PASS")]:3d} fail={c[(cl,"FAIL")]:3d}')
print('  panics:', sum(r['panic'] for r in res), ' hangs>60s:', sum(r['wall']>60 or r['rc']==124 for r in res), ' rss>2GB:', sum(r['rss']>2048 for r in res))
