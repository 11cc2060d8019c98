"""Forests fitted on a Dask cluster from partitions, merged into one ordinary model, and batch
prediction into Parquet files (a real LocalCluster of two worker processes)."""

from __future__ import annotations

import pickle

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from conftest import make_tied_problem
from lrank import (
    InstanceBasedLabelRanker,
    LabelRankingRandomForest,
    LabelRankingTree,
    LabelwisePartialLabelRanker,
    LabelwiseRandomForest,
    OneVsOneLabelRanker,
    PairwisePartialLabelRanker,
    PartialLabelRankingForest,
    PartialLabelRankingTree,
)
from lrank.cli import main
from lrank.datasets import load_wine
from lrank.errors import InvalidInputError
from lrank.model_file import load_model, save_model

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
import lrank.dask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def wine():
    data = load_wine()
    # Partitions must be random samples of the data: the file is sorted by class, so shuffle.
    order = np.random.default_rng(0).permutation(data.n_rows)
    frame = data.features.with_columns([pl.Series(f"L{j + 1}", data.rankings[:, j]) for j in range(3)])[order]
    return data, frame


def test_a_forest_fitted_on_partitions_is_one_ordinary_model(client, wine, tmp_path):
    data, frame = wine
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=3)
    est = lrank.dask.fit(LabelRankingRandomForest(n_estimators=20, random_state=1), ddf, client=client)
    assert len(est.tree_depths_) == 20 and est.labels_ == ["L1", "L2", "L3"]
    assert list(est.feature_names_in_) == list(data.features.columns)
    again = lrank.dask.fit(LabelRankingRandomForest(n_estimators=20, random_state=1), ddf, client=client)
    assert again.model_ == est.model_  # same partitions, same seed: same forest
    # random_state as a local fit reads it (determinism audit: None gave the seed-0 forest every
    # time, a RandomState raised TypeError)
    fresh = [lrank.dask.fit(LabelRankingRandomForest(n_estimators=5), ddf, client=client) for _ in range(2)]
    assert fresh[0].model_ != fresh[1].model_
    drawn = [
        lrank.dask.fit(
            LabelRankingRandomForest(n_estimators=5, random_state=np.random.RandomState(7)), ddf, client=client
        )
        for _ in range(2)
    ]
    assert drawn[0].model_ == drawn[1].model_
    single = LabelRankingRandomForest(n_estimators=20, random_state=1).fit(data)
    assert est.score(data.features, data.rankings) > single.score(data.features, data.rankings) - 0.05
    # An ordinary model: pickles, saves, loads, and lrank predict reads it.
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.predict(data.features), est.predict(data.features))
    path = tmp_path / "forest.lrm"
    save_model(path, est, learner="LRRF", learner_options=[], labels=est.labels_, attributes=data.attributes)
    x = data.feature_matrix()  # a model file aligns columns by its attributes, not by names
    np.testing.assert_array_equal(load_model(path).estimator.predict(x), est.predict(data.features))
    result = CliRunner().invoke(main, ["predict", "-l", str(path), "-T", "wine"])
    assert result.exit_code == 0 and len(result.output.splitlines()) == data.n_rows


def test_labelwise_and_one_versus_one_forests_from_arrays_and_parquet_files(client, wine, tmp_path):
    data, frame = wine
    x = da.from_array(frame.select(data.features.columns).to_numpy(), chunks=(60, 13))
    y = da.from_array(frame.select(["L1", "L2", "L3"]).to_numpy(), chunks=(60, 3))
    lw = lrank.dask.fit(LabelwiseRandomForest(n_estimators=12, random_state=2), (x, y), client=client)
    assert lw.model_.kind == "Labelwise" and lw.score(data.feature_matrix(), data.rankings) > 0.8
    parts = tmp_path / "parts"
    parts.mkdir()
    for i in range(3):
        frame[i * 60 : (i + 1) * 60].write_parquet(parts / f"{i}.parquet")
    ovo = lrank.dask.fit(OneVsOneLabelRanker(classifier="forest", n_estimators=6, random_state=3), parts, client=client)
    assert ovo.model_.kind == "Pairwise" and ovo.score(data.features, data.rankings) > 0.8


