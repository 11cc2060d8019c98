//! Out-of-bag predictions of a forest on its own training rows (Breiman 2001): each row from
//! the trees whose bootstrap sample did not draw it, as scikit-learn's `oob_score` has them. A
//! tree's sample is drawn again from its stream ([`forest_sample_counts`]), so a model need not
//! keep it; the rows given must be the training rows, in their training order (a forest merged
//! from parts drew its samples otherwise).

use super::ensemble::{forest_sample_counts, ForestSampling, Growth};
use super::model::Tree;
use crate::data::features::FeatureMatrixView;
use crate::error::{invalid, Result};
use rayon::prelude::*;

/// The sampling of a forest that has out-of-bag rows: trees grown on bootstrap samples.
pub fn bootstrap_sampling(growth: Growth) -> Result<ForestSampling> {
    match growth {
        Growth::Forest(sampling) if sampling.bootstrap => Ok(sampling),
        _ => Err(invalid("out-of-bag predictions need trees grown on bootstrap samples (bootstrap=True)")),
    }
}

/// For each row of `x` (the forest's training rows), `each_row` of the leaves it reaches in the
/// trees that did not draw it, in tree order; `None` for a row every tree drew.
pub fn out_of_bag_rows<'t, L: Sync, T: Send>(
    trees: &'t [Tree<L>],
    sampling: ForestSampling,
    x: &FeatureMatrixView<'_>,
    fill_values: &[f64],
    each_row: impl Fn(&[&'t L]) -> T + Sync,
) -> Result<Vec<Option<T>>> {
    out_of_bag_rows_of(trees, sampling, x, None, fill_values, each_row)
}

/// As [`out_of_bag_rows`] for trees whose samples were drawn over `sampled` (row ids of `x`,
/// in order; `None`: every row), as a label pair's classifier draws over the rows that rank
/// the pair: a row outside `sampled` was left out by every tree.
pub fn out_of_bag_rows_of<'t, L: Sync, T: Send>(
    trees: &'t [Tree<L>],
    sampling: ForestSampling,
    x: &FeatureMatrixView<'_>,
    sampled: Option<&[u32]>,
    fill_values: &[f64],
    each_row: impl Fn(&[&'t L]) -> T + Sync,
) -> Result<Vec<Option<T>>> {
    let n = x.n_rows();
    // position[i]: row i's place among the sampled rows (u32::MAX: not among them).
    let position: Vec<u32> = match sampled {
        None => (0..n as u32).collect(),
        Some(rows) => {
            let mut position = vec![u32::MAX; n];
            rows.iter().enumerate().for_each(|(k, &i)| position[i as usize] = k as u32);
            position
        }
    };
    let n_sampled = sampled.map_or(n, <[u32]>::len);
    let mut in_bag: Vec<bool> = crate::memory::zeroed("the trees' bootstrap samples", &[trees.len(), n_sampled])?;
    if n_sampled > 0 {
        in_bag.par_chunks_mut(n_sampled).enumerate().for_each(|(t, bag)| {
            bag.iter_mut().zip(forest_sample_counts(sampling, t, n_sampled)).for_each(|(b, c)| *b = c > 0.0);
        });
    }
    let drew = |t: usize, i: usize| position[i] != u32::MAX && in_bag[t * n_sampled + position[i] as usize];
    Ok((0..n)
        .into_par_iter()
        .map_init(Vec::new, |leaves: &mut Vec<&'t L>, i| {
            leaves.clear();
            let row = x.row(i);
            leaves
                .extend(trees.iter().enumerate().filter(|&(t, _)| !drew(t, i)).map(|(_, tree)| tree.leaf_for(row, fill_values)));
            (!leaves.is_empty()).then(|| each_row(leaves))
        })
        .collect())
}

/// Rows of `m` ranks from [`out_of_bag_rows`]: a row no tree left out is all zeros.
pub fn out_of_bag_ranks(rows: Vec<Option<Vec<i32>>>, m: usize) -> Vec<i32> {
    rows.into_iter().flat_map(|r| r.unwrap_or_else(|| vec![0; m])).collect()
}
