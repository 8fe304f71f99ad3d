"""Specific checks for 'silent' cases. Each returns (ok, message). Arguments: out, err, rc, T, label."""
import json, math, re, glob, os
def _loads_any(s):
    s=s.strip()
    try: return [json.loads(s)]
    except Exception: pass
    objs=[json.loads(l) for l in s.splitlines() if l.strip()]
    return objs
def _num(x): return isinstance(x,(int,float)) and not isinstance(x,bool)
def _walk(o, path, probs):
    if isinstance(o, float) and (math.isnan(o) or math.isinf(o)):
        probs.append(f'{path}={o}'); return
    if isinstance(o, list):
        for i,x in enumerate(o): _walk(x, f'{path}[{i}]', probs)
        return
    if not isinstance(o, dict): return
    for k,v in o.items(): _walk(v, f'{path}.{k}', probs)
    tol=lambda v: 1e-9*max(1.0,abs(v))
    # in backtest records the observed value sits beside 'predicted': only the prediction must lie in its own interval
    pks=('predicted','prediction') if ('predicted' in o or 'prediction' in o) else ('value','loss','lr_opt','final_loss','estimate','accuracy','B_opt','lr')
    for pk in pks:
        v=o.get(pk)
        if not _num(v): continue
        for ik in ('ci','pi','interval'):
            iv=o.get(ik)
            if isinstance(iv,list) and len(iv)==2 and all(_num(x) for x in iv):
                lo,hi=iv
                if lo>hi+tol(hi): probs.append(f'{path}.{ik} inverted {iv}')
                elif not (lo-tol(lo)<=v<=hi+tol(hi)): probs.append(f'{path}.{pk}={v:.6g} outside {ik}=[{lo:.6g},{hi:.6g}]')
    ci=o.get('ci')
    if isinstance(ci,dict):
        for n,iv in ci.items():
            v=o.get(n)
            if _num(v) and isinstance(iv,list) and len(iv)==2 and all(_num(x) for x in iv):
                lo,hi=iv
                if not (lo-tol(lo)<=v<=hi+tol(hi)): probs.append(f'{path}.{n}={v:.6g} outside ci=[{lo:.6g},{hi:.6g}]')
    L=o.get('loss')
    if isinstance(L,list):
        for a,b in (('low','high'),('mean_low','mean_high'),('pi_low','pi_high'),('ci_low','ci_high')):
            lo,hi=o.get(a),o.get(b)
            if isinstance(lo,list) and isinstance(hi,list):
                for i,(v,l,h) in enumerate(zip(L,lo,hi)):
                    if _num(v) and _num(l) and _num(h) and not (l-tol(l)<=v<=h+tol(h)):
                        probs.append(f'{path}: loss[{i}]={v:.6g} outside {a}/{b}=[{l:.6g},{h:.6g}]'); break
def _sane(objs):
    probs=[]
    for o in objs: _walk(o,'$',probs)
    return (not probs, '; '.join(probs[:3]) + (f' (+{len(probs)-3} more)' if len(probs)>3 else ''))
def json_sane(out, rc, **k):
    """stdout is JSON (or JSON Lines); no NaN/inf; every point inside its own ci/pi. Refusal (rc!=0) passes."""
    if rc!=0: return True,'refused'
    try: objs=_loads_any(out)
    except Exception as e: return False, f'stdout is not JSON: {str(e)[:80]}'
    if not objs: return False,'no JSON on stdout'
    return _sane(objs)
pi_contains_point=json_sane
def json_files_sane(T, rc, **k):
    """every *.json / *.jsonl written into $T passes json_sane"""
    if rc!=0: return True,'refused'
    fs=glob.glob(T+'/*.json')+glob.glob(T+'/*.jsonl')
    if not fs: return False,'no JSON file written'
    for f in fs:
        try: objs=_loads_any(open(f).read())
        except Exception as e: return False, f'{os.path.basename(f)} not JSON: {str(e)[:60]}'
        ok,m=_sane(objs)
        if not ok: return ok, os.path.basename(f)+': '+m
    return True,''
