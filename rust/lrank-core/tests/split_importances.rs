//! Split importances of fitted models: the feature that decides the rankings gets the most, the
//! shares are a distribution, the result does not depend on the thread count, and learners
//! without trees have none.

use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::learner::Params;
use lrank_core::learners::bagging::BaggingParams;
use lrank_core::learners::boosting::BoostingParams;
use lrank_core::learners::gradient_boosting::loss::RankingLoss;
use lrank_core::learners::gradient_boosting::GradientBoostingParams;
use lrank_core::learners::label_tree::LabelTreeParams;
use lrank_core::learners::labelwise::LabelwiseParams;
use lrank_core::learners::labelwise_plr::LabelwisePlrParams;
use lrank_core::learners::neighbors::InstanceBasedParams;
use lrank_core::learners::one_vs_one::PairwiseParams;
use lrank_core::learners::pairwise_plr::PairwisePlrParams;
use lrank_core::learners::plr_tree::PlrTreeParams;
use lrank_core::learners::random_forest::RandomForestParams;
use lrank_core::learners::rpc::RpcParams;
use lrank_core::parallel::with_threads;
use lrank_core::registry::{fit, split_importances, LearnerParams};
use lrank_core::rng::Rng;

const N: usize = 240;
const D: usize = 4;

/// Feature 2 decides the ranking of three labels (with ties above 0.8); the others are noise.
fn problem() -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(5);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..N {
        let row: Vec<f64> = (0..D).map(|_| rng.uniform()).collect();
        y.extend(match row[2] {
            v if v < 0.3 => [1, 2, 3],
            v if v < 0.55 => [2, 1, 3],
            v if v < 0.8 => [3, 2, 1],
            _ => [1, 1, 2],
        });
        x.extend(row);
    }
    (x, y)
}

fn importances(params: &LearnerParams, threads: usize) -> Option<Vec<f64>> {
    let (x, y) = problem();
    // Learners that refuse ties learn the same problem with the tied rows broken.
    let y: Vec<i32> = if params.tie_refusal().is_none() {
        y
    } else {
        y.chunks(3).flat_map(|r| if r == [1, 1, 2] { [1, 2, 3] } else { [r[0], r[1], r[2]] }).collect()
    };
    let (xv, yv) = (FeatureMatrixView::new(&x, N, D).unwrap(), RankMatrixView::new(&y, N, 3).unwrap());
    with_threads(Some(threads), || {
        let model = fit(params.clone(), xv, yv, None).unwrap();
        split_importances(&model, xv, yv, None).unwrap()
    })
    .unwrap()
}

#[test]
fn the_deciding_feature_gets_the_most_and_the_shares_sum_to_one() {
    let tree_learners = [
        LearnerParams::RandomForest(RandomForestParams { n_estimators: 10, ..Default::default() }),
        LearnerParams::LabelTree(LabelTreeParams::default()),
        LearnerParams::Labelwise(LabelwiseParams { n_estimators: 10, ..LabelwiseParams::forest() }),
        LearnerParams::Pairwise(PairwiseParams { n_estimators: 5, ..PairwiseParams::forest() }),
        LearnerParams::PlrTree(PlrTreeParams::tree()),
        LearnerParams::PlrTree(PlrTreeParams { n_estimators: 10, ..PlrTreeParams::forest() }),
        LearnerParams::PairwisePlr(PairwisePlrParams { n_estimators: 5, ..PairwisePlrParams::forest() }),
        LearnerParams::LabelwisePlr(LabelwisePlrParams { n_estimators: 10, ..Default::default() }),
        LearnerParams::Bagging(BaggingParams {
            n_estimators: 5,
            ..BaggingParams::new(LearnerParams::PlrTree(PlrTreeParams::tree()))
        }),
        LearnerParams::Boosting(BoostingParams {
            n_estimators: 5,
            ..BoostingParams::new(LearnerParams::LabelTree(LabelTreeParams::default()))
        }),
        // The gains of its splits on the loss (gradient_boosting::importance).
        LearnerParams::GradientBoosting(GradientBoostingParams {
            n_estimators: 10,
            loss: RankingLoss::PairwiseLogistic,
            ..Default::default()
        }),
    ];
    for params in &tree_learners {
        let shares = importances(params, 1).unwrap_or_else(|| panic!("{}: no importances", params.kind()));
        assert_eq!(shares.len(), D);
        assert!(shares.iter().all(|&s| s >= 0.0), "{}: {shares:?}", params.kind());
        assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{}: {shares:?}", params.kind());
        assert!(shares[2] > 0.6, "{}: the deciding feature has {shares:?}", params.kind());
        assert_eq!(importances(params, 2).unwrap(), shares, "{}: two threads differ", params.kind());
    }
}

