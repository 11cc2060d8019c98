"""export_text and `lrank info MODEL --tree N`: a fitted tree printed as text."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import make_problem, make_tied_problem
from lrank import (
    InstanceBasedLabelRanker,
    InvalidInputError,
    LabelRankingRandomForest,
    LabelRankingTree,
    PartialLabelRankingTree,
)
from lrank.cli import main
from lrank.export import export_text
from lrank.ranking_notation import format_rank_rows


@pytest.mark.parametrize("kind", ["LRT", "LWDT", "PLRT"])
def test_a_stump_prints_its_split_and_the_rankings_of_the_rows_on_each_side(kind):
    from lrank import LabelwiseDecisionTree

    x, y = make_tied_problem(n=200, seed=3) if kind == "PLRT" else make_problem(n=200, seed=3)
    x = np.column_stack([x, x[:, :1] * 0]) if x.shape[1] == 2 else x
    make = {"LRT": LabelRankingTree, "LWDT": LabelwiseDecisionTree, "PLRT": PartialLabelRankingTree}[kind]
    stump = make(max_depth=1, random_state=0).fit(x, y)
    text = export_text(stump, feature_names=["a", "b", "c"], decimals=6).splitlines()
    assert len(text) == 4 and text[0].startswith("|--- ") and text[2].startswith("|--- ")
    name, _, threshold = text[0][5:].partition(" <= ")
    feature = ["a", "b", "c"].index(name)
    assert text[2] == f"|--- {name} >  {threshold}"
    left = x[:, feature] <= float(threshold)
    labels = stump._label_names()
    for side, line in ((left, text[1]), (~left, text[3])):
        ranking = format_rank_rows(stump.predict(x[side][:1]), labels)[0]
        assert line == f"|   |--- ranking: {ranking}"
        assert np.all(stump.predict(x[side]) == stump.predict(x[side][:1]))


def test_every_leaf_once_deep_trees_truncated_ties_shown():
    x, y = make_problem(n=300, seed=4)
    tree = LabelRankingTree(random_state=0).fit(x, y)
    full = export_text(tree, max_depth=100)
    assert full.count("ranking: ") == tree.get_n_leaves()
    assert full.count(" <= ") == full.count(" >  ") == tree.get_n_leaves() - 1
    short = export_text(tree, max_depth=1)
    assert short.count("truncated branch") >= 1 and short.count("\n") <= 4
    tx, ty = make_tied_problem(n=200, seed=2)
    plr = PartialLabelRankingTree(max_depth=3, random_state=0).fit(tx, ty)
    assert "=" in export_text(plr).replace("<=", "")  # some leaf ties labels: a>b=c
    forest = LabelRankingRandomForest(n_estimators=3, random_state=0).fit(x, y)
    assert export_text(forest, tree=2).count("ranking: ") == forest.get_n_leaves()[2]


def test_what_cannot_be_printed_is_refused_in_one_line():
    x, y = make_problem(n=60, seed=5)
    with pytest.raises(InvalidInputError, match="has no trees to print"):
        export_text(InstanceBasedLabelRanker(n_neighbors=3).fit(x, y))
    tree = LabelRankingTree().fit(x, y)
    with pytest.raises(InvalidInputError, match="feature_names has 2 names, the model takes 3"):
        export_text(tree, feature_names=["a", "b"])
    with pytest.raises(InvalidInputError, match=r"tree 1 of a model with 1 tree\(s\)"):
        export_text(tree, tree=1)


def test_lrank_info_prints_a_model_files_tree(tmp_path):
    from lrank.model_file import load_model

    model = tmp_path / "m.lrm"
    runner = CliRunner()
    assert runner.invoke(main, ["train", "-t", "iris", "-W", "LRT", "--no-cv", "-d", str(model)]).exit_code == 0
    out = runner.invoke(main, ["info", str(model), "--tree", "0", "--depth", "3"])
    assert out.exit_code == 0, out.output
    loaded = load_model(model)
    names = [a.name for a in loaded.attributes]
    assert out.output == export_text(loaded.estimator, feature_names=names, max_depth=3)
    assert "petal" in out.output and "ranking: " in out.output
    refused = runner.invoke(main, ["info", "iris", "--tree", "0"])
    assert refused.exit_code == 2 and "not of a data file" in refused.output


def test_a_nominal_feature_splits_one_value_against_the_rest():
    rng = np.random.default_rng(6)
    code = rng.integers(0, 3, 150)
    x = np.column_stack([code, rng.random(150)]).astype(float)
    orders = np.array([[1, 2, 3], [3, 1, 2], [2, 3, 1]], dtype=np.int32)
    tree = LabelRankingTree(categorical_features=[0], random_state=0).fit(x, orders[code])
    text = export_text(tree, decimals=0)
    assert "|--- feature_0 == " in text and "|--- feature_0 != " in text
    assert text.count("ranking: ") == tree.get_n_leaves() == 3


def test_nominal_values_print_as_their_names_from_a_frame_or_a_model_file(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(0)
    colour = pd.Categorical(rng.choice(["red", "green", "blue"], 200))
    orders = {"red": [1, 2, 3], "green": [3, 1, 2], "blue": [2, 3, 1]}
    y = np.array([orders[c] for c in colour], dtype=np.int32)
    frame = pd.DataFrame({"colour": colour, "x": rng.normal(size=200)})
    text = export_text(LabelRankingTree(random_state=0).fit(frame, y))
    assert "colour == " in text and not any(f"colour == {v}" in text for v in ("0.000", "1.000", "2.000"))
    assert any(f"colour == {v}" in text for v in ("red", "green", "blue"))
    # The same from a model file of lrank train, whose attributes name the values.
    data = tmp_path / "colours.xarff"
    rows = "\n".join(f"{c},{x:.4f},{'>'.join('abc'[j] for j in np.argsort(o))}" for c, x, o in zip(colour, frame.x, y))
    data.write_text(
        "@relation colours\n@attribute colour {red,green,blue}\n@attribute x numeric\n"
        "@attribute L RANKING {a,b,c}\n@data\n" + rows + "\n"
    )
    model = tmp_path / "m.lrm"
    runner = CliRunner()
    trained = runner.invoke(main, ["train", "-t", str(data), "-W", "LRT", "--no-cv", "-d", str(model)])
    assert trained.exit_code == 0, trained.output
    shown = runner.invoke(main, ["info", str(model), "--tree", "0"]).output
    assert any(f"colour == {v}" in shown for v in ("red", "green", "blue")), shown


def test_ensembles_of_trees_print_their_members_leaf_rankings_and_arguments_are_checked():
    from lrank import BaggingLabelRanker, InvalidParameterError

    x, y = make_problem(n=100, seed=7)
    bag = BaggingLabelRanker(LabelRankingTree(max_depth=2), n_estimators=3, random_state=0).fit(x, y)
    assert export_text(bag, tree=2).count("ranking: ") == bag.get_n_leaves()[2]
    tree = LabelRankingTree(random_state=0).fit(x, y)
    assert export_text(tree, max_depth=None).count("ranking: ") == tree.get_n_leaves()
    for bad in ({"tree": -1}, {"decimals": 1.5}, {"max_depth": -1}):
        with pytest.raises(InvalidParameterError):
            export_text(tree, **bad)
    with pytest.raises(InvalidInputError, match="prints a fitted lrank estimator's tree"):
        export_text(object())
    runner = CliRunner()
    assert runner.invoke(main, ["info", "iris", "--depth", "3"]).exit_code == 2
