//! The exact distributed forests, driven through [`ExactDriver`] as a cluster would, against the
//! forests grown on all rows at once.

use super::*;
use crate::data::features::FeatureKind;
use crate::learner::Learner;
use crate::learners::labelwise::{LabelwiseModel, LabelwiseParams};
use crate::learners::one_vs_one::{PairwiseModel, PairwiseParams, PairwiseVoting};
use crate::learners::plr_tree::{PlrCriterion, PlrTreeModel, PlrTreeParams};
use crate::learners::random_forest::{RandomForestModel, RandomForestParams};
use crate::rng::Rng;

/// Features of every kind the bins handle (continuous, few values, nominal) and rankings that
/// depend on them, with `ties` some labels tied (bucket orders).
fn data(n: usize, m: usize, seed: u64, ties: bool) -> (Vec<f64>, Vec<FeatureKind>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let (mut x, mut y) = (Vec::with_capacity(n * 4), Vec::with_capacity(n * m));
    for _ in 0..n {
        let (a, b) = (rng.uniform(), (rng.below(5) as f64) * 0.5);
        let (c, e) = (rng.below(3) as f64, rng.uniform() * 1e3);
        x.extend([a, b, c, e]);
        // Coarse scores: whole regions of the space share one ranking (pure nodes).
        let scores: Vec<f64> = (0..m)
            .map(|l| (a * 2.0).floor() * l as f64 - b * (l % 2) as f64 + c * (l == 1) as u8 as f64 + 0.3 * rng.below(2) as f64)
            .collect();
        let mut ranks = crate::data::ranking::ranking_from_scores(&scores);
        if ties && rng.below(2) == 0 {
            // Tie the labels at positions 1 and 2 (dense positions: 1, 1, 2, ...).
            ranks.iter_mut().for_each(|r| *r = if *r >= 2 { *r - 1 } else { *r });
        }
        y.extend(ranks);
    }
    (x, vec![FeatureKind::Numeric, FeatureKind::Numeric, FeatureKind::Nominal, FeatureKind::Numeric], y)
}

/// The model grown from parts cut at `cuts` (row indices) through the driver.
fn grown_in_parts(
    params: LearnerParams,
    (x, kinds, y): (&[f64], &[FeatureKind], &[i32]),
    m: usize,
    cuts: &[usize],
    (budget, rows_limit): (usize, Option<usize>),
) -> Result<Model> {
    let (d, n) = (kinds.len(), y.len() / m);
    let bounds: Vec<(usize, usize)> =
        std::iter::once(0).chain(cuts.iter().copied()).zip(cuts.iter().copied().chain(std::iter::once(n))).collect();
    let parts: Vec<(FeatureMatrixView<'_>, RankMatrixView<'_>, usize)> = bounds
        .iter()
        .map(|&(a, b)| {
            let xv = FeatureMatrixView::new(&x[a * d..b * d], b - a, d).unwrap().with_kinds(Some(kinds)).unwrap();
            (xv, RankMatrixView::new(&y[a * m..b * m], b - a, m).unwrap(), a)
        })
        .collect();
    let summaries: Vec<PartSummary> =
        parts.iter().map(|(xv, yv, start)| summarise_part(xv, yv, *start, n, 255)).collect::<Result<_>>()?;
    // Through bytes, as the steps travel.
    let summaries: Vec<PartSummary> = summaries.iter().map(|s| decode(&encode(s), "a summary").unwrap()).collect();
    let mut driver = ExactDriver::with_budget(params, &summaries, m, budget)?;
    if let Some(limit) = rows_limit {
        driver.set_rows_limit(limit);
    }
    let setup: ExactSetup = decode(&encode(&driver.setup()), "the setup")?;
    let codes: Vec<Vec<u8>> = parts.iter().map(|(xv, _, _)| part_codes(&setup, xv)).collect::<Result<_>>()?;
    let add = |sums: Vec<Vec<f64>>| {
        sums.into_iter()
            .reduce(|mut a, b| {
                a.iter_mut().zip(&b).for_each(|(s, v)| *s += v);
                a
            })
            .unwrap()
    };
    let counts = add(codes.iter().map(|c| part_bin_counts(&setup, c)).collect::<Result<_>>()?);
    let bins = driver.median_bins(&counts)?;
    let values: Vec<_> =
        parts.iter().zip(&codes).map(|((xv, _, _), c)| part_values_in_bins(xv, c, &bins)).collect::<Result<_>>()?;
    driver.set_medians(&values)?;
    while let Some(plan) = driver.plan() {
        let plan: ExactPlan = decode(&encode(&plan), "a plan")?;
        let out: Vec<(Vec<f64>, Vec<f64>)> =
            parts.iter().zip(&codes).map(|((_, yv, start), c)| part_sums(&setup, &plan, c, yv, *start)).collect::<Result<_>>()?;
        let rows: Vec<f64> = out.iter().flat_map(|(_, r)| r.iter().copied()).collect();
        driver.absorb(&add(out.into_iter().map(|(s, _)| s).collect()), &rows)?;
    }
    driver.finish()
}

