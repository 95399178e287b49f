//! `checkpoint_storage` (a union keyed by `type`) and the deprecated
//! `tensorboard_storage`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

tag_enum!(
    /// Selects shared-filesystem storage.
    SharedFsType = "shared_fs"
);
tag_enum!(
    /// Selects storage in a directory inside the container.
    DirectoryType = "directory"
);
tag_enum!(
    /// Selects Amazon S3 (or S3-compatible) storage.
    S3Type = "s3"
);
tag_enum!(
    /// Selects Google Cloud Storage.
    GcsType = "gcs"
);
tag_enum!(
    /// Selects Azure Blob Storage.
    AzureType = "azure"
);

/// Checkpoint storage backend, selected by `type`: `shared_fs`, `directory`, `s3`, `gcs` or `azure`. Without `type` the block only overrides fields of the cluster's default storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum CheckpointStorageConfig {
    /// A directory on a filesystem shared by all agents, bind-mounted into the containers.
    SharedFs(SharedFsConfig),
    /// A directory inside the container (typically a mounted volume).
    Directory(DirectoryConfig),
    /// An Amazon S3 or S3-compatible bucket.
    S3(S3Config),
    /// A Google Cloud Storage bucket.
    Gcs(GcsConfig),
    /// An Azure Blob Storage container.
    Azure(AzureConfig),
    /// Overrides for the cluster's default storage, without `type`.
    Partial(Box<PartialCheckpointStorage>),
}

/// Checkpoints on a shared filesystem mounted at `host_path` on every agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedFsConfig {
    /// Must be `shared_fs`.
    #[serde(rename = "type")]
    pub kind: SharedFsType,
    /// Absolute path of the shared directory on the agent hosts. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_path: Option<String>,
    /// Subdirectory of `host_path` (relative, or absolute inside `host_path`) where checkpoints go. Defaults to `host_path` itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_path: Option<String>,
    /// Mount propagation of the bind mount. Defaults to `rprivate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "rprivate"))]
    pub propagation: Option<String>,
    /// Legacy: path inside the container where `host_path` is mounted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_path: Option<String>,
    /// Legacy: subdirectory used for checkpoints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_path: Option<String>,
    /// Legacy: subdirectory used for TensorBoard files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensorboard_path: Option<String>,
    /// Number of best checkpoints (by the searcher metric) kept across the whole experiment. Defaults to 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub save_experiment_best: Option<u64>,
    /// Number of best checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_best: Option<u64>,
    /// Number of most recent checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_latest: Option<u64>,
}

/// Checkpoints in a directory inside the container, e.g. a mounted persistent volume.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirectoryConfig {
    /// Must be `directory`.
    #[serde(rename = "type")]
    pub kind: DirectoryType,
    /// Path inside the container where checkpoints are written. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_path: Option<String>,
    /// Number of best checkpoints (by the searcher metric) kept across the whole experiment. Defaults to 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub save_experiment_best: Option<u64>,
    /// Number of best checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_best: Option<u64>,
    /// Number of most recent checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_latest: Option<u64>,
}

/// Checkpoints in an Amazon S3 (or S3-compatible) bucket.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct S3Config {
    /// Must be `s3`.
    #[serde(rename = "type")]
    pub kind: S3Type,
    /// AWS access key ID. Defaults to the credentials available to the container (environment, instance role).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_key: Option<String>,
    /// Name of the bucket. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bucket: Option<String>,
    /// AWS secret access key. Defaults to the credentials available to the container.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret_key: Option<String>,
    /// Endpoint of an S3-compatible service (e.g. MinIO). Defaults to AWS S3.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint_url: Option<String>,
    /// Key prefix under which checkpoints are stored; may not contain `..` path segments. Defaults to the bucket root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Number of best checkpoints (by the searcher metric) kept across the whole experiment. Defaults to 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub save_experiment_best: Option<u64>,
    /// Number of best checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_best: Option<u64>,
    /// Number of most recent checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_latest: Option<u64>,
}

/// Checkpoints in a Google Cloud Storage bucket.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GcsConfig {
    /// Must be `gcs`.
    #[serde(rename = "type")]
    pub kind: GcsType,
    /// Name of the bucket. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bucket: Option<String>,
    /// Object-name prefix under which checkpoints are stored; may not contain `..` path segments. Defaults to the bucket root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Number of best checkpoints (by the searcher metric) kept across the whole experiment. Defaults to 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub save_experiment_best: Option<u64>,
    /// Number of best checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_best: Option<u64>,
    /// Number of most recent checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_latest: Option<u64>,
}

/// Checkpoints in an Azure Blob Storage container. Exactly one of `connection_string` or `account_url` must be set once defaults are applied.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AzureConfig {
    /// Must be `azure`.
    #[serde(rename = "type")]
    pub kind: AzureType,
    /// Name of the blob container. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Storage-account connection string; not allowed together with `credential`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection_string: Option<String>,
    /// URL of the storage account, used with `credential`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account_url: Option<String>,
    /// Credential (e.g. a SAS token or account key) used with `account_url`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
    /// Number of best checkpoints (by the searcher metric) kept across the whole experiment. Defaults to 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub save_experiment_best: Option<u64>,
    /// Number of best checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_best: Option<u64>,
    /// Number of most recent checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_latest: Option<u64>,
}

/// A checkpoint storage block without `type`: it only overrides fields of the cluster's default storage (commonly just the `save_*` retention counts). Backend-specific keys are accepted here unchecked and validated once the defaults are merged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartialCheckpointStorage {
    /// Number of best checkpoints (by the searcher metric) kept across the whole experiment. Defaults to 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub save_experiment_best: Option<u64>,
    /// Number of best checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_best: Option<u64>,
    /// Number of most recent checkpoints kept for each trial. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub save_trial_latest: Option<u64>,
    /// S3 access key; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_key: Option<Value>,
    /// Azure account URL; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account_url: Option<Value>,
    /// S3/GCS bucket; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bucket: Option<Value>,
    /// Shared-fs checkpoint subdirectory (legacy); checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_path: Option<Value>,
    /// Azure connection string; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection_string: Option<Value>,
    /// Azure blob container; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<Value>,
    /// Directory/shared-fs container path; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_path: Option<Value>,
    /// Azure credential; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credential: Option<Value>,
    /// S3 endpoint URL; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint_url: Option<Value>,
    /// S3/GCS key prefix; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<Value>,
    /// Shared-fs host path; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_path: Option<Value>,
    /// Shared-fs mount propagation; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub propagation: Option<Value>,
    /// S3 secret key; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret_key: Option<Value>,
    /// Shared-fs storage path; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_path: Option<Value>,
    /// Shared-fs TensorBoard subdirectory (legacy); checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensorboard_path: Option<Value>,
    /// Legacy user setting; accepted and checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<Value>,
}

/// Deprecated and ignored: where TensorBoard files were stored. Accepts a `shared_fs`, `s3` or `gcs` storage block (without the `save_*` fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TensorboardStorageConfig {
    /// Shared filesystem storage.
    SharedFs(SharedFsConfig),
    /// Amazon S3 storage.
    S3(S3Config),
    /// Google Cloud Storage.
    Gcs(GcsConfig),
}
