//! `integrations`: Pachyderm data provenance and webhooks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Third-party integrations of the experiment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IntegrationsConfig {
    /// Pachyderm dataset the experiment trains on, recorded for lineage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pachyderm: Option<PachydermConfig>,
    /// Which webhooks fire for this experiment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhooks: Option<WebhooksConfig>,
}

/// Connection and dataset details of a Pachyderm integration. All three blocks are required.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PachydermConfig {
    /// Address of the `pachd` daemon. Required.
    pub pachd: PachydermPachd,
    /// Address of the Pachyderm proxy. Required.
    pub proxy: PachydermProxy,
    /// The dataset (project, repo, branch, commit) used for training. Required.
    pub dataset: PachydermDataset,
}

/// Address of the Pachyderm `pachd` daemon.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PachydermPachd {
    /// Host name of `pachd`. Required.
    pub host: String,
    /// Port of `pachd`. Required.
    pub port: i64,
}

/// Address of the Pachyderm proxy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PachydermProxy {
    /// URL scheme, e.g. `http` or `https`. Required.
    pub scheme: String,
    /// Host name of the proxy. Required.
    pub host: String,
    /// Port of the proxy. Required.
    pub port: i64,
}

/// The Pachyderm dataset the experiment trains on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PachydermDataset {
    /// Pachyderm project. Required.
    pub project: String,
    /// Repository within the project. Required.
    pub repo: String,
    /// Commit ID of the data. Required.
    pub commit: String,
    /// Branch of the data. Required.
    pub branch: String,
    /// Authentication token for Pachyderm. Required.
    pub token: String,
}

/// Selects the webhooks that fire for this experiment, by ID or name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhooksConfig {
    /// IDs of webhooks to trigger. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_id: Option<Vec<i64>>,
    /// Names of webhooks to trigger. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_name: Option<Vec<String>>,
    /// Exclude this experiment from workspace- and cluster-wide webhooks. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub exclude: Option<bool>,
}
