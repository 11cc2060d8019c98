"""The exact distributed forests, LR-RF, LWRF, the one-versus-one forest and the PLR forest: bit
for bit the model the same estimator with ``node_seeds=True`` fits on all the rows at once,
grown level by level from sums the partitions compute where they are.

This process (the driver) holds the trees as far as they are grown. Each round it sends the
partitions the plan of the open nodes; each partition routes its rows through the trees, replays
their bootstrap counts, and returns per open node its rows' weight, leaf statistics (LR-RF: Borda
votes; LWRF: each label's target sums; the OVO forest: a pair's "a before b" weight; the PLR
forest: pair-order counts) and per-bin criterion sums (its histograms: class counts, target sums
in whole units, or pair-order counts); the OVO forest grows a forest per label pair in the same
rounds. The sums are added on the cluster and the driver decides the nodes as the histogram
search would. A round per level and batch of trees; only sums travel, except for small nodes (whose rows cost no
more than a node's histograms): the partitions send those rows' codes and statistics once, and
the driver grows the node's whole subtree from them.
Before the first round the partitions report what the bins are cut from (distinct values, or those
of evenly spaced rows) and the medians that fill missing values at prediction.

Refused with the reason: missing feature values in the training data, ``max_bins=None``, LR-RF's
``leaf_missing``, LWRF's ``tune_depth``, incomplete training rankings for LWRF, the OVO forest
and the PLR forest (a leaf would take its parent's value for a label or pair none of its rows
has; an OVO pair's forest grows on the rows holding both labels), the OVO tree and the PLR tree
(single trees: fit them on one machine), and other learners.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

from lrank.dask import _partitions
from lrank.dask.cluster import DaskError


def _load(part: Any, label_columns: Any, feature_columns: Any, known: Any = None) -> tuple[Any, ...]:
    """On a worker: a partition's features (float64), rank matrix, and what names its columns;
    categorical columns coded by ``known``, the categories of all partitions."""
    from lrank.estimators._inputs import features
    from lrank.rankings import as_rank_matrix

    x, y, names, labels = _partitions.arrays(part, label_columns, feature_columns)
    if y is None:
        raise DaskError("the data has no label columns")
    feats = features(x, known) if not isinstance(x, np.ndarray) else None
    values = feats.values if feats is not None else x
    categories = feats.categories if feats is not None else [None] * values.shape[1]
    x = np.ascontiguousarray(values, dtype=np.float64)
    # NaN (a null position) is a missing label, as a local fit reads it, not int32's minimum.
    return x, as_rank_matrix(y), names, categories, labels


def _head(loaded: tuple[Any, ...]) -> tuple[Any, ...]:
    """A partition's rows, column names, categories, label names and label count."""
    x, y, names, categories, labels = loaded
    return int(x.shape[0]), names, categories, labels, int(y.shape[1])


def _summary(loaded: tuple[Any, ...], start: int, n_rows: int, max_bins: int, nominal: list[bool]) -> bytes:
    from lrank import _core

    return bytes(_core.exact_part_summary(loaded[0], loaded[1], start, n_rows, max_bins, nominal=nominal))


def _codes(loaded: tuple[Any, ...], setup: bytes) -> Any:
    from lrank import _core

    return _core.exact_part_codes(setup, loaded[0])


def _bin_counts(codes: Any, setup: bytes) -> Any:
    from lrank import _core

    return _core.exact_part_bin_counts(setup, codes)


def _values(loaded: tuple[Any, ...], codes: Any, bins: list[int]) -> bytes:
    from lrank import _core

    return bytes(_core.exact_part_values_in_bins(loaded[0], codes, bins))


def _sums(setup: bytes, plan: bytes, codes: Any, loaded: tuple[Any, ...], start: int) -> Any:
    from lrank import _core

    return _core.exact_part_sums(setup, plan, codes, loaded[1], start, n_jobs=1)


def _add(a: Any, b: Any) -> Any:
    return np.add(a, b)


