//! The exact distributed forest against the forest grown on all rows at once.

use super::*;
use crate::data::features::FeatureKind;
use crate::learner::Learner;
use crate::rng::Rng;

/// Features of every kind the bins handle (continuous, few values, nominal) and rankings that
/// depend on them; `missing` labels of some rankings deleted.
fn data(n: usize, m: usize, seed: u64, missing: bool) -> (Vec<f64>, Vec<FeatureKind>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let d = 4;
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n * m);
    for _ in 0..n {
        let (a, b) = (rng.uniform(), (rng.below(5) as f64) * 0.5);
        let (c, e) = (rng.below(3) as f64, rng.uniform() * 1e3);
        x.extend([a, b, c, e]);
        let scores: Vec<f64> =
            (0..m).map(|l| a * l as f64 - b * (l % 2) as f64 + c * (l == 1) as u8 as f64 + rng.uniform()).collect();
        let mut ranks = crate::data::ranking::ranking_from_scores(&scores);
        if missing && rng.below(3) == 0 {
            ranks[rng.below(m)] = 0;
            let mut order: Vec<usize> = (0..m).filter(|&l| ranks[l] > 0).collect();
            order.sort_by_key(|&l| ranks[l]);
            for (k, &l) in order.iter().enumerate() {
                ranks[l] = k as i32 + 1;
            }
        }
        y.extend(ranks);
    }
    let kinds = vec![FeatureKind::Numeric, FeatureKind::Numeric, FeatureKind::Nominal, FeatureKind::Numeric];
    (x, kinds, y)
}

/// The forest grown from parts cut at `cuts` (row indices), as a cluster would.
fn grown_in_parts(
    x: &[f64],
    kinds: &[FeatureKind],
    y: &[i32],
    m: usize,
    cuts: &[usize],
    params: &RandomForestParams,
    budget: usize,
) -> Result<RandomForestModel> {
    // Nodes as histograms only, small nodes as rows, and the default: one forest.
    let models: Vec<RandomForestModel> = [Some(0), Some(30), None]
        .into_iter()
        .map(|rows_limit| grown_in_parts_with(x, kinds, y, m, cuts, params, budget, rows_limit))
        .collect::<Result<_>>()?;
    assert!(models.windows(2).all(|w| w[0] == w[1]), "rows and histograms grew different forests");
    Ok(models.into_iter().next().expect("three models"))
}

#[allow(clippy::too_many_arguments)]
fn grown_in_parts_with(
    x: &[f64],
    kinds: &[FeatureKind],
    y: &[i32],
    m: usize,
    cuts: &[usize],
    params: &RandomForestParams,
    budget: usize,
    rows_limit: Option<usize>,
) -> Result<RandomForestModel> {
    let d = kinds.len();
    let n = y.len() / m;
    let bounds: Vec<(usize, usize)> =
        std::iter::once(0).chain(cuts.iter().copied()).zip(cuts.iter().copied().chain(std::iter::once(n))).collect();
    let views: Vec<(FeatureMatrixView<'_>, RankMatrixView<'_>, usize)> = bounds
        .iter()
        .map(|&(a, b)| {
            let xv = FeatureMatrixView::new(&x[a * d..b * d], b - a, d).unwrap().with_kinds(Some(kinds)).unwrap();
            (xv, RankMatrixView::new(&y[a * m..b * m], b - a, m).unwrap(), a)
        })
        .collect();
    let max_bins = params.max_bins.unwrap_or(255);
    let summaries: Vec<PartSummary> =
        views.iter().map(|(xv, yv, start)| summarise_part(xv, yv, *start, n, max_bins)).collect::<Result<_>>()?;
    let mut driver = ExactForest::with_budget(params.clone(), &summaries, m, budget)?;
    if let Some(limit) = rows_limit {
        driver.set_rows_limit(limit);
    }
    let setup = driver.setup().clone();
    let codes: Vec<Vec<u8>> = views.iter().map(|(xv, _, _)| part_codes(&setup, xv)).collect::<Result<_>>()?;
    let add = |parts: Vec<Vec<f64>>| {
        parts.into_iter().reduce(|mut a, b| {
            a.iter_mut().zip(&b).for_each(|(s, v)| *s += v);
            a
        })
    };
    let counts = add(codes.iter().map(|c| part_bin_counts(&setup, c)).collect::<Result<_>>()?).unwrap();
    let bins = driver.median_bins(&counts)?;
    let values: Vec<_> =
        views.iter().zip(&codes).map(|((xv, _, _), c)| part_values_in_bins(xv, c, &bins)).collect::<Result<_>>()?;
    driver.set_medians(&values)?;
    while let Some(plan) = driver.plan() {
        check_plan(&plan);
        let sums = views
            .iter()
            .zip(&codes)
            .map(|((_, yv, start), c)| part_sums(&setup, &plan, c, yv, *start))
            .collect::<Result<Vec<_>>>()?;
        // Row records joined in another order than the parts': any order gives the same forest.
        let rows: Vec<f64> = sums.iter().rev().flat_map(|(_, r)| r.iter().copied()).collect();
        driver.absorb(&add(sums.into_iter().map(|(s, _)| s).collect()).unwrap(), &rows)?;
    }
    driver.finish()
}

