//! LR-RF grown exactly on rows split into parts (a cluster's partitions): bit for bit the forest
//! [`RandomForestModel`] grows on all the rows, in order, with `node_seeds`, built by a driver
//! ([`ExactForest`]) from what each part sums ([`crate::tree::levelwise`]). Each step takes and
//! gives plain data, so any cluster can run it (`lrank.dask` does):
//! 1. each part: [`summarise_part`] (per feature its distinct values, or those of its rows the
//!    bins are cut from; its rankings' classes);
//! 2. the driver: [`ExactForest::new`] from every summary, in row order; [`ExactForest::setup`]
//!    goes to each part;
//! 3. each part: [`part_codes`], its rows' bins, once;
//! 4. the training lower medians (a model fills missing values with them at prediction): each
//!    part's [`part_bin_counts`] added, to [`ExactForest::median_bins`]; each part's
//!    [`part_values_in_bins`], to [`ExactForest::set_medians`];
//! 5. rounds until [`ExactForest::plan`] has none: each part's [`part_sums`], added, to
//!    [`ExactForest::absorb`];
//! 6. [`ExactForest::finish`]: the model.
//!
//! Refused: missing feature values in the training data (they would be filled with the lower
//! median of all rows before binning), sample weights, the leaf-missing protocol (its leaves keep
//! their rows), a nominal feature with more categories than bins, the exact search (`max_bins`
//! None).

use super::{classes_of, ClassMode, RandomForestModel, RandomForestParams, RankingLeaf};
use crate::consensus::BordaAccumulator;
use crate::data::features::{FeatureKind, FeatureMatrixView};
use crate::data::ranking::{ranking_from_scores, RankMatrixView};
use crate::error::{invalid, Result};
use crate::learner::Params;
use crate::tree::levelwise::{self, LevelGrower, LevelPlan, SummedLeaf};
use crate::tree::{
    bin_sample_rows, feature_edges, BinLayout, ClassEntropy, FlatTrees, ForestSampling, GrowParams, PairwiseEntropy,
    ThresholdRule, Tree, BIN_SAMPLE_ROWS,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Histogram numbers one round asks of a part, at most (unless one node needs more).
const ROUND_NUMBERS: usize = 1 << 22;
/// Distinct rankings a part may report (a class each in the ranking class mode).
const MAX_RANKINGS: usize = 1 << 16;

/// The bytes a step's output travels as between driver and parts (postcard).
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(value).expect("plain data encodes")
}

/// A step's output from its bytes ([`encode`]); `what` names it in the error.
pub fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T> {
    postcard::from_bytes(bytes).map_err(|e| invalid(format!("{what}: not the bytes this version of lrank writes ({e})")))
}

/// What one part tells the driver before the trees grow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartSummary {
    pub rows: u64,
    /// Per feature: its distinct values when at most `max_bins`, ascending.
    pub few: Vec<Option<Vec<f64>>>,
    /// Per numeric feature: the values of the rows the bins are cut from, with their counts.
    pub sampled: Vec<Vec<(f64, u64)>>,
    pub kinds: Vec<FeatureKind>,
    /// Some ranking misses a label.
    pub incomplete: bool,
    /// The distinct rankings, ascending (`None`: more than [`MAX_RANKINGS`]).
    pub rankings: Option<Vec<Vec<i32>>>,
}

