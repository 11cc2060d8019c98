//! Nearest neighbours: an exact k-d tree for the k-nearest-neighbour searches of the
//! instance-based learners (IBLR, IB-PL, instance-based PLR).
//!
//! Returns exactly what a brute-force search returns, ties included: neighbours are ordered by
//! (squared distance, row index), distances are summed in the same feature order, and a subtree
//! is skipped only when its lower bound is strictly worse than the current k-th neighbour (or,
//! before k rows are held, than a distance that k rows are known to lie within).
//!
//! The lower bound of a cell is the squared distance from the query to the cell's box as far as
//! the split planes above it define it, updated in O(1) per step down the tree (Arya & Mount's
//! incremental distance). A leaf is scanned only if the query is also within reach of the tight
//! bounding box of its points, in every numeric feature: in many dimensions the cell constrains
//! only the few features split above it, and the box prunes far more. The box distance's terms
//! never exceed the corresponding terms of any point in the box (monotone rounding), and a leaf
//! is skipped only when the bound exceeds the k-th distance by a relative 1e-12, far more than
//! the few ulps by which two summation orders can differ. Nominal features count a mismatch as
//! 1 and a match as 0; the tree never splits on them, so they never prune (their contribution
//! to a bound is 0).

mod scaling;
mod scan;

pub use scaling::{scale_of, value_or_fill, Scaling};

use scan::{block_distances, dims, offer_within, scan_full_leaf, scan_leaf, sort_block};

const LEAF_SIZE: usize = 32;
/// Points whose distances a leaf scan computes together (their partial sums fit in registers).
const BLOCK: usize = 8;
/// Up to this many features, searches are compiled for the exact number (loops of constant
/// length, no bounds checks) and full leaves are scanned whole (see [`scan_full_leaf`]).
const FEW_FEATURES: usize = 4;
// A leaf's points within reach are one bit each of a u32.
const _: () = assert!(LEAF_SIZE <= 32 && BLOCK <= LEAF_SIZE);

#[derive(Clone, Debug, PartialEq)]
enum KdNode {
    Leaf { start: usize, end: usize },
    Split { dim: usize, value: f64, left: usize, right: usize },
}

/// The tree over a point set (row-major, `d` columns). It keeps its own copy of the points in
/// tree order, so that a leaf's points are contiguous in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct KdIndex {
    d: usize,
    /// Original row of each point, in tree order.
    order: Vec<u32>,
    /// The points in tree order, each leaf's block stored column by column (feature f of the
    /// j-th point of a leaf spanning `start..end` at `start * d + f * (end - start) + j`), so a
    /// leaf's distances are computed a feature at a time over all its points (vectorised).
    points: Vec<f64>,
    nodes: Vec<KdNode>,
    /// Per node, the smallest then the largest value of each feature among its points (2d
    /// values; -inf and inf for nominal features, which bound nothing).
    boxes: Vec<f64>,
    /// Features whose values are nominal codes (compared for equality only).
    nominal: Vec<bool>,
}

/// Squared distance as the search measures it, summed in feature order; a nominal feature
/// adds 1 on a mismatch (the brute-force reference of the tests).
#[cfg(test)]
pub fn squared_distance(a: &[f64], b: &[f64], nominal: Option<&[bool]>) -> f64 {
    let mut sum = 0.0;
    for f in 0..a.len() {
        sum += if nominal.is_some_and(|n| n[f]) { (a[f] != b[f]) as u8 as f64 } else { (a[f] - b[f]) * (a[f] - b[f]) };
    }
    sum
}

/// A row found by a search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    /// Squared distance to the query.
    pub dist2: f64,
    /// The row among the points the tree was built on.
    pub row: u32,
    /// The row's place in tree order ([`KdIndex::order`]): data kept in that order is read
    /// from the cache lines the search has just used, not from all over memory.
    pub slot: u32,
}

