"""Forests fitted on a Dask cluster, trees grown on partitions and merged into one model.

Each partition grows its share of the trees (in proportion to its rows; bootstrap samples drawn
within the partition), on the worker that holds it, so no worker needs more than a partition in
memory. The trees are merged into one ordinary model (``lrank predict``, pickling and the
estimators use it as any other); missing feature values are then filled by the weighted median
of the partitions' lower medians. The same data in the same partitions with the same seed give
the same forest. Which learners can be distributed so: LR-RF, the labelwise forest, the
one-versus-one forest, and for rankings with ties the PLR forest, the pairwise PLR forest (with a
given ``beta`` when the consensus is BPA: out of bag, each partition would choose its own) and
MORE-PLR. Nearest-neighbour learners (a query needs every training row) and single trees (LRT,
its Mallows splits need a node's whole data; the PLR tree) cannot be merged that way, and are
refused. ``exact=True`` grows any of these forests but the pairwise PLR forest and MORE-PLR
instead as one machine would (:mod:`lrank.dask.exact`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lrank.dask import _partitions
from lrank.dask.cluster import DaskError, require_dask


def _client(client: Any) -> Any:
    if client is not None:
        return client
    require_dask()
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        raise DaskError("no Dask client: connect one first (distributed.Client(...)) or pass client=") from None


def _distributable(estimator: Any) -> None:
    from lrank import (
        LabelRankingRandomForest,
        LabelwisePartialLabelRanker,
        LabelwiseRandomForest,
        OneVsOneLabelRanker,
        PairwisePartialLabelRanker,
        PartialLabelRankingForest,
    )

    if isinstance(estimator, (OneVsOneLabelRanker, PairwisePartialLabelRanker)) and estimator.classifier != "forest":
        raise DaskError(f"a {type(estimator).__name__} is distributed as forests: set classifier='forest'")
    if isinstance(estimator, LabelwiseRandomForest) and estimator.tune_depth:
        raise DaskError("each partition would tune its own depth: set max_depth, not tune_depth")
    if (
        isinstance(estimator, PairwisePartialLabelRanker)
        and estimator.beta is None
        and estimator.aggregation in ("bpa", "bpa-local")
    ):
        raise DaskError("each partition would choose its own beta out of bag: give beta (e.g. 0.25)")
    forests = (
        LabelRankingRandomForest,
        LabelwiseRandomForest,
        OneVsOneLabelRanker,
        PartialLabelRankingForest,
        PairwisePartialLabelRanker,
        LabelwisePartialLabelRanker,
    )
    if not isinstance(estimator, forests):
        raise DaskError(
            f"{type(estimator).__name__} cannot be fitted on partitions and merged: only forests can "
            "(LabelRankingRandomForest, LabelwiseRandomForest, OneVsOneLabelRanker(classifier='forest'), "
            "PartialLabelRankingForest, PairwisePartialLabelRanker(classifier='forest'), "
            "LabelwisePartialLabelRanker); nearest neighbours need every training row at once, and a single "
            "tree each node's whole data"
        )


def allocate(n_trees: int, rows: list[int]) -> list[int]:
    """Trees per partition, in proportion to its rows (largest remainders), summing to n_trees."""
    total = sum(rows)
    if total == 0:
        raise DaskError("the data has no rows")
    exact = [n_trees * r / total for r in rows]
    out = [int(e) for e in exact]
    for i in sorted(range(len(rows)), key=lambda i: (out[i] - exact[i], i))[: n_trees - sum(out)]:
        out[i] += 1
    return out


def _lower_medians(x: Any) -> tuple[list[float], int]:
    from lrank.estimators._inputs import features

    values = features(x).values if not isinstance(x, np.ndarray) else x
    out = []
    for col in values.T:
        present = np.sort(col[~np.isnan(col)])
        out.append(float(present[(present.size - 1) // 2]) if present.size else float("nan"))
    return out, int(values.shape[0])


def _fit_part(
    part: Any,
    cls: type,
    params: dict[str, Any],
    n_trees: int,
    seed: int,
    label_columns: Any,
    feature_columns: Any,
    known: list[Any] | None = None,
) -> Any:
    """On a worker: one partition's forest, as model-file bytes, and its lower medians. With
    ``known`` (the categories of all partitions), categorical columns are coded by those, so a
    partition lacking a category codes the others as the rest do."""
    from lrank import _core
    from lrank.estimators._inputs import features
    from lrank.estimators.base import resolve_categorical

    x, y, names, labels = _partitions.arrays(part, label_columns, feature_columns)
    own = {**params, "n_estimators": n_trees, "random_state": seed, "n_jobs": 1}
    if known is not None and not isinstance(x, np.ndarray):
        x = features(x, known).values
        mask = resolve_categorical(params.get("categorical_features"), len(known)) or [False] * len(known)
        own["categorical_features"] = [bool(a) or c is not None for a, c in zip(mask, known)]
    est = cls(**own).fit(x, y)
    if known is not None:
        est.categories_ = known
    medians, n = _lower_medians(x)
    model = bytes(_core.save_model(est.model_, "{}", "binary"))
    return model, medians, n, names, getattr(est, "categories_", None), labels


def _weighted_median(values: list[float], weights: list[int]) -> float:
    pairs = sorted((v, w) for v, w in zip(values, weights) if not np.isnan(v))
    if not pairs:
        return 0.0
    half, acc = sum(w for _, w in pairs) / 2, 0
    for v, w in pairs:
        acc += w
        if acc >= half:
            return v
    return pairs[-1][0]


def fit(
    estimator: Any,
    data: Any,
    *,
    label_columns: list[str] | None = None,
    feature_columns: list[str] | None = None,
    client: Any = None,
    exact: bool = False,
    progress: Any = None,
) -> Any:
    """Fits ``estimator`` (a forest, unfitted: its parameters are used) on ``data`` spread over a
    Dask cluster and returns it fitted with the merged model (see the module docs; data as in
    :mod:`lrank.dask._partitions`). The features are ``feature_columns``, or every column that
    is not a label column.

    ``exact=True`` (LR-RF, LWRF, the OVO forest and the PLR forest) grows instead, level by level from sums over
    the partitions, the very forest that estimator with ``node_seeds=True`` would grow on all the
    rows at once
    (:mod:`lrank.dask.exact`); ``progress(rounds, trees_grown, n_trees)`` is then called after
    every round (e.g. to update a progress bar)."""
    require_dask()
    import dask

    from lrank import _core
    from lrank.estimators._convert import is_on
    from lrank.estimators.base import resolve_seed

    if is_on(getattr(estimator, "oob_score", False)):
        raise DaskError("oob_score=True needs all training rows in one process: fit with oob_score=False on a cluster")
    _partitions.check_fit_columns(data, label_columns, feature_columns)
    if exact:
        from lrank.dask.exact import fit_exact

        return fit_exact(
            estimator,
            data,
            label_columns=label_columns,
            feature_columns=feature_columns,
            client=_client(client),
            progress=progress,
        )
    if progress is not None:
        raise DaskError("progress= reports the rounds of exact=True; the partition forest has one round")
    _distributable(estimator)
    client = _client(client)
    parts = _partitions.partitions(data)
    params = estimator.get_params(deep=False)
    rows = client.gather(client.compute([dask.delayed(_partitions.rows)(p) for p in parts]))
    trees = allocate(int(params["n_estimators"]), rows)
    # As a local fit reads random_state: None draws a fresh seed (it gave every such forest the
    # seed-0 one), a RandomState draws one from its stream.
    seeds = np.random.SeedSequence(resolve_seed(params.get("random_state"))).generate_state(len(parts), np.uint64)
    known = _partitions.known_categories(client, data, parts, label_columns, feature_columns)
    jobs = [
        dask.delayed(_fit_part)(p, type(estimator), params, k, int(s), label_columns, feature_columns, known)
        for p, k, s in zip(parts, trees, seeds)
        if k > 0
    ]
    results = client.gather(client.compute(jobs))
    models = [_core.load_model(r[0])[0] for r in results]
    medians = list(zip(*(r[1] for r in results)))
    weights = [r[2] for r in results]
    names, categories, labels = results[0][3], results[0][4], results[0][5]
    for k, r in enumerate(results):
        if r[4] != categories:
            # Codes index the categories: partitions that list other categories code them apart.
            raise DaskError(
                f"partition {k} has other categories than partition 0 in a categorical column: "
                "declare them (a Polars Enum, a pandas Categorical with known categories)"
            )
    fill = [_weighted_median(list(col), weights) for col in medians]
    merged = _core.merge_models(models, fill)
    out = type(estimator)(**params)
    out._set_fitted(merged)
    if names:
        out.feature_names_in_ = np.asarray(names, dtype=object)
    out.categories_ = categories if categories is not None else [None] * merged.n_features
    out.labels_ = labels
    return out
