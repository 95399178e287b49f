//! Hardware knowledge: the GPU catalog compiled into the binary.

pub mod allocate;
pub mod catalog;
mod catalog_data;
mod catalog_keys;
pub mod inventory;
pub mod probe;
