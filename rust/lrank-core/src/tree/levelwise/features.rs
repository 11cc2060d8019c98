//! What every exact distributed forest shares before its trees grow: the parts' summaries of
//! their features (and rankings), the bins cut from them, each part's bin codes, and the
//! training lower medians (a model keeps them as fill values), found in two passes: rows per
//! bin, then the values within each median's bin. Steps' outputs travel as bytes ([`encode`]).

use crate::data::features::{FeatureKind, FeatureMatrixView};
use crate::data::ranking::RankMatrixView;
use crate::error::{invalid, Result};
use crate::tree::{
    bin_sample_rows, feature_edges, BinLayout, ForestSampling, GrowParams, MaxFeatures, ThresholdRule, BIN_SAMPLE_ROWS,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Distinct rankings a part may report (a class each in LR-RF's ranking class mode).
pub const MAX_RANKINGS: usize = 1 << 16;

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

/// The parts' data as a whole: its bins (cut as one machine cuts them from all rows), its
/// features' kinds, its rows.
pub struct PartsData {
    pub layout: BinLayout,
    pub kinds: Vec<FeatureKind>,
    pub n_rows: usize,
    pub incomplete: bool,
}

/// [`PartsData`] from every part's summary, in row order.
pub fn parts_data(summaries: &[PartSummary], max_bins: usize) -> Result<PartsData> {
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
    Ok(PartsData {
        layout: BinLayout::new(edges),
        kinds: first.kinds.clone(),
        n_rows,
        incomplete: summaries.iter().any(|s| s.incomplete),
    })
}

/// A part's bin codes (row-major, rows x features).
pub fn part_codes(layout: &BinLayout, x: &FeatureMatrixView<'_>) -> Result<Vec<u8>> {
    let (n, d) = (x.n_rows(), x.n_features());
    if d != layout.n_features() {
        return Err(invalid(format!("the part has {d} features, the forest {}", layout.n_features())));
    }
    let mut codes = vec![0u8; n * d];
    for f in 0..d {
        let edges = layout.edges(f).ok_or_else(|| invalid(format!("feature {f} is not binned")))?;
        for i in 0..n {
            codes[i * d + f] = edges.code(x.get(i, f));
        }
    }
    Ok(codes)
}

/// A part's rows per bin (all features' bins, as in a histogram): for the medians.
pub fn part_bin_counts(layout: &BinLayout, codes: &[u8]) -> Result<Vec<f64>> {
    let d = layout.n_features();
    super::check_codes(layout, codes, codes.len() / d.max(1))?;
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

/// The driver's side of the training lower medians.
#[derive(Default)]
pub struct Medians {
    /// Per feature: the bin of the lower median and its rank within the bin.
    at: Vec<(u8, u64)>,
    values: Option<Vec<f64>>,
}

impl Medians {
    /// From the rows per bin of all parts added ([`part_bin_counts`]): the bin of each feature's
    /// lower median, which [`part_values_in_bins`] then lists.
    pub fn bins(&mut self, layout: &BinLayout, n_rows: usize, counts: &[f64]) -> Result<Vec<u8>> {
        if counts.len() != layout.total_bins() {
            return Err(invalid("the bin counts do not match the forest's bins"));
        }
        let mid = (n_rows as u64 - 1) / 2;
        self.at = (0..layout.n_features())
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
        Ok(self.at.iter().map(|&(b, _)| b).collect())
    }

    /// The lower medians from every part's values in those bins.
    pub fn set(&mut self, d: usize, parts: &[Vec<Vec<(f64, u64)>>]) -> Result<()> {
        if self.at.len() != d || parts.iter().any(|p| p.len() != d) {
            return Err(invalid("the medians' bins are not known yet, or the parts' values do not match them"));
        }
        let mut fill = Vec::with_capacity(d);
        for f in 0..d {
            let mut values: Vec<(f64, u64)> = parts.iter().flat_map(|p| p[f].iter().copied()).collect();
            values.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut rank = self.at[f].1;
            let value = values.iter().find(|&&(_, c)| {
                if rank < c {
                    return true;
                }
                rank -= c;
                false
            });
            fill.push(value.ok_or_else(|| invalid(format!("feature {f}: the median's bin holds too few values")))?.0);
        }
        self.values = Some(fill);
        Ok(())
    }

    /// The medians, once set.
    pub fn values(&self) -> Result<&[f64]> {
        self.values.as_deref().ok_or_else(|| invalid("the training medians are not set yet"))
    }
}

/// The [`ForestShape`] of a forest learner's parameters `p` (their fields bear these names),
/// nodes of less weight than `min_weight_split` left unsplit.
macro_rules! forest_shape {
    ($p:expr, $min_weight_split:expr) => {
        $crate::tree::levelwise::ForestShape {
            max_bins: $p.max_bins,
            max_depth: $p.max_depth,
            max_features: $p.max_features,
            min_weight_split: $min_weight_split,
            n_trees: $p.n_estimators,
            seed: $p.seed,
            bootstrap: $p.bootstrap,
        }
    };
}
pub(crate) use forest_shape;

/// What an exact forest's parameters say of its growth (each learner's own names, gathered).
pub struct ForestShape {
    pub max_bins: Option<usize>,
    pub max_depth: Option<usize>,
    pub max_features: MaxFeatures,
    pub min_weight_split: f64,
    pub n_trees: usize,
    pub seed: u64,
    pub bootstrap: bool,
}

impl ForestShape {
    /// The bins it searches (the exact search is refused: it needs every row).
    pub fn bins(&self) -> Result<usize> {
        self.max_bins.ok_or_else(|| {
            invalid("the exact distributed forest searches histograms: give max_bins (the exact search needs every row)")
        })
    }

    /// Its growth on `n_features` features, each node with a seed of its own; `seed` for the
    /// forest's.
    pub fn growth(&self, n_features: usize, seed: u64) -> (GrowParams, ForestSampling) {
        let grow = GrowParams {
            max_depth: self.max_depth,
            max_features: self.max_features.resolve(n_features),
            min_weight_split: self.min_weight_split,
            threshold_rule: ThresholdRule::Best,
        };
        (grow, ForestSampling { n_trees: self.n_trees, seed, bootstrap: self.bootstrap, node_seeds: true, first_tree: 0 })
    }
}

/// Refuses a part's codes or rankings that do not match the forest's features and labels.
pub fn check_part(layout: &BinLayout, n_labels: usize, codes: &[u8], y: &RankMatrixView<'_>) -> Result<()> {
    if codes.len() != y.n_rows() * layout.n_features() || y.n_labels() != n_labels {
        return Err(invalid("the part's codes or rankings do not match the forest"));
    }
    Ok(())
}
