"""``read_arff``: an ARFF / XARFF file as a :class:`lrank.data.LabelRankingDataset`."""

from __future__ import annotations

import os

import numpy as np

from lrank.data.arff.header import read_header
from lrank.data.arff.rows import build_columns, read_rows
from lrank.data.dataset import LabelRankingDataset
from lrank.data.textfile import read_text_lines
from lrank.errors import DataFormatError

__all__ = ["read_arff"]


def read_arff(path: str | os.PathLike[str], *, require_rankings: bool = True) -> LabelRankingDataset:
    """Read an ARFF or XARFF file (syntax in :mod:`lrank.data.arff`).

    With ``require_rankings=False`` a file without a RANKING attribute loads
    as a plain feature table (``rankings=None``, ``labels=()``), and one whose rankings are all
    ``?`` (WEKA's unknown class) as a feature table with its declared labels.
    """
    spath, lines = read_text_lines(path)
    header = read_header(spath, lines)
    if header.rank_col is None and require_rankings:
        raise DataFormatError(
            spath,
            header.data_line,
            "no RANKING attribute declared (a label-ranking file needs '@attribute NAME RANKING {l1,l2,...}')",
        )
    data = read_rows(spath, lines, header)
    features, rankings, partial_orders = build_columns(spath, header, data, rankings_optional=not require_rankings)
    return LabelRankingDataset(
        relation=header.relation,
        attributes=header.attributes,
        features=features,
        labels=header.labels,
        rankings=rankings,
        weights=data.weights,
        partial_orders=partial_orders,
        source=spath,
        ranking_name=header.ranking_name,
        lines=np.asarray(data.lines, dtype=np.int64),
    )
