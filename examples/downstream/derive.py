"""Derive pythia_zero_shot.csv from the Pythia evals (EleutherAI, Apache-2.0).

Input: ../shared/data/pythia_evals/pythia_v1_evals_long.csv.gz (see its PROVENANCE.md), a
long table of lm-eval results of the 16 Pythia models over their checkpoints.
Output: one row per (model, checkpoint, task) of the zero-shot `acc` metric, step > 0
(step 0 has no tokens, and compute 6ND would be zero), with
  questions  the task's number of questions, from lm-eval's stderr sqrt(p(1-p)/(n-1)):
             the median over the task's rows of p(1-p)/stderr^2 + 1, rounded;
  chance     the accuracy of guessing: 1/4 for the four-way multiple-choice tasks (ARC,
             MMLU, LogiQA, SciQ), 1/2 for the two-way ones (PIQA, WinoGrande, WSC), 0 for
             LAMBADA (a generated word);
  loss       the checkpoint's LAMBADA log-perplexity, ln(ppl) of lambada_openai at the same
             model and step: the evals carry no training loss, and this is the per-token
             cross-entropy the two-stage chain needs.
Standard library only; run from the repository root:
  python3 examples/downstream/derive.py ../shared/data/pythia_evals/pythia_v1_evals_long.csv.gz
"""
import csv
import gzip
import math
import statistics
import sys

TWO_WAY = {"piqa", "winogrande", "wsc"}


def chance(task):
    if task == "lambada_openai":
        return 0.0
    return 0.5 if task in TWO_WAY else 0.25


def main(path, out="examples/downstream/pythia_zero_shot.csv"):
    with gzip.open(path, "rt", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["num_fewshot"] == "0" and int(r["step"]) > 0]
    ppl = {(r["model"], r["step"]): float(r["value"]) for r in rows
           if r["task"] == "lambada_openai" and r["metric"] == "ppl"}
    acc = [r for r in rows if r["metric"] == "acc"]
    per_task = {}
    for r in acc:
        p, se = float(r["value"]), float(r["stderr"])
        if se > 0 and 0 < p < 1:
            per_task.setdefault(r["task"], []).append(p * (1 - p) / se ** 2 + 1)
    questions = {t: round(statistics.median(v)) for t, v in per_task.items()}
    acc.sort(key=lambda r: (float(r["params_total"]), r["model"], int(r["step"]), r["task"]))
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["model", "params", "step", "tokens", "task", "accuracy", "questions", "chance", "loss"])
        for r in acc:
            loss = ppl.get((r["model"], r["step"]))
            w.writerow([r["model"], r["params_total"], r["step"], r["tokens"], r["task"],
                        f"{float(r['value']):.6g}", questions[r["task"]], chance(r["task"]),
                        "" if loss is None else f"{math.log(loss):.6g}"])


if __name__ == "__main__":
    main(*sys.argv[1:])
