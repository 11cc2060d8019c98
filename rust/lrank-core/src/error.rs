//! The one error type of the core. Bindings map each variant to a typed Python exception.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum LrankError {
    /// Arrays or parameters that do not describe a valid problem (shape, range, content).
    #[error("{0}")]
    InvalidInput(String),
    /// A rank-matrix row that is not a ranking; `row` is 0-based.
    #[error("row {row} of the rank matrix is not a ranking: {reason}")]
    InvalidRanking { row: usize, reason: String },
    /// A parameter outside its domain.
    #[error("invalid parameter {name}: {reason}")]
    InvalidParameter { name: &'static str, reason: String },
    /// A model file that is not an lrank model, is damaged, or was written by another format version.
    #[error("{0}")]
    ModelFormat(String),
    /// The work was asked to stop ([`crate::interrupt`]); its result is discarded.
    #[error("interrupted")]
    Interrupted,
}

pub type Result<T> = std::result::Result<T, LrankError>;

pub(crate) fn invalid(msg: impl Into<String>) -> LrankError {
    LrankError::InvalidInput(msg.into())
}