fn single<L: Learner>((x, kinds, y): (&[f64], &[FeatureKind], &[i32]), m: usize, params: L::Params) -> L {
    let n = y.len() / m;
    let xv = FeatureMatrixView::new(x, n, kinds.len()).unwrap().with_kinds(Some(kinds)).unwrap();
    L::fit_views(&xv, &RankMatrixView::new(y, n, m).unwrap(), None, params).unwrap()
}

#[test]
fn exact_lwrf_from_parts_is_the_forest_grown_on_all_rows() {
    let base = LabelwiseParams { n_estimators: 6, seed: 11, node_seeds: true, ..LabelwiseParams::forest() };
    let cases = [
        (base.clone(), false),
        (LabelwiseParams { max_depth: Some(3), min_samples_leaf: 3.0, ..base.clone() }, false),
        (LabelwiseParams { min_samples_split: 9.0, max_features: crate::tree::MaxFeatures::All, ..base.clone() }, true),
        (LabelwiseParams { bootstrap: false, n_estimators: 2, ..base.clone() }, true),
        // Shares of the rows (scikit-learn's fractions), resolved alike from the parts' row count.
        (LabelwiseParams { min_samples_split: 0.04, min_samples_leaf: 0.015, ..base.clone() }, false),
        (LabelwiseParams { max_bins: Some(7), seed: 3, ..base }, false),
    ];
    for (k, (params, ties)) in cases.into_iter().enumerate() {
        let (x, kinds, y) = data(230, 4, 40 + k as u64, ties);
        let all = (&x[..], &kinds[..], &y[..]);
        let want: LabelwiseModel = single(all, 4, params.clone());
        // Histograms only (rows limit 0), small nodes as rows, the default; one node per round.
        let ways = [
            (&[][..], (ROUND_NUMBERS, None)),
            (&[37][..], (ROUND_NUMBERS, Some(0))),
            (&[37][..], (ROUND_NUMBERS, Some(40))),
            (&[10, 90, 150][..], (1, Some(0))),
            (&[10, 90, 150][..], (1, Some(25))),
        ];
        for (cuts, budget) in ways {
            let got = grown_in_parts(LearnerParams::Labelwise(params.clone()), all, 4, cuts, budget).unwrap();
            let Model::Labelwise(got) = got else { panic!("an LWRF model") };
            assert_eq!(got, want, "case {k}, cuts {cuts:?}, budget and rows limit {budget:?}");
        }
        // Not a forest of stumps: the comparison saw splits and leaves of many shapes.
        assert!(want.trees.iter().map(|t| t.n_leaves()).sum::<usize>() > 6 * 4, "case {k}");
    }
}

#[test]
fn exact_plr_forest_from_parts_is_the_forest_grown_on_all_rows() {
    let base = PlrTreeParams { n_estimators: 5, seed: 4, node_seeds: true, max_bins: Some(255), ..PlrTreeParams::forest() };
    let cases = [
        base.clone(),
        PlrTreeParams { criterion: PlrCriterion::Disagreements, max_depth: Some(4), ..base.clone() },
        PlrTreeParams { criterion: PlrCriterion::Distance, min_samples_split: 6.0, max_bins: Some(9), ..base.clone() },
        PlrTreeParams { min_samples_split: 0.03, ..base.clone() },
        PlrTreeParams { min_samples_leaf: 7.0, ..base.clone() },
        PlrTreeParams { min_samples_leaf: 0.05, criterion: PlrCriterion::Disagreements, ..base.clone() },
        PlrTreeParams { bootstrap: false, n_estimators: 2, max_features: crate::tree::MaxFeatures::All, ..base },
    ];
    for (k, params) in cases.into_iter().enumerate() {
        let (x, kinds, y) = data(210, 4, 60 + k as u64, true);
        let all = (&x[..], &kinds[..], &y[..]);
        let want: PlrTreeModel = single(all, 4, params.clone());
        for (cuts, budget) in
            [(&[][..], (ROUND_NUMBERS, None)), (&[50][..], (ROUND_NUMBERS, Some(0))), (&[9, 100][..], (1, Some(30)))]
        {
            let got = grown_in_parts(LearnerParams::PlrTree(params.clone()), all, 4, cuts, budget).unwrap();
            assert_eq!(got, Model::PlrTree(want.clone()), "case {k}, cuts {cuts:?}, budget and rows limit {budget:?}");
        }
        assert!(want.trees.iter().map(|t| t.n_leaves()).sum::<usize>() > 5 * 3, "case {k}");
    }
}