/// What a kneighbors search found: each query's `k` nearest rows, nearest first.
#[derive(Clone, Debug, PartialEq)]
pub struct NearestRows {
    /// Distances, n x k (row-major).
    pub distances: Vec<f64>,
    /// Training row indices, n x k.
    pub rows: Vec<u32>,
    pub n_queries: usize,
    pub k: usize,
}

/// Where a kneighbors search takes its queries from.
pub enum Queries<'a> {
    /// The rows of `x`, each put in the index's space by the closure.
    Rows(&'a crate::data::features::FeatureMatrixView<'a>, &'a (dyn Fn(&[f64], &mut Vec<f64>) + Sync)),
    /// The indexed training points themselves (n_train x d, in the index's space), each leaving
    /// itself out (scikit-learn's `kneighbors()` without X).
    Training(&'a [f64]),
}

/// The `k` nearest of `n_train` indexed rows to each query: (distances, rows), n x k, nearest
/// first (the kneighbors of the instance-based learners). Refuses a k of 0 or above the rows
/// a query can find (`n_train`, or `n_train - 1` for the training points).
pub fn k_nearest_rows(index: &KdIndex, n_train: usize, queries: Queries<'_>, k: usize) -> crate::Result<NearestRows> {
    use rayon::prelude::*;
    let (n_queries, available) = match &queries {
        Queries::Rows(x, _) => (x.n_rows(), n_train),
        Queries::Training(_) => (n_train, n_train.saturating_sub(1)),
    };
    if available == 0 {
        // One training row: kneighbors() without X has no other row to offer.
        return Err(crate::error::invalid(
            "kneighbors() without X needs two training rows or more: the one training row has no neighbour but itself",
        ));
    }
    if k == 0 || k > available {
        let what = if let Queries::Training(_) = queries { "the training rows but the row itself" } else { "the training rows" };
        return Err(crate::error::invalid(format!("n_neighbors must be 1 to {available} ({what}), got {k}")));
    }
    let d = index.d;
    let rows: Vec<(Vec<f64>, Vec<u32>)> = (0..n_queries)
        .into_par_iter()
        .map_init(
            || (Vec::new(), SearchScratch::default()),
            |(query, scratch), i| {
                let exclude = match &queries {
                    Queries::Rows(x, normalise_into) => {
                        normalise_into(x.row(i), query);
                        None
                    }
                    Queries::Training(points) => {
                        query.clear();
                        query.extend_from_slice(&points[i * d..(i + 1) * d]);
                        Some(i)
                    }
                };
                index.nearest_into(query, k, exclude, scratch);
                (scratch.best.iter().map(|b| b.dist2.sqrt()).collect(), scratch.best.iter().map(|b| b.row).collect())
            },
        )
        .collect();
    Ok(NearestRows {
        distances: rows.iter().flat_map(|r| r.0.iter().copied()).collect(),
        rows: rows.iter().flat_map(|r| r.1.iter().copied()).collect(),
        n_queries,
        k,
    })
}

/// Buffers of a search, kept between searches.
#[derive(Default)]
pub struct SearchScratch {
    offsets: Vec<f64>,
    /// The result of the last search, nearest first.
    pub best: Vec<Neighbour>,
}

/// What a search looks for: the rows nearest to `query`, with `nominal` marking the nominal
/// features (None: all numeric), leaving out row `exclude` (leave-one-out).
#[derive(Clone, Copy)]
struct Target<'a> {
    query: &'a [f64],
    nominal: Option<&'a [bool]>,
    exclude: Option<usize>,
}

/// A leaf's points as a scan reads them: `block` holds them feature by feature, `rows` are
/// their rows and `start` is the first one's place in tree order.
#[derive(Clone, Copy)]
struct LeafPoints<'a> {
    block: &'a [f64],
    rows: &'a [u32],
    start: usize,
}

/// The k best rows so far, sorted by (squared distance, row) (k is small: a sorted buffer
/// beats a heap).
struct Best {
    k: usize,
    items: Vec<Neighbour>,
    /// The k-th distance once k rows are held, infinity before.
    limit: f64,
}

impl Best {
    /// Distance a candidate must not exceed to be considered (ties are decided by row index).
    #[inline]
    fn limit(&self) -> f64 {
        self.limit
    }

