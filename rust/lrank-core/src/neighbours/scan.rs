//! Leaf scans of the k-d tree: the distances of a leaf's points to the query, block by block,
//! and the offer of those within reach to the running best.

use super::{Best, LeafPoints, Neighbour, Target, BLOCK, FEW_FEATURES, LEAF_SIZE};

/// Offers the points of a full leaf (LEAF_SIZE `rows`, stored from `start` in tree order)
/// within the current limit. Squared distances are computed BLOCK points at a time, summed
/// feature by feature: each point's sum runs in feature order, as brute force sums it, and the
/// block's partial sums stay in registers across the features.
///
/// With up to FEW_FEATURES features a block never stops early (its partial sums are checked
/// every 4 features), so the whole leaf's distances are computed first and offered from one
/// mask: that takes the four blocks' tests of their nearest point and their four loops over
/// points within reach, branches that mispredict often, down to one loop (calhousing, 4
/// features: predictions about 6% faster).
#[inline(always)]
pub(super) fn scan_full_leaf<const D: usize>(leaf: LeafPoints<'_>, target: &Target<'_>, best: &mut Best) {
    let (LeafPoints { block, rows, start }, Target { query, nominal, exclude }) = (leaf, *target);
    if D != 0 && D <= FEW_FEATURES {
        scan_whole_leaf::<D>(leaf, target, best);
        return;
    }
    for b in 0..LEAF_SIZE / BLOCK {
        let j0 = b * BLOCK;
        if let Some(acc) = full_block::<D>(block, LEAF_SIZE, j0, query, nominal, best.limit()) {
            offer_within(&acc, &rows[j0..j0 + BLOCK], start + j0, exclude, best);
        }
    }
}

/// [`scan_full_leaf`] for up to FEW_FEATURES features: all the leaf's distances, then one mask.
/// Out of line, unlike the block scan: inlined, its 32 distances made the stack frame of every
/// recursive call of the search a third larger (calhousing, 4 features: about 2% faster out of
/// line; the block scan for more features was 4% to 7% slower out of line).
#[inline(never)]
fn scan_whole_leaf<const D: usize>(leaf: LeafPoints<'_>, target: &Target<'_>, best: &mut Best) {
    let (LeafPoints { block, rows, start }, Target { query, nominal, exclude }) = (leaf, *target);
    offer_within(&leaf_distances::<D>(block, query, nominal), rows, start, exclude, best);
}

/// Squared distances of all the points of a full leaf, each summed in feature order.
#[inline(always)]
fn leaf_distances<const D: usize>(block: &[f64], query: &[f64], nominal: Option<&[bool]>) -> [f64; LEAF_SIZE] {
    let query = &query[..dims::<D>(query.len())];
    let mut acc = [0.0f64; LEAF_SIZE];
    for (f, (&q, column)) in query.iter().zip(block.chunks_exact(LEAF_SIZE)).enumerate() {
        add_feature(&mut acc, column.try_into().expect("a full leaf"), q, nominal.is_some_and(|nom| nom[f]));
    }
    acc
}

/// Adds one feature's terms to the squared distances `acc` of the points whose values are
/// `column`: the squared difference from the query's value `q`, or 1 on a mismatch of a
/// nominal feature.
#[inline(always)]
fn add_feature<const N: usize>(acc: &mut [f64; N], column: &[f64; N], q: f64, nominal: bool) {
    if nominal {
        for (a, &v) in acc.iter_mut().zip(column) {
            *a += (v != q) as u8 as f64;
        }
    } else {
        for (a, &v) in acc.iter_mut().zip(column) {
            *a += (v - q) * (v - q);
        }
    }
}

/// [`scan_full_leaf`] for a leaf of any length (the last, or one of points equal on every
/// numeric feature).
#[inline(never)]
pub(super) fn scan_leaf<const D: usize>(leaf: LeafPoints<'_>, target: &Target<'_>, best: &mut Best) {
    let (LeafPoints { block, rows, start }, Target { query, nominal, exclude }) = (leaf, *target);
    let len = rows.len();
    let mut j0 = 0;
    while j0 < len {
        let width = BLOCK.min(len - j0);
        let limit = best.limit();
        if let Some(acc) = block_distances::<D>(block, len, j0, width, query, nominal, limit) {
            offer_within(&acc, &rows[j0..j0 + width], start + j0, exclude, best);
        }
        j0 += width;
    }
}

/// [`full_block`] or, for the last `width` < BLOCK points of a leaf, [`partial_block`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn block_distances<const D: usize>(
    block: &[f64],
    len: usize,
    j0: usize,
    width: usize,
    query: &[f64],
    nominal: Option<&[bool]>,
    limit: f64,
) -> Option<[f64; BLOCK]> {
    if width == BLOCK {
        full_block::<D>(block, len, j0, query, nominal, limit)
    } else {
        partial_block::<D>(block, len, j0, width, query, nominal, limit)
    }
}