@pytest.mark.parametrize(
    ("est", "message"),
    [
        (InstanceBasedLabelRanker(), "nearest neighbours need every training row"),
        (LabelRankingTree(), "only forests can"),
        (OneVsOneLabelRanker(classifier="tree"), "classifier='forest'"),
        (LabelwiseRandomForest(tune_depth=True), "set max_depth"),
        (PartialLabelRankingTree(), "only forests can"),
        (PairwisePartialLabelRanker(classifier="logistic"), "classifier='forest'"),
        (PairwisePartialLabelRanker(), "give beta"),
        (LabelwiseRandomForest(oob_score=True), "oob_score=False"),
    ],
)
def test_learners_that_cannot_be_merged_are_refused(client, wine, est, message):
    _, frame = wine
    with pytest.raises(lrank.dask.DaskError, match=message):
        lrank.dask.fit(est, dd.from_pandas(frame.to_pandas(), npartitions=2), client=client)


@pytest.mark.parametrize(
    "est",
    [
        PartialLabelRankingForest(n_estimators=12, random_state=4),
        PairwisePartialLabelRanker(n_estimators=6, beta=0.25, random_state=5),
        LabelwisePartialLabelRanker(n_estimators=8, random_state=6),
    ],
    ids=lambda e: type(e).__name__,
)
def test_partial_label_ranking_forests_learn_ties_on_partitions(client, est, tmp_path):
    from lrank.metrics import tau_x
    from lrank.rankings import tied_rows

    x, y = make_tied_problem(n=1500)
    names = [f"A{j}" for j in range(x.shape[1])]
    frame = pl.DataFrame(x, schema=names).with_columns([pl.Series(f"L{j + 1}", y[:, j]) for j in range(y.shape[1])])
    ddf = dd.from_pandas(frame[:1200].to_pandas(), npartitions=3)
    fitted = lrank.dask.fit(est, ddf, client=client)
    again = lrank.dask.fit(est, ddf, client=client)
    assert again.model_ == fitted.model_  # same partitions, same seed: same model
    test = frame[1200:].select(names)
    pred = fitted.predict(test)
    single = type(est)(**est.get_params()).fit(x[:1200], y[:1200]).predict(x[1200:])
    assert tied_rows(pred).any()  # it predicts ties
    # Held-out rows: trees grown on a third of the rows each are nearly as good.
    assert tau_x(y[1200:], pred) > tau_x(y[1200:], single) - 0.03
    files = lrank.dask.predict(fitted, dd.from_pandas(test.to_pandas(), npartitions=2), tmp_path / "out")
    out = pl.concat([pl.read_parquet(f) for f in files])
    np.testing.assert_array_equal(out.select(fitted.labels_).to_numpy(), pred)


def test_batch_prediction_writes_every_partition(client, wine, tmp_path):
    data, frame = wine
    est = LabelRankingRandomForest(n_estimators=10, random_state=0).fit(data)
    with_id = frame.with_columns(pl.Series("id", np.arange(data.n_rows)))
    ddf = dd.from_pandas(with_id.drop(["L1", "L2", "L3"]).to_pandas(), npartitions=4)
    files = lrank.dask.predict(est, ddf, tmp_path / "out", keep_columns=["id"], client=client)
    out = pl.concat([pl.read_parquet(f) for f in files]).sort("id")
    assert len(files) == 4 and out.columns == ["id", "ranking", *data.labels]
    features = frame.select(data.features.columns)  # the rows in the order of id
    np.testing.assert_array_equal(out.select(list(data.labels)).to_numpy(), est.predict(features))
    assert out["ranking"].to_list() == est.predict_strings(features)
    with pytest.raises(lrank.dask.DaskError, match="clash"):
        lrank.dask.predict(est, ddf, tmp_path / "out2", keep_columns=["ranking"], client=client)
    # Wrong column names are said on the driver, before any task (not by every worker).
    with pytest.raises(lrank.dask.DaskError, match=r"columns \['nope'\] are not in the data"):
        lrank.dask.predict(est, ddf, tmp_path / "out3", keep_columns=["nope"], client=client)
    with pytest.raises(lrank.dask.DaskError, match=r"columns \['alcohol'\] are not in the data"):
        lrank.dask.predict(est, ddf.drop(columns=["alcohol"]), tmp_path / "out4", client=client)
    labelled = dd.from_pandas(frame.to_pandas(), npartitions=2)
    with pytest.raises(lrank.dask.DaskError, match=r"columns \['L9'\] are not in the data"):
        lrank.dask.fit(LabelRankingRandomForest(), labelled, label_columns=["L1", "L9"], client=client)
    assert not (tmp_path / "out3").exists()


