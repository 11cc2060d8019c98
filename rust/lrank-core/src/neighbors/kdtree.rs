//! An exact k-d tree for the k-nearest-neighbour searches of the instance-based learners.
//!
//! Returns exactly what a brute-force search returns, ties included: neighbours are ordered by
//! (squared distance, row index), distances are summed in the same feature order, and a subtree
//! is skipped only when its lower bound is strictly worse than the current k-th neighbour.
//!
//! The lower bound of a cell is the squared distance from the query to the cell's box as far as
//! the split planes above it define it, updated in O(1) per step down the tree (Arya & Mount's
//! incremental distance). Nominal features count a mismatch as 1 and a match as 0; the tree
//! never splits on them, so they never prune (their contribution to a bound is 0).

const LEAF_SIZE: usize = 16;

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

/// The k best (squared distance, row) so far, sorted (k is small: a sorted buffer beats a heap).
struct Best {
    k: usize,
    items: Vec<(f64, u32)>,
}

impl Best {
    /// Distance a candidate must not exceed to be considered (ties are decided by row index).
    #[inline]
    fn limit(&self) -> f64 {
        if self.items.len() < self.k {
            f64::INFINITY
        } else {
            self.items[self.k - 1].0
        }
    }

    #[inline]
    fn offer(&mut self, dist: f64, row: u32) {
        let full = self.items.len() == self.k;
        if full {
            let (worst_d, worst_r) = self.items[self.k - 1];
            if dist > worst_d || (dist == worst_d && row > worst_r) {
                return;
            }
            self.items.pop();
        }
        let at = self.items.partition_point(|&(d, r)| d < dist || (d == dist && r < row));
        self.items.insert(at, (dist, row));
    }
}

impl KdIndex {
    /// Builds the tree over the rows of `points` (row-major, `d` columns); `nominal` marks the
    /// nominal features (`None`: all numeric).
    pub fn build(points: &[f64], d: usize, nominal: Option<&[bool]>) -> Self {
        let n = if d == 0 { 0 } else { points.len() / d };
        let nominal = nominal.map_or_else(|| vec![false; d], <[bool]>::to_vec);
        let mut index = KdIndex { d, order: (0..n as u32).collect(), points: Vec::new(), nodes: Vec::new(), nominal };
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
        index
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
        // Split the numeric dimension of largest spread at its median.
        let (mut dim, mut spread) = (0, 0.0);
        for f in (0..d).filter(|&f| !self.nominal[f]) {
            let (lo, hi) = self.order[start..end].iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &r| {
                let v = points[r as usize * d + f];
                (lo.min(v), hi.max(v))
            });
            if hi - lo > spread {
                (dim, spread) = (f, hi - lo);
            }
        }
        if spread <= 0.0 {
            return id; // all points equal on the numeric features
        }
        let mid = start + (end - start) / 2;
        self.order[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
            points[a as usize * d + dim].total_cmp(&points[b as usize * d + dim]).then(a.cmp(&b))
        });
        let value = points[self.order[mid] as usize * d + dim];
        let left = self.build_node(points, start, mid);
        let right = self.build_node(points, mid, end);
        self.nodes[id] = KdNode::Split { dim, value, left, right };
        id
    }

    /// The `k` nearest rows to `query`, skipping row `exclude`, nearest first, as (squared
    /// distance, row).
    pub fn nearest(&self, query: &[f64], k: usize, exclude: Option<usize>) -> Vec<(f64, u32)> {
        let mut best = Best { k, items: Vec::with_capacity(k + 1) };
        if k > 0 && !self.nodes.is_empty() {
            let mut offsets = vec![0.0; self.d];
            let nominal = self.has_nominal().then_some(self.nominal.as_slice());
            self.search(0, query, 0.0, &mut offsets, nominal, exclude, &mut best);
        }
        best.items
    }

    /// `bound`: squared distance from the query to the node's cell; `offsets[dim]`: the query's
    /// offset from the cell along `dim` (0 inside the cell's slab).
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        node: usize,
        query: &[f64],
        bound: f64,
        offsets: &mut [f64],
        nominal: Option<&[bool]>,
        exclude: Option<usize>,
        best: &mut Best,
    ) {
        match self.nodes[node] {
            KdNode::Leaf { start, end } => {
                let (d, len) = (self.d, end - start);
                let block = &self.points[start * d..end * d];
                // Squared distances of the whole leaf, summed feature by feature: each point's
                // sum runs in feature order, as brute force sums it.
                let mut on_stack = [0.0f64; LEAF_SIZE];
                let mut on_heap = Vec::new(); // a leaf of equal points can exceed LEAF_SIZE
                let dist = if len <= LEAF_SIZE {
                    &mut on_stack[..len]
                } else {
                    on_heap.resize(len, 0.0);
                    &mut on_heap[..]
                };
                let limit = best.limit();
                for (f, column) in block.chunks_exact(len).enumerate() {
                    // Partial sums only grow: once every point of the leaf is past the current
                    // k-th distance, the remaining features cannot bring one back.
                    if f % 4 == 0 && f > 0 && dist.iter().all(|&d| d > limit) {
                        return;
                    }
                    let q = query[f];
                    if nominal.is_some_and(|nom| nom[f]) {
                        for (acc, &v) in dist.iter_mut().zip(column) {
                            *acc += (v != q) as u8 as f64;
                        }
                    } else {
                        for (acc, &v) in dist.iter_mut().zip(column) {
                            *acc += (v - q) * (v - q);
                        }
                    }
                }
                for (&row, &dist) in self.order[start..end].iter().zip(dist.iter()) {
                    if dist <= best.limit() && Some(row as usize) != exclude {
                        best.offer(dist, row);
                    }
                }
            }
            KdNode::Split { dim, value, left, right } => {
                let diff = query[dim] - value;
                let (near, far) = if diff <= 0.0 { (left, right) } else { (right, left) };
                self.search(near, query, bound, offsets, nominal, exclude, best);
                // The far cell lies beyond the plane: its bound replaces this dimension's offset.
                let old = offsets[dim];
                let far_bound = bound - old * old + diff * diff;
                // A little slack against rounding: a row exactly at the limit may still win a tie.
                if far_bound * (1.0 - 1e-12) <= best.limit() {
                    offsets[dim] = diff;
                    self.search(far, query, far_bound, offsets, nominal, exclude, best);
                    offsets[dim] = old;
                }
            }
        }
    }
}
