"""A seeded sample of 30 of the flags bench/qc_studies.sh wrote, for checking by hand
(issue 51, item 1). A (study, rule) group is drawn uniformly, then a flag within it, so the
2,752 step-0 rows of pythia_evals do not fill the sample. Prints each flag with the row it
names as its file has it. Usage: python3 bench/qc_sample.py [OUT_DIR] [SEED]"""
import csv, glob, json, os, random, sys

out = sys.argv[1] if len(sys.argv) > 1 else "target/qc_studies"
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 51
groups = {}
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    doc = json.load(open(path))
    name = os.path.basename(path)[:-5]
    for flag in doc["flags"]:
        groups.setdefault((name, flag["rule"]), []).append((doc["data"], flag))
rng = random.Random(seed)
keys = sorted(groups)
picked = set()
sample = []
while len(sample) < 30 and len(picked) < sum(len(v) for v in groups.values()):
    key = rng.choice(keys)
    index = rng.randrange(len(groups[key]))
    if (key, index) in picked:
        continue
    picked.add((key, index))
    sample.append((key, groups[key][index]))
for number, ((name, rule), (data, flag)) in enumerate(sample, 1):
    print(f"{number:2}. {name} row {flag['row']} {rule}: value {flag.get('value')} "
          f"threshold {flag.get('threshold')} loss {flag.get('loss')} expected {flag.get('expected')} "
          f"other {flag.get('other_row')}")
