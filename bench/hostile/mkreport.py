#!/usr/bin/env python3
"""mkreport.py [BIN] : writes report.md in the work directory from out/results.json (after run.sh)."""
import json, sys, collections, os
os.chdir(os.environ.get('HOSTILE_WORK') or os.path.join(os.environ.get('TMPDIR','/tmp'),'scalinglaws-hostile'))
R=json.load(open('out/results.json'))
bin_=sys.argv[1] if len(sys.argv)>1 else 'target/release/scalinglaws'
L=[]; w=L.append
c=collections.Counter((r['cls'],r['status']) for r in R)
w(f'# Hostile suite report: `{bin_}`\n')
w(f'Suite: bench/hostile (cases.tsv, run.sh, runner.py, checks.py, setup.sh, gen/). {len(R)} cases; '
  f'{sum(r["status"]=="PASS" for r in R)} pass, {sum(r["status"]=="FAIL" for r in R)} fail. '
  f'Panics: {sum(r["panic"] for r in R)}; runs over 60 s: {sum(r["wall"]>60 or r["rc"]==124 for r in R)}; '
  f'peak RSS over 2 GB: {sum(r["rss"]>2048 for r in R)}; max RSS {max(r["rss"] for r in R):.0f} MB.\n')
w('| class | pass | fail |\n|---|---|---|')
for cl in ['panic','hang','memory','silent','exit','message']:
    w(f'| {cl} | {c[(cl,"PASS")]} | {c[(cl,"FAIL")]} |')
w('')
def ev(r):
    lab=r['label']; out=open(f'out/{lab}.stdout',errors='replace').read(); err=open(f'out/{lab}.stderr',errors='replace').read()
    lines=[f'rc={r["rc"]} wall={r["wall"]:.1f}s cpu={r["cpu"]:.1f}s rss={r["rss"]:.0f}MB — ' + '; '.join(r['fails'])[:400]]
    e=' '.join(err.split())[:260]
    if e: lines.append('stderr: '+e)
    elif out.strip(): lines.append('stdout: …'+' '.join(out.split())[-200:])
    return lines
for cl in ['panic','hang','memory','silent','exit','message']:
    F=[r for r in R if r['cls']==cl and r['status']=='FAIL']
    if not F: continue
    w(f'## {cl} failures ({len(F)})\n')
    for r in F:
        w(f'- **{r["label"]}** — expect `{r["expect"]}`  \n  `{r["cmd"][:300]}`')
        for x in ev(r): w(f'  \n  {x}')
    w('')
open('report.md','w').write('\n'.join(L)+'\n'); print('wrote report.md', len(L), 'lines')