def test_batch_prediction_from_a_model_file_and_parquet_files(client, wine, tmp_path):
    data, frame = wine
    model = tmp_path / "m.lrm"
    assert (
        CliRunner().invoke(main, ["train", "-t", "wine", "--no-cv", "-d", str(model), "--", "-I", "5"]).exit_code == 0
    )
    parts = tmp_path / "in"
    parts.mkdir()
    features = frame.select(data.features.columns)
    features[:100].write_parquet(parts / "a.parquet")
    features[100:].write_parquet(parts / "b.parquet")
    files = lrank.dask.predict(str(model), parts, tmp_path / "out", client=client)
    out = pl.concat([pl.read_parquet(f) for f in files])
    expected = load_model(model).estimator.predict(features.to_numpy())
    np.testing.assert_array_equal(out.select(list(data.labels)).to_numpy(), expected)


def test_a_model_fitted_on_arrays_predicts_named_columns_without_a_warning(wine, tmp_path):
    import warnings

    from lrank.dask.predict import _predict_part

    data, frame = wine
    est = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(data.features.to_numpy(), data.rankings)
    part = frame.to_pandas()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = _predict_part(part, est, list(data.features.columns), [], str(tmp_path / "p.parquet"))
    assert rows == data.n_rows and est.n_jobs is None  # predicted on one thread by a copy
    got = pl.read_parquet(tmp_path / "p.parquet").select(["L1", "L2", "L3"]).to_numpy()
    np.testing.assert_array_equal(got, est.predict(frame.select(data.features.columns).to_numpy()))


def _wine_arrays(frame):
    x = frame.drop(["L1", "L2", "L3"]).to_numpy()
    return x, frame.select(["L1", "L2", "L3"]).to_numpy().astype(np.int32)


def _exact_and_single(client, learner, params, ddf, x, y, rows_limit=None):
    """The exact forest fitted on the cluster and ``node_seeds=True``'s on all rows, asserted equal;
    the progress reports end with every tree grown, of the trees in all."""
    from lrank.dask.exact import fit_exact

    reports: list[tuple[int, int, int]] = []
    est = fit_exact(
        learner(**params),
        ddf,
        label_columns=None,
        feature_columns=None,
        client=client,
        rows_limit=rows_limit,
        progress=lambda *report: reports.append(report),
    )
    single = learner(node_seeds=True, **params).fit(x, y)
    assert est.node_seeds and est.model_ == single.model_
    n_trees = params["n_estimators"] * (y.shape[1] * (y.shape[1] - 1) // 2 if learner is OneVsOneLabelRanker else 1)
    assert reports[-1][1:] == (n_trees, n_trees) and all(grown <= n_trees for _, grown, _ in reports)
    return est, single


def _tied_frame(x, y):
    """Features x0.. and label columns L1.. of a tied problem."""
    return pl.DataFrame(x, schema=[f"x{j}" for j in range(x.shape[1])]).with_columns(
        [pl.Series(f"L{j + 1}", y[:, j]) for j in range(y.shape[1])]
    )


@pytest.mark.parametrize(("npartitions", "rows_limit"), [(1, None), (3, None), (3, 0), (3, 20)])
def test_the_exact_forest_is_the_one_grown_on_all_rows(client, wine, npartitions, rows_limit):
    data, frame = wine
    params = {"n_estimators": 8, "random_state": 7}
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=npartitions)
    # Small nodes' rows sent (by default: the whole of wine), none (0), or below 20 samples.
    x, y = _wine_arrays(frame)
    est, single = _exact_and_single(client, LabelRankingRandomForest, params, ddf, x, y, rows_limit)
    np.testing.assert_array_equal(est.predict(frame.drop(["L1", "L2", "L3"])), single.predict(x))
    assert est.labels_ == ["L1", "L2", "L3"] and list(est.feature_names_in_) == list(data.features.columns)
    # The same forest by the command line's switch, and an ordinary model: pickles.
    back = pickle.loads(pickle.dumps(est))
    assert back.model_ == est.model_


