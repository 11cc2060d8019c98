//! Bagging (Breiman 1996) of any lrank learner, as Aledo, Gámez & Molina bag label ranking
//! trees: `n_estimators` members, each fitted on a bootstrap sample of the training rows (drawn
//! with replacement, `max_samples` times n of them; a row drawn c times weighs c times its
//! sample weight), and a prediction that is the consensus of the members' rankings by one of
//! the core's aggregators (Borda by default).
//!
//! Member b draws its sample from the stream `child_seed(seed, b)` and is fitted with the
//! base learner's parameters and that stream's next number as its seed; members are fitted in
//! parallel and kept in order, so the ensemble does not depend on the thread count.

use crate::aggregation::{Aggregator, BordaAccumulator};
use crate::error::{invalid, LrankError, Result};
use crate::features::{check_n_features, FeatureMatrixView};
use crate::learner::LearnerParams;
use crate::model_io::Model;
use crate::ranking::RankMatrixView;
use crate::rng::{child_seed, Rng};
use crate::training::checked_training_set;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaggingParams {
    pub base: Box<LearnerParams>,
    pub n_estimators: usize,
    pub aggregator: Aggregator,
    /// Bootstrap sample size as a share of the training rows, in (0, 1].
    pub max_samples: f64,
    pub seed: u64,
}

impl BaggingParams {
    pub fn new(base: LearnerParams) -> Self {
        BaggingParams { base: Box::new(base), n_estimators: 50, aggregator: Aggregator::Borda, max_samples: 1.0, seed: 0 }
    }

    fn validate(&self) -> Result<()> {
        if self.n_estimators == 0 {
            return Err(LrankError::InvalidParameter { name: "n_estimators", reason: "must be at least 1".into() });
        }
        if !(self.max_samples > 0.0 && self.max_samples <= 1.0) {
            return Err(LrankError::InvalidParameter {
                name: "max_samples",
                reason: format!("must lie in (0, 1], got {}", self.max_samples),
            });
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaggingModel {
    pub params: BaggingParams,
    pub n_features: usize,
    pub n_labels: usize,
    pub members: Vec<Model>,
}

impl BaggingModel {
    pub fn fit(
        x: &FeatureMatrixView<'_>,
        y: &RankMatrixView<'_>,
        sample_weight: Option<&[f64]>,
        params: BaggingParams,
    ) -> Result<Self> {
        params.validate()?;
        let weights = checked_training_set(x, y, sample_weight)?;
        let (n, d, m) = (x.n_rows(), x.n_features(), y.n_labels());
        let draws = ((params.max_samples * n as f64).round() as usize).max(1);
        let members = (0..params.n_estimators)
            .into_par_iter()
            .map(|b| {
                let mut rng = Rng::new(child_seed(params.seed, b as u64));
                let mut counts = vec![0u32; n];
                for _ in 0..draws {
                    counts[rng.below(n)] += 1;
                }
                let rows: Vec<usize> = (0..n).filter(|&i| counts[i] > 0 && weights[i] > 0.0).collect();
                if rows.is_empty() {
                    return Err(invalid("a bootstrap sample holds no row with positive weight"));
                }
                let xs: Vec<f64> = rows.iter().flat_map(|&i| x.row(i).iter().copied()).collect();
                let ys: Vec<i32> = rows.iter().flat_map(|&i| y.row(i).iter().copied()).collect();
                let ws: Vec<f64> = rows.iter().map(|&i| counts[i] as f64 * weights[i]).collect();
                let xv = FeatureMatrixView::new(&xs, rows.len(), d)?.with_kinds(x.kinds())?;
                let yv = RankMatrixView::from_valid(&ys, rows.len(), m);
                params.base.with_seed(rng.next_u64()).fit(&xv, &yv, Some(&ws))
            })
            .collect::<Result<Vec<Model>>>()?;
        Ok(BaggingModel { params, n_features: d, n_labels: m, members })
    }

    fn check_x(&self, x: &FeatureMatrixView<'_>) -> Result<()> {
        check_n_features(x, self.n_features)?;
        Ok(())
    }

    /// Each member's rank matrix (members x n x m, row-major).
    pub fn predict_per_member(&self, x: &FeatureMatrixView<'_>) -> Result<Vec<i32>> {
        self.check_x(x)?;
        let mut out = Vec::with_capacity(self.members.len() * x.n_rows() * self.n_labels);
        for member in &self.members {
            out.extend(member.predict(x)?);
        }
        Ok(out)
    }

    /// The consensus of the members' rankings for every row.
    pub fn predict(&self, x: &FeatureMatrixView<'_>) -> Result<Vec<i32>> {
        let per_member = self.predict_per_member(x)?;
        let (n, m, b) = (x.n_rows(), self.n_labels, self.members.len());
        let mut out = vec![0i32; n * m];
        out.par_chunks_mut(m).enumerate().try_for_each_init(
            || vec![0i32; b * m],
            |rows, (i, dst)| -> Result<()> {
                for k in 0..b {
                    rows[k * m..(k + 1) * m].copy_from_slice(&per_member[(k * n + i) * m..(k * n + i + 1) * m]);
                }
                let view = RankMatrixView::from_valid(rows, b, m);
                let consensus = match self.params.aggregator {
                    // The common case, without the general dispatch's allocations.
                    Aggregator::Borda => {
                        let mut acc = BordaAccumulator::new(m);
                        view.rows().for_each(|r| acc.add(r, 1.0));
                        acc.ranking()
                    }
                    other => other.aggregate(&view, None)?,
                };
                dst.copy_from_slice(&consensus);
                Ok(())
            },
        )?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
