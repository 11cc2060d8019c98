//! lrank-core: label ranking in pure Rust (no Python).
//!
//! Layers, each using only the ones above it in this list:
//! - [`error`], [`interrupt`], [`rng`], [`parallel`], [`numeric`], [`memory`], [`limits`]: the
//!   error type, the request to stop long work, seeded random streams, thread pools, small
//!   numeric and serde helpers, size checks before large allocations, upper bounds on counts.
//! - [`data`]: feature matrices, rank matrices (1-based positions, 0 = label missing), label
//!   pairs and the checked training set.
//! - [`metrics`]: distances between rankings and evaluation measures.
//! - [`consensus`]: Borda, Copeland, the Mallows model, exact Kemeny, Plackett-Luce, and the
//!   [`consensus::Aggregator`] above them.
//! - [`discretisation`]: equal-width and equal-frequency cut points.
//! - [`neighbours`]: the exact k-d tree of the instance-based learners.
//! - [`logistic`]: binary and multinomial L2-regularised logistic regression (Newton's method)
//!   and its input encoding.
//! - [`tree`]: the one tree engine (split sweep, split search, growth of trees and forests).
//! - [`pairwise`]: the pairwise decomposition (one binary model per label pair, and voting).
//! - [`learner`]: the `Learner` interface every learner implements, and its checks.
//! - [`learners`]: the learners, none importing another.
//! - [`registry`]: the list of learners, from which the dispatch enums are generated.
//! - [`model_io`]: versioned, checksummed model files (binary and JSON).

// `!(x >= 0.0)` is written on purpose: it refuses NaN together with the values out of range.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod consensus;
pub mod data;
pub mod discretisation;
pub mod error;
pub mod interrupt;
pub mod lbfgs;
pub mod limits;
pub mod logistic;
pub mod memory;
pub mod metrics;
pub mod neighbours;
pub mod numeric;
pub mod parallel;
pub mod ranking_loss;
pub mod rng;
pub mod tree;

pub mod learner;
pub mod learners;
pub mod model_io;
pub mod pairwise;
pub mod registry;

pub use error::{LrankError, Result};