def test_the_exact_forest_from_parquet_files_with_incomplete_rankings_and_other_options(client, wine, tmp_path):
    _, frame = wine
    rng = np.random.default_rng(3)
    y = frame.select(["L1", "L2", "L3"]).to_numpy().astype(np.int32)
    for i in rng.choice(len(y), 60, replace=False):
        worst = int(np.argmax(y[i]))
        y[i, worst] = 0  # the last label missing: still a ranking
    frame = frame.with_columns([pl.Series(f"L{j + 1}", y[:, j]) for j in range(3)])
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, (a, b) in enumerate([(0, 50), (50, 51), (51, 178)]):
        frame[a:b].write_parquet(parts / f"{i}.parquet")
    params = {"n_estimators": 5, "max_depth": None, "max_features": "all", "max_bins": 16, "random_state": 2}
    est = lrank.dask.fit(LabelRankingRandomForest(**params), parts, client=client, exact=True)
    x, _ = _wine_arrays(frame)
    single = LabelRankingRandomForest(node_seeds=True, **params).fit(x, y)
    assert est.class_mode_ == "pairwise" and est.model_ == single.model_
    # Dask arrays too (no column names: none are kept).
    arrays = (da.from_array(x, chunks=(70, x.shape[1])), da.from_array(y, chunks=(70, 3)))
    from_arrays = lrank.dask.fit(LabelRankingRandomForest(**params), arrays, client=client, exact=True)
    assert from_arrays.model_ == single.model_ and not hasattr(from_arrays, "feature_names_in_")
    # A missing label as a null (NaN once in pandas) reads as the 0 a local fit reads.
    nulls = frame.with_columns([pl.col(f"L{j + 1}").replace(0, None) for j in range(3)])
    with_nulls = dd.from_pandas(nulls.to_pandas(), npartitions=2)
    assert nulls.null_count().sum_horizontal().item() > 0
    from_nulls = lrank.dask.fit(LabelRankingRandomForest(**params), with_nulls, client=client, exact=True)
    assert from_nulls.model_ == single.model_


@pytest.mark.parametrize(("npartitions", "rows_limit"), [(1, None), (3, 0), (3, 15)])
def test_the_exact_labelwise_forest_is_the_one_grown_on_all_rows(client, wine, npartitions, rows_limit, tmp_path):
    _, frame = wine
    params = {"n_estimators": 6, "min_samples_leaf": 2, "random_state": 3}
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=npartitions)
    x, y = _wine_arrays(frame)
    est, single = _exact_and_single(client, LabelwiseRandomForest, params, ddf, x, y, rows_limit)
    np.testing.assert_array_equal(est.predict_scores(frame.drop(["L1", "L2", "L3"])), single.predict_scores(x))
    # Rankings with ties (bucket orders) from Parquet files, a depth limit and 16 bins.
    ties = make_tied_problem(n=150, seed=4)
    tied = _tied_frame(*ties)
    labels = [f"L{j + 1}" for j in range(ties[1].shape[1])]
    params = {"n_estimators": 4, "max_depth": 4, "max_bins": 16, "random_state": 1}
    single = LabelwiseRandomForest(node_seeds=True, **params).fit(ties[0], ties[1])
    tied[:60].write_parquet(tmp_path / "0.parquet")
    tied[60:].write_parquet(tmp_path / "1.parquet")
    est = lrank.dask.fit(LabelwiseRandomForest(**params), tmp_path, label_columns=labels, client=client, exact=True)
    assert est.model_ == single.model_