    #[inline(always)]
    fn offer(&mut self, new: Neighbour) {
        let before = |a: Neighbour, b: Neighbour| a.dist2 < b.dist2 || (a.dist2 == b.dist2 && a.row < b.row);
        let items = &mut self.items;
        let mut slot = items.len();
        if slot == self.k {
            if !before(new, items[slot - 1]) {
                return;
            }
            slot -= 1;
        } else {
            items.push(new);
        }
        // Shift the rows after the new one's place up by one (k is small: a few moves).
        while slot > 0 && before(new, items[slot - 1]) {
            items[slot] = items[slot - 1];
            slot -= 1;
        }
        items[slot] = new;
        if items.len() == self.k {
            self.limit = items[self.k - 1].dist2;
        }
    }
}

impl KdIndex {
    /// Builds the tree over the rows of `points` (row-major, `d` columns); `nominal` marks the
    /// nominal features (`None`: all numeric).
    pub fn build(points: &[f64], d: usize, nominal: Option<&[bool]>) -> Self {
        let n = points.len().checked_div(d).unwrap_or(0);
        let nominal = nominal.map_or_else(|| vec![false; d], <[bool]>::to_vec);
        let mut index =
            KdIndex { d, order: (0..n as u32).collect(), points: Vec::new(), nodes: Vec::new(), boxes: Vec::new(), nominal };
        if n > 0 {
            index.build_node(points, 0, n);
        }
        let mut columns = vec![0.0; n * d];
        for node in &index.nodes {
            if let KdNode::Leaf { start, end } = *node {
                let len = end - start;
                for (j, &r) in index.order[start..end].iter().enumerate() {
                    for f in 0..d {
                        columns[start * d + f * len + j] = points[r as usize * d + f];
                    }
                }
            }
        }
        index.points = columns;
        let mut boxes = vec![0.0; index.nodes.len() * 2 * d];
        // Children are numbered after their parent, so a backward pass sees them first.
        for id in (0..index.nodes.len()).rev() {
            let (head, tail) = boxes.split_at_mut((id + 1) * 2 * d);
            let (lo, hi) = head[id * 2 * d..].split_at_mut(d);
            match index.nodes[id] {
                KdNode::Leaf { start, end } => {
                    lo.fill(f64::INFINITY);
                    hi.fill(f64::NEG_INFINITY);
                    let len = end - start;
                    for (f, column) in index.points[start * d..end * d].chunks_exact(len.max(1)).enumerate() {
                        for &v in column {
                            lo[f] = lo[f].min(v);
                            hi[f] = hi[f].max(v);
                        }
                    }
                }
                KdNode::Split { left, right, .. } => {
                    let child = |c: usize, f: usize| tail[(c - id - 1) * 2 * d + f];
                    for f in 0..d {
                        lo[f] = child(left, f).min(child(right, f));
                        hi[f] = child(left, d + f).max(child(right, d + f));
                    }
                }
            }
            // Nominal features never bound a distance: an unbounded slab gives a gap of 0.
            for f in (0..d).filter(|&f| index.nominal[f]) {
                (lo[f], hi[f]) = (f64::NEG_INFINITY, f64::INFINITY);
            }
        }
        index.boxes = boxes;
        index
    }

