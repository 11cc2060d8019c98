//! Limited-memory BFGS for smooth convex objectives (Nocedal & Wright, Numerical Optimization,
//! algorithms 7.4 and 7.5), with a backtracking line search on the Armijo condition. It serves
//! objectives whose Hessian is too large to form (the linear label ranker's, whose parameters
//! are one weight vector per label).
//!
//! Stops when every gradient entry is at most `gtol`, or when a step lowers the objective by at
//! most `ftol * max(|f|, |f_new|, 1)` (scipy's L-BFGS-B criterion), or after `max_iter` steps.

/// What a minimisation ended with.
#[derive(Clone, Debug, PartialEq)]
pub struct Minimum {
    pub x: Vec<f64>,
    pub value: f64,
    pub iterations: usize,
    pub converged: bool,
}

/// Stopping rules (see the module's text).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stop {
    pub max_iter: usize,
    pub ftol: f64,
    pub gtol: f64,
}

/// Corrections kept (scipy's default).
const MEMORY: usize = 10;

/// Minimises `objective`, which returns f(x) and writes ∇f(x) into its second argument, from `x0`.
pub fn minimise(mut objective: impl FnMut(&[f64], &mut [f64]) -> f64, x0: Vec<f64>, stop: Stop) -> Minimum {
    let dim = x0.len();
    let mut x = x0;
    let mut g = vec![0.0; dim];
    let mut f = objective(&x, &mut g);
    let (mut s_hist, mut y_hist, mut rho_hist): (Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<f64>) = (vec![], vec![], vec![]);
    let (mut x_new, mut g_new) = (vec![0.0; dim], vec![0.0; dim]);
    let mut alpha_buf = [0.0; MEMORY];
    for iter in 0..stop.max_iter {
        if !f.is_finite() {
            return Minimum { x, value: f, iterations: iter, converged: false };
        }
        if g.iter().all(|v| v.abs() <= stop.gtol) {
            return Minimum { x, value: f, iterations: iter, converged: true };
        }
        // Two-loop recursion: d = -H g, H the inverse Hessian estimate.
        let mut d: Vec<f64> = g.iter().map(|v| -v).collect();
        for k in (0..s_hist.len()).rev() {
            let a = rho_hist[k] * dot(&s_hist[k], &d);
            alpha_buf[k] = a;
            axpy(-a, &y_hist[k], &mut d);
        }
        if let (Some(s), Some(y)) = (s_hist.last(), y_hist.last()) {
            let gamma = dot(s, y) / dot(y, y);
            d.iter_mut().for_each(|v| *v *= gamma);
        } else {
            // First step: a unit step of the largest gradient entry, as the scale is unknown.
            let top = g.iter().fold(0.0f64, |t, v| t.max(v.abs()));
            d.iter_mut().for_each(|v| *v /= top.max(1.0));
        }
        for k in 0..s_hist.len() {
            let b = rho_hist[k] * dot(&y_hist[k], &d);
            axpy(alpha_buf[k] - b, &s_hist[k], &mut d);
        }
        let mut slope = dot(&g, &d);
        if !(slope < 0.0) {
            // Not a descent direction (rounding): restart from steepest descent.
            s_hist.clear();
            y_hist.clear();
            rho_hist.clear();
            d = g.iter().map(|v| -v).collect();
            slope = -dot(&g, &g);
        }
        let mut step = 1.0;
        let f_new = loop {
            for ((xn, xv), dv) in x_new.iter_mut().zip(&x).zip(&d) {
                *xn = xv + step * dv;
            }
            let value = objective(&x_new, &mut g_new);
            if value <= f + 1e-4 * step * slope {
                break value;
            }
            step *= 0.5;
            if step < 1e-20 {
                return Minimum { x, value: f, iterations: iter, converged: false };
            }
        };
        let s: Vec<f64> = x_new.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 1e-12 * dot(&y, &y).sqrt() * dot(&s, &s).sqrt() {
            if s_hist.len() == MEMORY {
                s_hist.remove(0);
                y_hist.remove(0);
                rho_hist.remove(0);
            }
            s_hist.push(s);
            y_hist.push(y);
            rho_hist.push(1.0 / sy);
        }
        let decrease = f - f_new;
        std::mem::swap(&mut x, &mut x_new);
        std::mem::swap(&mut g, &mut g_new);
        f = f_new;
        if decrease <= stop.ftol * f.abs().max((f + decrease).abs()).max(1.0) {
            return Minimum { x, value: f, iterations: iter + 1, converged: true };
        }
    }
    let converged = g.iter().all(|v| v.abs() <= stop.gtol);
    Minimum { x, value: f, iterations: stop.max_iter, converged }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(yv, xv)| *yv += a * xv);
}

