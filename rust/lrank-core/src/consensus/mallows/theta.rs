//! Expected Kendall distance under the Mallows model and the maximum-likelihood spread.
//!
//! Under Mallows(θ) with m labels the Kendall distance to the centre is a sum of independent
//! truncated geometric variables V_2, ..., V_m, V_k taking values 0..k-1 with probability
//! proportional to e^{-θ v}. With q = e^{-θ},
//!
//! E[V_k] = q/(1 - q) - k q^k/(1 - q^k) = 1/expm1(θ) - k/expm1(kθ),
//!
//! and summing over k gives the paper's m q/(1-q) - Σ_{j=1..m} j q^j/(1-q^j) (the j = 1 term
//! cancels against one of the m copies of q/(1-q)). Each term is evaluated in the expm1 form;
//! when kθ is small the two fractions nearly cancel, so a Taylor series of
//! 1/expm1(x) = 1/x - 1/2 + x/12 - x^3/720 + x^5/30240 - ... is used instead, which gives
//! E[V_k] = (k-1)/2 - (k^2-1)θ/12 + (k^4-1)θ^3/720 - (k^6-1)θ^5/30240 + O((kθ)^7), exact at θ = 0.

/// Below this value of kθ a term is evaluated by its Taylor series (truncation error of order
/// (kθ)^7 / 1.2e6 < 1e-20, far below the rounding error of the closed form at that point).
const SERIES_LIMIT: f64 = 1e-2;

/// E[V_k] for one k >= 1 (zero for k = 1), any real θ (negative θ favours the reversed centre).
fn term(theta: f64, k: usize) -> f64 {
    if k < 2 {
        return 0.0;
    }
    let kf = k as f64;
    if (kf * theta).abs() < SERIES_LIMIT {
        let k2 = kf * kf;
        let t2 = theta * theta;
        // Horner form of the series above.
        (kf - 1.0) / 2.0 - theta * ((k2 - 1.0) / 12.0 - t2 * ((k2 * k2 - 1.0) / 720.0 - t2 * (k2 * k2 * k2 - 1.0) / 30240.0))
    } else {
        // For large θ both expm1 overflow to +inf and the term is 0; for very negative θ they tend
        // to -1 and the term tends to k - 1.
        1.0 / theta.exp_m1() - kf / (kf * theta).exp_m1()
    }
}

/// Expected Kendall distance to the centre under Mallows(`theta`) with `m` labels.
///
/// Decreases from m(m-1)/4 at θ = 0 (uniform distribution; returned exactly, no 0/0) to 0 as
/// θ → ∞ (`f64::INFINITY` gives 0). Defined for every real θ; NaN gives NaN. Zero for m < 2.
pub fn expected_kendall_distance(theta: f64, m: usize) -> f64 {
    if theta.is_nan() {
        return f64::NAN;
    }
    if theta == f64::INFINITY {
        return 0.0;
    }
    (2..=m).map(|k| term(theta, k)).sum()
}