/// One part's summary: rows `start..start + x.n_rows()` of `n_rows`.
pub fn summarise_part(
    x: &FeatureMatrixView<'_>,
    y: &RankMatrixView<'_>,
    start: usize,
    n_rows: usize,
    max_bins: usize,
) -> Result<PartSummary> {
    let (n, d) = (x.n_rows(), x.n_features());
    if y.n_rows() != n {
        return Err(invalid(format!("the part has {n} rows of features and {} rankings", y.n_rows())));
    }
    if let Some(f) = (0..d).find(|&f| (0..n).any(|i| x.get(i, f).is_nan())) {
        return Err(invalid(format!(
            "feature {f} has missing values: the exact distributed forest needs complete features (impute them, or use \
             the partition forest, exact=False)"
        )));
    }
    let sampled_rows: Vec<usize> = bin_sample_rows(n_rows, start, start + n, BIN_SAMPLE_ROWS).map(|i| i - start).collect();
    let (mut few, mut sampled) = (Vec::with_capacity(d), Vec::with_capacity(d));
    for f in 0..d {
        let mut distinct = BTreeSet::new();
        for i in 0..n {
            distinct.insert(canonical(x.get(i, f)));
            if distinct.len() > max_bins {
                break;
            }
        }
        let is_few = distinct.len() <= max_bins;
        few.push(is_few.then(|| distinct.iter().map(|&k| value_of(k)).collect()));
        // Sampled values even when this part has few: all parts together may have more.
        let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
        if x.kind(f) != FeatureKind::Nominal {
            for &i in &sampled_rows {
                *counts.entry(canonical(x.get(i, f))).or_default() += 1;
            }
        }
        sampled.push(counts.into_iter().map(|(k, c)| (value_of(k), c)).collect());
    }
    let incomplete = y.rows().any(|r| r.contains(&0));
    let mut rankings = BTreeSet::new();
    for r in y.rows() {
        rankings.insert(r);
        if rankings.len() > MAX_RANKINGS {
            break;
        }
    }
    let rankings = (rankings.len() <= MAX_RANKINGS).then(|| rankings.into_iter().map(<[i32]>::to_vec).collect());
    Ok(PartSummary { rows: n as u64, few, sampled, kinds: (0..d).map(|f| x.kind(f)).collect(), incomplete, rankings })
}

/// A value as a key ordered as the values (finite values; -0 as 0); [`value_of`] inverts it.
fn canonical(v: f64) -> u64 {
    let v = v + 0.0;
    let bits = v.to_bits();
    if v.is_sign_negative() {
        !bits
    } else {
        bits | (1 << 63)
    }
}

fn value_of(key: u64) -> f64 {
    if key & (1 << 63) != 0 {
        f64::from_bits(key & !(1 << 63))
    } else {
        f64::from_bits(!key)
    }
}

/// What every part needs to sum its rows: the bins, the class of each ranking, the sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartSetup {
    pub layout: BinLayout,
    pub class_mode: ClassMode,
    /// Ranking class mode: the class of each distinct ranking is its index here.
    pub rankings: Vec<Vec<i32>>,
    pub n_classes: usize,
    pub n_labels: usize,
    pub n_rows: u64,
    pub epsilon: f64,
}

/// LR-RF's leaf statistics: the Borda votes of the leaf's rankings (scaled to whole numbers).
struct BordaSums<'a> {
    y: Option<RankMatrixView<'a>>,
    votes: BordaAccumulator,
}

impl SummedLeaf for BordaSums<'_> {
    type Leaf = RankingLeaf;
    fn n_leaf_stats(&self) -> usize {
        self.votes.scaled_scores().len()
    }
    fn add_leaf_stats(&self, sample: u32, weight: f64, out: &mut [f64]) {
        let y = self.y.as_ref().expect("a part's rankings");
        self.votes.add_into(y.row(sample as usize), weight, out);
    }
    fn leaf_from_sums(&self, weight: f64, sums: &[f64]) -> RankingLeaf {
        RankingLeaf { ranking: ranking_from_scores(sums), weight, members: Vec::new() }
    }
}

impl PartSetup {
    fn borda<'a>(&self, y: Option<RankMatrixView<'a>>) -> BordaSums<'a> {
        BordaSums { y, votes: BordaAccumulator::new(self.n_labels) }
    }

    /// The classes of a part's rankings (ranking and top-label modes).
    fn classes(&self, y: &RankMatrixView<'_>) -> Result<Vec<u32>> {
        match self.class_mode {
            ClassMode::Ranking => y
                .rows()
                .map(|r| {
                    self.rankings
                        .binary_search_by(|known| known.as_slice().cmp(r))
                        .map(|c| c as u32)
                        .map_err(|_| invalid("a ranking the summaries did not list (the parts changed between steps)"))
                })
                .collect(),
            mode => Ok(classes_of(y, mode)?.0),
        }
    }
}

