"""Predictions as label names: orderings, buckets of tied labels, lrank's ranking notation and a
Polars frame, for every estimator (the names of ``labels_``, or ``L1``, ``L2``, ... when the labels
were not named at fit)."""

from __future__ import annotations

from typing import Any

import numpy as np

from lrank.errors import InvalidInputError


class LabelNamePredictions:
    """The ``predict_*`` methods that name labels, on top of the estimator's ``predict``."""

    def _label_names(self) -> list[str]:
        self._check_fitted()  # type: ignore[attr-defined]
        labels = getattr(self, "labels_", None)
        n_labels: int = self.n_labels_  # type: ignore[attr-defined]
        return list(labels) if labels is not None else [f"L{j + 1}" for j in range(n_labels)]

    def predict_orderings(self, X: Any) -> list[list[str]]:
        """Each row's predicted ranking as its labels, most preferred first. A prediction that
        ties labels (the partial-label-ranking learners') has no such list: it is refused, naming
        ``predict_buckets``."""
        ranks = self.predict(X)  # type: ignore[attr-defined]
        labels = self._label_names()
        if ranks.shape[1] > 1:
            tied = np.flatnonzero((np.diff(np.sort(ranks, axis=1), axis=1) == 0).any(axis=1))
            if tied.size:
                from lrank.ranking_notation import format_rank_rows

                row = int(tied[0])
                raise InvalidInputError(
                    f"{tied.size} of {len(ranks)} predicted rankings tie labels (row {row}: "
                    f"{format_rank_rows(ranks[row : row + 1], labels)[0]}), and an ordering lists one label per "
                    "place: use predict_buckets (each place a list of tied labels) or predict_strings"
                )
        return [[labels[j] for j in row] for row in np.argsort(ranks, axis=1, kind="stable")]

    def predict_buckets(self, X: Any) -> list[list[list[str]]]:
        """Each row's predicted ranking as buckets of labels, most preferred first: tied labels
        share a bucket (``[["a"], ["b", "c"]]`` for ``a>b=c``); without ties, one label each."""
        ranks = self.predict(X)  # type: ignore[attr-defined]
        labels = self._label_names()
        out = []
        for row in ranks:
            buckets: dict[int, list[str]] = {}
            for j in np.argsort(row, kind="stable"):
                if row[j] > 0:  # a label the prediction leaves out has no bucket
                    buckets.setdefault(int(row[j]), []).append(labels[j])
            out.append(list(buckets.values()))
        return out

    def predict_strings(self, X: Any) -> list[str]:
        """Each row's predicted ranking in lrank's notation, e.g. ``b>a>c`` (``b>a=c`` with ties);
        a label name that holds the notation's characters is quoted, so the text reads back."""
        from lrank.ranking_notation import format_rank_rows

        return format_rank_rows(self.predict(X), self._label_names(), quoted=True)  # type: ignore[attr-defined]

    def predict_frame(self, X: Any) -> Any:
        """The predictions as a Polars frame: ``ranking`` (``b>a>c``), then each label's position.
        The text column is ``_ranking`` when a label is called ``ranking`` (``__ranking`` if
        that is taken too), so no label's column is lost. ``lrank.metrics`` take the frame as
        ``y_pred``: they match its label columns by name and leave the text column out."""
        import polars as pl

        from lrank.ranking_notation import format_rank_rows

        ranks = self.predict(X)  # type: ignore[attr-defined]
        labels = self._label_names()
        text = "ranking"
        while text in labels:
            text = "_" + text
        columns: dict[str, Any] = {text: format_rank_rows(ranks, labels, quoted=True)}
        columns.update({name: ranks[:, j] for j, name in enumerate(labels)})
        return pl.DataFrame(columns)