/// Maximum-likelihood estimate of the Mallows spread θ >= 0 (Kendall distance, `m` labels) from
/// the mean observed distance `mean_distance` of the sample to the centre: the root of
/// `expected_kendall_distance(θ, m) = mean_distance`.
///
/// - `mean_distance <= 0` (every ranking equals the centre; also the only possible value for
///   m < 2): `f64::INFINITY`. Negative values are treated as 0.
/// - `mean_distance >= m(m-1)/4` (no better than uniform): `0.0`.
/// - NaN: NaN.
///
/// Otherwise the root is bracketed by doubling an upper bound from θ = 1, then found by Newton's
/// method (E' = -Var, the variance of the distance) kept inside the bracket, bisecting whenever
/// a step would leave it, until a step is below 1e-13 relative (a few iterations; the split
/// search of LRT solves this for every candidate threshold).
pub fn theta_mle(mean_distance: f64, m: usize) -> f64 {
    if mean_distance.is_nan() {
        return f64::NAN;
    }
    if mean_distance <= 0.0 {
        return f64::INFINITY;
    }
    let mf = m as f64;
    if mean_distance >= mf * (mf - 1.0) / 4.0 {
        return 0.0;
    }
    // Now 0 < D < m(m-1)/4 = E(0), and E(θ) -> 0, so a root exists and is positive.
    let mut lo = 0.0f64;
    let mut hi = 1.0f64;
    // E(θ) ~ (m - 1) e^{-θ} for large θ and underflows to 0 before θ = 2^11, so this terminates.
    while moments(hi, m).0 > mean_distance {
        lo = hi;
        hi *= 2.0;
    }
    // Invariant: E(lo) > D >= E(hi).
    let mut theta = 0.5 * (lo + hi);
    for _ in 0..200 {
        let (expected, var) = moments(theta, m);
        let f = expected - mean_distance;
        if f > 0.0 {
            lo = theta;
        } else {
            hi = theta;
        }
        let newton = theta + f / var;
        let next = if var > 0.0 && newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
        let done = (next - theta).abs() <= 1e-13 * next || hi - lo <= 1e-13 * hi;
        theta = next;
        if done {
            break;
        }
    }
    theta
}

/// A fast inverse of [`expected_kendall_distance`] for one number of labels: [`theta_mle`] to
/// within 1e-8 (1 + θ), in a few nanoseconds instead of a Newton solve. Used where θ is needed
/// for very many candidate distances (LRT scores every threshold of every attribute).
///
/// With x = D / (m(m-1)/4) in (0, 1), the table covers each binade x ∈ [2^-(b+1), 2^-b),
/// b < [`ThetaTable::BINADES`], with [`ThetaTable::KNOTS`] + 1 equally spaced knots holding θ
/// and its derivative, and interpolates by cubic Hermite polynomials; the binade and the
/// position in it are read off the bits of x, so a lookup takes no logarithm. Below the last
/// binade the asymptote θ = ln((m - 1) / D) holds to machine precision (E = (m - 1) q + O(q^2)
/// with q = e^-θ, and there q < 1e-16). Same special values as [`theta_mle`]: D <= 0 gives
/// infinity, D >= m(m-1)/4 gives 0.
/// A binade's knots are computed on its first lookup: splits and neighbourhoods meet only a
/// few binades, and building all of them (about a millisecond) would cost more than fitting a
/// small tree.
/// One binade's knots: (θ, dθ/dt) at t = j / KNOTS, j = 0..=KNOTS.
type Knots = Box<[(f64, f64)]>;

#[derive(Clone, Debug)]
pub struct ThetaTable {
    m: usize,
    max_distance: f64,
    /// Per binade, (θ, dθ/dt) at t = j / KNOTS, j = 0..=KNOTS, where x = 2^-(b+1) (1 + t).
    binades: Vec<std::sync::OnceLock<Knots>>,
}

impl ThetaTable {
    pub const BINADES: usize = 58;
    pub const KNOTS: usize = 1 << Self::KNOTS_LOG2;
    const KNOTS_LOG2: u32 = 6;

    /// The table for `m` labels, shared by the whole process (its binades are filled in as
    /// they are used).
    pub fn shared(m: usize) -> std::sync::Arc<ThetaTable> {
        use std::collections::HashMap;
        use std::sync::{Arc, Mutex, OnceLock};
        static TABLES: OnceLock<Mutex<HashMap<usize, Arc<ThetaTable>>>> = OnceLock::new();
        let mut tables = TABLES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        tables.entry(m).or_insert_with(|| Arc::new(ThetaTable::new(m))).clone()
    }

    pub fn new(m: usize) -> Self {
        let mf = m as f64;
        ThetaTable { m, max_distance: mf * (mf - 1.0) / 4.0, binades: (0..Self::BINADES).map(|_| Default::default()).collect() }
    }

