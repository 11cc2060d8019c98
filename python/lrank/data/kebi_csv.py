"""Reader for the CSV layout of the KEBI label-ranking benchmark sets.

Layout: a header ``A1,...,Ad,L1,...,Lk``; the label columns are the trailing
columns whose names match ``L<number>`` (the label names are those column
names, in column order); every other column is a numeric feature.  A label
column holds that label's position in the row's ranking (1 = most
preferred); 0 or a missing value (below) means the label is missing from the ranking.
Labels with equal positions are tied (a bucket order, as in the partial label
ranking sets): the distinct positions of a row must be exactly ``1..b`` (dense,
``b`` >= 1 buckets), e.g. ``1,2,2,3``; without ties that is ``1..m'`` for the
``m'`` labels present.  An empty cell, ``?`` or a common writer's spelling (``NA``,
``N/A``, ``NULL``, ``None``, ``nan``, ...: :data:`MISSING`) is a missing value.
Fields are separated by commas (double quotes allowed, CSV style); blank lines are
skipped; LF or CRLF line ends.  The relation name is the file stem.  Where rankings are
optional (``require_rankings=False``: data to predict), a file without label columns is
a plain feature table, and one whose label cells are all empty or ``?`` a feature table
with those labels.
"""

from __future__ import annotations

import csv
import os
import re
import warnings
from collections.abc import Callable

import numpy as np
import polars as pl

from lrank.data.dataset import (
    Attribute,
    LabelRankingDataset,
    check_rank_matrix_size,
    check_writable,
    free_name,
    numeric_columns,
    relation_of,
)
from lrank.data.textfile import read_text_lines
from lrank.errors import DataFormatError
from lrank.rankings import zero_based_suspicion

__all__ = ["read_kebi_csv"]

LABEL_COLUMN = re.compile(r"L\d+")  # a label column's name
# Missing-value spellings of common writers (pandas' to_csv, R's write.csv, spreadsheets): a
# missing feature value, or in a label column a missing label.
MISSING = ("", "?", "NA", "N/A", "n/a", "<NA>", "NULL", "null", "None", "nan", "NaN")


def _split(line: str) -> list[str]:
    """The cells of one line (CSV quoting where there are quotes); raises csv.Error."""
    if '"' in line:
        if line.count('"') % 2:
            # Not strict (blanks after a closing quote are fine): an unclosed quote took the
            # rest of the line as one value, "wrong number of values", hiding the problem.
            raise csv.Error("a quoted value is not closed on its line")
        return [c.strip() for c in next(csv.reader([line], skipinitialspace=True))]
    return [c.strip() for c in line.split(",")]


def _cells(line: str, lineno: int, fail: Callable[[int | None, str], DataFormatError]) -> list[str]:
    """:func:`_split`, its problems reported as ``fail(lineno, problem)``."""
    if "\r" in line:
        # Lines end in LF or CRLF; a CR elsewhere is a line end of another system, or damage.
        raise fail(lineno, "a carriage return (CR) inside a line: lines must end in LF or CRLF")
    try:
        return _split(line)
    except csv.Error as exc:
        raise fail(lineno, f"malformed CSV quoting ({exc})") from None


def _first_repeated(values: list[str]) -> str | None:
    seen: set[str] = set()
    for v in values:
        if v in seen:
            return v
        seen.add(v)
    return None