def _add_sums_join_rows(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
    """Two parts' outputs of a round as one: the sums added, the row records joined."""
    return np.add(a[0], b[0]), np.concatenate([a[1], b[1]])


def _added(client: Any, futures: list[Any], combine: Callable[[Any, Any], Any] = _add) -> Any:
    """The futures' results combined on the cluster (pairs of pairs), fetched."""
    while len(futures) > 1:
        pairs = [client.submit(combine, a, b, pure=False) for a, b in zip(futures[0::2], futures[1::2])]
        futures = pairs + ([futures[-1]] if len(futures) % 2 else [])
    return client.gather(futures[0])


def fit_exact(
    estimator: Any,
    data: Any,
    *,
    label_columns: Any,
    feature_columns: Any,
    client: Any,
    progress: Callable[[int, int, int], None] | None = None,
    rows_limit: int | None = None,
) -> Any:
    """:func:`lrank.dask.fit` with ``exact=True`` (see the module docs). ``progress`` is called
    after every round with the rounds done, the trees fully grown and the trees in all (for the
    one-vs-one forest, over all label pairs).
    ``rows_limit``: nodes of at most this many samples come as rows (0: never; None: as many as
    cost a node's histograms): the forest is the same either way."""
    import dask

    from lrank import (
        LabelRankingRandomForest,
        LabelwiseRandomForest,
        OneVsOneLabelRanker,
        PartialLabelRankingForest,
        _core,
    )
    from lrank.estimators.base import resolve_seed

    exact_forests = (LabelRankingRandomForest, LabelwiseRandomForest, OneVsOneLabelRanker, PartialLabelRankingForest)
    if not isinstance(estimator, exact_forests):
        raise DaskError(
            "exact=True grows LabelRankingRandomForest, LabelwiseRandomForest, OneVsOneLabelRanker(classifier="
            f'"forest") or PartialLabelRankingForest ({type(estimator).__name__} given); fit other forests on '
            "partitions (exact=False)"
        )
    params = {**estimator.get_params(deep=False), "node_seeds": True}
    est = type(estimator)(**params)
    seed = resolve_seed(params["random_state"])
    params_json = est._params_json(seed)
    (core_params,) = json.loads(params_json).values()
    max_bins = core_params["max_bins"]
    if max_bins is None:
        raise DaskError("exact=True searches histograms: set max_bins (the exact search needs every row at once)")
    parts = _partitions.partitions(data)
    known = _partitions.known_categories(client, data, parts, label_columns, feature_columns)
    loaded = client.compute([dask.delayed(_load)(p, label_columns, feature_columns, known) for p in parts])
    heads = client.gather([client.submit(_head, f) for f in loaded])
    rows = [h[0] for h in heads]
    starts = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(int).tolist()
    n_rows = int(sum(rows))
    if n_rows == 0:
        raise DaskError("the data has no rows")
    _, names, categories, labels, n_labels = heads[0]
    for k, head in enumerate(heads):
        if head[2] != categories:
            raise DaskError(
                f"partition {k} has other categories than partition 0 in a categorical column: declare them "
                "(a Polars Enum, a pandas Categorical with known categories)"
            )
    est.categories_ = categories
    nominal = est._nominal_mask(len(categories)) or [False] * len(categories)
    summaries = client.gather(
        [client.submit(_summary, f, start, n_rows, max_bins, nominal) for f, start in zip(loaded, starts, strict=True)]
    )
    driver = _core.ExactForest(params_json, summaries, n_labels, rows_limit=rows_limit)
    setup = bytes(driver.setup())
    codes = [client.submit(_codes, f, setup) for f in loaded]
    bins = driver.median_bins(_added(client, [client.submit(_bin_counts, c, setup) for c in codes]))
    driver.set_medians(client.gather([client.submit(_values, f, c, bins) for f, c in zip(loaded, codes, strict=True)]))
    # The one-vs-one forest grows n_estimators trees for each label pair.
    n_trees = int(params["n_estimators"])
    if isinstance(estimator, OneVsOneLabelRanker):
        n_trees *= n_labels * (n_labels - 1) // 2
    rounds = 0
    while (plan := driver.plan()) is not None:
        plan = bytes(plan)
        sums = [
            client.submit(_sums, setup, plan, c, f, start, pure=False)
            for f, c, start in zip(loaded, codes, starts, strict=True)
        ]
        driver.absorb(*_added(client, sums, _add_sums_join_rows))
        rounds += 1
        if progress is not None:
            progress(rounds, driver.trees_grown(), n_trees)
    out = type(estimator)(**params)
    out._set_fitted(driver.finish())
    if names:
        out.feature_names_in_ = np.asarray(names, dtype=object)
    out.categories_ = categories
    out.labels_ = labels
    return out
