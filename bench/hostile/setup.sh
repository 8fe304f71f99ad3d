#!/bin/bash
# setup.sh [BIN] : (re)generates every input under in/ (saved fits are written by BIN, so rerun per binary)
HERE=$(cd "$(dirname "$0")" && pwd); REPO=$(cd "$HERE/../.." && pwd)
WORK=${HOSTILE_WORK:-${TMPDIR:-/tmp}/scalinglaws-hostile}; mkdir -p "$WORK"
SL=$(readlink -f "${1:-$REPO/target/release/scalinglaws}"); cd "$WORK"
ln -sfn "$REPO/examples" ex; mkdir -p in in/adir in/adir.json in/adir.svg in/adir.html out
set -e
python3 "$HERE"/gen/gen_data.py 3000 > in/d3000.csv; python3 "$HERE"/gen/gen_data.py 1500 > in/d1500.csv
python3 "$HERE"/gen/gen_data.py 500 > in/d500.csv; python3 "$HERE"/gen/gen_data.py 60 > in/d60.csv
python3 "$HERE"/gen/gen_data.py 2000 200 > in/g200.csv; python3 "$HERE"/gen/gen_data.py 600 1 6 > in/t6.csv
python3 "$HERE"/gen/gen_data.py 400 1 2 > in/t2.csv
python3 - <<'PY'
import csv, math
rows=list(csv.DictReader(open('in/d500.csv'))); H=list(rows[0].keys())
def out(name, rs, f=lambda r:r):
    with open('in/'+name,'w') as fh:
        w=csv.DictWriter(fh, H); w.writeheader(); [w.writerow(f(dict(r))) for r in rs]