#[cfg(test)]
mod tests {
    use super::*;

    const STOP: Stop = Stop { max_iter: 1000, ftol: 1e-15, gtol: 1e-9 };

    #[test]
    fn a_convex_quadratic_reaches_its_solved_minimum() {
        // f(x) = ½ xᵀAx - bᵀx with A SPD: minimum at A⁻¹b, solved here by hand for a 3x3 system.
        let a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
        let b = [1.0, -2.0, 0.5];
        let min = minimise(
            |x, g| {
                let mut f = 0.0;
                for i in 0..3 {
                    let ax: f64 = (0..3).map(|j| a[i][j] * x[j]).sum();
                    g[i] = ax - b[i];
                    f += 0.5 * x[i] * ax - b[i] * x[i];
                }
                f
            },
            vec![0.0; 3],
            STOP,
        );
        assert!(min.converged);
        for i in 0..3 {
            let ax: f64 = (0..3).map(|j| a[i][j] * min.x[j]).sum();
            assert!((ax - b[i]).abs() < 1e-8, "{:?}", min.x);
        }
    }

    #[test]
    fn rosenbrock_reaches_one_one() {
        let min = minimise(
            |x, g| {
                let (a, b) = (x[0], x[1]);
                g[0] = -2.0 * (1.0 - a) - 400.0 * a * (b - a * a);
                g[1] = 200.0 * (b - a * a);
                (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2)
            },
            vec![-1.2, 1.0],
            STOP,
        );
        assert!((min.x[0] - 1.0).abs() < 1e-5 && (min.x[1] - 1.0).abs() < 1e-5, "{min:?}");
    }

    #[test]
    fn logistic_regression_agrees_with_newtons_method() {
        // The same objective as crate::logistic::binary, minimised both ways.
        let z = [0.5, -1.0, 1.5, 0.2, -0.3, 0.8, 2.0, -1.5, -0.7, 0.1, 1.1, 1.3];
        let t = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0];
        let w = [1.0, 2.0, 0.5, 1.0, 1.0, 1.5];
        let solver = crate::logistic::Solver { c: 3.0, max_iter: 100, tol: 1e-12 };
        let (b0, coef, _, converged) = crate::logistic::binary(&z, &t, &w, 2, solver);
        assert!(converged);
        let min = minimise(
            |beta, g| {
                let mut f = 0.5 * (beta[1] * beta[1] + beta[2] * beta[2]);
                g[0] = 0.0;
                g[1] = beta[1];
                g[2] = beta[2];
                for i in 0..6 {
                    let eta = beta[0] + beta[1] * z[2 * i] + beta[2] * z[2 * i + 1];
                    let mu = crate::logistic::sigmoid(eta);
                    f -= 3.0 * w[i] * (t[i] * mu.ln() + (1.0 - t[i]) * (1.0 - mu).ln());
                    let r = 3.0 * w[i] * (mu - t[i]);
                    g[0] += r;
                    g[1] += r * z[2 * i];
                    g[2] += r * z[2 * i + 1];
                }
                f
            },
            vec![0.0; 3],
            STOP,
        );
        assert!(min.converged);
        for (a, b) in min.x.iter().zip(std::iter::once(&b0).chain(&coef)) {
            assert!((a - b).abs() < 1e-6, "{:?} vs {b0} {coef:?}", min.x);
        }
    }

    #[test]
    fn an_unbounded_objective_stops_unconverged_instead_of_looping() {
        let min = minimise(
            |x, g| {
                g[0] = -1.0;
                -x[0]
            },
            vec![0.0],
            Stop { max_iter: 50, ftol: 0.0, gtol: 0.0 },
        );
        assert!(!min.converged);
        assert_eq!(min.iterations, 50);
    }
}
