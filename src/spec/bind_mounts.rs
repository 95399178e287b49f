//! `bind_mounts`: host directories mounted into the trial containers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A host directory bind-mounted into every trial container.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BindMount {
    /// Absolute path of the directory on the agent host. Required.
    #[schemars(regex(pattern = "^/"))]
    pub host_path: String,
    /// Where the directory appears in the container; a relative path is resolved against the working directory and may not be `.`. Required.
    pub container_path: String,
    /// Mount the directory read-only. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub read_only: Option<bool>,
    /// Mount propagation mode (see `docker run --mount`). Defaults to `rprivate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "rprivate"))]
    pub propagation: Option<String>,
}
