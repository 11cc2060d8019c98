//! The inner cross-validation of the tuned modes (LWRF's depth, GBLR's depth and learning rate,
//! RPC's regularisation): the rows dealt into folds by a seeded shuffle, and each fold's
//! training part copied out as a training set of its own.

use crate::data::features::FeatureMatrixView;
use crate::data::ranking::RankMatrixView;
use crate::data::training::TrainingSet;
use crate::error::{invalid, Result};
use crate::metrics::distance::kendall_tau;
use crate::rng::Rng;

/// Which inner fold each row is held out in.
pub struct InnerFolds {
    fold_of: Vec<usize>,
    k: usize,
}

impl InnerFolds {
    /// Rows 0..n shuffled by `seed` and dealt round-robin into `k` folds (sizes differ by at
    /// most one).
    pub fn deal(n: usize, k: usize, seed: u64) -> Self {
        let mut order: Vec<usize> = (0..n).collect();
        Rng::new(seed).shuffle(&mut order);
        let mut fold_of = vec![0; n];
        for (pos, &i) in order.iter().enumerate() {
            fold_of[i] = pos % k;
        }
        InnerFolds { fold_of, k }
    }

    /// [`deal`](Self::deal) for a tuned mode, refusing fewer than two rows per fold; `learner`
    /// names the tuned mode in the error.
    pub fn for_tuning(n: usize, k: usize, seed: u64, learner: &str) -> Result<Self> {
        if n < 2 * k {
            return Err(invalid(format!(
                "tuning {learner} by {k}-fold cross-validation needs at least {} training rows, got {n}",
                2 * k
            )));
        }
        Ok(InnerFolds::deal(n, k, seed))
    }

    pub fn k(&self) -> usize {
        self.k
    }

    /// Fold `fold`'s rows: those trained on and those held out, copied out of the data.
    pub fn split(&self, fold: usize, x: &FeatureMatrixView<'_>, y: &RankMatrixView<'_>, weights: &[f64]) -> InnerSplit {
        let n = self.fold_of.len();
        let train: Vec<usize> = (0..n).filter(|&i| self.fold_of[i] != fold).collect();
        let test: Vec<usize> = (0..n).filter(|&i| self.fold_of[i] == fold).collect();
        InnerSplit {
            train_x: train.iter().flat_map(|&i| x.row(i).iter().copied()).collect(),
            train_y: train.iter().flat_map(|&i| y.row(i).iter().copied()).collect(),
            train_weights: train.iter().map(|&i| weights[i]).collect(),
            test_x: test.iter().flat_map(|&i| x.row(i).iter().copied()).collect(),
            n_train: train.len(),
            test,
            n_features: x.n_features(),
            n_labels: y.n_labels(),
        }
    }
}

/// One inner fold: its training rows (owned copies) and the indices of its held-out rows.
pub struct InnerSplit {
    train_x: Vec<f64>,
    train_y: Vec<i32>,
    pub train_weights: Vec<f64>,
    test_x: Vec<f64>,
    n_train: usize,
    /// The held-out rows' indices in the data the folds were dealt from.
    pub test: Vec<usize>,
    n_features: usize,
    n_labels: usize,
}

impl InnerSplit {
    /// The training rows' features, with the feature kinds of the whole data.
    pub fn train_x<'a>(&'a self, like: &FeatureMatrixView<'a>) -> Result<FeatureMatrixView<'a>> {
        FeatureMatrixView::new(&self.train_x, self.n_train, self.n_features)?.with_kinds(like.kinds())
    }