def no_nan_text(out, rc, **k):
    """at exit 0 the printed report shows no nan/inf"""
    if rc!=0: return True,'refused'
    m=re.search(r'(?<![A-Za-z_])(nan|-?inf|infinity)(?![A-Za-z_])', out, re.I)
    return (m is None, f'stdout shows {m.group(0)!r}: ...{out[max(0,m.start()-60):m.end()+20]!r}' if m else '')
def svg_only(out, rc, **k):
    """stdout is one SVG document and nothing else"""
    if rc!=0: return True,'refused'
    s=out.strip()
    if not s: return False,'stdout empty'
    ok = (s.startswith('<svg') or s.startswith('<?xml')) and s.endswith('</svg>') and s.count('<svg')==1
    return ok, '' if ok else f'stdout mixes SVG and text: starts {s[:40]!r} ends {s[-40:]!r}'
def json_only(out, rc, **k):
    if rc!=0: return True,'refused'
    try: json.loads(out); return True,''
    except Exception as e: return False, f'stdout not a single JSON doc: {out.strip()[:40]!r}...{out.strip()[-40:]!r}'
def nonempty(out, rc, T, **k):
    """exit 0 must have produced something: stdout or a file in $T"""
    if rc!=0: return True,'refused'
    if out.strip() or any(os.path.getsize(f)>0 for f in glob.glob(T+'/*')): return True,''
    return False,'exit 0 with empty stdout and no file'
def fit_converged(out, rc, T, err, **k):
    """a fit accepted at exit 0 must have converged (or say prominently on stderr that it did not)"""
    if rc!=0: return True,'refused'
    fs=glob.glob(T+'/*.json')
    d=json.load(open(fs[0])) if fs else json.loads(out)
    if d.get('converged') is True: return True,''
    return False, f"converged={d.get('converged')} termination={d.get('termination')!r} at exit 0"
def csv_finite(out, rc, T, **k):
    """a CSV dataset written at exit 0 (stdout or $T/*.csv) has rows and no nan/inf cells"""
    if rc!=0: return True,'refused'
    txt = out if out.strip() else ''.join(open(f).read() for f in glob.glob(T+'/*.csv'))
    lines=[l for l in txt.splitlines() if l.strip()]
    if len(lines)<2: return False,'no data rows'
    for i,l in enumerate(lines[1:],2):
        for c in l.split(','):
            if c.strip().lower() in ('nan','inf','-inf','infinity','-infinity'): return False, f'line {i} has {c}: {l[:100]}'
    return True,''
def svg_file(T, rc, **k):
    if rc!=0: return True,'refused'
    fs=glob.glob(T+'/*.svg')
    if not fs: return False,'no svg written'
    s=open(fs[0]).read().strip()
    return (s.endswith('</svg>'), '' if s.endswith('</svg>') else 'svg truncated')
def lr_pi_width(out, rc, **k):
    """lr --predict from a single (N,D) cell: an extrapolated lr* must not come with a tight interval (ratio hi/lo < 1.5 is suspicious)"""
    if rc!=0: return True,'refused'
    d=json.loads(out)
    for p in d.get('predictions') or []:
        ci=p.get('ci')
        if not ci or None in ci: continue
        if ci[1]/ci[0] < 1.5: return False, f"lr*={p.get('lr_opt'):.3g} ci={ci[0]:.3g}..{ci[1]:.3g} (x{ci[1]/ci[0]:.3f}) from one cell"
    return _sane([d])
def optimal_finite(out, rc, **k):
    """optimal at exit 0: every allocation N, D, loss finite and positive"""
    if rc!=0: return True,'refused'
    d=json.loads(out)
    for a in d.get('allocations',[]):
        for key in ('N','D','loss'):
            v=a.get(key)
            if not _num(v) or not math.isfinite(v) or (key!='loss' and v<=0): return False, f'{key}={v} at budget {a.get("budget")}'
    return _sane([d])
