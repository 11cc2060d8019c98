//! BPA-LIA-MP2: the bucket pivot algorithm with multiple pivots and two stages (Aledo, Gámez &
//! Rosete 2017), on a pair-order matrix C.
//!
//! 1. The "utopian" matrix U: `U_ij = 1` if `C_ij > 0.75`, `1/2` if `0.25 <= C_ij <= 0.75`, else
//!    0 (fixed thresholds, as in the published implementations).
//! 2. Each item's DANI = `(1 / (k - 1)) Σ_{j≠i} |C_ij - U_ij|`, computed once over all m items
//!    (k = m: the "global" DANI of LIA_G^MP2 in Aledo, Gámez & Rosete 2017, as scikit-lr's and
//!    the authors' implementations compute it) or, in the local variant lrank used before,
//!    among the k items of each recursive call; the pivot is the call's item with the smallest
//!    DANI (the first in the call's order on ties), and the central bucket starts as {pivot}.
//! 3. Stage 1: every other item x, in order, is compared with the central bucket by the mean
//!    `m_x` of `C[c][x]` over its items c (the bucket growing as items join): `m_x < 1/2 - beta`
//!    puts x in the left part (x precedes the centre), `m_x > 1/2 + beta` in the right part, and
//!    anything between in the central bucket.
//! 4. Stage 2: the items of the left then the right part are classified again by the same rule
//!    against the central bucket that stage 1 left (held fixed while they are classified; items
//!    found central join it afterwards).
//! 5. Recursion on the left and right parts; the result is the left part's buckets, the central
//!    bucket, the right part's buckets.
//!
//! The thresholds (0.25 and 0.75 of U, 1/2 ± beta of the stages) are compared with a tolerance of
//! [`TIE_TOLERANCE`](super::TIE_TOLERANCE): C's entries are ratios of weights, and 0.3 / 0.4
//! must land where 3 / 4 does, or scaling every weight would move items across a threshold.

#[cfg(test)]
use super::ranks_of_buckets;
use super::{PairOrderMatrix, TIE_TOLERANCE};

/// The bucket order BPA-LIA-MP2 finds for C with threshold `beta` (dense rank vector), its
/// pivots chosen by the global DANI (`global`) or by the DANI within each call.
pub fn bpa(c: &PairOrderMatrix, beta: f64, global: bool) -> Vec<i32> {
    bpa_within(c, beta, global, TIE_TOLERANCE)
}

/// [`bpa`] with its comparisons made within `tolerance` (0: exactly, as before model format 11).
pub(super) fn bpa_within(c: &PairOrderMatrix, beta: f64, global: bool, tolerance: f64) -> Vec<i32> {
    let m = c.n_labels();
    let mut items: Vec<usize> = (0..m).collect();
    let mut ranks = vec![0; m];
    let mut scratch = Vec::with_capacity(5 * m);
    let mut next_bucket = 1;
    let dani = global.then(|| (0..m).map(|i| dani_among(c, &items, i, tolerance)).collect::<Vec<f64>>());
    let step = Step { c, beta, tolerance, global_dani: dani.as_deref() };
    buckets_into(&step, &mut items, &mut scratch, &mut ranks, &mut next_bucket);
    ranks
}

/// What every recursive call shares.
struct Step<'a> {
    c: &'a PairOrderMatrix,
    beta: f64,
    tolerance: f64,
    global_dani: Option<&'a [f64]>,
}

/// Item `i`'s DANI among `items`: its mean distance from the utopian matrix.
fn dani_among(c: &PairOrderMatrix, items: &[usize], i: usize, tolerance: f64) -> f64 {
    let k = items.len();
    if k < 2 {
        return 0.0;
    }
    let distance = |j: usize| (c.get(i, j) - utopian(c.get(i, j), tolerance)).abs();
    items.iter().filter(|&&j| j != i).map(|&j| distance(j)).sum::<f64>() / (k - 1) as f64
}

/// The utopian value of an entry.
#[inline]
fn utopian(v: f64, tolerance: f64) -> f64 {
    if v > 0.75 + tolerance {
        1.0
    } else if v >= 0.25 - tolerance {
        0.5
    } else {
        0.0
    }
}

/// Where an item goes against a central bucket: mean preference of the centre over it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Left,
    Centre,
    Right,
}

fn side(c: &PairOrderMatrix, centre: &[usize], x: usize, beta: f64, tolerance: f64) -> Side {
    let mean = centre.iter().map(|&p| c.get(p, x)).sum::<f64>() / centre.len() as f64;
    if mean < 0.5 - beta - tolerance {
        Side::Left
    } else if mean > 0.5 + beta + tolerance {
        Side::Right
    } else {
        Side::Centre
    }
}

