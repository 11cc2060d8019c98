//! The data every learner sees: feature matrices ([`features`]), rank matrices ([`ranking`]),
//! label pairs ([`pairs`]) and the checked training set ([`training`]).

pub mod features;
pub mod pairs;
pub mod ranking;
pub mod training;