@pytest.mark.parametrize("rows_limit", [None, 0, 25])
def test_the_exact_plr_forest_is_the_one_grown_on_all_rows(client, rows_limit):
    x, y = make_tied_problem(n=160, seed=6)
    frame = _tied_frame(x, y)
    params = {"n_estimators": 5, "criterion": "disagreements", "random_state": 8}
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=3)
    est, single = _exact_and_single(client, PartialLabelRankingForest, params, ddf, x, y, rows_limit)
    np.testing.assert_array_equal(est.predict(frame.drop([f"L{j + 1}" for j in range(y.shape[1])])), single.predict(x))


@pytest.mark.parametrize("rows_limit", [None, 0])
def test_the_exact_one_versus_one_forest_is_the_one_grown_on_all_rows(client, wine, rows_limit):
    _, frame = wine
    params = {"classifier": "forest", "n_estimators": 4, "max_bins": 32, "random_state": 9}
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=3)
    x, y = _wine_arrays(frame)
    est, single = _exact_and_single(client, OneVsOneLabelRanker, params, ddf, x, y, rows_limit)
    np.testing.assert_array_equal(est.predict_scores(frame.drop(["L1", "L2", "L3"])), single.predict_scores(x))


def test_what_the_exact_forest_cannot_grow_is_refused(client, wine):
    _, frame = wine
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=2)
    with pytest.raises(lrank.dask.DaskError, match="or PartialLabelRankingForest"):
        lrank.dask.fit(InstanceBasedLabelRanker(), ddf, client=client, exact=True)
    with pytest.raises(InvalidInputError, match="the OVO tree"):
        lrank.dask.fit(OneVsOneLabelRanker(max_bins=255), ddf, client=client, exact=True)
    with pytest.raises(InvalidInputError, match="tune_depth"):
        lrank.dask.fit(LabelwiseRandomForest(tune_depth=True), ddf, client=client, exact=True)
    with pytest.raises(lrank.dask.DaskError, match="progress= reports the rounds of exact=True"):
        lrank.dask.fit(LabelRankingRandomForest(), ddf, client=client, progress=print)
    with pytest.raises(lrank.dask.DaskError, match="set max_bins"):
        lrank.dask.fit(LabelRankingRandomForest(max_bins=None), ddf, client=client, exact=True)
    with pytest.raises(InvalidInputError, match="leaf_missing"):
        lrank.dask.fit(LabelRankingRandomForest(leaf_missing=0.5), ddf, client=client, exact=True)
    holes = frame.to_pandas()
    holes.iloc[5, 2] = np.nan
    with pytest.raises(InvalidInputError, match="feature 2 has missing values"):
        lrank.dask.fit(LabelRankingRandomForest(), dd.from_pandas(holes, npartitions=2), client=client, exact=True)


def test_the_exact_forest_survives_a_killed_worker_and_reports_progress(wine):
    import os
    import signal

    from lrank.dask.exact import fit_exact

    _, frame = wine
    reports: list[tuple[int, int, int]] = []
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster,
        distributed.Client(cluster) as c,
    ):

        def kill_one_worker_once(rounds: int, grown: int, total: int) -> None:
            reports.append((rounds, grown, total))
            if rounds == 2:
                (address, *_) = sorted(c.scheduler_info()["workers"])
                os.kill(c.run(os.getpid, workers=[address])[address], signal.SIGKILL)

        ddf = dd.from_pandas(frame.to_pandas(), npartitions=4)
        params = {"n_estimators": 6, "random_state": 5}
        # Every node by histograms: wine is small enough to come as rows in one round otherwise.
        est = fit_exact(
            LabelRankingRandomForest(**params),
            ddf,
            label_columns=None,
            feature_columns=None,
            client=c,
            progress=kill_one_worker_once,
            rows_limit=0,
        )
    x, y = _wine_arrays(frame)
    assert est.model_ == LabelRankingRandomForest(node_seeds=True, **params).fit(x, y).model_
    assert len(reports) > 2 and reports[-1][1:] == (6, 6)
    assert [r[0] for r in reports] == list(range(1, len(reports) + 1))


