"""Markdown tables for BENCHMARKS.md from the JSON files bench/accuracy.py writes.

    python bench/report_accuracy.py bench/results/accuracy_LRRF_ranking.json \
        bench/results/accuracy_LRRF_pairwise.json bench/results/accuracy_LRRF_top_label.json

One table per missing-label probability p: Kendall tau (mean over the folds) of each run next
to the published value, with the difference to it for every run. Files of the same learner
and options are merged into one column.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(paths: list[str]) -> None:
    merged: dict[str, dict] = {}  # files of the same learner and options are merged
    for path in paths:
        doc = json.loads(Path(path).read_text())
        label = f"{doc['learner']} {' '.join(doc['options'])}".strip()
        merged.setdefault(label, {}).update({(r["dataset"], r["missing"]): r for r in doc["runs"]})
    runs = list(merged.items())
    datasets = list(dict.fromkeys(d for _, rows in runs for d, _ in rows))
    ps = sorted({p for _, rows in runs for _, p in rows})
    for p in ps:
        print(f"\n**p = {p}** (Kendall tau, mean over folds; published value and difference in parentheses)\n")
        print("| data set | " + " | ".join(label for label, _ in runs) + " |")
        print("|---|" + "---:|" * len(runs))
        for d in datasets:
            cells = []
            for _, rows in runs:
                r = rows.get((d, p))
                if r is None:
                    cells.append("")
                elif r["published"] is None:
                    cells.append(f"{r['kendall_tau']:.3f}")
                else:
                    paper = r["published"]
                    cells.append(f"{r['kendall_tau']:.3f} ({paper:.3f}, {r['kendall_tau'] - paper:+.3f})")
            print(f"| {d} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