/// Squared distances of the BLOCK points at `j0..j0 + BLOCK` of a leaf (stored feature by
/// feature, `len` points per feature), each summed in feature order; `None` once all of them
/// exceed `limit` (checked every 4 features, as partial sums only grow, and at the end).
/// Constant indices only, so the sums stay in registers.
#[inline(always)]
fn full_block<const D: usize>(
    block: &[f64],
    len: usize,
    j0: usize,
    query: &[f64],
    nominal: Option<&[bool]>,
    limit: f64,
) -> Option<[f64; BLOCK]> {
    let query = &query[..dims::<D>(query.len())];
    let mut acc = [0.0f64; BLOCK];
    for (f, &q) in query.iter().enumerate() {
        if f % 4 == 0 && f > 0 && acc.iter().all(|&a| a > limit) {
            return None;
        }
        let column = block[f * len + j0..f * len + j0 + BLOCK].try_into().expect("a full block");
        add_feature(&mut acc, column, q, nominal.is_some_and(|nom| nom[f]));
    }
    // Most blocks of a scanned leaf hold no point within reach: their (vectorised) minimum
    // rules them out before any per-point work.
    let nearest = acc.iter().fold(f64::INFINITY, |a, &b| if b < a { b } else { a });
    (nearest <= limit).then_some(acc)
}

/// [`full_block`] for the last `width` < BLOCK points of a leaf (unused entries stay 0).
fn partial_block<const D: usize>(
    block: &[f64],
    len: usize,
    j0: usize,
    width: usize,
    query: &[f64],
    nominal: Option<&[bool]>,
    limit: f64,
) -> Option<[f64; BLOCK]> {
    let query = &query[..dims::<D>(query.len())];
    let mut acc = [0.0f64; BLOCK];
    for (f, &q) in query.iter().enumerate() {
        if f % 4 == 0 && f > 0 && acc[..width].iter().all(|&a| a > limit) {
            return None;
        }
        let column = &block[f * len + j0..f * len + j0 + width];
        let nominal_f = nominal.is_some_and(|nom| nom[f]);
        for (a, &v) in acc.iter_mut().zip(column) {
            *a += if nominal_f { (v != q) as u8 as f64 } else { (v - q) * (v - q) };
        }
    }
    Some(acc)
}

/// Offers the points of a block or leaf within the current limit: `acc` holds their distances
/// (the first `rows.len()` in use), `rows` their rows and `slot` the first one's place in tree
/// order.
#[inline(always)]
pub(super) fn offer_within<const N: usize>(acc: &[f64; N], rows: &[u32], slot: usize, exclude: Option<usize>, best: &mut Best) {
    let limit = best.limit();
    // The points within reach as a bit mask, computed without branches: most points of a
    // scanned leaf are out of reach, and a branch per point would mispredict often.
    let mut within = 0u32;
    for (l, &dist) in acc.iter().enumerate() {
        within |= ((dist <= limit) as u32) << l;
    }
    if rows.len() < N {
        within &= (1 << rows.len()) - 1;
    }
    while within != 0 {
        let l = within.trailing_zeros() as usize;
        within &= within - 1;
        let row = rows[l];
        if acc[l] <= best.limit() && Some(row as usize) != exclude {
            best.offer(Neighbour { dist2: acc[l], row, slot: (slot + l) as u32 });
        }
    }
}

/// Sorts a block of values in ascending order without data-dependent branches (Batcher's
/// odd-even merge sort network, 19 comparators for 8 inputs, written out so that the values
/// stay in registers). For values without NaN.
#[inline]
pub(super) fn sort_block(values: &mut [f64; BLOCK]) {
    let [mut v0, mut v1, mut v2, mut v3, mut v4, mut v5, mut v6, mut v7] = *values;
    macro_rules! exchange {
        ($($a:ident $b:ident),*) => {$(
            let (low, high) = if $b < $a { ($b, $a) } else { ($a, $b) };
            ($a, $b) = (low, high);
        )*};
    }
    exchange!(v0 v1, v2 v3, v4 v5, v6 v7);
    exchange!(v0 v2, v1 v3, v4 v6, v5 v7);
    exchange!(v1 v2, v5 v6);
    exchange!(v0 v4, v1 v5, v2 v6, v3 v7);
    exchange!(v2 v4, v3 v5);
    exchange!(v1 v2, v3 v4, v5 v6);
    *values = [v0, v1, v2, v3, v4, v5, v6, v7];
}

/// The number of features: `D` in a search compiled for it, `d` in the general one (`D` = 0).
#[inline(always)]
pub(super) fn dims<const D: usize>(d: usize) -> usize {
    debug_assert!(D == 0 || D == d);
    if D == 0 {
        d
    } else {
        D
    }
}
