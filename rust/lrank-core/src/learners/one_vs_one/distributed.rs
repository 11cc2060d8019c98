//! The one-versus-one forest grown exactly on rows split into parts (a cluster's partitions):
//! bit for bit the model [`PairwiseModel`] fits on all the rows, in order, with `node_seeds`. A
//! forest per label pair, each grown level by level as LR-RF's is (its statistics: the weights of
//! "a before b" and "b before a", whole numbers), all pairs in the same rounds: a round's plan is
//! every pair's own ([`PairPlans`]), and a part's output their outputs one after the other.
//!
//! Refused: missing feature values, incomplete training rankings (a pair's forest grows on the
//! rows that hold both its labels, a bootstrap of their own), ties, sample weights, one tree per
//! pair without bootstrap (the OVO tree), the exact search.

use super::{PairClassifier, PairwiseModel, PairwiseParams, CLASS_EPSILON};
use crate::data::pairs::label_pairs;
use crate::data::ranking::{has_ties, RankMatrixView};
use crate::error::{invalid, Result};
use crate::learner::Params;
use crate::rng::child_seed;
use crate::tree::levelwise::{self, parts_data, records, LevelGrower, LevelPlan, Medians, PartSummary, SummedLeaf};
use crate::tree::node_weight;
use crate::tree::{BinLayout, ClassEntropy, FlatTrees};
use serde::{Deserialize, Serialize};

/// What every part needs to sum its rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OvoSetup {
    pub layout: BinLayout,
    pub n_labels: usize,
    pub n_rows: u64,
}

/// A round's plan: each label pair's (its index in pair order, its forest's plan).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairPlans(pub Vec<(u32, LevelPlan)>);

/// A leaf's statistic: its rows' weight with a before b; its model that share.
pub(crate) struct OnesLeaf<'a> {
    classes: &'a [u32],
}

impl SummedLeaf for OnesLeaf<'_> {
    type Leaf = f64;
    fn n_leaf_stats(&self) -> usize {
        1
    }
    fn add_leaf_stats(&self, sample: u32, weight: f64, out: &mut [f64]) {
        if self.classes[sample as usize] == 1 {
            out[0] += weight;
        }
    }
    fn leaf_from_sums(&self, weight: f64, sums: &[f64]) -> f64 {
        if weight > 0.0 {
            sums[0] / weight
        } else {
            0.5
        }
    }
}

/// A part's sums and row records for a round's plans, pair after pair (each pair's records
/// numbered after the previous pairs'): its rows start at `start`.
pub fn part_sums(
    setup: &OvoSetup,
    plans: &PairPlans,
    codes: &[u8],
    y: &RankMatrixView<'_>,
    start: usize,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let n = y.n_rows();
    levelwise::check_part(&setup.layout, setup.n_labels, codes, y)?;
    if y.rows().any(|r| r.contains(&0) || has_ties(r)) {
        return Err(invalid("a part's ranking misses a label or ties labels (the summaries said none did)"));
    }
    let pairs = label_pairs(setup.n_labels);
    let (d, ones) = (setup.layout.n_features(), vec![1.0; n]);
    let (mut sums, mut rows, mut slots) = (Vec::new(), Vec::new(), 0u64);
    for (p, plan) in &plans.0 {
        let &(a, b) = pairs.get(*p as usize).ok_or_else(|| invalid(format!("pair {p} is not one of the labels'")))?;
        let classes: Vec<u32> = y.rows().map(|r| (r[a] < r[b]) as u32).collect();
        let criterion = ClassEntropy::for_rows(&classes, 2, CLASS_EPSILON, setup.n_rows as usize);
        let (s, mut r) =
            levelwise::part_sums(plan, &setup.layout, codes, start, &ones, &criterion, &OnesLeaf { classes: &classes })?;
        for (_, span) in records(&r, d, 1)? {
            r[span.start] += slots as f64;
        }
        sums.extend(s);
        rows.extend(r);
        slots += plan.row_slots;
    }
    Ok((sums, rows))
}

/// The driver of an exact distributed one-versus-one forest.
pub struct ExactOvo {
    params: PairwiseParams,
    setup: OvoSetup,
    growers: Vec<LevelGrower<ClassEntropy<'static>, OnesLeaf<'static>>>,
    medians: Medians,
    /// The last round's pairs: (pair, its sums' length, its row slots).
    asked: Vec<(usize, usize, u64)>,
}