    /// Squared distance from `query` to node `id`'s box (numeric features, in feature order).
    #[inline]
    fn box_distance<const D: usize>(&self, id: usize, query: &[f64]) -> f64 {
        let d = dims::<D>(self.d);
        let query = &query[..d];
        let (lo, hi) = self.boxes[id * 2 * d..(id + 1) * 2 * d].split_at(d);
        // Four independent partial sums (a dependency chain of d additions would dominate a
        // node's cost). Summing in another order than the points' distances can only move the
        // bound by a few ulps, which the pruning slack (relative 1e-12) absorbs.
        let mut lanes = [0.0f64; 4];
        let gap = |q: f64, l: f64, h: f64| {
            // One of the two is 0: the gap to the nearer face outside the slab, 0 inside it.
            let g = (l - q).max(0.0) + (q - h).max(0.0);
            g * g
        };
        let (qc, lc, hc) = (query.chunks_exact(4), lo.chunks_exact(4), hi.chunks_exact(4));
        let tail: f64 = qc.remainder().iter().zip(lc.remainder()).zip(hc.remainder()).map(|((&q, &l), &h)| gap(q, l, h)).sum();
        for ((q, l), h) in qc.zip(lc).zip(hc) {
            for j in 0..4 {
                lanes[j] += gap(q[j], l[j], h[j]);
            }
        }
        (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
    }

    fn has_nominal(&self) -> bool {
        self.nominal.iter().any(|&b| b)
    }

    fn build_node(&mut self, points: &[f64], start: usize, end: usize) -> usize {
        let d = self.d;
        let id = self.nodes.len();
        self.nodes.push(KdNode::Leaf { start, end });
        if end - start <= LEAF_SIZE || d == 0 {
            return id;
        }
        // Split the numeric dimension of largest spread at its median, the spread being the mean
        // absolute deviation from the mean. The range follows single outliers, and the variance
        // weighs the tails by their squares; the mean absolute deviation gives cells that prune
        // better. Over the speed bench's ten folds, leaves scanned per query against the
        // variance: calhousing 5.40 (5.52), segment 5.69 (6.36), vowel 6.60 (6.82), housing
        // 2.91 (5.64), cpu 6.51 (7.16); pendigits, stock, fried and elevators within 3% either
        // way. The search is exact whatever the splits.
        let n_points = (end - start) as f64;
        // Passes over the node's rows for all features at once (row-major points: a pass per
        // feature would read every row d times). The first gives the means, shifted by the
        // first row against cancellation; the second the deviations from them.
        let shift = &points[self.order[start] as usize * d..(self.order[start] as usize + 1) * d];
        let (mut lo, mut hi, mut sum) = (vec![f64::INFINITY; d], vec![f64::NEG_INFINITY; d], vec![0.0; d]);
        for &r in &self.order[start..end] {
            let row = &points[r as usize * d..(r as usize + 1) * d];
            for (((lo, hi), sum), (&v, &s)) in lo.iter_mut().zip(hi.iter_mut()).zip(sum.iter_mut()).zip(row.iter().zip(shift)) {
                // Comparisons rather than f64::min/max: no NaN here, and they vectorise.
                *lo = if v < *lo { v } else { *lo };
                *hi = if v > *hi { v } else { *hi };
                *sum += v - s;
            }
        }
        let mean: Vec<f64> = shift.iter().zip(&sum).map(|(&s, &sum)| s + sum / n_points).collect();
        let mut deviation = vec![0.0; d];
        for &r in &self.order[start..end] {
            let row = &points[r as usize * d..(r as usize + 1) * d];
            for ((deviation, &mean), &v) in deviation.iter_mut().zip(&mean).zip(row) {
                *deviation += (v - mean).abs();
            }
        }
        let mut best: Option<(usize, f64)> = None;
        for f in (0..d).filter(|&f| !self.nominal[f]) {
            if hi[f] <= lo[f] {
                continue; // constant in this node
            }
            if best.is_none_or(|(_, b)| deviation[f] > b) {
                best = Some((f, deviation[f]));
            }
        }
        let Some((dim, _)) = best else {
            return id; // all points equal on the numeric features
        };
        // The median, rounded to a whole number of leaves on the left (this node holds more than
        // LEAF_SIZE points, so both sides keep at least one): every leaf but the last is then
        // full (leaves of equal points aside), and the scan of a full leaf has a fixed number of
        // whole blocks, whose loops end where the CPU predicts. Rounded to whole blocks, leaves
        // held 16, 24 or 32 points and searches on calhousing took about 8% longer.
        let mid = start + ((end - start) / 2 + LEAF_SIZE / 2) / LEAF_SIZE * LEAF_SIZE;
        self.order[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
            points[a as usize * d + dim].total_cmp(&points[b as usize * d + dim]).then(a.cmp(&b))
        });
        let value = points[self.order[mid] as usize * d + dim];
        let left = self.build_node(points, start, mid);
        let right = self.build_node(points, mid, end);
        self.nodes[id] = KdNode::Split { dim, value, left, right };
        id
    }