#[test]
fn learners_without_trees_have_no_importances() {
    for params in [LearnerParams::InstanceBased(InstanceBasedParams::default()), LearnerParams::Rpc(RpcParams::default())] {
        assert_eq!(importances(&params, 1), None, "{}", params.kind());
    }
}

#[test]
fn data_of_another_shape_is_refused() {
    let (x, y) = problem();
    let (xv, yv) = (FeatureMatrixView::new(&x, N, D).unwrap(), RankMatrixView::new(&y, N, 3).unwrap());
    let model = fit(LearnerParams::PlrTree(PlrTreeParams::tree()), xv, yv, None).unwrap();
    let narrow = FeatureMatrixView::new(&x[..N * 2], N, 2).unwrap();
    assert!(split_importances(&model, narrow, yv, None).unwrap_err().to_string().contains("features"));
    let pairs: Vec<i32> = [1, 2].repeat(N);
    let two = RankMatrixView::new(&pairs, N, 2).unwrap();
    assert!(split_importances(&model, xv, two, None).unwrap_err().to_string().contains("labels"));
    assert!(split_importances(&model, xv, yv, Some(&[1.0; 3])).is_err());
}

#[test]
fn ensembles_of_boosted_members_weigh_their_members_gains() {
    // Bagging: the mean of the members' shares; AdaBoost: by the members' votes.
    use lrank_core::learner::Learner;
    use lrank_core::registry::Model;
    let (x, y) = problem();
    let (xv, yv) = (FeatureMatrixView::new(&x, N, D).unwrap(), RankMatrixView::new(&y, N, 3).unwrap());
    let member = LearnerParams::GradientBoosting(GradientBoostingParams {
        n_estimators: 4,
        max_depth: Some(2),
        loss: RankingLoss::PairwiseLogistic,
        ..Default::default()
    });
    let ensembles = [
        LearnerParams::Bagging(BaggingParams { n_estimators: 3, ..BaggingParams::new(member.clone()) }),
        LearnerParams::Boosting(BoostingParams { n_estimators: 3, ..BoostingParams::new(member) }),
    ];
    let w = vec![1.0; N];
    for params in ensembles {
        let model = fit(params.clone(), xv, yv, None).unwrap();
        let (members, votes): (Vec<&Model>, Vec<f64>) = match &model {
            Model::Bagging(b) => (b.members.iter().collect(), vec![1.0; b.members.len()]),
            Model::Boosting(b) => (b.members.iter().collect(), b.member_weights.clone()),
            _ => unreachable!(),
        };
        let mut want = vec![0.0; D];
        for (member, vote) in members.iter().zip(&votes) {
            let shares = member.split_importances(&xv, &yv, &w).unwrap().unwrap();
            want.iter_mut().zip(shares).for_each(|(a, s)| *a += vote * s);
        }
        let sum: f64 = want.iter().sum();
        let got = split_importances(&model, xv, yv, None).unwrap().unwrap();
        for (g, v) in got.iter().zip(&want) {
            assert!((g - v / sum).abs() < 1e-12, "{}: {got:?} vs {want:?}", params.kind());
        }
        assert!(got[2] > 0.6, "{}: {got:?}", params.kind());
    }
}
