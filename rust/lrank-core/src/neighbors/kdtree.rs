//! An exact k-d tree for the k-nearest-neighbour search of IBLR.
//!
//! Returns exactly what a brute-force search returns, ties included: neighbours are ordered by
//! (squared distance, row index), distances are summed in the same feature order, and a subtree
//! is skipped only when its lower bound is strictly worse than the current k-th neighbour.

use std::collections::BinaryHeap;

const LEAF_SIZE: usize = 16;

enum KdNode {
    Leaf { start: usize, end: usize },
    Split { dim: usize, value: f64, left: usize, right: usize },
}

pub struct KdTree<'a> {
    points: &'a [f64],
    d: usize,
    order: Vec<u32>,
    nodes: Vec<KdNode>,
}

/// (squared distance, row) ordered as brute force orders neighbours.
#[derive(Clone, Copy, PartialEq)]
struct Candidate(f64, u32);

impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// Squared Euclidean distance, summed in feature order (as the brute-force search does).
#[inline]
pub fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

impl<'a> KdTree<'a> {
    /// Builds the tree over the rows of `points` (row-major, `d` columns).
    pub fn new(points: &'a [f64], d: usize) -> Self {
        let n = if d == 0 { 0 } else { points.len() / d };
        let mut tree = KdTree { points, d, order: (0..n as u32).collect(), nodes: Vec::new() };
        if n > 0 {
            tree.build(0, n);
        }
        tree
    }

    fn coord(&self, row: u32, dim: usize) -> f64 {
        self.points[row as usize * self.d + dim]
    }

    fn build(&mut self, start: usize, end: usize) -> usize {
        let id = self.nodes.len();
        self.nodes.push(KdNode::Leaf { start, end });
        if end - start <= LEAF_SIZE || self.d == 0 {
            return id;
        }
        // Split the dimension of largest spread at its median.
        let (mut dim, mut spread) = (0, -1.0);
        for f in 0..self.d {
            let (lo, hi) = self.order[start..end].iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &r| {
                let v = self.coord(r, f);
                (lo.min(v), hi.max(v))
            });
            if hi - lo > spread {
                (dim, spread) = (f, hi - lo);
            }
        }
        if spread <= 0.0 {
            return id; // all points equal
        }
        let mid = start + (end - start) / 2;
        let points = self.points;
        let d = self.d;
        self.order[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
            points[a as usize * d + dim].total_cmp(&points[b as usize * d + dim]).then(a.cmp(&b))
        });
        let value = self.coord(self.order[mid], dim);
        let left = self.build(start, mid);
        let right = self.build(mid, end);
        self.nodes[id] = KdNode::Split { dim, value, left, right };
        id
    }

    /// The `k` nearest rows to `query` (skipping row `exclude`), nearest first, as
    /// (squared distance, row).
    pub fn nearest(&self, query: &[f64], k: usize, exclude: Option<usize>) -> Vec<(f64, u32)> {
        let mut heap: BinaryHeap<Candidate> = BinaryHeap::with_capacity(k + 1);
        if k > 0 && !self.nodes.is_empty() {
            self.search(0, query, k, exclude, &mut heap);
        }
        let mut out: Vec<(f64, u32)> = heap.into_iter().map(|c| (c.0, c.1)).collect();
        out.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        out
    }

    fn search(&self, node: usize, query: &[f64], k: usize, exclude: Option<usize>, heap: &mut BinaryHeap<Candidate>) {
        match self.nodes[node] {
            KdNode::Leaf { start, end } => {
                for &row in &self.order[start..end] {
                    if Some(row as usize) == exclude {
                        continue;
                    }
                    let p = &self.points[row as usize * self.d..(row as usize + 1) * self.d];
                    let cand = Candidate(squared_distance(p, query), row);
                    if heap.len() < k {
                        heap.push(cand);
                    } else if cand < *heap.peek().expect("heap is full") {
                        heap.pop();
                        heap.push(cand);
                    }
                }
            }
            KdNode::Split { dim, value, left, right } => {
                let diff = query[dim] - value;
                let (near, far) = if diff <= 0.0 { (left, right) } else { (right, left) };
                self.search(near, query, k, exclude, heap);
                // Every row on the far side is at least |diff| away along `dim`.
                if heap.len() < k || diff * diff <= heap.peek().expect("heap is full").0 {
                    self.search(far, query, k, exclude, heap);
                }
            }
        }
    }
}
