//! Training features laid out for split search (column-major values and per-feature dense
//! ranks, built once per fit and shared by every tree), the radix sort of a node's samples by
//! rank, and the presorted orders of a tree that scores every feature in every node.

use super::bins::Bins;
use crate::data::features::{FeatureKind, FeatureMatrixView, Filled};

/// Training features laid out for split search, built once per fit and shared by all trees:
/// column-major values and, per feature, each sample's dense rank (equal values share a rank),
/// so that a node's samples are ordered by sorting integer keys instead of floats.
pub struct TrainingFeatures {
    pub(super) n_rows: usize,
    n_features: usize,
    values: Vec<f64>,
    ranks: Vec<u32>,
    /// Bits needed for the largest rank of each feature (radix sort passes).
    pub(super) rank_bits: Vec<u32>,
    pub(super) kinds: Vec<FeatureKind>,
    /// The features binned for the histogram search ([`TrainingFeatures::with_bins`]).
    pub(super) bins: Option<Bins>,
}

impl TrainingFeatures {
    /// Features of the view's kinds (nominal ones split one value against the rest). `x` must
    /// hold no NaN (fill missing values first).
    pub fn new(x: &FeatureMatrixView<'_>) -> Self {
        let (n, d) = (x.n_rows(), x.n_features());
        let kinds: Vec<FeatureKind> = (0..d).map(|f| x.kind(f)).collect();
        let mut values = vec![0.0; n * d];
        let mut ranks = vec![0u32; n * d];
        let mut order: Vec<u32> = (0..n as u32).collect();
        let mut rank_bits = vec![0u32; d];
        for f in 0..d {
            let col = &mut values[f * n..(f + 1) * n];
            for (i, v) in col.iter_mut().enumerate() {
                *v = x.get(i, f);
            }
            order.sort_unstable_by(|&a, &b| col[a as usize].total_cmp(&col[b as usize]));
            let mut rank = 0u32;
            for k in 0..n {
                let i = order[k] as usize;
                if k > 0 && col[i] != col[order[k - 1] as usize] {
                    rank += 1;
                }
                ranks[f * n + i] = rank;
            }
            rank_bits[f] = 32 - rank.leading_zeros();
        }
        TrainingFeatures { n_rows: n, n_features: d, values, ranks, rank_bits, kinds, bins: None }
    }

    /// The same features, also binned for the histogram search with at most `max_bins` bins per
    /// feature (see [`super::bins`]); trees of additive criteria then search histograms.
    pub fn with_bins(mut self, max_bins: usize) -> Self {
        let (n, d) = (self.n_rows, self.n_features);
        let features: Vec<(Vec<u32>, Vec<f64>, bool)> = (0..d)
            .map(|f| {
                let ranks = self.ranks[f * n..(f + 1) * n].to_vec();
                let n_distinct = ranks.iter().max().map_or(0, |&r| r as usize + 1);
                let mut rank_values = vec![0.0; n_distinct];
                for (i, &r) in ranks.iter().enumerate() {
                    rank_values[r as usize] = self.values[f * n + i];
                }
                (ranks, rank_values, self.kinds[f] == FeatureKind::Nominal)
            })
            .collect();
        self.bins = Some(Bins::new(n, &features, max_bins));
        self
    }

    /// The bins, when the features are binned.
    pub fn bins(&self) -> Option<&Bins> {
        self.bins.as_ref()
    }

    pub fn n_features(&self) -> usize {
        self.n_features
    }
    #[inline]
    pub(super) fn value(&self, i: usize, f: usize) -> f64 {
        self.values[f * self.n_rows + i]
    }
    #[inline]
    pub(super) fn rank(&self, i: usize, f: usize) -> u32 {
        self.ranks[f * self.n_rows + i]
    }
}

/// Sorts keys `(rank << 32) | position` by rank, stably (so by position within a rank): an LSD
/// radix sort over the rank's `rank_bits` bits, 8 at a time; comparison sort for small inputs.
pub(super) fn sort_keys(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, rank_bits: u32) {
    if keys.len() < 256 {
        keys.sort_unstable(); // keys are distinct, so this is the same order
        return;
    }
    scratch.clear();
    scratch.resize(keys.len(), 0);
    let mut shift = 32;
    while shift < 32 + rank_bits {
        let mut starts = [0usize; 257];
        for &k in keys.iter() {
            starts[((k >> shift) & 0xFF) as usize + 1] += 1;
        }
        for b in 0..256 {
            starts[b + 1] += starts[b];
        }
        for &k in keys.iter() {
            let b = ((k >> shift) & 0xFF) as usize;
            scratch[starts[b]] = k;
            starts[b] += 1;
        }
        std::mem::swap(keys, scratch);
        shift += 8;
    }
}

/// Presorted mode, used when a tree scores every feature in every node and each sample occurs
/// once: a node carries, per feature, its samples in the order that sorting them would give
/// (rank, then position in the node), `d` blocks of the node's size. A split partitions each
/// block stably, which keeps the order, so no node sorts: the split search then only reads
/// values. Same trees as sorting in every node.
pub(super) type Orders<'a> = Option<&'a mut [u32]>;

/// The root's [`Orders`]: for each feature, `samples` ordered by (rank, position).
pub(super) fn root_orders(x: &TrainingFeatures, samples: &[u32]) -> Vec<u32> {
    let n = samples.len();
    let mut orders = Vec::with_capacity(n * x.n_features());
    let (mut keys, mut radix) = (Vec::with_capacity(n), Vec::new());
    for f in 0..x.n_features() {
        keys.clear();
        keys.extend(samples.iter().enumerate().map(|(pos, &s)| ((x.rank(s as usize, f) as u64) << 32) | pos as u64));
        sort_keys(&mut keys, &mut radix, x.rank_bits[f]);
        orders.extend(keys.iter().map(|&k| samples[(k & 0xFFFF_FFFF) as usize]));
    }
    orders
}

/// What every tree learner prepares before growing: missing values replaced by the training
/// lower medians (kept to route missing values at prediction), and the features laid out.
pub struct TreeInputs {
    pub fill_values: Vec<f64>,
    pub features: TrainingFeatures,
}

impl TreeInputs {
    pub fn new(x: &FeatureMatrixView<'_>) -> Self {
        Self::binned(x, None)
    }

    /// With `max_bins`, the features are also binned for the histogram search.
    pub fn binned(x: &FeatureMatrixView<'_>, max_bins: Option<usize>) -> Self {
        let filled = Filled::new(x);
        let features = TrainingFeatures::new(&filled.view(x));
        let features = match max_bins {
            Some(b) => features.with_bins(b),
            None => features,
        };
        TreeInputs { fill_values: filled.fill, features }
    }
}
