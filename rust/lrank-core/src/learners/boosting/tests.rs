use super::*;
use crate::consensus::borda;
use crate::error::LrankError;
use crate::learners::dummy::DummyParams;
use crate::learners::label_tree::LabelTreeParams;
use crate::parallel::with_threads;
use crate::registry::{LearnerParams, Model};

/// Two features in [0, 1); the ranking of 4 labels depends on both, with `noise` of rows swapped.
fn problem(n: usize, seed: u64, noise: f64) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b) = (rng.uniform(), rng.uniform());
        x.extend([a, b]);
        let mut r = match (a > 0.5, b > 0.5) {
            (true, true) => [1, 2, 3, 4],
            (true, false) => [2, 1, 4, 3],
            (false, true) => [3, 4, 1, 2],
            (false, false) => [4, 3, 2, 1],
        };
        if rng.uniform() < noise {
            r.swap(rng.below(4), rng.below(4));
        }
        y.extend(r);
    }
    (x, y)
}

fn lrt(max_depth: Option<usize>) -> LearnerParams {
    LearnerParams::LabelTree(LabelTreeParams { max_depth, ..Default::default() })
}

type Boosted = BoostingModel<LearnerParams, Model>;

fn fit(x: &[f64], y: &[i32], w: Option<&[f64]>, params: BoostingParams<LearnerParams>) -> Boosted {
    let n = y.len() / 4;
    Boosted::fit_views(&FeatureMatrixView::new(x, n, 2).unwrap(), &RankMatrixView::new(y, n, 4).unwrap(), w, params).unwrap()
}

/// Discordant share by brute force over all pairs of the truth's ranked labels.
fn slow_error(truth: &[i32], pred: &[i32]) -> f64 {
    let (mut pairs, mut bad) = (0.0, 0.0);
    for a in 0..truth.len() {
        for b in 0..truth.len() {
            if truth[a] > 0 && truth[b] > 0 && truth[a] < truth[b] {
                pairs += 1.0;
                if pred[a] > pred[b] {
                    bad += 1.0;
                }
            }
        }
    }
    if pairs == 0.0 {
        0.0
    } else {
        bad / pairs
    }
}

/// AdaBoost.R2 written out round by round for the baseline learner (one weighted Borda
/// consensus per round) with reweighting: the members' says and the round losses.
fn slow_boost_of_dummy(y: &[i32], n: usize, rounds: usize, lr: f64) -> (Vec<f64>, Vec<f64>) {
    let mut w = vec![1.0 / n as f64; n];
    let (mut says, mut losses) = (vec![], vec![]);
    for _ in 0..rounds {
        let scaled: Vec<f64> = w.iter().map(|v| v * n as f64).collect();
        let centre = borda(&RankMatrixView::new(y, n, 4).unwrap(), Some(&scaled));
        let errors: Vec<f64> = (0..n).map(|i| slow_error(&y[i * 4..i * 4 + 4], &centre)).collect();
        let largest = errors.iter().cloned().fold(0.0, f64::max);
        let loss: Vec<f64> = errors.iter().map(|e| e / largest).collect();
        let mean: f64 = (0..n).map(|i| w[i] * loss[i]).sum();
        if mean >= 0.5 {
            break;
        }
        let beta = mean / (1.0 - mean);
        says.push(lr * (1.0 / beta).ln());
        losses.push(mean);
        for i in 0..n {
            w[i] *= beta.powf(lr * (1.0 - loss[i]));
        }
        let sum: f64 = w.iter().sum();
        w.iter_mut().for_each(|v| *v /= sum);
    }
    (says, losses)
}