def test_declared_categories_that_some_partition_lacks_are_coded_as_one_fit_codes_them(client, wine, tmp_path):
    # Partition 0 holds one region only: it was refused ("declare them", which the user had).
    _, frame = wine
    n = frame.height
    region = np.where(np.arange(n) < n // 3, "north", np.array(["south", "east", "west"])[np.arange(n) % 3])
    declared = pl.Enum(["north", "south", "east", "west"])
    features = frame.drop(["L1", "L2", "L3"]).with_columns(pl.Series("region", region, dtype=declared))
    whole = features.with_columns(frame.select(["L1", "L2", "L3"]))
    for k, rows in enumerate(np.array_split(np.arange(n), 3)):
        whole[rows].write_parquet(tmp_path / f"part{k}.parquet")
    params = {"n_estimators": 6, "random_state": 4}
    y = frame.select(["L1", "L2", "L3"]).to_numpy().astype(np.int32)
    local = LabelRankingRandomForest(node_seeds=True, **params).fit(features, y)
    exact = lrank.dask.fit(LabelRankingRandomForest(**params), tmp_path, client=client, exact=True)
    assert exact.categories_[-1] == local.categories_[-1] == ["north", "south", "east", "west"]
    assert exact.model_ == local.model_
    forest = lrank.dask.fit(LabelRankingRandomForest(**params), tmp_path, client=client)
    assert forest.categories_ == local.categories_
    # Categories are read by value: another declaration order predicts the same.
    reordered = features.with_columns(pl.col("region").cast(pl.Utf8).cast(pl.Enum(["west", "east", "south", "north"])))
    np.testing.assert_array_equal(forest.predict(reordered), forest.predict(features))


def test_the_pass_over_categories_is_skipped_only_when_the_schema_has_none(wine, tmp_path):
    # The pass reads every partition once more; data whose schema cannot hold a categorical
    # column skips it (its answer, None, is then known).
    from lrank.dask import _partitions

    _, frame = wine
    numbers = dd.from_pandas(frame.to_pandas(), npartitions=2)
    assert not _partitions._may_hold_categories(numbers, _partitions.partitions(numbers))
    labelled = frame.with_columns(pl.Series("region", ["a", "b"] * (frame.height // 2) + ["a"] * (frame.height % 2)))
    as_category = dd.from_pandas(labelled.to_pandas().astype({"region": "category"}), npartitions=2)
    assert _partitions._may_hold_categories(as_category, _partitions.partitions(as_category))
    x = da.from_array(frame.drop(["L1", "L2", "L3"]).to_numpy(), chunks=(60, -1))
    y = da.from_array(frame.select(["L1", "L2", "L3"]).to_numpy(), chunks=(60, -1))
    assert not _partitions._may_hold_categories((x, y), _partitions.partitions((x, y)))
    plain, categorical = tmp_path / "plain", tmp_path / "categorical"
    plain.mkdir()
    categorical.mkdir()
    frame.write_parquet(plain / "part0.parquet")
    labelled[:50].write_parquet(categorical / "part0.parquet")
    labelled[50:].with_columns(pl.col("region").cast(pl.Categorical)).write_parquet(categorical / "part1.parquet")
    assert not _partitions._may_hold_categories(str(plain), _partitions.partitions(plain))
    assert _partitions._may_hold_categories(str(categorical), _partitions.partitions(categorical))
