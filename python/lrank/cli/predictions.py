"""``lrank train -p RANGE``: each evaluated row's true and predicted ranking, as WEKA's ``-p``,
with the attributes RANGE selects printed beside them."""

from __future__ import annotations

import math
from typing import Any

import click

from lrank import _core
from lrank.evaluation.workflow import RowPredictions
from lrank.ranking_notation import format_rank_rows
from lrank.rankings import has_ties

RANGE_HELP = (
    "Print each evaluated row's true and predicted ranking and its Kendall tau instead of the report, "
    "as WEKA's -p: the test rows, the held-out rows of a split, or with cross-validation every row as "
    "the fold that held it out predicted it (first repeat). RANGE lists attributes to print too, "
    "numbered from 1 in the file's order, the ranking left out, as lrank info counts them (1,3-5 or "
    "first-last); 0 for none."
)


def parse_range(text: str, n_attributes: int) -> list[int]:
    """WEKA's attribute range (``0``; ``1,3-5``; ``first-last``; ``last``) as 0-based indices, in
    the order given; a one-line :class:`click.BadParameter` for a bad one."""
    text = text.strip()
    if text == "0":
        return []
    if not text:
        raise click.BadParameter("an empty range: give 0 to print no attributes", param_hint="-p")

    def index(token: str) -> int:
        token = token.strip().lower()
        if not token:
            raise click.BadParameter(f"{text!r}: a range needs an attribute on each side of '-'", param_hint="-p")
        if token == "first":
            return 1
        if token == "last":
            return n_attributes
        if not token.isdigit():
            message = f"{text!r}: {token!r} is not an attribute number, 'first' or 'last'"
            raise click.BadParameter(message, param_hint="-p")
        value = int(token)
        if not 1 <= value <= n_attributes:
            raise click.BadParameter(
                f"{text!r}: attribute {value} does not exist (the data has {n_attributes} attributes, 1 to "
                f"{n_attributes}; 0 prints none)",
                param_hint="-p",
            )
        return value

    chosen: list[int] = []
    for part in text.split(","):
        low, sep, high = part.partition("-")
        start = index(low)
        end = index(high) if sep else start
        if end < start:
            raise click.BadParameter(f"{text!r}: the range {part.strip()!r} runs backwards", param_hint="-p")
        chosen.extend(i - 1 for i in range(start, end + 1) if i - 1 not in chosen)
    return chosen


def _value(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "?"  # a missing value, as ARFF writes it
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    return str(v)


def _json_value(v: Any) -> Any:
    return None if isinstance(v, float) and math.isnan(v) else v


def prediction_rows(p: RowPredictions, labels: list[str], attributes: list[int]) -> list[dict[str, Any]]:
    """One dict per row: its 1-based instance number, fold, rankings as text, tau (tau_x when the
    truth ties labels) and the chosen attributes' values."""
    measures = _core.row_measures(p.truth, p.predicted)
    key = "tau_x" if has_ties(p.truth) else "kendall_tau"
    # The rankings evaluated (a partial order's is its longest chain), names quoted where they
    # hold the notation's characters, so that the text reads back as the same ranking.
    truth = format_rank_rows(p.truth, labels, quoted=True)
    predicted = format_rank_rows(p.predicted, labels, quoted=True)
    names = [p.dataset.attributes[a].name for a in attributes]
    columns = [p.dataset.features.get_column(name).gather(p.rows).to_list() for name in names]
    out = []
    for i, row in enumerate(p.rows):
        value = float(measures[key][i])
        entry: dict[str, Any] = {
            "instance": int(row) + 1,
            "actual": truth[i],
            "predicted": predicted[i],
            key: None if math.isnan(value) else value,
        }
        if p.folds is not None:
            entry["fold"] = int(p.folds[i])
        if names:
            # NaN is no JSON value: a missing number is null, as a missing cell.
            entry["attributes"] = {name: _json_value(col[i]) for name, col in zip(names, columns)}
        out.append(entry)
    return out


def predictions_text(rows: list[dict[str, Any]], title: str) -> str:
    """The rows as WEKA prints ``-p`` output: a header, then one line per row."""
    key = "tau_x" if rows and "tau_x" in rows[0] else "kendall_tau"
    has_fold = bool(rows) and "fold" in rows[0]
    actual_w = max([len("actual")] + [len(r["actual"]) for r in rows])
    predicted_w = max([len("predicted")] + [len(r["predicted"]) for r in rows])
    head = f"{'inst#':>6}" + (f"{'fold':>6}" if has_fold else "")
    head += f"  {'actual':<{actual_w}}  {'predicted':<{predicted_w}}  {'tau_x' if key == 'tau_x' else 'tau':>7}"
    if rows and "attributes" in rows[0]:
        head += f"  ({','.join(rows[0]['attributes'])})"
    lines = [f"=== Predictions on {title} ===", "", head]
    for r in rows:
        line = f"{r['instance']:>6}" + (f"{r['fold']:>6}" if has_fold else "")
        tau = "-" if r[key] is None else f"{r[key]:.4f}"
        line += f"  {r['actual']:<{actual_w}}  {r['predicted']:<{predicted_w}}  {tau:>7}"
        if "attributes" in r:
            line += "  (" + ",".join(_value(v) for v in r["attributes"].values()) + ")"
        lines.append(line)
    return "\n".join(lines)


def title_of(evaluation_name: str) -> str:
    return {
        "cross-validation": "cross-validation (each row by the fold that held it out)",
        "percentage split": "the held-out rows of the split",
    }.get(evaluation_name, evaluation_name)
