//! `log_policies`: actions triggered by matching trial log lines.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

tag_enum!(
    /// Marks the legacy `{type: cancel_retries}` action.
    CancelRetriesType = "cancel_retries"
);
tag_enum!(
    /// Marks the legacy `{type: exclude_node}` action.
    ExcludeNodeType = "exclude_node"
);

/// A log policy: when a trial log line matches `pattern`, the policy is reported under `name` and `action` is taken. Setting only `name` (with a null `pattern`) disables a default policy of that name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogPolicy {
    /// Name of the policy, shown in the UI when it matches. Required unless this is a legacy policy with `pattern` and `action`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Regular expression matched against each log line; null disables the policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// What to do when the pattern matches: `cancel_retries` or `exclude_node`. Defaults to only labelling the trial.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<LogAction>,
}

/// A log-policy action: a plain name, or the legacy `{type: ...}` object form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum LogAction {
    /// The action by name.
    Named(LogActionName),
    /// Legacy form of `cancel_retries`.
    CancelRetries(LegacyCancelRetries),
    /// Legacy form of `exclude_node`.
    ExcludeNode(LegacyExcludeNode),
}

/// Name of a log-policy action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(transform = super::const_variants_to_enum)]
pub enum LogActionName {
    /// Do not restart the trial after it fails.
    CancelRetries,
    /// Do not schedule the trial on the same node again after it fails.
    ExcludeNode,
}

/// Legacy `{type: cancel_retries}`: do not restart the trial after it fails.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LegacyCancelRetries {
    /// Must be `cancel_retries`.
    #[serde(rename = "type")]
    pub kind: CancelRetriesType,
}

/// Legacy `{type: exclude_node}`: do not schedule the trial on the same node again after it fails.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LegacyExcludeNode {
    /// Must be `exclude_node`.
    #[serde(rename = "type")]
    pub kind: ExcludeNodeType,
}
