//! lrank-core: label ranking in pure Rust (no Python).
//!
//! - [`ranking`]: rank matrices (1-based positions, 0 = label missing), complete or incomplete.
//! - [`distance`]: Kendall, Spearman and footrule between rankings.
//! - [`discretisation`]: equal-width and equal-frequency cut points (W-LRT, F-LRT).
//! - [`aggregation`]: Borda and generalized Borda consensus.
//! - [`evaluation`]: per-row ranking measures and pairwise confusion counts.
//! - [`tree`]: the tree-growing engine with pluggable split criteria and leaf models.
//! - [`forest`]: LR-RF, the label ranking random forest of Zhou & Qiu (2018).
//! - [`mallows`]: Mallows model fitting (theta MLE, optimal insertion, EM median) and exact Kemeny.
//! - [`label_tree`]: LRT, the label ranking tree with Mallows splits and leaves.
//! - [`neighbors`]: IBLR and IB-PL, instance-based label ranking with the Mallows or
//!   Plackett-Luce model.
//! - [`plackett_luce`]: Plackett-Luce skills by Hunter's MM algorithm.
//! - [`labelwise`]: labelwise regression trees and forests (Fotakis et al.).
//! - [`pairwise`]: one-versus-one learning with tree or forest classifiers per label pair.
//! - [`rpc`]: ranking by pairwise comparison with logistic regression (WEKA-LR's RPC).
//! - [`bagging`]: bagging of any learner, members combined by a consensus ranking.
//! - [`learner`]: every learner behind one interface (parameters -> model -> predictions).
//! - [`model_io`]: versioned binary and JSON model files.

// `!(x >= 0.0)` is written on purpose: it refuses NaN together with the values out of range.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod aggregation;
pub mod bagging;
pub mod discretisation;
pub mod distance;
pub mod error;
pub mod evaluation;
pub mod features;
pub mod forest;
pub mod label_tree;
pub mod labelwise;
pub mod learner;
pub mod mallows;
pub mod model_io;
pub mod neighbors;
pub mod pairwise;
pub mod parallel;
pub mod plackett_luce;
pub mod ranking;
pub mod rng;
pub mod rpc;
pub mod training;
pub mod tree;

pub use error::{LrankError, Result};
