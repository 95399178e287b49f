//! Training lengths: `{batches: N}`, `{records: N}` or `{epochs: N}`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An amount of training, written as an object with exactly one key: `batches`, `records` or `epochs`. The count may be 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(transform = describe_unit_keys)]
pub enum Length {
    /// Number of batches (optimizer steps), 0 or more.
    Batches(u64),
    /// Number of records (training examples), 0 or more.
    Records(u64),
    /// Number of epochs, 0 or more; needs `records_per_epoch` for Trial-API code.
    Epochs(u64),
}

/// A strictly positive amount of training: an object with exactly one key `batches`, `records` or `epochs`, whose value is at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(transform = describe_unit_keys)]
pub enum PositiveLength {
    /// Number of batches (optimizer steps), at least 1.
    Batches(#[schemars(range(min = 1))] u64),
    /// Number of records (training examples), at least 1.
    Records(#[schemars(range(min = 1))] u64),
    /// Number of epochs, at least 1.
    Epochs(#[schemars(range(min = 1))] u64),
}

/// How long each trial trains for: a bare non-negative integer (in the unit the training code reports, usually batches) or a positive length object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SearcherLength {
    /// A bare count, 0 or more.
    Units(u64),
    /// A `{batches|records|epochs: N}` object with N at least 1.
    Length(PositiveLength),
}

/// Copies each one-key variant's description onto its key, so hover on
/// `batches:` explains the key itself.
fn describe_unit_keys(schema: &mut schemars::Schema) {
    let Some(branches) = schema.get_mut("oneOf").and_then(|b| b.as_array_mut()) else {
        return;
    };
    for branch in branches {
        let Some(description) = branch.get("description").cloned() else {
            continue;
        };
        let Some(props) = branch.get_mut("properties").and_then(|p| p.as_object_mut()) else {
            continue;
        };
        if props.len() != 1 {
            continue;
        }
        for prop in props.values_mut() {
            if let Some(obj) = prop.as_object_mut() {
                obj.entry("description").or_insert(description.clone());
            }
        }
    }
}