/// A part's bin codes (row-major, rows x features).
pub fn part_codes(setup: &PartSetup, x: &FeatureMatrixView<'_>) -> Result<Vec<u8>> {
    let (n, d) = (x.n_rows(), x.n_features());
    if d != setup.layout.n_features() {
        return Err(invalid(format!("the part has {d} features, the forest {}", setup.layout.n_features())));
    }
    let mut codes = vec![0u8; n * d];
    for f in 0..d {
        let edges = setup.layout.edges(f).ok_or_else(|| invalid(format!("feature {f} is not binned")))?;
        for i in 0..n {
            codes[i * d + f] = edges.code(x.get(i, f));
        }
    }
    Ok(codes)
}

/// A part's rows per bin (all features' bins, as in a histogram): for the medians.
pub fn part_bin_counts(setup: &PartSetup, codes: &[u8]) -> Result<Vec<f64>> {
    let layout = &setup.layout;
    let d = layout.n_features();
    levelwise::check_codes(layout, codes, codes.len() / d.max(1))?;
    let mut counts = vec![0.0; layout.total_bins()];
    for row in codes.chunks_exact(d.max(1)) {
        for (f, &c) in row.iter().enumerate() {
            counts[layout.offset(f) + c as usize] += 1.0;
        }
    }
    Ok(counts)
}

/// A part's values (with counts) of each feature within the bin given for it.
pub fn part_values_in_bins(x: &FeatureMatrixView<'_>, codes: &[u8], bins: &[u8]) -> Result<Vec<Vec<(f64, u64)>>> {
    let d = x.n_features();
    if codes.len() != x.n_rows() * d || bins.len() != d {
        return Err(invalid("the part's codes or the medians' bins do not match its features"));
    }
    Ok((0..d)
        .map(|f| {
            let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
            for i in 0..x.n_rows() {
                if codes[i * d + f] == bins[f] {
                    *counts.entry(x.get(i, f).to_bits()).or_default() += 1;
                }
            }
            counts.into_iter().map(|(v, c)| (f64::from_bits(v), c)).collect()
        })
        .collect())
}

/// One part's sums for a round's plan (see [`levelwise::part_sums`]): its rows start at `start`.
pub fn part_sums(setup: &PartSetup, plan: &LevelPlan, codes: &[u8], y: &RankMatrixView<'_>, start: usize) -> Result<Vec<f64>> {
    let n = y.n_rows();
    if codes.len() != n * setup.layout.n_features() || y.n_labels() != setup.n_labels {
        return Err(invalid("the part's codes or rankings do not match the forest"));
    }
    let weights = vec![1.0; n];
    let leaf = setup.borda(Some(*y));
    let n_rows = setup.n_rows as usize;
    Ok(match setup.class_mode {
        ClassMode::Pairwise => {
            let criterion = PairwiseEntropy::for_rows(y, setup.epsilon, n_rows)?;
            levelwise::part_sums(plan, &setup.layout, codes, start, &weights, &criterion, &leaf)?
        }
        _ => {
            let classes = setup.classes(y)?;
            let criterion = ClassEntropy::for_rows(&classes, setup.n_classes, setup.epsilon, n_rows);
            levelwise::part_sums(plan, &setup.layout, codes, start, &weights, &criterion, &leaf)?
        }
    })
}

enum Grower {
    Classes(LevelGrower<ClassEntropy<'static>, BordaSums<'static>>),
    Pairs(LevelGrower<PairwiseEntropy, BordaSums<'static>>),
}

/// The driver of an exact distributed LR-RF.
pub struct ExactForest {
    params: RandomForestParams,
    setup: PartSetup,
    grower: Grower,
    /// Per feature: the bin of the lower median and its rank within the bin (step 4).
    median_at: Vec<(u8, u64)>,
    fill_values: Option<Vec<f64>>,
}

impl ExactForest {
    /// The driver for `params` (with `node_seeds` set: the forest grown is that one) from every
    /// part's summary, in row order.
    pub fn new(params: RandomForestParams, summaries: &[PartSummary], n_labels: usize) -> Result<Self> {
        Self::with_budget(params, summaries, n_labels, ROUND_NUMBERS)
    }

