//! How close rankings are: distances and correlations between two rankings ([`distance`]), and
//! the measures of an evaluation, per row and over label pairs ([`evaluation`]).

pub mod distance;
pub mod evaluation;

pub use distance::{kendall_distance, kendall_tau, normalized_footrule, spearman_footrule, spearman_rho, tau_x};
pub use evaluation::{pairwise_matrix, row_measures, RowMeasures};