#[test]
fn exact_ovo_forest_from_parts_is_the_model_grown_on_all_rows() {
    let base = PairwiseParams { n_estimators: 3, seed: 6, node_seeds: true, max_bins: Some(255), ..PairwiseParams::forest() };
    let cases = [
        base.clone(),
        PairwiseParams { max_depth: Some(3), voting: PairwiseVoting::Probability, max_bins: Some(12), ..base.clone() },
        PairwiseParams { min_samples_split: 0.035, ..base.clone() },
        PairwiseParams { bootstrap: false, n_estimators: 2, min_samples_split: 7.0, ..base },
    ];
    for (k, params) in cases.into_iter().enumerate() {
        let (x, kinds, y) = data(190, 4, 80 + k as u64, false);
        let all = (&x[..], &kinds[..], &y[..]);
        let want: PairwiseModel = single(all, 4, params.clone());
        for (cuts, budget) in
            [(&[][..], (ROUND_NUMBERS, None)), (&[70][..], (ROUND_NUMBERS, Some(0))), (&[5, 99][..], (1, Some(20)))]
        {
            let got = grown_in_parts(LearnerParams::Pairwise(params.clone()), all, 4, cuts, budget).unwrap();
            assert_eq!(got, Model::Pairwise(want.clone()), "case {k}, cuts {cuts:?}, budget and rows limit {budget:?}");
        }
        let leaves: usize = want.pairs.iter().flat_map(|p| &p.trees).map(|t| t.n_leaves()).sum();
        assert!(want.pairs.len() == 6 && leaves > 6 * 3 * 2, "case {k}");
    }
}

#[test]
fn exact_lr_rf_through_the_one_interface_is_the_single_machine_forest() {
    let (x, kinds, y) = data(180, 4, 5, false);
    let all = (&x[..], &kinds[..], &y[..]);
    let params = RandomForestParams { n_estimators: 4, seed: 2, node_seeds: true, ..Default::default() };
    let want: RandomForestModel = single(all, 4, params.clone());
    let got = grown_in_parts(LearnerParams::RandomForest(params), all, 4, &[60, 61], (ROUND_NUMBERS, Some(20))).unwrap();
    assert_eq!(got, Model::RandomForest(want));
}

#[test]
fn exact_forests_refuse_what_they_cannot_grow_with_the_reason() {
    let (x, kinds, mut y) = data(50, 3, 8, false);
    let lwrf = LabelwiseParams { n_estimators: 2, ..LabelwiseParams::forest() };
    let refused = |params: LearnerParams, y: &[i32]| {
        grown_in_parts(params, (&x[..], &kinds[..], y), 3, &[20], (ROUND_NUMBERS, None))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(refused(LearnerParams::Labelwise(LabelwiseParams { tune_depth: true, ..lwrf.clone() }), &y).contains("tune_depth"));
    let lwdt = LabelwiseParams { max_bins: Some(255), ..LabelwiseParams::tree() };
    assert!(refused(LearnerParams::Labelwise(lwdt), &y).contains("LWDT"));
    assert!(refused(LearnerParams::Labelwise(LabelwiseParams { max_bins: None, ..lwrf.clone() }), &y).contains("max_bins"));
    let plr_tree = PlrTreeParams { max_bins: Some(255), ..PlrTreeParams::tree() };
    assert!(refused(LearnerParams::PlrTree(plr_tree), &y).contains("the PLR tree"));
    let ovo_tree = PairwiseParams { max_bins: Some(255), ..PairwiseParams::tree() };
    assert!(refused(LearnerParams::Pairwise(ovo_tree), &y).contains("the OVO tree"));
    let iblr = crate::learners::neighbors::InstanceBasedParams::default();
    assert!(refused(LearnerParams::InstanceBased(iblr), &y).contains("the PLR forest, not InstanceBased"));
    // A ranking missing a label (0), the others' positions made dense again.
    y[..3].copy_from_slice(&[1, 0, 2]);
    assert!(refused(LearnerParams::Labelwise(lwrf), &y).contains("complete rankings"));
    let plr_forest = PlrTreeParams { max_bins: Some(255), ..PlrTreeParams::forest() };
    assert!(refused(LearnerParams::PlrTree(plr_forest), &y).contains("complete rankings"));
    let ovo_forest = PairwiseParams { max_bins: Some(255), ..PairwiseParams::forest() };
    assert!(refused(LearnerParams::Pairwise(ovo_forest), &y).contains("complete rankings without ties"));
}
