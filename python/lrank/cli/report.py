"""WEKA-style text rendering of a ``lrank train`` report."""

from __future__ import annotations

import math
from typing import Any

from lrank.evaluation import ALL_MEASURES


def _num(v: float | None, digits: int = 4) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def text_report(r: dict[str, Any]) -> str:
    lines: list[str] = []
    opts = " ".join(r["learner"]["options"])
    params = r["learner"]["options_in_effect"] or "(none)"
    lines += [
        "=== Run information ===",
        "",
        f"Learner:      {r['learner']['name']} {opts}".rstrip(),
        f"Parameters:   {params}" + (f"  (seed {r['seed']})" if r["seed"] is not None else ""),
    ]
    if r["learner"].get("tuned"):
        lines.append(f"Tuned:        {r['learner']['tuned_options']}  (chosen by inner cross-validation)")
    lines += [
        f"Relation:     {r['relation']}",
        # A loaded model (-l) was trained elsewhere: no training instances here.
        *([f"Instances:    {r['instances']}"] if r["instances"] is not None else []),
        f"Features:     {r['features']}",
        f"Labels:       {len(r['labels'])} ({_some(r['labels'])})",
        f"Test mode:    {r['test_mode']}",
    ]
    if r["missing_label_probability"] > 0:
        lines.append(f"Missing:      training labels deleted with probability {r['missing_label_probability']}")
    if r.get("loaded_model"):
        lines += ["", f"Model loaded from: {r['loaded_model']}"]
    else:
        lines += ["", f"Time taken to build model: {r['build_time_seconds']:.3f} seconds"]
    if "out_of_bag" in r:
        oob = r["out_of_bag"]
        measure = "Kendall tau_x" if oob["measure"] == "tau_x" else "Kendall tau"
        scored = f"{oob['rows']} of {r['instances']} rows left out by some member"
        lines.append(f"Out-of-bag {measure}: {_num(oob['value'])} ({scored})")
    if r.get("model_file"):
        lines.append(f"Model saved to: {r['model_file']}")
    if "test_time_seconds" in r:
        lines.append(f"Time taken to test model on test data: {r['test_time_seconds']:.3f} seconds")
    if "feature_importances" in r:
        # GBLR's shares are its splits' gains on the loss (see GradientBoostingLabelRanker).
        measure = "gain on the loss" if r["learner"]["name"] == "GBLR" else "decrease in pairwise disagreement"
        lines += ["", f"=== Attribute importance (share of the splits' {measure}) ===", ""]
        shares = r["feature_importances"]
        lines += (
            ["(none: the model has no trees)"]
            if shares is None
            else [f"{s['share']:>10.4f}  {s['feature']}" for s in shares]
        )
    for ev in r["evaluations"]:
        title = {
            "training data": "Error on training data",
            "test data": "Error on test data",
            "cross-validation": "Stratified cross-validation",
            "percentage split": "Percentage split",
        }.get(ev["name"], ev["name"])
        lines += ["", f"=== {title} ===", "", "=== Ranking measures ===", ""]
        lines.append(f"{'':<30}{'mean':>10}{'std':>10}")
        for key, m in ev["measures"].items():  # tau_x first when the truth has ties
            if key == "footrule":
                continue  # the raw footrule grows with m; the text shows the normalised one (JSON both)
            display = ALL_MEASURES[key][0]
            lines.append(f"{display:<30}{_num(m['mean']):>10}{_num(m['std']):>10}")
        lines.append(f"{'Total number of instances':<30}{ev['n_instances']:>10}")
        if ev["n_folds"] > 1:
            lines.append(f"{'Folds evaluated':<30}{ev['n_folds']:>10}")
        lines += ["", "=== Pairwise correct | incorrect (row label before column label in the truth) ===", ""]
        lines += _pairwise_table(ev["pairwise"])
    return "\n".join(lines)


def _some(labels: list[str], shown: int = 20) -> str:
    """The label names, the first ``shown`` of them when there are many more."""
    if len(labels) <= shown + 5:
        return ", ".join(labels)
    return ", ".join(labels[:shown]) + f", ... and {len(labels) - shown} more"


def _pairwise_table(p: dict[str, Any]) -> list[str]:
    if "omitted" in p:
        return [f"(left out: {p['omitted']})"]
    labels = p["labels"]
    cells = [
        ["-" if a == b else f"{p['correct'][a][b]}|{p['incorrect'][a][b]}" for b in range(len(labels))]
        for a in range(len(labels))
    ]
    width = max([len(s) for s in labels] + [len(c) for row in cells for c in row]) + 2
    head = " " * width + "".join(f"{s:>{width}}" for s in labels)
    return [head] + [f"{labels[a]:<{width}}" + "".join(f"{c:>{width}}" for c in cells[a]) for a in range(len(labels))]
