//! Merging forests fitted on parts of the data into one model (lrank.dask's distributed training).

use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::learner::Learner;
use lrank_core::learners::labelwise::LabelwiseParams;
use lrank_core::learners::labelwise_plr::LabelwisePlrParams;
use lrank_core::learners::neighbors::InstanceBasedParams;
use lrank_core::learners::one_vs_one::PairwiseParams;
use lrank_core::learners::pairwise_plr::PairwisePlrParams;
use lrank_core::learners::plr_tree::PlrTreeParams;
use lrank_core::learners::random_forest::RandomForestParams;
use lrank_core::registry::{fit, LearnerParams, Model};
use lrank_core::rng::Rng;

fn problem(n: usize, seed: u64) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b) = (rng.uniform(), rng.uniform());
        x.extend([a, b]);
        y.extend(match (a > 0.5, b > 0.4) {
            (true, true) => [1, 2, 3],
            (true, false) => [2, 1, 3],
            (false, true) => [3, 1, 2],
            (false, false) => [3, 2, 1],
        });
    }
    (x, y)
}

fn fitted(params: LearnerParams, n: usize, seed: u64) -> Model {
    let (x, y) = problem(n, seed);
    fit(params, FeatureMatrixView::new(&x, n, 2).unwrap(), RankMatrixView::new(&y, n, 3).unwrap(), None).unwrap()
}

fn split_in_two(model: &Model) -> (Model, Model) {
    let (mut a, mut b) = (model.clone(), model.clone());
    match (&mut a, &mut b) {
        (Model::RandomForest(a), Model::RandomForest(b)) => {
            let half = a.trees.len() / 2;
            b.trees = a.trees.split_off(half);
            (a.params.n_estimators, b.params.n_estimators) = (a.trees.len(), b.trees.len());
        }
        (Model::Labelwise(a), Model::Labelwise(b)) => {
            let half = a.trees.len() / 2;
            b.trees = a.trees.split_off(half);
            (a.params.n_estimators, b.params.n_estimators) = (a.trees.len(), b.trees.len());
        }
        (Model::PlrTree(a), Model::PlrTree(b)) => {
            let half = a.trees.len() / 2;
            b.trees = a.trees.split_off(half);
            (a.params.n_estimators, b.params.n_estimators) = (a.trees.len(), b.trees.len());
        }
        (Model::LabelwisePlr(a), Model::LabelwisePlr(b)) => {
            let half = a.trees.len() / 2;
            b.trees = a.trees.split_off(half);
            (a.params.n_estimators, b.params.n_estimators) = (a.trees.len(), b.trees.len());
        }
        (Model::PairwisePlr(a), Model::PairwisePlr(b)) => {
            let half = a.params.n_estimators / 2;
            for (pa, pb) in a.pairs.iter_mut().zip(b.pairs.iter_mut()) {
                pb.trees = pa.trees.split_off(half);
            }
            b.params.n_estimators = a.params.n_estimators - half;
            a.params.n_estimators = half;
        }
        (Model::Pairwise(a), Model::Pairwise(b)) => {
            let half = a.params.n_estimators / 2;
            for (pa, pb) in a.pairs.iter_mut().zip(b.pairs.iter_mut()) {
                pb.trees = pa.trees.split_off(half);
            }
            b.params.n_estimators = a.params.n_estimators - half;
            a.params.n_estimators = half;
        }
        _ => unreachable!(),
    }
    (a, b)
}