/// A plan's nodes below the root send only the statistics their parents had: never more than
/// the criterion's, and never none.
fn check_plan(plan: &LevelPlan) {
    for (_, nodes) in &plan.trees {
        for node in nodes {
            if let crate::tree::levelwise::PlanNode::Open { entries: Some(e), .. } = node {
                assert!(!e.is_empty() && e.len() <= plan.n_stats && e.windows(2).all(|w| w[0] < w[1]));
            }
        }
    }
}

/// How many of the criterion's statistics the open nodes of a driver's rounds send, at most and
/// at least, over a whole forest.
fn entries_range(params: &RandomForestParams, x: &[f64], kinds: &[FeatureKind], y: &[i32], m: usize) -> (usize, usize) {
    let n = y.len() / m;
    let xv = FeatureMatrixView::new(x, n, kinds.len()).unwrap().with_kinds(Some(kinds)).unwrap();
    let yv = RankMatrixView::new(y, n, m).unwrap();
    let mut driver = ExactForest::new(params.clone(), &[summarise_part(&xv, &yv, 0, n, 255).unwrap()], m).unwrap();
    driver.set_rows_limit(0); // every node by histograms
    let setup = driver.setup().clone();
    let codes = part_codes(&setup, &xv).unwrap();
    let (mut most, mut least) = (0, usize::MAX);
    while let Some(plan) = driver.plan() {
        for (_, nodes) in &plan.trees {
            for node in nodes {
                if let crate::tree::levelwise::PlanNode::Open { entries, .. } = node {
                    let k = entries.as_ref().map_or(plan.n_stats, Vec::len);
                    (most, least) = (most.max(k), least.min(k));
                }
            }
        }
        let (sums, rows) = part_sums(&setup, &plan, &codes, &yv, 0).unwrap();
        driver.absorb(&sums, &rows).unwrap();
    }
    (most, least)
}

#[test]
fn deeper_nodes_send_only_the_classes_their_parents_had() {
    let (x, kinds, y) = data(400, 5, 8, false);
    let params = RandomForestParams { n_estimators: 2, class_mode: ClassMode::Ranking, ..Default::default() };
    let (most, least) = entries_range(&params, &x, &kinds, &y, 5);
    assert!(least < most / 4, "classes sent: {least} to {most}");
}

fn grown_at_once(x: &[f64], kinds: &[FeatureKind], y: &[i32], m: usize, params: &RandomForestParams) -> RandomForestModel {
    let n = y.len() / m;
    let xv = FeatureMatrixView::new(x, n, kinds.len()).unwrap().with_kinds(Some(kinds)).unwrap();
    let yv = RankMatrixView::new(y, n, m).unwrap();
    RandomForestModel::fit_views(&xv, &yv, None, RandomForestParams { node_seeds: true, ..params.clone() }).unwrap()
}

