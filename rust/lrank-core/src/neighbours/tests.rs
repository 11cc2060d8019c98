//! The k-d tree against brute force.

use super::*;
use crate::rng::Rng;

/// A search's (squared distance, row) list, after checking that each neighbour's slot holds its
/// row in tree order.
fn found(tree: &super::KdIndex, q: &[f64], k: usize, exclude: Option<usize>, pts: &[f64]) -> Vec<(f64, u32)> {
    let n = tree.order().len();
    assert_eq!(pts.len() % n.max(1), 0);
    tree.nearest(q, k, exclude)
        .into_iter()
        .map(|nb| {
            assert_eq!(tree.order()[nb.slot as usize], nb.row, "slot {} of row {}", nb.slot, nb.row);
            (nb.dist2, nb.row)
        })
        .collect()
}

#[test]
fn kd_tree_search_equals_brute_force_ties_included() {
    let mut rng = Rng::new(21);
    // Up to 4 features the search is compiled for the number and scans full leaves whole.
    let cases = [(1usize, 1usize, false), (40, 1, false), (300, 2, false), (500, 3, false), (1500, 4, false), (400, 4, true)];
    for (n, d, with_nominal) in cases.into_iter().chain([(200, 5, false), (200, 6, false), (2000, 9, false), (300, 5, true)]) {
        // Coarse grid values make many equal distances.
        let pts: Vec<f64> = (0..n * d).map(|_| (rng.below(7) as f64) / 7.0).collect();
        let nominal: Vec<bool> = (0..d).map(|f| with_nominal && f % 2 == 0).collect();
        let nominal = with_nominal.then_some(nominal.as_slice());
        let tree = KdIndex::build(&pts, d, nominal);
        for _ in 0..30 {
            let q: Vec<f64> = (0..d).map(|_| (rng.below(9) as f64) / 8.0).collect();
            let k = 1 + rng.below(25);
            let exclude = if rng.uniform() < 0.5 { Some(rng.below(n)) } else { None };
            let mut brute: Vec<(f64, u32)> = (0..n)
                .filter(|&i| Some(i) != exclude)
                .map(|i| (squared_distance(&pts[i * d..(i + 1) * d], &q, nominal), i as u32))
                .collect();
            brute.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            brute.truncate(k);
            assert_eq!(found(&tree, &q, k, exclude, &pts), brute, "n={n} d={d} k={k}");
        }
    }
}

#[test]
fn kd_tree_search_equals_brute_force_in_many_dimensions() {
    // Continuous values in 16 dimensions: the leaves' bounding boxes, not the split planes,
    // do most of the pruning here.
    let mut rng = Rng::new(8);
    let (n, d) = (3000, 16);
    let pts: Vec<f64> = (0..n * d).map(|i| rng.uniform() * (1.0 + (i % d) as f64)).collect();
    let tree = KdIndex::build(&pts, d, None);
    for _ in 0..60 {
        let q: Vec<f64> = (0..d).map(|f| rng.uniform() * (1.0 + f as f64)).collect();
        let k = 1 + rng.below(20);
        let mut brute: Vec<(f64, u32)> =
            (0..n).map(|i| (squared_distance(&pts[i * d..(i + 1) * d], &q, None), i as u32)).collect();
        brute.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        brute.truncate(k);
        assert_eq!(found(&tree, &q, k, None, &pts), brute, "k={k}");
    }
}

#[test]
fn every_leaf_is_full_but_the_last() {
    // Splits leave a whole number of leaves on the left, so only the rightmost leaf can be
    // short (distinct points; equal ones may make longer leaves, see the next test).
    let mut rng = Rng::new(12);
    for (n, d) in [(1000usize, 3usize), (18576, 4), (2048, 2), (33, 5), (31, 2)] {
        let pts: Vec<f64> = (0..n * d).map(|_| rng.uniform()).collect();
        let sizes = KdIndex::build(&pts, d, None).leaf_sizes();
        assert_eq!(sizes.iter().sum::<usize>(), n);
        let (last, full) = sizes.split_last().expect("a leaf");
        assert!(full.iter().all(|&s| s == LEAF_SIZE), "n={n}: {sizes:?}");
        assert!((1..=LEAF_SIZE).contains(last), "n={n}: last leaf {last}");
    }
}

#[test]
fn the_split_feature_has_the_largest_mean_absolute_deviation_not_variance() {
    // Feature 0: all rows at 0.5 but two at 0.5 -+ 1.7 (variance 0.090, mean absolute
    // deviation 0.053). Feature 1: evenly spread over [0, 1] (variance 0.083, mean absolute
    // deviation 0.25). The variance would split feature 0, which separates two rows.
    use super::KdIndex;
    let n = 64;
    let pts: Vec<f64> = (0..n)
        .flat_map(|i| {
            let f0 = match i {
                0 => 0.5 - 1.7,
                1 => 0.5 + 1.7,
                _ => 0.5,
            };
            [f0, i as f64 / (n - 1) as f64]
        })
        .collect();
    assert_eq!(KdIndex::build(&pts, 2, None).root_split_feature(), Some(1));
    // Swapped columns: the choice follows the data, not the position.
    let swapped: Vec<f64> = pts.chunks_exact(2).flat_map(|r| [r[1], r[0]]).collect();
    assert_eq!(KdIndex::build(&swapped, 2, None).root_split_feature(), Some(0));
}