impl ExactOvo {
    /// The driver for `params` (with `node_seeds` set: the model grown is that one) from every
    /// part's summary, in row order; `budget` bounds a round's histogram numbers of all pairs.
    pub fn new(mut params: PairwiseParams, summaries: &[PartSummary], n_labels: usize, budget: usize) -> Result<Self> {
        params.node_seeds = true;
        params.validate()?;
        let shape = levelwise::forest_shape!(params, params.min_samples_split);
        let max_bins = shape.bins()?;
        if params.n_estimators == 1 && !params.bootstrap {
            return Err(invalid(
                "one tree per pair without bootstrap is the OVO tree, which the exact distributed forest does not grow: use \
                 classifier=\"forest\"",
            ));
        }
        let data = parts_data(summaries, max_bins)?;
        // The parts' rows weigh 1 each: a share of the training weight is one of the rows.
        let shape =
            levelwise::ForestShape { min_weight_split: node_weight(shape.min_weight_split, data.n_rows as f64, 1.0), ..shape };
        let tied = summaries.iter().any(|s| s.rankings.as_ref().is_none_or(|all| all.iter().any(|r| has_ties(r))));
        if data.incomplete || tied {
            return Err(invalid(
                "a training ranking misses a label or ties labels (or there were too many distinct rankings to tell): the \
                 exact distributed OVO forest needs complete rankings without ties (use the partition forest, exact=False)",
            ));
        }
        let setup = OvoSetup { layout: data.layout.clone(), n_labels, n_rows: data.n_rows as u64 };
        let n_pairs = label_pairs(n_labels).len();
        let growers = (0..n_pairs)
            .map(|p| {
                let (grow, sampling) = shape.growth(data.layout.n_features(), child_seed(params.seed, p as u64));
                let criterion = ClassEntropy::for_rows(&[], 2, CLASS_EPSILON, data.n_rows);
                let (layout, kinds) = (data.layout.clone(), data.kinds.clone());
                let pair_budget = (budget / n_pairs.max(1)).max(1);
                LevelGrower::new(criterion, OnesLeaf { classes: &[] }, layout, kinds, grow, sampling, data.n_rows, pair_budget)
            })
            .collect::<Result<_>>()?;
        Ok(ExactOvo { params, setup, growers, medians: Medians::default(), asked: Vec::new() })
    }

    /// What each part needs.
    pub fn setup(&self) -> &OvoSetup {
        &self.setup
    }

    /// See [`Medians::bins`].
    pub fn median_bins(&mut self, counts: &[f64]) -> Result<Vec<u8>> {
        self.medians.bins(&self.setup.layout, self.setup.n_rows as usize, counts)
    }

    /// See [`Medians::set`].
    pub fn set_medians(&mut self, parts: &[Vec<Vec<(f64, u64)>>]) -> Result<()> {
        self.medians.set(self.setup.layout.n_features(), parts)
    }

    /// The next round's plans (every pair with open nodes), or `None` when every forest is grown.
    pub fn plan(&mut self) -> Option<PairPlans> {
        self.asked.clear();
        let mut plans = Vec::new();
        for (p, grower) in self.growers.iter_mut().enumerate() {
            if let Some(plan) = grower.plan() {
                self.asked.push((p, plan.len as usize, plan.row_slots));
                plans.push((p as u32, plan));
            }
        }
        (!plans.is_empty()).then_some(PairPlans(plans))
    }

    /// Trees fully grown so far, over all pairs.
    pub fn trees_grown(&self) -> usize {
        self.growers.iter().map(LevelGrower::trees_grown).sum()
    }

    /// Every part's sums for the last plans, added, and their row records, joined.
    pub fn absorb(&mut self, sums: &[f64], rows: &[f64]) -> Result<()> {
        let len: usize = self.asked.iter().map(|&(_, l, _)| l).sum();
        if sums.len() != len {
            return Err(invalid(format!("the parts' sums have {} numbers, the round asked for {len}", sums.len())));
        }
        // Each pair's records, renumbered from its own first slot.
        let d = self.setup.layout.n_features();
        let mut per_pair: Vec<Vec<f64>> = vec![Vec::new(); self.asked.len()];
        let starts: Vec<u64> = self.asked.iter().scan(0, |acc, &(_, _, s)| Some(std::mem::replace(acc, *acc + s))).collect();
        for (slot, span) in records(rows, d, 1)? {
            let k = starts.partition_point(|&s| s as f64 <= slot).checked_sub(1);
            let k = k.filter(|&k| slot.fract() == 0.0 && slot < (starts[k] + self.asked[k].2) as f64);
            let k = k.ok_or_else(|| invalid(format!("the parts' rows: slot {slot} is not one the round asked for")))?;
            let record = &mut per_pair[k];
            record.push(slot - starts[k] as f64);
            record.extend_from_slice(&rows[span.start + 1..span.end]);
        }
        // Check every pair before changing any.
        let mut at = 0;
        let mut parts = Vec::with_capacity(self.asked.len());
        for (k, &(p, l, _)) in self.asked.iter().enumerate() {
            parts.push((p, &sums[at..at + l], std::mem::take(&mut per_pair[k])));
            at += l;
        }
        for (p, s, r) in parts {
            self.growers[p].absorb(s, &r)?;
        }
        self.asked.clear();
        Ok(())
    }

    /// See [`LevelGrower::set_rows_limit`].
    pub fn set_rows_limit(&mut self, samples: usize) {
        self.growers.iter_mut().for_each(|g| g.set_rows_limit(samples));
    }

    /// Whether [`Self::finish`] would give the model: the medians set, every tree grown.
    pub fn ready(&self) -> Result<()> {
        self.medians.values()?;
        let all = self.params.n_estimators * self.growers.len();
        if self.trees_grown() < all {
            return Err(invalid(format!("{} of {all} trees are grown: run the rounds first", self.trees_grown())));
        }
        Ok(())
    }

    /// The model, once the medians are set and every tree is grown.
    pub fn finish(self) -> Result<PairwiseModel> {
        self.ready()?;
        let fill_values = self.medians.values()?.to_vec();
        let pairs = label_pairs(self.setup.n_labels)
            .into_iter()
            .zip(self.growers)
            .map(|((a, b), grower)| Ok(PairClassifier { a: a as u32, b: b as u32, trees: grower.finish()? }))
            .collect::<Result<_>>()?;
        Ok(PairwiseModel {
            params: self.params,
            n_features: self.setup.layout.n_features(),
            n_labels: self.setup.n_labels,
            fill_values,
            pairs,
            flat: FlatTrees::default(),
        })
    }
}