#[test]
fn parts_grow_the_forest_of_all_rows_in_every_class_mode() {
    for (k, mode) in [ClassMode::Auto, ClassMode::Ranking, ClassMode::Pairwise, ClassMode::TopLabel].into_iter().enumerate() {
        for missing in [false, true] {
            if missing && mode == ClassMode::Ranking {
                continue;
            }
            let (x, kinds, y) = data(260, 4, 10 + k as u64, missing);
            let params = RandomForestParams { n_estimators: 6, seed: 3 + k as u64, class_mode: mode, ..Default::default() };
            let at_once = grown_at_once(&x, &kinds, &y, 4, &params);
            for cuts in [vec![], vec![100], vec![1, 77, 200]] {
                let parts = grown_in_parts(&x, &kinds, &y, 4, &cuts, &params, 1 << 24)
                    .unwrap_or_else(|e| panic!("{mode:?}, missing {missing}, cuts {cuts:?}: {e}"));
                assert_eq!(parts, at_once, "{mode:?}, missing {missing}, cuts {cuts:?}");
            }
        }
    }
}

#[test]
fn unlimited_depth_every_feature_no_bootstrap_few_bins_and_small_rounds() {
    let (x, kinds, y) = data(300, 5, 7, true);
    let params = RandomForestParams {
        n_estimators: 3,
        seed: 9,
        max_depth: None,
        max_features: crate::tree::MaxFeatures::All,
        bootstrap: false,
        max_bins: Some(7),
        ..Default::default()
    };
    let at_once = grown_at_once(&x, &kinds, &y, 5, &params);
    assert!(at_once.trees.iter().any(|t| t.depth() > 8));
    // A budget below two nodes' histograms: one node per round.
    let parts = grown_in_parts(&x, &kinds, &y, 5, &[150], &params, 10).unwrap();
    assert_eq!(parts, at_once);
    let bootstrapped = RandomForestParams { bootstrap: true, ..params };
    assert_eq!(
        grown_in_parts(&x, &kinds, &y, 5, &[31, 150], &bootstrapped, 1 << 20).unwrap(),
        grown_at_once(&x, &kinds, &y, 5, &bootstrapped)
    );
}

#[test]
fn more_rows_than_the_bins_sample_still_give_the_same_forest() {
    let n = crate::tree::BIN_SAMPLE_ROWS + 1234;
    let (x, kinds, y) = data(n, 3, 5, false);
    let params = RandomForestParams { n_estimators: 2, seed: 1, max_depth: Some(3), ..Default::default() };
    let at_once = grown_at_once(&x, &kinds, &y, 3, &params);
    let parts = grown_in_parts(&x, &kinds, &y, 3, &[n / 3, n / 3 + 1, 2 * n / 3], &params, 1 << 24).unwrap();
    assert_eq!(parts, at_once);
}

#[test]
fn what_cannot_be_grown_in_parts_is_refused() {
    let (mut x, kinds, y) = data(50, 3, 2, false);
    let params = RandomForestParams { n_estimators: 2, ..Default::default() };
    let exact = RandomForestParams { max_bins: None, ..params.clone() };
    let err = grown_in_parts(&x, &kinds, &y, 3, &[20], &exact, 1 << 20).unwrap_err();
    assert!(err.to_string().contains("max_bins"), "{err}");
    let leaf_missing = RandomForestParams { leaf_missing: 0.3, ..params.clone() };
    assert!(grown_in_parts(&x, &kinds, &y, 3, &[20], &leaf_missing, 1 << 20).unwrap_err().to_string().contains("leaf_missing"));
    x[4 * 7 + 1] = f64::NAN;
    let err = grown_in_parts(&x, &kinds, &y, 3, &[20], &params, 1 << 20).unwrap_err();
    assert!(err.to_string().contains("feature 1 has missing values"), "{err}");
    // A driver refuses sums of another length, and a model before its medians.
    let (x, kinds, y) = data(50, 3, 2, false);
    let xv = FeatureMatrixView::new(&x, 50, 4).unwrap().with_kinds(Some(&kinds)).unwrap();
    let yv = RankMatrixView::new(&y, 50, 3).unwrap();
    let summary = summarise_part(&xv, &yv, 0, 50, 255).unwrap();
    let mut driver = ExactForest::new(params, &[summary], 3).unwrap();
    driver.set_rows_limit(0);
    let plan = driver.plan().unwrap();
    assert!(driver.absorb(&vec![0.0; plan.len as usize + 1], &[]).is_err());
    assert!(driver.finish().unwrap_err().to_string().contains("medians"));
}

