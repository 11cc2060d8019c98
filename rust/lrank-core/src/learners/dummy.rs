//! The baseline: predicts, for every row, one consensus ranking of all training rankings
//! (weighted by the sample weights), whatever the features. A learner that does not beat it has
//! learned nothing from the features; on data sets whose rankings mostly agree it is already
//! hard to beat. Its consensus is one of the core's aggregators (Borda by default); with a
//! consensus with ties (`Aggregator::Buckets`) it is the partial-label-ranking baseline, and
//! learns from tied training rankings as that consensus does (Mallows refuses them).

use crate::consensus::Aggregator;
use crate::data::features::FeatureMatrixView;
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::{complete_bucket_order, complete_ranking};
use crate::learner::{Header, Learner, Outputs, Params, Prediction};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DummyParams {
    pub aggregator: Aggregator,
    /// Unused (the baseline is deterministic); kept so that every learner takes a seed.
    pub seed: u64,
}

impl Default for DummyParams {
    fn default() -> Self {
        DummyParams { aggregator: Aggregator::Borda, seed: 0 }
    }
}

impl Params for DummyParams {
    fn validate(&self) -> Result<()> {
        self.aggregator.validate()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
    fn tie_refusal(&self) -> Option<&'static str> {
        self.aggregator.tie_refusal()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DummyModel {
    pub params: DummyParams,
    pub n_features: usize,
    pub n_labels: usize,
    /// The consensus of the training rankings, predicted for every row.
    pub ranking: Vec<i32>,
}

impl Learner for DummyModel {
    type Params = DummyParams;

    fn fit(params: DummyParams, data: &TrainingSet<'_>) -> Result<Self> {
        let ranking = params.aggregator.aggregate(&data.y, Some(&data.weights))?;
        Ok(DummyModel { params, n_features: data.n_features(), n_labels: data.n_labels(), ranking })
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> DummyParams {
        self.params.clone()
    }

    fn predict(&self, x: &FeatureMatrixView<'_>, _outputs: Outputs) -> Result<Prediction> {
        Ok(Prediction::ranks(self.ranking.repeat(x.n_rows())))
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({"ranking": self.ranking})
    }

    fn check(&self) -> std::result::Result<(), String> {
        match self.params.aggregator {
            Aggregator::Buckets(_) => complete_bucket_order(&self.ranking, self.n_labels, "the consensus bucket order"),
            _ => complete_ranking(&self.ranking, self.n_labels, "the consensus ranking"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::ranking::RankMatrixView;
    use crate::learner::fit_checked;

    #[test]
    fn predicts_the_weighted_consensus_of_the_training_rankings_for_every_row() {
        // 0>1>2 twice, 2>1>0 once with weight 3: Borda 0: 3+3+1*3=9, 1: 2+2+2*3=10, 2: 1+1+3*3=11.
        let x = [0.0, 1.0, 2.0];
        let y = [1, 2, 3, 1, 2, 3, 3, 2, 1];
        let (xv, yv) = (FeatureMatrixView::new(&x, 3, 1).unwrap(), RankMatrixView::new(&y, 3, 3).unwrap());
        let model = fit_checked::<DummyModel>(DummyParams::default(), xv, yv, Some(&[1.0, 1.0, 3.0])).unwrap();
        assert_eq!(model.ranking, vec![3, 2, 1]);
        let xt = [5.0, -1.0];
        assert_eq!(model.predict_ranks(&FeatureMatrixView::new(&xt, 2, 1).unwrap()).unwrap(), vec![3, 2, 1, 3, 2, 1]);
        let unweighted = fit_checked::<DummyModel>(DummyParams::default(), xv, yv, None).unwrap();
        assert_eq!(unweighted.ranking, vec![1, 2, 3]);
        for aggregator in [Aggregator::Copeland, Aggregator::Kemeny, Aggregator::Mallows] {
            let p = DummyParams { aggregator, seed: 0 };
            assert_eq!(fit_checked::<DummyModel>(p, xv, yv, None).unwrap().ranking, vec![1, 2, 3], "{aggregator:?}");
        }
        assert!(model.check().is_ok());
        assert!(DummyModel { ranking: vec![1, 1, 2], ..model }.check().is_err());
    }
}