    /// The number of points in each leaf, in tree order.
    #[cfg(test)]
    pub fn leaf_sizes(&self) -> Vec<usize> {
        let mut sizes: Vec<(usize, usize)> = self
            .nodes
            .iter()
            .filter_map(|node| match *node {
                KdNode::Leaf { start, end } => Some((start, end - start)),
                KdNode::Split { .. } => None,
            })
            .collect();
        sizes.sort_unstable();
        sizes.into_iter().map(|(_, size)| size).collect()
    }

    /// The feature the root splits, if it splits.
    #[cfg(test)]
    pub fn root_split_feature(&self) -> Option<usize> {
        match self.nodes.first() {
            Some(&KdNode::Split { dim, .. }) => Some(dim),
            _ => None,
        }
    }

    /// Original row of each point, in tree order.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// The `k` nearest rows to `query`, skipping row `exclude`, nearest first.
    pub fn nearest(&self, query: &[f64], k: usize, exclude: Option<usize>) -> Vec<Neighbour> {
        let mut scratch = SearchScratch::default();
        self.nearest_into(query, k, exclude, &mut scratch);
        scratch.best
    }

    /// [`nearest`](Self::nearest) into `scratch.best`, reusing the scratch's buffers (one
    /// search per row of a large prediction: allocations would cost a fifth of it).
    pub fn nearest_into(&self, query: &[f64], k: usize, exclude: Option<usize>, scratch: &mut SearchScratch) {
        let mut items = std::mem::take(&mut scratch.best);
        items.clear();
        let mut best = Best { k, items, limit: f64::INFINITY };
        if k > 0 && !self.nodes.is_empty() {
            scratch.offsets.clear();
            scratch.offsets.resize(self.d, 0.0);
            let nominal = self.has_nominal().then_some(self.nominal.as_slice());
            let (target, offsets) = (Target { query, nominal, exclude }, &mut scratch.offsets);
            match self.d {
                1 => self.search::<1>(0, 0.0, offsets, &target, &mut best),
                2 => self.search::<2>(0, 0.0, offsets, &target, &mut best),
                3 => self.search::<3>(0, 0.0, offsets, &target, &mut best),
                4 => self.search::<FEW_FEATURES>(0, 0.0, offsets, &target, &mut best),
                _ => self.search::<0>(0, 0.0, offsets, &target, &mut best),
            }
        }
        scratch.best = best.items;
    }

