"""What a label-ranking data set holds, for ``lrank info``."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from lrank.data.dataset import LabelRankingDataset


def summarize(data: LabelRankingDataset) -> dict[str, Any]:
    """Instances, attributes by type, labels, incomplete share, ties, distinct rankings, top labels.

    Ties: ``rankings_with_ties`` counts the rows whose ranking ties labels, and
    ``mean_buckets_per_ranking`` is the mean number of buckets (distinct positions) per row, as
    the partial-label-ranking literature describes its data sets.  A tied top bucket of k labels
    counts 1/k for each of them in the top-label distribution (whole rows stay whole numbers).
    """
    kinds = Counter(a.kind for a in data.attributes)
    missing_values = int(sum(data.features.get_column(a.name).null_count() for a in data.attributes))
    out: dict[str, Any] = {
        "relation": data.relation,
        "source": data.source,
        "instances": data.n_rows,
        "attributes": {
            "numeric": kinds.get("numeric", 0),
            "nominal": kinds.get("nominal", 0),
            "string": kinds.get("string", 0),
        },
        "missing_feature_values": missing_values,
        "weighted_rows": int(np.count_nonzero(data.weights != 1.0)),
        "labels": list(data.labels),
    }
    if data.rankings is not None:
        y = data.rankings
        present = (y > 0).sum(axis=1)
        top = y == 1
        in_top = top.sum(axis=1)
        shares = (top / np.maximum(in_top, 1)[:, None]).sum(axis=0) if y.shape[0] else np.zeros(y.shape[1])
        buckets = y.max(axis=1) if y.shape[1] else np.zeros(y.shape[0], dtype=y.dtype)
        counts = {j: int(v) if float(v).is_integer() else round(float(v), 6) for j, v in enumerate(shares)}
        out.update(
            {
                "incomplete_rankings": int(np.count_nonzero(present < y.shape[1])),
                "incomplete_share": float(np.mean(present < y.shape[1])) if y.shape[0] else 0.0,
                "mean_labels_per_ranking": float(present.mean()) if y.shape[0] else 0.0,
                "partial_orders": len(data.partial_orders),
                "rankings_with_ties": int(np.count_nonzero(buckets < present)),
                "mean_buckets_per_ranking": float(buckets.mean()) if y.shape[0] else 0.0,
                "distinct_rankings": int(np.unique(y, axis=0).shape[0]) if y.shape[0] else 0,
                "top_label_distribution": {data.labels[j]: counts.get(j, 0) for j in range(len(data.labels))},
            }
        )
    return out