#[test]
fn a_forest_split_in_two_merges_back_into_itself() {
    let forests = [
        LearnerParams::RandomForest(RandomForestParams { n_estimators: 8, ..Default::default() }),
        LearnerParams::Labelwise(LabelwiseParams { n_estimators: 6, ..LabelwiseParams::forest() }),
        LearnerParams::Pairwise(PairwiseParams { n_estimators: 4, ..PairwiseParams::forest() }),
        LearnerParams::PlrTree(PlrTreeParams { n_estimators: 6, ..PlrTreeParams::forest() }),
        LearnerParams::LabelwisePlr(LabelwisePlrParams { n_estimators: 4, ..LabelwisePlrParams::default() }),
        LearnerParams::PairwisePlr(PairwisePlrParams { n_estimators: 4, ..PairwisePlrParams::forest() }),
    ];
    for params in forests {
        let whole = fitted(params, 200, 1);
        let (a, b) = split_in_two(&whole);
        let fill = match &whole {
            Model::RandomForest(m) => m.fill_values.clone(),
            Model::Labelwise(m) => m.fill_values.clone(),
            Model::Pairwise(m) => m.fill_values.clone(),
            Model::PlrTree(m) => m.fill_values.clone(),
            Model::LabelwisePlr(m) => m.fill_values.clone(),
            Model::PairwisePlr(m) => m.fill_values.clone(),
            _ => unreachable!(),
        };
        let merged = Model::merge(vec![a, b], fill).unwrap();
        assert_eq!(merged, whole, "{}", whole.kind());
    }
}

#[test]
fn forests_fitted_on_parts_merge_into_one_that_predicts_from_all_trees() {
    let params = LearnerParams::RandomForest(RandomForestParams { n_estimators: 5, ..Default::default() });
    let (a, b) = (fitted(params.clone(), 150, 2), fitted(params.clone(), 100, 3));
    let merged = Model::merge(vec![a.clone(), b.clone()], vec![0.5, 0.5]).unwrap();
    let Model::RandomForest(m) = &merged else { unreachable!() };
    assert_eq!((m.trees.len(), m.params.n_estimators, m.fill_values.clone()), (10, 10, vec![0.5, 0.5]));
    let (x, _) = problem(50, 9);
    let view = FeatureMatrixView::new(&x, 50, 2).unwrap();
    let trees = merged.member_ranks(&view).unwrap().unwrap();
    let first = a.member_ranks(&view).unwrap().unwrap();
    assert_eq!(&trees[..first.len()], &first[..], "the first model's trees come first");
    assert!(merged.check().is_ok());
}

#[test]
fn models_that_do_not_merge_are_refused_with_the_reason() {
    let forest = LearnerParams::RandomForest(RandomForestParams { n_estimators: 3, ..Default::default() });
    let deeper = LearnerParams::RandomForest(RandomForestParams { n_estimators: 3, max_depth: Some(2), ..Default::default() });
    let knn = LearnerParams::InstanceBased(InstanceBasedParams { k: Some(3), ..Default::default() });
    let err = |models: Vec<Model>, fill: Vec<f64>| Model::merge(models, fill).unwrap_err().to_string();
    assert!(err(vec![fitted(knn.clone(), 50, 1), fitted(knn, 50, 2)], vec![0.0; 2]).contains("only forests"));
    assert!(err(vec![fitted(forest.clone(), 50, 1), fitted(deeper, 50, 2)], vec![0.0; 2]).contains("other parameters"));
    assert!(err(vec![fitted(forest.clone(), 50, 1)], vec![0.0]).contains("2 fill values"));
    let tuned = LearnerParams::Labelwise(LabelwiseParams { n_estimators: 2, tune_depth: true, ..LabelwiseParams::forest() });
    assert!(err(vec![fitted(tuned, 60, 1)], vec![0.0; 2]).contains("tuned depth"));
    assert!(err(vec![], vec![]).contains("nothing to merge"));
    // A pairwise PLR forest whose beta was chosen out of bag: each part chose its own.
    let tuned = LearnerParams::PairwisePlr(PairwisePlrParams { n_estimators: 3, tune_beta: true, ..PairwisePlrParams::forest() });
    assert!(err(vec![fitted(tuned.clone(), 60, 1), fitted(tuned, 60, 2)], vec![0.0; 2]).contains("give beta"));
    let binned = |b| LearnerParams::PlrTree(PlrTreeParams { n_estimators: 2, max_bins: b, ..PlrTreeParams::forest() });
    assert!(err(vec![fitted(binned(None), 50, 1), fitted(binned(Some(8)), 50, 2)], vec![0.0; 2]).contains("other parameters"));
    let lwrf = LearnerParams::Labelwise(LabelwiseParams { n_estimators: 2, ..LabelwiseParams::forest() });
    assert!(err(vec![fitted(forest, 50, 1), fitted(lwrf, 50, 1)], vec![0.0; 2]).contains("cannot merge a Labelwise model"));
}