    /// [`ExactForest::new`] asking at most `budget` histogram numbers of a part per round.
    pub fn with_budget(
        mut params: RandomForestParams,
        summaries: &[PartSummary],
        n_labels: usize,
        budget: usize,
    ) -> Result<Self> {
        params.node_seeds = true;
        params.validate()?;
        let max_bins = params.max_bins.ok_or_else(|| {
            invalid("the exact distributed forest searches histograms: give max_bins (the exact search needs every row)")
        })?;
        if params.leaf_missing > 0.0 {
            return Err(invalid("leaf_missing keeps each leaf's training rows: the exact distributed forest cannot"));
        }
        let first = summaries.first().ok_or_else(|| invalid("no parts"))?;
        let d = first.kinds.len();
        if summaries.iter().any(|s| s.kinds != first.kinds || s.few.len() != d || s.sampled.len() != d) {
            return Err(invalid("the parts' summaries do not describe the same features"));
        }
        let n_rows: usize = summaries.iter().map(|s| s.rows as usize).sum();
        if n_rows == 0 {
            return Err(invalid("the data has no rows"));
        }
        let mut edges = Vec::with_capacity(d);
        for f in 0..d {
            let nominal = first.kinds[f] == FeatureKind::Nominal;
            let few: Option<BTreeSet<u64>> = summaries.iter().try_fold(BTreeSet::new(), |mut all, s| {
                all.extend(s.few[f].as_ref()?.iter().map(|&v| canonical(v)));
                (all.len() <= max_bins).then_some(all)
            });
            let few: Option<Vec<f64>> = few.map(|all| all.into_iter().map(value_of).collect());
            let mut sampled: BTreeMap<u64, u64> = BTreeMap::new();
            if few.is_none() {
                for s in summaries {
                    for &(v, c) in &s.sampled[f] {
                        *sampled.entry(canonical(v)).or_default() += c;
                    }
                }
            }
            let (values, counts): (Vec<f64>, Vec<u64>) = sampled.into_iter().map(|(k, c)| (value_of(k), c)).unzip();
            let feature = feature_edges(few.as_deref(), (&values, &counts), nominal, max_bins);
            if feature.is_none() {
                return Err(invalid(format!(
                    "feature {f} is nominal with more than {max_bins} categories: the exact distributed forest bins every feature"
                )));
            }
            edges.push(feature);
        }
        let layout = BinLayout::new(edges);
        let incomplete = summaries.iter().any(|s| s.incomplete);
        let class_mode = params.class_mode.resolve_for(incomplete);
        let mut rankings = Vec::new();
        let n_classes = match class_mode {
            ClassMode::Ranking => {
                let mut all = BTreeSet::new();
                for s in summaries {
                    let part = s.rankings.as_ref().filter(|_| all.len() <= MAX_RANKINGS);
                    let part = part.ok_or_else(|| {
                        invalid(format!(
                            "more than {MAX_RANKINGS} distinct rankings: a class each is too many histograms; use class_mode \
                             pairwise"
                        ))
                    })?;
                    all.extend(part.iter().cloned());
                }
                rankings = all.into_iter().collect();
                rankings.len()
            }
            ClassMode::TopLabel => n_labels,
            _ => 0,
        };
        let setup = PartSetup {
            layout: layout.clone(),
            class_mode,
            rankings,
            n_classes,
            n_labels,
            n_rows: n_rows as u64,
            epsilon: params.entropy_epsilon,
        };
        let grow = GrowParams {
            max_depth: params.max_depth,
            max_features: params.max_features.resolve(d),
            min_weight_split: 0.0,
            threshold_rule: ThresholdRule::Best,
        };
        let sampling =
            ForestSampling { n_trees: params.n_estimators, seed: params.seed, bootstrap: params.bootstrap, node_seeds: true };
        let kinds = first.kinds.clone();
        let leaf = setup.borda(None);
        let grower = match class_mode {
            ClassMode::Pairwise => {
                let none = RankMatrixView::new(&[], 0, n_labels)?;
                let criterion = PairwiseEntropy::for_rows(&none, params.entropy_epsilon, n_rows)?;
                Grower::Pairs(LevelGrower::new(criterion, leaf, layout, kinds, grow, sampling, n_rows, budget)?)
            }
            _ => {
                let criterion = ClassEntropy::for_rows(&[], n_classes, params.entropy_epsilon, n_rows);
                Grower::Classes(LevelGrower::new(criterion, leaf, layout, kinds, grow, sampling, n_rows, budget)?)
            }
        };
        Ok(ExactForest { params, setup, grower, median_at: Vec::new(), fill_values: None })
    }

