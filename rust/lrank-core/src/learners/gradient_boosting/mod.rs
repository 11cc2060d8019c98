//! GBLR, gradient-boosted label ranking: one score per label, boosted multi-output regression
//! trees fitted to the gradients of a ranking loss ([`loss`]).

pub mod loss;
