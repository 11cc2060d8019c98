//! BPA-LIA-MP2: the bucket pivot algorithm with multiple pivots and two stages (Aledo, Gámez &
//! Rosete 2017), on a pair-order matrix C.
//!
//! 1. The "utopian" matrix U: `U_ij = 1` if `C_ij > 0.75`, `1/2` if `0.25 <= C_ij <= 0.75`, else
//!    0 (fixed thresholds, as in the published implementations).
//! 2. Among the k items of the current call, each item's DANI = `(1 / (k - 1)) Σ_{j≠i} |C_ij - U_ij|`;
//!    the pivot is the item with the smallest DANI (the first in the call's order on ties), and
//!    the central bucket starts as {pivot}.
//! 3. Stage 1: every other item x, in order, is compared with the central bucket by the mean
//!    `m_x` of `C[c][x]` over its items c (the bucket growing as items join): `m_x < 1/2 - beta`
//!    puts x in the left part (x precedes the centre), `m_x > 1/2 + beta` in the right part, and
//!    anything between in the central bucket.
//! 4. Stage 2: the items of the left then the right part are classified again by the same rule
//!    against the central bucket that stage 1 left (held fixed while they are classified; items
//!    found central join it afterwards).
//! 5. Recursion on the left and right parts; the result is the left part's buckets, the central
//!    bucket, the right part's buckets.

use super::{ranks_of_buckets, PairOrderMatrix};

/// The bucket order BPA-LIA-MP2 finds for C with threshold `beta` (dense rank vector).
pub fn bpa(c: &PairOrderMatrix, beta: f64) -> Vec<i32> {
    let m = c.n_labels();
    let items: Vec<usize> = (0..m).collect();
    let mut buckets = Vec::new();
    buckets_of(c, beta, &items, &mut buckets);
    ranks_of_buckets(&buckets, m)
}

/// The utopian value of an entry.
#[inline]
fn utopian(v: f64) -> f64 {
    if v > 0.75 {
        1.0
    } else if v >= 0.25 {
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

fn side(c: &PairOrderMatrix, centre: &[usize], x: usize, beta: f64) -> Side {
    let mean = centre.iter().map(|&p| c.get(p, x)).sum::<f64>() / centre.len() as f64;
    if mean < 0.5 - beta {
        Side::Left
    } else if mean > 0.5 + beta {
        Side::Right
    } else {
        Side::Centre
    }
}

fn buckets_of(c: &PairOrderMatrix, beta: f64, items: &[usize], out: &mut Vec<Vec<usize>>) {
    match items.len() {
        0 => return,
        1 => {
            out.push(vec![items[0]]);
            return;
        }
        _ => {}
    }
    let k = items.len() as f64;
    let dani = |i: usize| {
        items.iter().filter(|&&j| j != i).map(|&j| (c.get(i, j) - utopian(c.get(i, j))).abs()).sum::<f64>() / (k - 1.0)
    };
    let mut pivot = items[0];
    let mut best = dani(pivot);
    for &i in &items[1..] {
        let d = dani(i);
        if d < best {
            (pivot, best) = (i, d);
        }
    }
    let mut centre = vec![pivot];
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for &x in items.iter().filter(|&&x| x != pivot) {
        match side(c, &centre, x, beta) {
            Side::Left => left.push(x),
            Side::Centre => centre.push(x),
            Side::Right => right.push(x),
        }
    }
    let moved: Vec<usize> = left.drain(..).chain(right.drain(..)).collect();
    let mut joined = Vec::new();
    for x in moved {
        match side(c, &centre, x, beta) {
            Side::Left => left.push(x),
            Side::Centre => joined.push(x),
            Side::Right => right.push(x),
        }
    }
    centre.extend(joined);
    buckets_of(c, beta, &left, out);
    centre.sort_unstable();
    out.push(centre);
    buckets_of(c, beta, &right, out);
}