    /// The knots of binade `b`: from its top (x = 2^-b) down, the first by the safeguarded
    /// solver, each next one by Newton from its neighbour, which is close (a couple of steps).
    fn binade(&self, b: usize) -> &[(f64, f64)] {
        self.binades[b].get_or_init(|| {
            let m = self.m;
            let per_binade = Self::KNOTS + 1;
            let mut knots = vec![(0.0, 0.0); per_binade];
            if m < 2 {
                return knots.into_boxed_slice();
            }
            let base = 0.5f64.powi(b as i32 + 1);
            // The previous knot's θ moved along its tangent: Newton then needs a step or two.
            let mut previous: Option<(f64, f64)> = None;
            for j in (0..per_binade).rev() {
                let t = j as f64 / Self::KNOTS as f64;
                let x = base * (1.0 + t);
                let d = self.max_distance * x;
                let (theta, var) = if x >= 1.0 {
                    (0.0, moments(0.0, m).1)
                } else {
                    previous
                        .map(|(theta, slope)| {
                            let guess = theta - slope / Self::KNOTS as f64;
                            if guess > 0.0 {
                                guess
                            } else {
                                theta
                            }
                        })
                        .and_then(|start| newton_from(d, m, start))
                        .unwrap_or_else(|| {
                            let theta = theta_mle(d, m);
                            (theta, moments(theta, m).1)
                        })
                };
                // dθ/dt = dθ/dD · dD/dt = (-1 / Var(θ)) · Dmax · base (Var from Newton's last
                // point, within 1e-9 θ of θ: ample for a slope).
                let slope = if var > 0.0 { -self.max_distance * base / var } else { 0.0 };
                if theta > 0.0 {
                    previous = Some((theta, slope));
                }
                knots[j] = (theta, slope);
            }
            knots.into_boxed_slice()
        })
    }

    /// θ for the mean distance `mean_distance` (see the type's docs).
    #[inline]
    pub fn theta(&self, mean_distance: f64) -> f64 {
        if mean_distance.is_nan() {
            return f64::NAN;
        }
        self.theta_of_share(mean_distance / self.max_distance)
    }

    /// θ for the mean distance given as its share x = D / (m(m-1)/4) of the largest mean
    /// distance (saves the division when the caller has x at hand).
    #[inline(always)]
    pub fn theta_of_share(&self, x: f64) -> f64 {
        if x.is_nan() {
            return f64::NAN;
        }
        if x <= 0.0 {
            return f64::INFINITY;
        }
        if x >= 1.0 {
            return 0.0;
        }
        let bits = x.to_bits();
        // x in [2^-(b+1), 2^-b) has the biased exponent 1022 - b.
        let binade = 1022i64 - ((bits >> 52) & 0x7ff) as i64;
        if binade >= Self::BINADES as i64 {
            return ((self.m as f64 - 1.0) / (x * self.max_distance)).ln();
        }
        // The position in the binade, KNOTS * (x / 2^-(b+1) - 1), read off the fraction bits:
        // the knot interval j is their top KNOTS_LOG2 bits and t in [0, 1) is the rest (both
        // exact), so no float-to-integer conversion is needed.
        const REST_BITS: u32 = 52 - ThetaTable::KNOTS_LOG2;
        let j = ((bits >> REST_BITS) & (Self::KNOTS as u64 - 1)) as usize;
        let t = (bits & ((1u64 << REST_BITS) - 1)) as f64 * (1.0 / (1u64 << REST_BITS) as f64);
        let knots = self.binade(binade as usize);
        let ((y0, d0), (y1, d1)) = (knots[j], knots[j + 1]);
        let h = 1.0 / Self::KNOTS as f64;
        // Cubic Hermite basis on [0, 1].
        let t2 = t * t;
        let t3 = t2 * t;
        (2.0 * t3 - 3.0 * t2 + 1.0) * y0 + (t3 - 2.0 * t2 + t) * h * d0 + (-2.0 * t3 + 3.0 * t2) * y1 + (t3 - t2) * h * d1
    }
}