#[test]
fn a_leaf_longer_than_leaf_size_is_searched_in_full() {
    // Rows equal on every numeric feature are never split apart, so a leaf can hold more than
    // LEAF_SIZE of them; here they differ only in a nominal feature, which the search must read
    // for every one of them. Rows 0 to 9 lie apart; rows 10 to 149 share their numeric value.
    let (n, d) = (150, 2);
    let nominal = [false, true];
    let pts: Vec<f64> = (0..n).flat_map(|i| [if i < 10 { 1.0 + i as f64 } else { 0.0 }, ((i * 7) % 5) as f64]).collect();
    let tree = KdIndex::build(&pts, d, Some(&nominal));
    for code in 0..5 {
        let q = [0.0, code as f64];
        for k in 1..=12 {
            for exclude in [None, Some(10 + code)] {
                let mut brute: Vec<(f64, u32)> = (0..n)
                    .filter(|&i| Some(i) != exclude)
                    .map(|i| (squared_distance(&pts[i * d..(i + 1) * d], &q, Some(&nominal)), i as u32))
                    .collect();
                brute.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                brute.truncate(k);
                assert_eq!(found(&tree, &q, k, exclude, &pts), brute, "code={code} k={k}");
            }
        }
    }
}

#[test]
fn block_sorting_network_sorts_every_input() {
    // 0-1 principle: a comparator network that sorts every 0/1 input sorts every input.
    for bits in 0u32..1 << BLOCK {
        let mut v: [f64; BLOCK] = std::array::from_fn(|l| ((bits >> l) & 1) as f64);
        sort_block(&mut v);
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "{bits:08b} gave {v:?}");
    }
    let mut rng = Rng::new(3);
    for _ in 0..200 {
        let mut v: [f64; BLOCK] = std::array::from_fn(|_| if rng.uniform() < 0.2 { f64::INFINITY } else { rng.below(5) as f64 });
        let mut expected = v;
        expected.sort_by(f64::total_cmp);
        sort_block(&mut v);
        assert_eq!(v, expected);
    }
}

#[test]
fn leave_one_out_search_never_counts_the_left_out_row() {
    // The first leaf's starting limit comes from its own rows: the left-out row is the query
    // itself (distance 0) and must not tighten it. Coarse values make many ties.
    let mut rng = Rng::new(5);
    for (n, d) in [(20usize, 2usize), (300, 2), (2000, 4), (700, 3)] {
        let pts: Vec<f64> = (0..n * d).map(|_| (rng.below(6) as f64) / 5.0).collect();
        let tree = KdIndex::build(&pts, d, None);
        for v in (0..n).step_by((n / 40).max(1)) {
            let q = &pts[v * d..(v + 1) * d];
            for k in 1..=9 {
                let mut brute: Vec<(f64, u32)> =
                    (0..n).filter(|&i| i != v).map(|i| (squared_distance(&pts[i * d..(i + 1) * d], q, None), i as u32)).collect();
                brute.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                brute.truncate(k);
                assert_eq!(found(&tree, q, k, Some(v), &pts), brute, "n={n} d={d} row={v} k={k}");
            }
        }
    }
}

#[test]
fn kneighbors_of_the_training_points_leave_each_point_out_and_equal_brute_force() {
    let mut rng = Rng::new(5);
    let (n, d, k) = (150usize, 3usize, 6usize);
    // Coarse values: duplicates of a point are found at distance 0, the point itself never.
    let pts: Vec<f64> = (0..n * d).map(|_| (rng.below(4) as f64) / 4.0).collect();
    let tree = KdIndex::build(&pts, d, None);
    let near = k_nearest_rows(&tree, n, Queries::Training(&pts), k).unwrap();
    assert_eq!((near.n_queries, near.k, near.rows.len()), (n, k, n * k));
    for i in 0..n {
        let mut brute: Vec<(f64, u32)> = (0..n)
            .filter(|&j| j != i)
            .map(|j| (squared_distance(&pts[j * d..(j + 1) * d], &pts[i * d..(i + 1) * d], None), j as u32))
            .collect();
        brute.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let got: Vec<(f64, u32)> = (0..k).map(|c| (near.distances[i * k + c].powi(2), near.rows[i * k + c])).collect();
        for (g, b) in got.iter().zip(&brute) {
            assert!((g.0 - b.0).abs() < 1e-12 && g.1 == b.1, "row {i}: {got:?} against {:?}", &brute[..k]);
        }
    }
    let err = k_nearest_rows(&tree, n, Queries::Training(&pts), n).unwrap_err().to_string();
    assert!(err.contains("n_neighbors must be 1 to 149 (the training rows but the row itself)"), "{err}");
    // One training row has no neighbour but itself: said so, not as the empty range "1 to 0".
    let one = KdIndex::build(&pts[..d], d, None);
    let err = k_nearest_rows(&one, 1, Queries::Training(&pts[..d]), 1).unwrap_err().to_string();
    assert!(err.contains("needs two training rows or more"), "{err}");
}