def read_kebi_csv(path: str | os.PathLike[str], *, require_rankings: bool = True) -> LabelRankingDataset:
    """Read a KEBI-layout CSV file (see the module docstring); with ``require_rankings=False`` a
    file without label columns loads as a plain feature table (``rankings=None``, ``labels=()``)."""
    spath, lines = read_text_lines(path)

    def fail(line: int | None, problem: str) -> DataFormatError:
        return DataFormatError(spath, line, problem)

    k = 0
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k == len(lines):
        raise fail(None, "empty file (no header line)")
    header_line = k + 1
    first = lines[k].lstrip().lower()
    if re.match(r"@relation(\s|$)", first) or (first.startswith("%") and "," not in first):
        # An ARFF file saved as .csv: "wrong number of values" on its first attribute line.
        arff = "this is an ARFF/XARFF file (it begins with @relation or a % comment), not the CSV layout"
        raise fail(header_line, f"{arff}: give it the suffix .xarff")
    header = _cells(lines[k].strip(), header_line, fail)
    k += 1
    if any(not h for h in header):
        raise fail(header_line, "empty column name in the header")
    dup = _first_repeated(header)
    if dup is not None:
        raise fail(header_line, f"column {dup!r} appears twice in the header")
    if len(header) == 1 and any(sep in header[0] for sep in (";", "\t", "|")):
        raise fail(header_line, _layout_hint(header, lines, k).removeprefix(": "))
    n_lab = 0
    while n_lab < len(header) and LABEL_COLUMN.fullmatch(header[len(header) - 1 - n_lab]):
        n_lab += 1
    if n_lab == 0 and require_rankings:
        raise fail(
            header_line,
            "no label columns (trailing columns named L<number>) in the header" + _layout_hint(header, lines, k),
        )
    ncol = len(header)
    d = ncol - n_lab
    feat_names = header[:d]
    labels = tuple(header[d:])

    rows: list[list[str]] = []
    row_lines: list[int] = []
    for idx in range(k, len(lines)):
        s = lines[idx].strip()
        if not s:
            continue
        cells = _cells(s, idx + 1, fail) if '"' in s or " " in s or "\t" in s or "\r" in s else s.split(",")
        if len(cells) != ncol:
            raise fail(idx + 1, f"wrong number of values: expected {ncol}, got {len(cells)}")
        rows.append(cells)
        row_lines.append(idx + 1)
    n = len(rows)
    if n == 0:
        raise fail(header_line, "no data rows after the header")
    cols = list(zip(*rows))
    del rows

    numbers = numeric_columns(
        feat_names,
        cols[:d],
        n,
        lambda i, j, problem: fail(row_lines[i], f"{problem} {cols[j][i]!r} in feature column {feat_names[j]!r}"),
        missing=MISSING,
    )
    series = numbers.get_columns()
    # Data to predict may keep the label columns empty or '?' (WEKA's unknown class) in every row.
    unknown = not require_rankings and all(cell in ("", "?") for column in cols[d:] for cell in column)
    if n_lab == 0 or unknown:
        return LabelRankingDataset(
            relation=relation_of(spath),
            attributes=[Attribute(name, "numeric") for name in feat_names],
            features=pl.DataFrame({s.name: s for s in series}),
            labels=labels if unknown else (),
            rankings=None,
            weights=np.ones(n, dtype=np.float64),
            source=spath,
            lines=np.asarray(row_lines, dtype=np.int64),
        )

    m = n_lab
    check_rank_matrix_size(spath, header_line, n, m, item_bytes=8)
    pos = np.empty((n, m), dtype=np.float64)
    for t in range(m):
        j = d + t
        s_str = pl.Series(cols[j], dtype=pl.Utf8).replace(list(MISSING), ["0"] * len(MISSING))
        s_num = s_str.cast(pl.Float64, strict=False)
        bad = s_num.is_null()
        if bad.any():
            i = int(bad.arg_true()[0])
            raise fail(row_lines[i], f"position {cols[j][i]!r} of label {labels[t]!r} is not a number")
        pos[:, t] = s_num.to_numpy()
    integral = np.isfinite(pos) & (pos == np.round(pos))
    bad_rows = ~integral.all(axis=1)
    if bad_rows.any():
        i = int(np.flatnonzero(bad_rows)[0])
        t = int(np.flatnonzero(~integral[i])[0])
        raise fail(row_lines[i], f"position {cols[d + t][i]!r} of label {labels[t]!r} is not an integer")
    in_range = (pos >= 0) & (pos <= m)
    ranks = np.where(in_range, pos, 0).astype(np.int32)
    present = (ranks > 0).sum(axis=1)
    srt = np.sort(ranks, axis=1)
    # Dense positions: the sorted row (zeros first) rises from 0 in steps of 0 or 1.
    steps = np.diff(srt, axis=1, prepend=0)
    ok = in_range.all(axis=1) & (present >= 1) & ((steps == 0) | (steps == 1)).all(axis=1)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        shown = ",".join(cols[d + t][i] for t in range(m))
        if not in_range[i].all():
            t = int(np.flatnonzero(~in_range[i])[0])
            problem = (
                f"position {cols[d + t][i]} of label {labels[t]!r} is outside 0..{m} "
                f"(positions count from 1 = most preferred up to at most {m}, the number of labels; "
                "0 or empty = missing)"
            )
        elif present[i] == 0:
            problem = "empty ranking: no label has a position (a ranking needs at least one label)"
        else:
            distinct = np.unique(ranks[i][ranks[i] > 0])
            problem = (
                f"label positions {shown} are not dense: the {distinct.size} distinct positions must be "
                f"1..{distinct.size} (tied labels share one; 0 or empty = label missing)"
            )
        raise fail(row_lines[i], problem)
    suspicion = zero_based_suspicion(ranks, "the file")
    if suspicion is not None:
        warnings.warn(f"{spath}: every ranking {suspicion}", UserWarning, stacklevel=2)

    return LabelRankingDataset(
        relation=relation_of(spath),
        attributes=[Attribute(name, "numeric") for name in feat_names],
        features=pl.DataFrame({s.name: s for s in series}),
        labels=labels,
        rankings=np.ascontiguousarray(ranks),
        weights=np.ones(n, dtype=np.float64),
        partial_orders={},
        source=spath,
        lines=np.asarray(row_lines, dtype=np.int64),
        # The ranking needs a name of its own when a file is converted to XARFF or Parquet:
        # "L" unless a feature column is called so.
        ranking_name=free_name("L", set(feat_names)),
    )