out('one.csv', rows[:1]); out('two.csv', rows[:2]); out('three.csv', rows[:3])
out('eq.csv', rows[:50], lambda r: {**r,'loss':'3.0'})
out('eqN.csv', rows[:50], lambda r: {**r,'N':'1e9'})
out('s1e-10.csv', rows, lambda r: {**r,'loss':repr(float(r['loss'])*1e-10)})
out('s1e-200.csv', rows, lambda r: {**r,'loss':repr(float(r['loss'])*1e-200)})
out('s1e10.csv', rows, lambda r: {**r,'loss':repr(float(r['loss'])*1e10)})
out('s1e300.csv', rows, lambda r: {**r,'loss':repr(float(r['loss'])*1e300)})
out('denorm.csv', rows, lambda r: {**r,'loss':repr(float(r['loss'])*1e-310)})
out('Ndenorm.csv', rows, lambda r: {**r,'N':repr(float(r['N'])*1e-320)})
out('negloss.csv', rows, lambda r: {**r,'loss':repr(-float(r['loss']))})
out('zeroN.csv', rows, lambda r: {**r,'N':'0'} if r is rows[0] or True else r)
out('nan.csv', rows[:100], lambda r: {**r,'loss':'nan'} if float(r['N'])<3e7 else r)
out('inf.csv', rows[:100], lambda r: {**r,'loss':'inf'} if float(r['N'])<3e7 else r)
out('text.csv', rows[:100], lambda r: {**r,'loss':'abc'} if float(r['N'])<3e7 else r)
out('empty_cell.csv', rows[:100], lambda r: {**r,'D':''} if float(r['N'])<3e7 else r)
open('in/header.csv','w').write(','.join(H)+'\n')
open('in/empty.csv','w').write('')
open('in/bom.csv','w').write('\ufeff'+open('in/d60.csv').read())
open('in/crlf.csv','w').write(open('in/d60.csv').read().replace('\n','\r\n'))
open('in/ragged.csv','w').write(open('in/d60.csv').read()+'g0,t0,1e9\n')
open('in/dupcol.csv','w').write(open('in/d60.csv').read().replace('grp,track','loss,track',1))
open('in/bigcell.csv','w').write('N,D,loss\n1e9,1e10,3.0\n1e9,1e10,'+'x'*5_000_000+'\n')   # deliberate >1MB
open('in/bigcell50k.csv','w').write('N,D,loss\n1e9,1e10,3.0\n1e9,1e10,"'+'x'*50_000+'"\n')
open('in/longnum.csv','w').write('N,D,loss\n'+''.join(f'1e{7+i%3},1e{9+i%3},{"3."+"1"*100000 if i==5 else 3.0+0.1*(i%3)}\n' for i in range(20)))
open('in/bighdr.csv','w').write(','.join('c%d'%i for i in range(90000))+'\n')
open('in/jsonl_bad.jsonl','w').write('{"N":1e9,"D":1e10,"loss":3}\n{"N":[1,2],"D":1e10,"loss":3}\n{"N":'+'['*5000+']'*5000+'}\n')
open('in/jsonl_deep.jsonl','w').write('{"N":'+'['*100000+']'*100000+'}\n')
PY
# isoflop variants
head -2 ex/isoflop/runs.csv > in/iso1.csv; head -6 ex/isoflop/runs.csv > in/iso5.csv
awk -F, 'NR==1||$1==1e+18' ex/isoflop/runs.csv > in/iso_onebudget.csv
# lr variants
head -2 ex/lr/sweep.csv > in/lr1.csv; head -3 ex/lr/sweep.csv > in/lr2.csv
python3 -c "
import csv; r=list(csv.reader(open('ex/lr/sweep.csv'))); h=r[0]; b=r[1]
open('in/lr_cell.csv','w').write(','.join(h)+'\n'+''.join(','.join(x)+'\n' for x in r[1:] if x[0]==b[0] and x[1]==b[1]))
open('in/lr_samelr.csv','w').write(','.join(h)+'\n'+''.join(','.join(x[:2]+['0.001']+x[3:])+'\n' for x in r[1:]))"
# schedule variants
head -1 ex/schedule/runs_400m.csv > in/sch_one_row.csv; sed -n 2p ex/schedule/runs_400m.csv >> in/sch_one_row.csv
grep -E '^(run|constant_24000),' ex/schedule/runs_400m.csv > in/sch_onerun.csv
python3 "$HERE"/gen/gen_sched.py 3 24000 50 > in/sch_syn.csv
awk -F, 'NR==1{print;next}{$3=0; print}' OFS=, ex/schedule/runs_400m.csv > in/sch_lr0.csv
# downstream variants
head -40 ex/downstream/pythia_zero_shot.csv > in/ds40.csv
python3 -c "
import csv; r=list(csv.reader(open('ex/downstream/pythia_zero_shot.csv'))); h=r[0]
m=sorted(set(x[0] for x in r[1:]))[:1]
open('in/ds_onemodel.csv','w').write(','.join(h)+'\n'+''.join(','.join(x)+'\n' for x in r[1:] if x[0] in m))
open('in/ds_acc2.csv','w').write(','.join(h)+'\n'+''.join(','.join(x[:5]+['2.5']+x[6:])+'\n' for x in r[1:]))"
# saved fits written by this binary
$SL fit ex/isoflop/runs.csv --law chinchilla --target loss --json in/fit.json >/dev/null
$SL fit ex/chinchilla/chinchilla_epoch.csv --law chinchilla --target loss --map N="Model Size" --map C="Training FLOP" --derive "D=C/(6*N)" --bootstrap 100 --json in/fitbs.json >/dev/null
$SL fit in/d500.csv --law kaplan --target loss --json in/fit_kaplan.json >/dev/null 2>&1 || true
$SL schedule fit ex/schedule/runs_400m.csv --run run --warmup 2160 --json in/sch.json >/dev/null
$SL schedule fit ex/schedule/runs_400m.csv --run run --warmup 2160 --train constant_24000,cosine_24000 --json in/sch_tr.json >/dev/null
python3 "$HERE"/gen/gen_edits2.py
echo setup done