#[test]
fn rounds_follow_adaboost_r2_written_out_by_hand() {
    let (x, y) = problem(60, 1, 0.5);
    for lr in [1.0, 0.5] {
        let params = BoostingParams {
            n_estimators: 6,
            learning_rate: lr,
            sampling: Sampling::Reweight,
            ..BoostingParams::new(LearnerParams::Dummy(DummyParams::default()))
        };
        let model = fit(&x, &y, None, params);
        let (says, losses) = slow_boost_of_dummy(&y, 60, 6, lr);
        assert_eq!(model.members.len(), says.len());
        assert!(says.len() >= 2, "the reference stopped after {} rounds", says.len());
        for (got, want) in model.member_weights.iter().zip(&says).chain(model.round_losses.iter().zip(&losses)) {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
    }
}

#[test]
fn prediction_is_the_weighted_consensus_of_the_members() {
    let (x, y) = problem(150, 2, 0.2);
    let (xt, _) = problem(40, 3, 0.2);
    let xv = FeatureMatrixView::new(&xt, 40, 2).unwrap();
    for aggregator in [Aggregator::Borda, Aggregator::Copeland, Aggregator::Kemeny] {
        let params = BoostingParams { n_estimators: 7, aggregator, ..BoostingParams::new(lrt(Some(1))) };
        let model = fit(&x, &y, None, params);
        let b = model.members.len();
        assert!(b > 1);
        let pred = model.predict_ranks(&xv).unwrap();
        let per = model.member_ranks(&xv).unwrap().unwrap();
        for i in 0..40 {
            let rows: Vec<i32> = (0..b).flat_map(|k| per[(k * 40 + i) * 4..(k * 40 + i + 1) * 4].to_vec()).collect();
            let view = RankMatrixView::new(&rows, b, 4).unwrap();
            let expect = aggregator.aggregate(&view, Some(&model.member_weights)).unwrap();
            assert_eq!(&pred[i * 4..(i + 1) * 4], &expect[..], "{aggregator:?} row {i}");
        }
    }
}

#[test]
fn weighted_borda_of_the_members_by_hand() {
    let (x, y) = problem(150, 4, 0.2);
    let model = fit(&x, &y, None, BoostingParams { n_estimators: 5, ..BoostingParams::new(lrt(Some(1))) });
    let xv = FeatureMatrixView::new(&x, 150, 2).unwrap();
    let (pred, per) = (model.predict_ranks(&xv).unwrap(), model.member_ranks(&xv).unwrap().unwrap());
    let b = model.members.len();
    for i in 0..150 {
        // Each member gives label j (m - rank) points times its say; ties to the lower label.
        let points: Vec<f64> =
            (0..4).map(|j| (0..b).map(|k| model.member_weights[k] * (4 - per[(k * 150 + i) * 4 + j]) as f64).sum()).collect();
        for a in 0..4 {
            for c in 0..4 {
                if points[a] > points[c] + 1e-9 {
                    assert!(pred[i * 4 + a] < pred[i * 4 + c], "row {i}: {points:?} {:?}", &pred[i * 4..i * 4 + 4]);
                }
            }
        }
    }
}

#[test]
fn the_first_member_is_the_base_learner_on_a_sample_drawn_by_hand() {
    let (x, y) = problem(120, 5, 0.2);
    let model = fit(&x, &y, None, BoostingParams { n_estimators: 3, seed: 9, ..BoostingParams::new(lrt(Some(2))) });
    let mut counts = vec![0u32; 120];
    let mut rng = Rng::new(child_seed(9, 0));
    for _ in 0..120 {
        // Row i is drawn when u falls in [i/120, (i+1)/120).
        let u = rng.uniform();
        counts[((u * 120.0) as usize).min(119)] += 1;
    }
    let rows: Vec<usize> = (0..120).filter(|&i| counts[i] > 0).collect();
    let xs: Vec<f64> = rows.iter().flat_map(|&i| x[2 * i..2 * i + 2].to_vec()).collect();
    let ys: Vec<i32> = rows.iter().flat_map(|&i| y[4 * i..4 * i + 4].to_vec()).collect();
    let ws: Vec<f64> = rows.iter().map(|&i| counts[i] as f64).collect();
    // Fitted as the ensemble fits a member: its draw counts as weights, rows of weight 1.
    let sample = crate::data::training::TrainingSet::from_checked(
        FeatureMatrixView::new(&xs, rows.len(), 2).unwrap(),
        RankMatrixView::new(&ys, rows.len(), 4).unwrap(),
        ws,
    )
    .with_row_weight(1.0);
    let member = <crate::learners::label_tree::LabelTreeModel as crate::learner::Learner>::fit(
        LabelTreeParams { max_depth: Some(2), seed: rng.next_u64(), ..Default::default() },
        &sample,
    )
    .unwrap();
    assert_eq!(model.members[0], Model::LabelTree(member));
}

#[test]
fn a_member_without_error_ends_the_boosting() {
    let (x, y) = problem(200, 7, 0.0);
    let model = fit(&x, &y, None, BoostingParams { n_estimators: 10, ..BoostingParams::new(lrt(None)) });
    assert_eq!((model.members.len(), model.member_weights.as_slice()), (1, &[1.0][..]));
}

#[test]
fn a_later_member_without_error_is_kept_with_say_one() {
    // Small noise-free samples: a depth-2 tree errs where its draw missed a quadrant and is
    // exact where it did not. Whenever a round makes no error it is the last, kept with say 1.
    let mut later = 0;
    for seed in 0..60 {
        let (x, y) = problem(16, seed, 0.0);
        let params = BoostingParams { n_estimators: 10, seed, ..BoostingParams::new(lrt(Some(2))) };
        let model = fit(&x, &y, None, params);
        let k = model.members.len();
        assert_eq!(k, model.member_weights.len());
        if let Some(at) = model.round_losses.iter().position(|&l| l <= 0.0) {
            assert_eq!((at, model.member_weights[at]), (k - 1, 1.0), "seed {seed}: {:?}", model.round_losses);
            later += usize::from(k > 1);
        }
    }
    assert!(later > 0, "no sample gave a perfect member after the first");
}

#[test]
fn rows_without_weight_are_never_drawn() {
    let mut w = vec![0.0; 50];
    for i in (0..50).step_by(5) {
        w[i] = 0.1;
    }
    let counts = draw_counts(&w, &mut Rng::new(3));
    assert_eq!(counts.iter().sum::<u32>(), 50);
    assert!(counts.iter().enumerate().all(|(i, &c)| c == 0 || i % 5 == 0));
    // Drawing follows the weights: a row with 90% of the weight gets most draws.
    let mut w = vec![0.1 / 49.0; 50];
    w[17] = 0.9;
    let counts = draw_counts(&w, &mut Rng::new(4));
    assert!((38..=50).contains(&counts[17]), "{}", counts[17]);
}

#[test]
fn the_same_ensemble_for_any_number_of_threads_and_sample_weights_count() {
    let (x, y) = problem(300, 8, 0.2);
    let params = BoostingParams { n_estimators: 6, seed: 3, ..BoostingParams::new(lrt(Some(2))) };
    let one = with_threads(Some(1), || fit(&x, &y, None, params.clone())).unwrap();
    let two = with_threads(Some(2), || fit(&x, &y, None, params.clone())).unwrap();
    assert_eq!(one, two);
    // Zero-weight rows are never drawn: the ensemble differs once half the rows weigh nothing.
    let w: Vec<f64> = (0..300).map(|i| (i % 2) as f64).collect();
    let weighted = fit(&x, &y, Some(&w), params);
    assert_ne!(weighted.members, one.members);
}

#[test]
fn bad_parameters_and_inconsistent_models_are_refused() {
    let (x, y) = problem(20, 9, 0.2);
    let xv = FeatureMatrixView::new(&x, 20, 2).unwrap();
    let yv = RankMatrixView::new(&y, 20, 4).unwrap();
    for params in [
        BoostingParams { n_estimators: 0, ..BoostingParams::new(lrt(None)) },
        BoostingParams { learning_rate: 0.0, ..BoostingParams::new(lrt(None)) },
        BoostingParams { learning_rate: f64::NAN, ..BoostingParams::new(lrt(None)) },
        BoostingParams { learning_rate: f64::INFINITY, ..BoostingParams::new(lrt(None)) },
    ] {
        assert!(matches!(Boosted::fit_views(&xv, &yv, None, params), Err(LrankError::InvalidParameter { .. })));
    }
    let model = fit(&x, &y, None, BoostingParams { n_estimators: 3, ..BoostingParams::new(lrt(Some(1))) });
    assert_eq!(model.check(), Ok(()));
    let mut broken = model.clone();
    broken.member_weights.push(1.0);
    assert!(broken.check().is_err());
    let mut broken = model.clone();
    broken.member_weights[0] = f64::NAN;
    assert!(broken.check().is_err());
    let mut broken = model;
    broken.members.clear();
    broken.member_weights.clear();
    broken.round_losses.clear();
    assert!(broken.check().is_err());
}

#[test]
fn rows_beyond_a_block_are_predicted_as_the_first_block_is() {
    // Rows go in blocks of MEMBER_BLOCK_VALUES / (members x labels): every member's rankings of
    // all rows at once took members x rows x labels numbers.
    let (x, y) = problem(150, 2, 0.2);
    let model = fit(&x, &y, None, BoostingParams { n_estimators: 7, ..BoostingParams::new(lrt(Some(1))) });
    let (b, m) = (model.members.len(), 4);
    let block = MEMBER_BLOCK_VALUES / (b * m);
    let n = block + 100;
    let (xt, _) = problem(n, 3, 0.2);
    let xv = FeatureMatrixView::new(&xt, n, 2).unwrap();
    let (pred, per) = (model.predict_ranks(&xv).unwrap(), model.member_ranks(&xv).unwrap().unwrap());
    for i in (0..40).chain(block - 20..block + 20).chain(n - 20..n) {
        let rows: Vec<i32> = (0..b).flat_map(|k| per[(k * n + i) * m..(k * n + i + 1) * m].to_vec()).collect();
        let expect = model.params.aggregator.aggregate(&RankMatrixView::new(&rows, b, m).unwrap(), Some(&model.member_weights));
        assert_eq!(&pred[i * m..(i + 1) * m], &expect.unwrap()[..], "row {i}");
    }
}