/// Newton's method for E(θ) = `mean` from a nearby `start` (> 0): θ and Var at the last point
/// evaluated; `None` if it does not settle within a few steps (the caller then falls back to
/// [`theta_mle`]). Newton converges quadratically here (E is smooth and strictly monotone), so
/// once a step is below 1e-9 θ the next one would be of order 1e-18 θ: the iteration stops
/// there, one evaluation earlier than a test on a negligible step would.
fn newton_from(mean: f64, m: usize, start: f64) -> Option<(f64, f64)> {
    let mut theta = start;
    for _ in 0..20 {
        let (e, var) = moments(theta, m);
        if var.is_nan() || var <= 0.0 {
            return None;
        }
        // Never more than halve θ in one step (E is convex, so a step from the right overshoots).
        let next = (theta + (e - mean) / var).max(0.5 * theta);
        if (next - theta).abs() <= 1e-9 * next {
            return Some((next, var));
        }
        theta = next;
    }
    None
}

/// (E, Var) of the Kendall distance under Mallows(θ), θ >= 0, with a single exponential:
/// with q = e^{-θ}, E[V_k] = q/(1-q) - k q^k/(1-q^k) and Var[V_k] = q/(1-q)^2 - k^2 q^k/(1-q^k)^2;
/// terms with kθ below [`SERIES_LIMIT`] use the Taylor series instead (cancellation).
fn moments(theta: f64, m: usize) -> (f64, f64) {
    if theta.is_infinite() {
        return (0.0, 0.0);
    }
    let q = (-theta).exp();
    let one_minus_q = -(-theta).exp_m1();
    let (base_e, base_v) = (q / one_minus_q, q / (one_minus_q * one_minus_q));
    let (mut e, mut v) = (0.0, 0.0);
    let mut qk = q;
    for k in 2..=m {
        qk *= q;
        let kf = k as f64;
        if kf * theta < SERIES_LIMIT {
            e += term(theta, k);
            let k2 = kf * kf;
            v += (k2 - 1.0) / 12.0 - (k2 * k2 - 1.0) * theta * theta / 240.0;
        } else {
            let d = 1.0 - qk;
            e += base_e - kf * qk / d;
            v += base_v - kf * kf * qk / (d * d);
        }
    }
    (e, v)
}

