//! A request to stop ends a fit or a prediction with `Interrupted`, and once withdrawn leaves no
//! trace. (Its own test binary: the request is process-wide and would stop other tests' fits.)

use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::interrupt;
use lrank_core::learner::{predict_checked, Outputs};
use lrank_core::learners::labelwise::LabelwiseParams;
use lrank_core::learners::neighbors::InstanceBasedParams;
use lrank_core::learners::random_forest::RandomForestParams;
use lrank_core::registry::{fit, LearnerParams};
use lrank_core::rng::Rng;
use lrank_core::LrankError;

fn problem(n: usize) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(1);
    let x: Vec<f64> = (0..n * 3).map(|_| rng.uniform()).collect();
    let y = (0..n).flat_map(|i| if x[3 * i] < 0.5 { [1, 2, 3] } else { [3, 1, 2] }).collect();
    (x, y)
}

fn a_request_stops_fits_and_predictions_and_clearing_it_leaves_no_trace() {
    let (x, y) = problem(400);
    let (xv, yv) = (FeatureMatrixView::new(&x, 400, 3).unwrap(), RankMatrixView::new(&y, 400, 3).unwrap());
    let learners = [
        LearnerParams::RandomForest(RandomForestParams { n_estimators: 5, ..Default::default() }),
        LearnerParams::Labelwise(LabelwiseParams { n_estimators: 5, ..LabelwiseParams::forest() }),
        LearnerParams::InstanceBased(InstanceBasedParams::default()),
    ];
    for params in learners {
        let before = fit(params.clone(), xv, yv, None).unwrap();
        interrupt::request();
        assert_eq!(fit(params.clone(), xv, yv, None).unwrap_err(), LrankError::Interrupted, "{}", params.kind());
        assert_eq!(predict_checked(&before, &xv, Outputs::RANKS).unwrap_err(), LrankError::Interrupted);
        interrupt::clear();
        assert_eq!(
            fit(params.clone(), xv, yv, None).unwrap(),
            before,
            "{}: not the same after a withdrawn request",
            params.kind()
        );
    }
}

/// Both checks in one test: the request is process-wide, tests run in parallel.
#[test]
fn requests_before_and_during_work() {
    a_request_stops_fits_and_predictions_and_clearing_it_leaves_no_trace();
    a_request_during_a_fit_ends_it_early();
}

fn a_request_during_a_fit_ends_it_early() {
    let (x, y) = problem(20_000);
    let (xv, yv) = (FeatureMatrixView::new(&x, 20_000, 3).unwrap(), RankMatrixView::new(&y, 20_000, 3).unwrap());
    // Enough trees that the fit is still growing when the request comes, however fast the machine.
    let params = LearnerParams::Labelwise(LabelwiseParams { n_estimators: 100_000, ..LabelwiseParams::forest() });
    let stopper = std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_millis(200));
        interrupt::request();
    });
    assert_eq!(fit(params, xv, yv, None).unwrap_err(), LrankError::Interrupted);
    stopper.join().unwrap();
    interrupt::clear();
}