def _layout_hint(header: list[str], lines: list[str], first_row: int) -> str:
    """What a file without label columns most likely holds instead: another separator, or the
    rankings as text."""
    for separator, name in ((";", "semicolons"), ("\t", "tabs"), ("|", "bars")):
        if len(header) == 1 and separator in header[0]:
            return f": the header is one column holding {name}; fields must be separated by commas"
    row = next((line for line in lines[first_row:] if line.strip()), "")
    if ">" in row.split(",")[-1]:
        return (
            f": column {header[-1]!r} looks like rankings as text (a>b>c), which the CSV layout does not hold; "
            "write XARFF (a RANKING attribute), or pass them as y in Python"
        )
    return ": each label's position goes in a column of its own, named L1, L2, ... and placed last (1 = most preferred)"


def write_kebi_csv(dataset: LabelRankingDataset, path: str | os.PathLike[str]) -> None:
    """Write a data set in the KEBI CSV layout, refusing anything that layout would lose.

    The layout holds numeric features and label columns named ``L<number>`` only, with no
    weights and no partial orders; for anything else write XARFF.
    """
    target = os.fspath(path)

    def refuse(problem: str) -> DataFormatError:
        return DataFormatError(target, None, f"cannot write the KEBI CSV layout: {problem}; write XARFF instead")

    if dataset.rankings is None:
        raise refuse("the data set has no rankings")
    check_writable(dataset)
    if any(a.kind != "numeric" for a in dataset.attributes):
        names = [a.name for a in dataset.attributes if a.kind != "numeric"]
        raise refuse(f"attributes {names} are not numeric")
    bad = [lab for lab in dataset.labels if not LABEL_COLUMN.fullmatch(lab)]
    if bad:
        raise refuse(f"labels {bad} are not named L<number>")
    if dataset.partial_orders:
        raise refuse(f"{len(dataset.partial_orders)} rows hold partial orders")
    if np.any(dataset.weights != 1.0):
        raise refuse("some rows have instance weights")
    names = [a.name for a in dataset.attributes]
    if any("," in n or '"' in n for n in names):
        raise refuse("an attribute name holds a comma or a quote")
    # Names the reader would read otherwise: blanks around a name are stripped, a line break
    # splits the header, and features named like label columns just before the labels would
    # join them (a feature L4 read back as a fourth label, without a word).
    if any(n != n.strip() or "\n" in n or "\r" in n for n in names):
        raise refuse("an attribute name holds a line break or begins or ends with blanks")
    if names and LABEL_COLUMN.fullmatch(names[-1]):
        raise refuse(
            f"the last attribute {names[-1]!r} is named like a label column (L<number>) and would read back as a label"
        )
    x = dataset.feature_matrix()
    with open(target, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(",".join(names + list(dataset.labels)) + "\n")
        for feats, ranks in zip(x, dataset.rankings):
            cells = ["" if np.isnan(v) else repr(float(v)) for v in feats]
            cells += [str(int(r)) if r > 0 else "" for r in ranks]
            fh.write(",".join(cells) + "\n")
