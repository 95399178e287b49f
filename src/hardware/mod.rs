//! Hardware knowledge: the GPU catalog compiled into the binary.

pub mod allocate;
pub mod catalog;
pub mod inventory;
pub mod probe;