    /// What each part needs (step 2).
    pub fn setup(&self) -> &PartSetup {
        &self.setup
    }

    /// From the rows per bin of all parts added ([`part_bin_counts`]): the bin of each feature's
    /// lower median, which [`part_values_in_bins`] then lists.
    pub fn median_bins(&mut self, counts: &[f64]) -> Result<Vec<u8>> {
        let layout = &self.setup.layout;
        if counts.len() != layout.total_bins() {
            return Err(invalid("the bin counts do not match the forest's bins"));
        }
        let mid = (self.setup.n_rows - 1) / 2;
        self.median_at = (0..layout.n_features())
            .map(|f| {
                let start = layout.offset(f);
                let mut before = 0u64;
                for b in 0..layout.n_bins(f) {
                    let c = counts[start + b] as u64;
                    if before + c > mid {
                        return (b as u8, mid - before);
                    }
                    before += c;
                }
                (layout.n_bins(f).saturating_sub(1) as u8, 0)
            })
            .collect();
        Ok(self.median_at.iter().map(|&(b, _)| b).collect())
    }

    /// The lower medians from every part's values in those bins.
    pub fn set_medians(&mut self, parts: &[Vec<Vec<(f64, u64)>>]) -> Result<()> {
        let d = self.setup.layout.n_features();
        if self.median_at.len() != d || parts.iter().any(|p| p.len() != d) {
            return Err(invalid("the medians' bins are not known yet, or the parts' values do not match them"));
        }
        let mut fill = Vec::with_capacity(d);
        for f in 0..d {
            let mut values: Vec<(f64, u64)> = parts.iter().flat_map(|p| p[f].iter().copied()).collect();
            values.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut rank = self.median_at[f].1;
            let value = values.iter().find(|&&(_, c)| {
                if rank < c {
                    return true;
                }
                rank -= c;
                false
            });
            fill.push(value.ok_or_else(|| invalid(format!("feature {f}: the median's bin holds too few values")))?.0);
        }
        self.fill_values = Some(fill);
        Ok(())
    }

    /// The next round's plan, or `None` when the forest is grown.
    pub fn plan(&mut self) -> Option<LevelPlan> {
        match &mut self.grower {
            Grower::Classes(g) => g.plan(),
            Grower::Pairs(g) => g.plan(),
        }
    }

    /// Trees fully grown so far.
    pub fn trees_grown(&self) -> usize {
        match &self.grower {
            Grower::Classes(g) => g.trees_grown(),
            Grower::Pairs(g) => g.trees_grown(),
        }
    }

    /// Every part's sums for the last plan, added.
    pub fn absorb(&mut self, sums: &[f64]) -> Result<()> {
        match &mut self.grower {
            Grower::Classes(g) => g.absorb(sums),
            Grower::Pairs(g) => g.absorb(sums),
        }
    }

    /// Whether [`Self::finish`] would give the model: the medians set, every tree grown.
    pub fn ready(&self) -> Result<()> {
        if self.fill_values.is_none() {
            return Err(invalid("the training medians are not set yet"));
        }
        if self.trees_grown() < self.params.n_estimators {
            return Err(invalid(format!(
                "{} of {} trees are grown: run the rounds first",
                self.trees_grown(),
                self.params.n_estimators
            )));
        }
        Ok(())
    }

    /// The model, once the medians are set and every tree is grown ([`Self::ready`]).
    pub fn finish(self) -> Result<RandomForestModel> {
        self.ready()?;
        let fill_values = self.fill_values.ok_or_else(|| invalid("the training medians are not set yet"))?;
        let trees: Vec<Tree<RankingLeaf>> = match self.grower {
            Grower::Classes(g) => g.finish()?,
            Grower::Pairs(g) => g.finish()?,
        };
        Ok(RandomForestModel {
            n_features: self.setup.layout.n_features(),
            n_labels: self.setup.n_labels,
            params: self.params,
            fill_values,
            trees,
            class_mode: self.setup.class_mode,
            neighbours: None,
            flat: FlatTrees::default(),
        })
    }
}

#[cfg(test)]
#[path = "distributed_tests.rs"]
mod tests;