/// Variance of the Kendall distance to the centre under Mallows(θ) (= -dE/dθ), θ >= 0 (the
/// reference [`moments`] is tested against):
/// Σ_k Var[V_k] with Var[V_k] = 1/(4 sinh²(θ/2)) - k²/(4 sinh²(kθ/2)), by its Taylor series
/// (k² - 1)/12 - (k⁴ - 1)θ²/240 when kθ is small.
#[cfg(test)]
fn kendall_distance_variance(theta: f64, m: usize) -> f64 {
    (2..=m)
        .map(|k| {
            let kf = k as f64;
            if kf * theta < SERIES_LIMIT {
                let k2 = kf * kf;
                (k2 - 1.0) / 12.0 - (k2 * k2 - 1.0) * theta * theta / 240.0
            } else {
                let a = (theta / 2.0).sinh();
                let b = (kf * theta / 2.0).sinh();
                1.0 / (4.0 * a * a) - kf * kf / (4.0 * b * b)
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct definition by enumeration of the truncated geometric variables (no cancellation
    /// tricks), for moderate θ.
    fn reference(theta: f64, m: usize) -> f64 {
        let mut total = 0.0;
        for k in 2..=m {
            let (mut num, mut den) = (0.0, 0.0);
            for v in 0..k {
                let p = (-theta * v as f64).exp();
                num += v as f64 * p;
                den += p;
            }
            total += num / den;
        }
        total
    }

    #[test]
    fn variance_is_minus_the_derivative_of_the_expectation() {
        for m in [2usize, 4, 9, 16] {
            for theta in [1e-4f64, 0.003, 0.05, 0.4, 1.5, 6.0] {
                let h = 1e-6 * theta.max(1e-3);
                let slope = (expected_kendall_distance(theta - h, m) - expected_kendall_distance(theta + h, m)) / (2.0 * h);
                let var = kendall_distance_variance(theta, m);
                assert!((slope - var).abs() <= 1e-5 * (1.0 + var), "m={m} θ={theta}: {slope} vs {var}");
                let (e, v) = moments(theta, m);
                assert!((v - var).abs() <= 1e-9 * (1.0 + var), "m={m} θ={theta}: {v} vs {var}");
                let exact = expected_kendall_distance(theta, m);
                assert!((e - exact).abs() <= 1e-12 * (1.0 + exact), "m={m} θ={theta}: {e} vs {exact}");
            }
        }
    }

    #[test]
    fn matches_enumeration() {
        for m in [1usize, 2, 3, 5, 8, 13] {
            for theta in [1e-6, 1e-3, 0.005, 0.02, 0.1, 0.5, 1.0, 2.5, 7.0, 20.0] {
                let (a, b) = (expected_kendall_distance(theta, m), reference(theta, m));
                assert!((a - b).abs() <= 1e-12 * (1.0 + b), "m={m} θ={theta}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn limits() {
        for m in 0..10usize {
            let max = (m * m.saturating_sub(1)) as f64 / 4.0;
            assert_eq!(expected_kendall_distance(0.0, m), max);
            assert_eq!(expected_kendall_distance(f64::INFINITY, m), 0.0);
            assert!(expected_kendall_distance(1e3, m) < 1e-300);
        }
        // Continuity across the series switch.
        let m = 7;
        let s = SERIES_LIMIT / m as f64;
        let (a, b) = (expected_kendall_distance(s * (1.0 - 1e-9), m), expected_kendall_distance(s * (1.0 + 1e-9), m));
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        // Negative θ: towards the reversed centre, up to m(m-1)/2.
        assert!(expected_kendall_distance(-1.0, 4) > 3.0);
        assert!((expected_kendall_distance(-1e3, 4) - 6.0).abs() < 1e-12);
    }

    #[test]
    fn mle_special_values() {
        assert_eq!(theta_mle(0.0, 5), f64::INFINITY);
        assert_eq!(theta_mle(-1.0, 5), f64::INFINITY);
        assert_eq!(theta_mle(5.0, 5), 0.0);
        assert_eq!(theta_mle(9.0, 5), 0.0);
        assert!(theta_mle(f64::NAN, 5).is_nan());
        assert_eq!(theta_mle(0.0, 1), f64::INFINITY);
        assert_eq!(theta_mle(0.0, 0), f64::INFINITY);
        // Tiny distances give large, finite θ.
        let t = theta_mle(1e-200, 4);
        assert!(t.is_finite() && t > 400.0, "{t}");
        assert!((expected_kendall_distance(t, 4) / 1e-200 - 1.0).abs() < 1e-9);
    }

    #[test]
    fn table_agrees_with_the_newton_solve() {
        let mut rng = crate::rng::Rng::new(3);
        for m in [2usize, 3, 4, 7, 10, 16, 30] {
            let table = ThetaTable::new(m);
            let max = (m * (m - 1)) as f64 / 4.0;
            for _ in 0..3000 {
                // Log-uniform distances over 20 decades, plus the upper end.
                let d = max * (-46.0 * rng.uniform()).exp() * if rng.below(10) == 0 { 0.9999 } else { 1.0 };
                let (fast, exact) = (table.theta(d), theta_mle(d, m));
                assert!((fast - exact).abs() <= 1e-8 * (1.0 + exact), "m={m} D={d}: {fast} vs {exact}");
            }
            assert_eq!(table.theta(0.0), f64::INFINITY);
            assert_eq!(table.theta(max), 0.0);
            assert!(table.theta(f64::NAN).is_nan());
        }
    }

    #[test]
    fn mle_round_trip_two_labels() {
        // m = 2: E = 1/(e^θ + 1), so θ = ln(1/D - 1).
        for d in [0.01, 0.1, 0.3, 0.49] {
            let t = theta_mle(d, 2);
            let exact = (1.0 / d - 1.0f64).ln();
            assert!((t - exact).abs() <= 1e-10 * exact, "{t} vs {exact}");
        }
    }
}