#[test]
fn the_model_predicts_and_the_params_say_node_seeds() {
    let (x, kinds, y) = data(120, 3, 4, false);
    let params = RandomForestParams { n_estimators: 4, ..Default::default() };
    let model = grown_in_parts(&x, &kinds, &y, 3, &[60], &params, 1 << 20).unwrap();
    assert!(model.params.node_seeds);
    assert!(model.check().is_ok());
    let xv = FeatureMatrixView::new(&x, 120, 4).unwrap();
    assert_eq!(model.predict_ranks(&xv).unwrap().len(), 360);
}

#[test]
fn forged_plans_codes_and_sums_are_refused_not_followed() {
    use crate::tree::levelwise::PlanNode;
    let (x, kinds, y) = data(60, 3, 6, false);
    let xv = FeatureMatrixView::new(&x, 60, 4).unwrap().with_kinds(Some(&kinds)).unwrap();
    let yv = RankMatrixView::new(&y, 60, 3).unwrap();
    let params = RandomForestParams { n_estimators: 2, ..Default::default() };
    let summary = summarise_part(&xv, &yv, 0, 60, 255).unwrap();
    let mut driver = ExactForest::new(params.clone(), std::slice::from_ref(&summary), 3).unwrap();
    driver.set_rows_limit(0);
    let setup = driver.setup().clone();
    let codes = part_codes(&setup, &xv).unwrap();
    let plan = driver.plan().unwrap();
    assert!(part_sums(&setup, &plan, &codes, &yv, 0).is_ok());
    let forged = |edit: &dyn Fn(&mut LevelPlan)| {
        let mut p = plan.clone();
        edit(&mut p);
        part_sums(&setup, &p, &codes, &yv, 0).unwrap_err().to_string()
    };
    // A split whose child is itself (a row would loop), a feature beyond the data, sums beyond the round.
    let split = PlanNode::Split { feature: 0, bin: 0, category: false, left: 0, right: 0 };
    assert!(forged(&|p| p.trees[0].1[0] = split.clone()).contains("splits outside"));
    let far = PlanNode::Split { feature: 9, bin: 0, category: false, left: 1, right: 2 };
    assert!(forged(&|p| p.trees[0].1 = vec![far.clone(), PlanNode::Elsewhere, PlanNode::Elsewhere]).contains("splits outside"));
    assert!(forged(&|p| p.len = 10).contains("outside the round"));
    assert!(forged(&|p| p.trees[0].0 = 7).contains("not one of the forest's"));
    assert!(forged(&|p| p.n_stats += 1).contains("not the forest's"));
    let mut bad_codes = codes.clone();
    bad_codes[5] = 255;
    assert!(part_sums(&setup, &plan, &bad_codes, &yv, 0).unwrap_err().to_string().contains("beyond its"));
    assert!(part_sums(&setup, &plan, &codes, &yv, 30).unwrap_err().to_string().contains("beyond the 60 rows"));
    assert!(part_bin_counts(&setup, &codes[1..]).is_err());
    let (mut sums, rows) = part_sums(&setup, &plan, &codes, &yv, 0).unwrap();
    sums[0] = -1.0;
    assert!(driver.absorb(&sums, &rows).unwrap_err().to_string().contains("never negative"));
    // Row records: a slot the round did not ask for, a record cut short, a code beyond the bins.
    let mut driver = ExactForest::new(params, &[summary], 3).unwrap();
    let plan = driver.plan().unwrap();
    assert!(matches!(plan.trees[0].1[0], PlanNode::Rows { .. }), "a 60-row root comes as rows");
    let (sums, rows) = part_sums(&setup, &plan, &codes, &yv, 0).unwrap();
    let record = 2 + 4 + 3 + 1 + 2; // slot, weight, 4 codes, 3 Borda votes, one (class, weight) pair
    assert!(rows.len() >= record && rows[0] == 0.0);
    let mut refused = |rows: &[f64]| driver.absorb(&sums, rows).unwrap_err().to_string();
    let mut slot = rows.clone();
    slot[0] = 5.0;
    assert!(refused(&slot).contains("slot 5"));
    assert!(refused(&rows[..rows.len() - 1]).contains("cut short"));
    let mut code = rows.clone();
    code[2 + 1] = 200.0;
    assert!(refused(&code).contains("beyond its bins"));
}
