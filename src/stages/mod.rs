//! Stage declarations read from the model's sources.

pub mod python;
