//! Benchmarks of the engine's hot paths, on synthetic data (deterministic for the seed), one
//! thread: the split search of a node (a depth-1 tree: the root's sorted sweep over every
//! feature), the k-d tree search behind IBLR's predictions, and an LR-RF forest.
//!
//!     cargo bench -p lrank-bench --bench engine
//!
//! They replace the probes earlier sessions ran from programs outside the repository.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::learner::Learner;
use lrank_core::learners::label_tree::{LabelTreeModel, LabelTreeParams};
use lrank_core::learners::neighbors::{InstanceBasedModel, InstanceBasedParams};
use lrank_core::learners::random_forest::{RandomForestModel, RandomForestParams};
use lrank_core::parallel::with_threads;
use lrank_core::rng::Rng;
use lrank_core::tree::{grow_tree, ClassEntropy, GrowParams, LeafFitter, ThresholdRule, TrainingFeatures};
use std::hint::black_box;

/// n rows, d uniform features, m labels ranked by a noisy linear utility of the features.
fn problem(n: usize, d: usize, m: usize, seed: u64) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let w: Vec<f64> = (0..d * m).map(|_| rng.uniform() - 0.5).collect();
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n * m);
    for _ in 0..n {
        let row: Vec<f64> = (0..d).map(|_| (rng.uniform() * 1000.0).round() / 1000.0).collect();
        let utility: Vec<f64> =
            (0..m).map(|j| (0..d).map(|f| row[f] * w[f * m + j]).sum::<f64>() + 0.1 * rng.uniform()).collect();
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&a, &b| utility[b].total_cmp(&utility[a]));
        let mut ranks = vec![0i32; m];
        for (pos, &j) in order.iter().enumerate() {
            ranks[j] = pos as i32 + 1;
        }
        x.extend(row);
        y.extend(ranks);
    }
    (x, y)
}

struct Count;
impl LeafFitter for Count {
    type Leaf = f64;
    fn fit_leaf(&self, _samples: &[u32], weights: &[f64]) -> f64 {
        weights.iter().sum()
    }
}

fn split_search(c: &mut Criterion) {
    let (n, d, m) = (20_000, 8, 5);
    let (x, y) = problem(n, d, m, 1);
    let view = FeatureMatrixView::new(&x, n, d).unwrap();
    let features = TrainingFeatures::new(&view);
    // The class of a row: its top label (as LR-RF's top-label mode).
    let classes: Vec<u32> = y.chunks(m).map(|r| r.iter().position(|&p| p == 1).unwrap() as u32).collect();
    let criterion = ClassEntropy::new(&classes, m, 1e-9);
    let params = GrowParams { max_depth: Some(1), max_features: d, min_weight_split: 2.0, threshold_rule: ThresholdRule::Best };
    let mut group = c.benchmark_group("split_search");
    group.sample_size(20);
    group.bench_function("class_entropy_root_20000x8", |b| {
        b.iter(|| {
            with_threads(Some(1), || {
                let tree =
                    grow_tree(&features, (0..n as u32).collect(), vec![1.0; n], &criterion, &Count, &params, &mut Rng::new(3));
                black_box(tree.nodes.len())
            })
            .unwrap()
        })
    });
    // LRT's Mallows criterion, one split (a depth-1 label ranking tree on 5,000 rows).
    let (xs, ys) = problem(5_000, d, m, 2);
    let (xv, yv) = (FeatureMatrixView::new(&xs, 5_000, d).unwrap(), RankMatrixView::new(&ys, 5_000, m).unwrap());
    group.bench_function("mallows_root_5000x8", |b| {
        let params = LabelTreeParams { max_depth: Some(1), ..Default::default() };
        b.iter(|| {
            with_threads(Some(1), || black_box(LabelTreeModel::fit_views(&xv, &yv, None, params.clone()).unwrap())).unwrap()
        })
    });
    group.finish();
}

fn kd_tree(c: &mut Criterion) {
    let (n, m) = (20_000, 5);
    let mut group = c.benchmark_group("kdtree_search");
    group.sample_size(20);
    for d in [4usize, 8] {
        let (x, y) = problem(n, d, m, 4);
        let (xv, yv) = (FeatureMatrixView::new(&x, n, d).unwrap(), RankMatrixView::new(&y, n, m).unwrap());
        let params = InstanceBasedParams { k: Some(5), ..Default::default() };
        let model = InstanceBasedModel::fit_views(&xv, &yv, None, params).unwrap();
        let queries = FeatureMatrixView::new(&x[..2000 * d], 2000, d).unwrap();
        group.bench_with_input(BenchmarkId::new("iblr_predict_2000_rows", d), &d, |b, _| {
            b.iter(|| with_threads(Some(1), || black_box(model.predict_ranks(&queries).unwrap())).unwrap())
        });
    }
    group.finish();
}

fn forest(c: &mut Criterion) {
    let (n, d, m) = (20_000, 8, 5);
    let (x, y) = problem(n, d, m, 5);
    let (xv, yv) = (FeatureMatrixView::new(&x, n, d).unwrap(), RankMatrixView::new(&y, n, m).unwrap());
    let mut group = c.benchmark_group("forest");
    group.sample_size(10);
    group.bench_function("lrrf_fit_20_trees_depth_8", |b| {
        let params = RandomForestParams { n_estimators: 20, seed: 1, ..Default::default() };
        b.iter(|| {
            with_threads(Some(1), || black_box(RandomForestModel::fit_views(&xv, &yv, None, params.clone()).unwrap())).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, split_search, kd_tree, forest);
criterion_main!(benches);