    pub fn train_y(&self) -> RankMatrixView<'_> {
        RankMatrixView::from_valid(&self.train_y, self.n_train, self.n_labels)
    }

    /// The training rows as a training set; `learner` names the tuned mode in the error when
    /// every training row of the fold weighs zero.
    pub fn training_set<'a>(&'a self, like: &FeatureMatrixView<'a>, learner: &str) -> Result<TrainingSet<'a>> {
        if self.train_weights.iter().all(|&w| w == 0.0) {
            return Err(invalid(format!("tuning {learner}: an inner training fold has only rows of weight zero")));
        }
        Ok(TrainingSet::from_checked(self.train_x(like)?, self.train_y(), self.train_weights.clone()))
    }

    /// The held-out rows' features.
    pub fn test_x(&self) -> Result<FeatureMatrixView<'_>> {
        FeatureMatrixView::new(&self.test_x, self.test.len(), self.n_features)
    }

    /// Adds the held-out rows' Kendall taus against `y` (the data the folds were dealt from) to
    /// `sum` and counts them, row by row (a row whose tau is undefined, with fewer than two
    /// labels, counts for nothing).
    pub fn add_taus(&self, y: &RankMatrixView<'_>, predicted: &[i32], (sum, count): &mut (f64, usize)) {
        let m = self.n_labels;
        for (t, &i) in self.test.iter().enumerate() {
            let tau = kendall_tau(y.row(i), &predicted[t * m..(t + 1) * m]);
            if tau.is_finite() {
                *sum += tau;
                *count += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_held_out_exactly_once_in_folds_of_near_equal_size() {
        let folds = InnerFolds::deal(23, 5, 9);
        let x: Vec<f64> = (0..23).map(|i| i as f64).collect();
        let y: Vec<i32> = (0..23).flat_map(|_| [1, 2]).collect();
        let (xv, yv) = (FeatureMatrixView::new(&x, 23, 1).unwrap(), RankMatrixView::new(&y, 23, 2).unwrap());
        let mut held = [0; 23];
        for fold in 0..folds.k() {
            let split = folds.split(fold, &xv, &yv, &[1.0; 23]);
            assert!((4..=5).contains(&split.test.len()), "{}", split.test.len());
            assert_eq!(split.n_train + split.test.len(), 23);
            for &i in &split.test {
                held[i] += 1;
            }
            // The training rows are the others, copied in order.
            let train: Vec<f64> = (0..23).filter(|i| !split.test.contains(i)).map(|i| i as f64).collect();
            assert_eq!(split.train_x(&xv).unwrap().row(0)[0], train[0]);
            assert_eq!(split.test_x().unwrap().row(0)[0], split.test[0] as f64);
        }
        assert!(held.iter().all(|&h| h == 1));
        // The same seed deals the same folds; another seed others.
        assert_eq!(InnerFolds::deal(23, 5, 9).fold_of, folds.fold_of);
        assert_ne!(InnerFolds::deal(23, 5, 10).fold_of, folds.fold_of);
        // A tuned mode needs two rows per fold.
        assert_eq!(InnerFolds::for_tuning(10, 5, 9, "X").unwrap().fold_of.len(), 10);
        let err = InnerFolds::for_tuning(9, 5, 9, "X").err().unwrap().to_string();
        assert!(err.contains("tuning X by 5-fold cross-validation needs at least 10 training rows, got 9"), "{err}");
    }

    #[test]
    fn a_fold_of_weightless_rows_is_refused_and_undefined_taus_do_not_count() {
        let x = [0.0, 1.0, 2.0, 3.0];
        let y = [1, 2, 2, 1, 1, 0, 1, 2];
        let (xv, yv) = (FeatureMatrixView::new(&x, 4, 1).unwrap(), RankMatrixView::new(&y, 4, 2).unwrap());
        let folds = InnerFolds::deal(4, 2, 1);
        let split = folds.split(0, &xv, &yv, &[0.0; 4]);
        let err = split.training_set(&xv, "RPC").unwrap_err().to_string();
        assert!(err.contains("tuning RPC") && err.contains("weight zero"), "{err}");
        // Predict [1, 2] for every held-out row: tau +1 or -1 where both labels are ranked.
        let predicted: Vec<i32> = split.test.iter().flat_map(|_| [1, 2]).collect();
        // The taus are added to what the accumulator holds.
        let mut acc = (0.5, 1);
        split.add_taus(&yv, &predicted, &mut acc);
        let expected: Vec<f64> =
            split.test.iter().filter(|&&i| i != 2).map(|&i| if i == 0 || i == 3 { 1.0 } else { -1.0 }).collect();
        assert_eq!(acc, (0.5 + expected.iter().sum::<f64>(), 1 + expected.len()));
    }
}
