"""Property test: write_xarff -> read_arff reproduces random small data sets exactly."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import numpy as np
import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lrank.data import Attribute, LabelRankingDataset, read_arff, write_xarff
from lrank.data.dataset import rank_row_from_chains

# characters that need quoting or escaping in ARFF, plus ordinary ones
AWKWARD = list("abcXYZ019 _-.") + list(",'\"%{}>|=\\?@\t\n\r") + ["é", "\u2028", "\x0b", "ß"]
names = st.text(alphabet=st.sampled_from(AWKWARD), min_size=0, max_size=6)
floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=False),  # infinite values are refused (file and line)
    st.sampled_from([0.0, -0.0, 1.0, 0.1, 5e-324, 1e308]),
)


@st.composite
def datasets(draw):
    n = draw(st.integers(1, 8))
    n_attr = draw(st.integers(0, 4))
    m = draw(st.integers(1, 5))
    all_names = draw(st.lists(names, min_size=n_attr + 1, max_size=n_attr + 1, unique=True))
    ranking_name, attr_names = all_names[0], all_names[1:]
    labels = tuple(draw(st.lists(names, min_size=m, max_size=m, unique=True)))
    attributes, series = [], []
    for name in attr_names:
        kind = draw(st.sampled_from(["numeric", "nominal", "string"]))
        if kind == "numeric":
            vals = draw(st.lists(st.one_of(st.none(), floats), min_size=n, max_size=n))
            vals = [None if v is None or v != v else v for v in vals]  # NaN is missing
            attributes.append(Attribute(name, "numeric"))
            series.append(pl.Series(name, vals, dtype=pl.Float64))
        elif kind == "nominal":
            declared = tuple(draw(st.lists(names, min_size=1, max_size=4, unique=True)))
            vals = draw(st.lists(st.one_of(st.none(), st.sampled_from(declared)), min_size=n, max_size=n))
            attributes.append(Attribute(name, "nominal", declared))
            series.append(pl.Series(name, vals, dtype=pl.Enum(list(declared))))
        else:
            vals = draw(st.lists(st.one_of(st.none(), names), min_size=n, max_size=n))
            attributes.append(Attribute(name, "string"))
            series.append(pl.Series(name, vals, dtype=pl.Utf8))
    rankings = np.zeros((n, m), dtype=np.int32)
    partial = {}
    for i in range(n):
        perm = draw(st.permutations(range(m)))
        k = draw(st.integers(1, m))
        order = list(perm[:k])
        n_chains = draw(st.integers(1, k))
        if n_chains > 1:
            cuts = sorted(
                draw(st.lists(st.integers(1, k - 1), min_size=n_chains - 1, max_size=n_chains - 1, unique=True))
            )
            bounds = [0, *cuts, k]
            chains = tuple(tuple(order[a:b]) for a, b in itertools.pairwise(bounds))
            partial[i] = chains
            rankings[i] = rank_row_from_chains(chains, m)
        else:
            # a bucket order: each label joins the previous one's bucket or opens the next
            joins = draw(st.lists(st.booleans(), min_size=k - 1, max_size=k - 1))
            position = 1
            for step, label in enumerate(order):
                if step > 0 and not joins[step - 1]:
                    position += 1
                rankings[i, label] = position
    weights = np.array(
        draw(
            st.lists(
                st.one_of(st.just(1.0), st.floats(0, 1e6), st.sampled_from([0.0, 0.5, 1e-300])), min_size=n, max_size=n
            )
        ),
        dtype=np.float64,
    )
    return LabelRankingDataset(
        relation=draw(names),
        attributes=attributes,
        features=pl.DataFrame({s.name: s for s in series}),
        labels=labels,
        rankings=rankings,
        weights=weights,
        partial_orders=partial,
        ranking_name=ranking_name,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datasets())
def test_write_read_round_trip(ds):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rt.xarff"
        write_xarff(ds, path)
        back = read_arff(path)
    assert back.relation == ds.relation
    assert back.ranking_name == ds.ranking_name
    assert back.attributes == ds.attributes
    assert back.features.schema == ds.features.schema
    assert back.features.equals(ds.features, null_equal=True)
    assert back.labels == ds.labels
    np.testing.assert_array_equal(back.rankings, ds.rankings)
    assert back.weights.tobytes() == ds.weights.tobytes()
    assert back.partial_orders == ds.partial_orders
    assert back.ranking_strings() == ds.ranking_strings()
    np.testing.assert_array_equal(back.feature_matrix(), ds.feature_matrix())
