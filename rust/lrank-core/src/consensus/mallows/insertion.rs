//! Optimal insertion: the complete extension of an incomplete ranking closest to a centre.
//!
//! Let the incomplete ranking order its k labels o_1 > ... > o_k and let a missing label x go to
//! slot s in 0..=k, i.e. after o_1..o_s and before o_{s+1}..o_k. The Kendall distance of an
//! extension to the centre splits into observed-observed pairs (fixed), observed-missing pairs
//! and missing-missing pairs. For x in slot s the observed-missing disagreements are
//!
//! c_x(s) = #{i <= s : x before o_i in the centre} + #{i > s : o_i before x in the centre},
//!
//! with c_x(0) = #{i : o_i before x} and c_x(s) = c_x(s-1) ± 1 (+1 when x precedes o_s in the
//! centre). Each missing label takes its own best slot, the smallest on ties (Proposition 1 of
//! Cheng, Hühn & Hüllermeier 2009), and labels sharing a slot follow the centre's order.
//!
//! Why the missing-missing pairs then cost nothing: if y precedes x in the centre, every step
//! c_x(s) - c_x(s-1) = +1 forces c_y(s) - c_y(s-1) = +1, so c_y rises at least as fast as c_x.
//! If y's best slot were after x's best slot s_x, c_y would have to be flat between them, so s_x
//! would be an equally good and smaller slot for y, contradicting the smallest-slot rule. Hence
//! y's slot is never after x's slot and every missing pair agrees with the centre, so the
//! extension is a global minimiser. What matters is that every missing label breaks ties the same
//! way (always the largest slot would work too, by the mirror argument); with independent or
//! arbitrary tie-breaking two missing labels could be placed against the centre.
//! Time O(m^2) (O(k) per missing label), memory O(m).

use crate::data::ranking::{order_of, ranks_of_order};

/// True when `centre` holds every position 1..=len exactly once.
fn is_complete(centre: &[i32]) -> bool {
    let m = centre.len();
    let mut seen = vec![false; m];
    centre.iter().all(|&r| r >= 1 && (r as usize) <= m && !std::mem::replace(&mut seen[r as usize - 1], true))
}

/// The complete ranking (rank vector) extending `incomplete` that minimises the Kendall distance
/// to the complete ranking `centre`: observed labels keep their relative order, each missing
/// label goes to its own best slot among them (smallest slot, i.e. most preferred, on ties), and
/// missing labels sharing a slot follow the centre's order. An empty `incomplete` gives `centre`;
/// a complete one is returned unchanged.
///
/// # Panics
/// If the lengths differ or `centre` is not a complete ranking (`incomplete` is assumed to be a
/// valid, possibly incomplete, ranking as checked by [`crate::data::ranking::validate_ranking`]).
pub fn optimal_insertion(incomplete: &[i32], centre: &[i32]) -> Vec<i32> {
    let m = centre.len();
    assert_eq!(incomplete.len(), m, "optimal_insertion: ranking and centre differ in length");
    assert!(is_complete(centre), "optimal_insertion: the centre must be a complete ranking");
    let observed = order_of(incomplete);
    let k = observed.len();
    if k == m {
        return incomplete.to_vec();
    }
    // Missing labels in the centre's order, so that a stable grouping by slot keeps that order.
    let mut missing: Vec<usize> = (0..m).filter(|&j| incomplete[j] <= 0).collect();
    missing.sort_by_key(|&j| centre[j]);
    // slot_members[s] = missing labels placed in slot s, in centre order.
    let mut slot_members: Vec<Vec<usize>> = vec![Vec::new(); k + 1];
    for &x in &missing {
        let cx = centre[x];
        let mut cost = observed.iter().filter(|&&o| centre[o] < cx).count() as i64;
        let (mut best, mut best_cost) = (0usize, cost);
        for (s, &o) in observed.iter().enumerate() {
            cost += if cx < centre[o] { 1 } else { -1 };
            if cost < best_cost {
                best = s + 1;
                best_cost = cost;
            }
        }
        slot_members[best].push(x);
    }
    let mut order = Vec::with_capacity(m);
    for (s, members) in slot_members.iter().enumerate() {
        order.extend_from_slice(members);
        if s < k {
            order.push(observed[s]);
        }
    }
    ranks_of_order(&order, m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::distance::kendall_distance;

    #[test]
    fn empty_and_complete_inputs() {
        assert_eq!(optimal_insertion(&[0, 0, 0, 0], &[3, 1, 4, 2]), vec![3, 1, 4, 2]);
        assert_eq!(optimal_insertion(&[2, 1, 3], &[1, 2, 3]), vec![2, 1, 3]);
        assert_eq!(optimal_insertion(&[], &[]), Vec::<i32>::new());
    }

    #[test]
    fn single_label() {
        // Label 2 observed alone; the others go around it as in the centre 0 > 1 > 2 > 3.
        assert_eq!(optimal_insertion(&[0, 0, 1, 0], &[1, 2, 3, 4]), vec![1, 2, 3, 4]);
    }

    #[test]
    fn hand_checked() {
        // Centre 0 > 1 > 2; observed 2 > 0; label 1 costs 1 in slot 0 and slot 2, 2 in slot 1:
        // the tie goes to slot 0, giving 1 > 2 > 0.
        let r = optimal_insertion(&[2, 0, 1], &[1, 2, 3]);
        assert_eq!(r, vec![3, 1, 2]);
        assert_eq!(kendall_distance(&r, &[1, 2, 3]).0, 2);
        // Centre 0>1>2>3>4, observed 3 > 1: label 0 costs 0 in slot 0; label 2 costs 1, 2, 1 in
        // slots 0, 1, 2 and takes slot 0 after label 0 (centre order); label 4 goes last.
        // Result 0 > 2 > 3 > 1 > 4.
        let r = optimal_insertion(&[0, 2, 0, 1, 0], &[1, 2, 3, 4, 5]);
        assert_eq!(r, vec![1, 4, 2, 3, 5]);
    }

    #[test]
    #[should_panic(expected = "complete ranking")]
    fn rejects_incomplete_centre() {
        optimal_insertion(&[1, 0, 0], &[1, 2, 0]);
    }
}
