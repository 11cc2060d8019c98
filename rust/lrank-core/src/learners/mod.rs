//! The learners. Each is one module that implements [`crate::learner::Learner`]; none imports
//! another (shared machinery lives below them: the tree engine, the pairwise decomposition,
//! consensus). The registry lists them.

pub mod bagging;
pub mod boosting;
pub mod dummy;
pub mod gradient_boosting;
pub mod label_tree;
pub mod labelwise;
pub mod labelwise_plr;
pub mod linear;
pub mod neighbors;
pub mod neighbors_plr;
pub mod one_vs_one;
pub mod pairwise_plr;
pub mod plr_tree;
pub mod random_forest;
pub mod rpc;