    /// The first leaf a search scans (the query's own cell, reached straight down the tree),
    /// when k <= BLOCK. All its distances are computed before any is offered, and the k-th
    /// smallest of the per-lane minima over its blocks becomes the starting limit: k distinct
    /// rows lie within it, so the k-th neighbour does too and the search stays exact. Offered
    /// one by one from an infinite limit instead, the first block's rows would all enter the k
    /// best and most be pushed out again, each a hard-to-predict branch; the exact k-th of the
    /// leaf would be tighter still, but costs a selection with branches of its own (on
    /// calhousing this starting limit made predictions about 7% faster).
    #[inline(always)]
    fn scan_first_leaf<const D: usize>(leaf: LeafPoints<'_>, target: &Target<'_>, best: &mut Best) {
        let (LeafPoints { block, rows, start }, Target { query, nominal, exclude }) = (leaf, *target);
        let len = rows.len();
        // Point j in lane j % BLOCK; entries past the leaf's end stay infinite and bound nothing.
        let mut distances = [f64::INFINITY; LEAF_SIZE];
        for (b, acc) in distances.chunks_exact_mut(BLOCK).enumerate().take(len.div_ceil(BLOCK)) {
            let j0 = b * BLOCK;
            let width = BLOCK.min(len - j0);
            // An infinite limit never rules a block out (None only if every distance is NaN,
            // which normalised finite values cannot give); NaN fails every comparison below.
            let computed = block_distances::<D>(block, len, j0, width, query, nominal, f64::INFINITY);
            acc[..width].copy_from_slice(&computed.unwrap_or([f64::NAN; BLOCK])[..width]);
        }
        let mut lane_minima = [f64::INFINITY; BLOCK];
        for acc in distances.chunks_exact(BLOCK) {
            for (minimum, &dist) in lane_minima.iter_mut().zip(acc) {
                *minimum = if dist < *minimum { dist } else { *minimum };
            }
        }
        // The excluded row (leave-one-out) must not count: its lane's minimum is taken again
        // without it.
        if let Some(p) = exclude.and_then(|e| rows.iter().position(|&r| r as usize == e)) {
            let others = distances.iter().enumerate().filter(|&(j, _)| j % BLOCK == p % BLOCK && j != p);
            lane_minima[p % BLOCK] = others.fold(f64::INFINITY, |a, (_, &b)| if b < a { b } else { a });
        }
        sort_block(&mut lane_minima);
        // A limit never grows: subtrees may already have been pruned against it (here only if an
        // earlier first leaf had fewer than k rows within reach, when it is still infinite).
        best.limit = best.limit.min(lane_minima[best.k - 1]);
        // One mask for the whole leaf: one loop, whose end the CPU mispredicts once, not four.
        offer_within(&distances, rows, start, exclude, best);
    }

    /// [`scan_first_leaf`](Self::scan_first_leaf) out of line, for a leaf of fewer than
    /// LEAF_SIZE rows.
    #[inline(never)]
    fn scan_first_short_leaf<const D: usize>(leaf: LeafPoints<'_>, target: &Target<'_>, best: &mut Best) {
        Self::scan_first_leaf::<D>(leaf, target, best);
    }

    /// `bound`: squared distance from the query to the node's cell; `offsets[dim]`: the query's
    /// offset from the cell along `dim` (0 inside the cell's slab).
    fn search<const D: usize>(&self, node: usize, bound: f64, offsets: &mut [f64], target: &Target<'_>, best: &mut Best) {
        let query = target.query;
        match self.nodes[node] {
            KdNode::Leaf { start, end } => {
                if bound > 0.0 && self.box_distance::<D>(node, query) * (1.0 - 1e-12) > best.limit() {
                    return;
                }
                let (d, len) = (dims::<D>(self.d), end - start);
                let leaf = LeafPoints { block: &self.points[start * d..end * d], rows: &self.order[start..end], start };
                let first = best.items.is_empty() && best.k <= BLOCK && len <= LEAF_SIZE;
                // Full leaves (all but the last, see `build_node`) are scanned by code inlined
                // here in which their length is a constant: loops of fixed trip count, no
                // partial block. The other leaves are rare and scanned out of line, which keeps
                // this function small.
                match (len == LEAF_SIZE, first) {
                    (true, true) => {
                        Self::scan_first_leaf::<D>(LeafPoints { rows: &leaf.rows[..LEAF_SIZE], ..leaf }, target, best)
                    }
                    (true, false) => scan_full_leaf::<D>(leaf, target, best),
                    (false, true) => Self::scan_first_short_leaf::<D>(leaf, target, best),
                    (false, false) => scan_leaf::<D>(leaf, target, best),
                }
            }
            KdNode::Split { dim, value, left, right } => {
                let diff = query[dim] - value;
                let (near, far) = if diff <= 0.0 { (left, right) } else { (right, left) };
                self.search::<D>(near, bound, offsets, target, best);
                // The far cell lies beyond the plane: its bound replaces this dimension's offset.
                let old = offsets[dim];
                let far_bound = bound - old * old + diff * diff;
                // A little slack against rounding: a row exactly at the limit may still win a tie.
                if far_bound * (1.0 - 1e-12) <= best.limit() {
                    offsets[dim] = diff;
                    self.search::<D>(far, far_bound, offsets, target, best);
                    offsets[dim] = old;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