/// The buckets of `items` (left part, central bucket, right part, recursively) numbered from
/// `next_bucket` into `ranks`. Allocation-free: the call's lists live in `scratch` (five regions
/// of `items.len()`: centre, left and right of stage 1, left and right of stage 2) and are laid
/// out in `items` (left, centre, right) before the recursion reuses `scratch`.
fn buckets_into(step: &Step<'_>, items: &mut [usize], scratch: &mut Vec<usize>, ranks: &mut [i32], next_bucket: &mut i32) {
    let k = items.len();
    match k {
        0 => return,
        1 => {
            ranks[items[0]] = *next_bucket;
            *next_bucket += 1;
            return;
        }
        _ => {}
    }
    let Step { c, beta, tolerance, global_dani } = *step;
    let dani = |i: usize| match global_dani {
        Some(all) => all[i],
        None => dani_among(c, items, i, tolerance),
    };
    let mut pivot = items[0];
    let mut best = dani(pivot);
    for &i in &items[1..] {
        let d = dani(i);
        if d < best - tolerance {
            (pivot, best) = (i, d);
        }
    }
    scratch.clear();
    scratch.resize(5 * k, 0);
    let (centre, rest) = scratch.split_at_mut(k);
    let (left, rest) = rest.split_at_mut(k);
    let (right, rest) = rest.split_at_mut(k);
    let (left2, right2) = rest.split_at_mut(k);
    // Stage 1: against the growing central bucket.
    centre[0] = pivot;
    let (mut nc, mut nl, mut nr) = (1, 0, 0);
    for &x in items.iter().filter(|&&x| x != pivot) {
        match side(c, &centre[..nc], x, beta, tolerance) {
            Side::Left => (left[nl], nl) = (x, nl + 1),
            Side::Centre => (centre[nc], nc) = (x, nc + 1),
            Side::Right => (right[nr], nr) = (x, nr + 1),
        }
    }
    // Stage 2: the left then the right part against the bucket stage 1 left; joiners after it.
    let fixed = nc;
    let (mut nl2, mut nr2) = (0, 0);
    for &x in left[..nl].iter().chain(&right[..nr]) {
        match side(c, &centre[..fixed], x, beta, tolerance) {
            Side::Left => (left2[nl2], nl2) = (x, nl2 + 1),
            Side::Centre => (centre[nc], nc) = (x, nc + 1),
            Side::Right => (right2[nr2], nr2) = (x, nr2 + 1),
        }
    }
    items[..nl2].copy_from_slice(&left2[..nl2]);
    items[nl2..nl2 + nc].copy_from_slice(&centre[..nc]);
    items[nl2 + nc..].copy_from_slice(&right2[..nr2]);
    let (left_part, rest) = items.split_at_mut(nl2);
    let (central, right_part) = rest.split_at_mut(nc);
    buckets_into(step, left_part, scratch, ranks, next_bucket);
    for &x in central.iter() {
        ranks[x] = *next_bucket;
    }
    *next_bucket += 1;
    buckets_into(step, right_part, scratch, ranks, next_bucket);
}

/// The algorithm as first written, with a list per part (the reference of the tests); the
/// global DANI as the step's formula over all m items.
#[cfg(test)]
pub(super) fn bpa_reference(c: &PairOrderMatrix, beta: f64, global: bool, tolerance: f64) -> Vec<i32> {
    let m = c.n_labels();
    let items: Vec<usize> = (0..m).collect();
    let mut buckets = Vec::new();
    buckets_of(c, (beta, tolerance), &items, global.then_some(&items[..]), &mut buckets);
    ranks_of_buckets(&buckets, m)
}

#[cfg(test)]
fn buckets_of(
    c: &PairOrderMatrix,
    (beta, tolerance): (f64, f64),
    items: &[usize],
    all: Option<&[usize]>,
    out: &mut Vec<Vec<usize>>,
) {
    match items.len() {
        0 => return,
        1 => {
            out.push(vec![items[0]]);
            return;
        }
        _ => {}
    }
    let among = all.unwrap_or(items);
    let k = among.len() as f64;
    let dani = |i: usize| {
        among.iter().filter(|&&j| j != i).map(|&j| (c.get(i, j) - utopian(c.get(i, j), tolerance)).abs()).sum::<f64>() / (k - 1.0)
    };
    let mut pivot = items[0];
    let mut best = dani(pivot);
    for &i in &items[1..] {
        let d = dani(i);
        if d < best - tolerance {
            (pivot, best) = (i, d);
        }
    }
    let mut centre = vec![pivot];
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for &x in items.iter().filter(|&&x| x != pivot) {
        match side(c, &centre, x, beta, tolerance) {
            Side::Left => left.push(x),
            Side::Centre => centre.push(x),
            Side::Right => right.push(x),
        }
    }
    let moved: Vec<usize> = left.drain(..).chain(right.drain(..)).collect();
    let mut joined = Vec::new();
    for x in moved {
        match side(c, &centre, x, beta, tolerance) {
            Side::Left => left.push(x),
            Side::Centre => joined.push(x),
            Side::Right => right.push(x),
        }
    }
    centre.extend(joined);
    buckets_of(c, (beta, tolerance), &left, all, out);
    centre.sort_unstable();
    out.push(centre);
    buckets_of(c, (beta, tolerance), &right, all, out);
}
