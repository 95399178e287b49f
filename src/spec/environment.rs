//! `environment`: container image, environment variables, ports and pod spec.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The container environment that trials run in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentConfig {
    /// Docker image for the trial containers: one image name, or one per accelerator type. Defaults to Determined's stock images.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<EnvironmentImage>,
    /// Extra environment variables as `NAME=value` strings, for all containers or per accelerator type. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment_variables: Option<EnvironmentVariables>,
    /// Container ports exposed through the Determined master's proxy. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_ports: Option<Vec<ProxyPort>>,
    /// Named container ports to expose, as `name: port`. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ports: Option<BTreeMap<String, i64>>,
    /// Pull the image even if a copy is cached on the agent. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub force_pull_image: Option<bool>,
    /// Credentials for pulling the image from a private registry (Docker `auth` fields).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry_auth: Option<RegistryAuth>,
    /// Linux capabilities added to the container, e.g. `SYS_ADMIN`. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub add_capabilities: Option<Vec<String>>,
    /// Linux capabilities removed from the container. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop_capabilities: Option<Vec<String>>,
    /// Kubernetes pod spec merged into the trial pods (Kubernetes resource manager only). The pod name, namespace and most fields of the `determined-container` container are not configurable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_spec: Option<PodSpec>,
}

/// A Docker image: one name for every accelerator type, or a map with one image per type (`cpu`, `cuda`, `rocm`, legacy `gpu`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum EnvironmentImage {
    /// One image used for every kind of container, e.g. `determinedai/pytorch-ngc:0.38.0`.
    Single(String),
    /// A separate image per accelerator type.
    PerDevice(EnvironmentImageMap),
}

/// One Docker image per accelerator type. Any type left out falls back to Determined's default image.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentImageMap {
    /// Image for CPU-only containers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    /// Image for NVIDIA CUDA containers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cuda: Option<String>,
    /// Image for AMD ROCm containers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rocm: Option<String>,
    /// Legacy alias of `cuda`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
}

/// Environment variables as `NAME=value` strings: one list for every container, or a map with one list per accelerator type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum EnvironmentVariables {
    /// Variables set in every container.
    List(Vec<String>),
    /// Variables per accelerator type.
    PerDevice(EnvironmentVariablesMap),
}

/// Environment variables (`NAME=value`) per accelerator type. Each list defaults to empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentVariablesMap {
    /// Variables for CPU-only containers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<Vec<String>>,
    /// Variables for NVIDIA CUDA containers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cuda: Option<Vec<String>>,
    /// Variables for AMD ROCm containers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rocm: Option<Vec<String>>,
    /// Legacy alias of `cuda`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<Vec<String>>,
}

/// A container port reachable through the master's proxy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProxyPort {
    /// Port number inside the container, an integer. Required. (Determined's schema says `number`, but its master reads the port into an integer and refuses `8080.5`.)
    pub proxy_port: i64,
    /// Proxy raw TCP instead of HTTP. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub proxy_tcp: Option<bool>,
    /// Allow access without Determined authentication. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub unauthenticated: Option<bool>,
    /// Use this port as the task's default service. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub default_service_id: Option<bool>,
}

/// Credentials for a private Docker registry, with the fields of Docker's `AuthConfig`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegistryAuth {
    /// Registry user name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// Registry password.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// Base64-encoded `username:password`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<String>,
    /// E-mail address of the registry account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Registry address, e.g. `https://index.docker.io/v1/`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serveraddress: Option<String>,
    /// Identity token used instead of a password.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identitytoken: Option<String>,
    /// Bearer token sent to the registry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registrytoken: Option<String>,
}

/// A Kubernetes `Pod` manifest fragment merged into each trial pod. Fields other than `spec` are passed through unchecked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PodSpec {
    /// The pod's `spec` (Kubernetes `PodSpec`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<PodSpecBody>,
    /// Other pod fields (e.g. `metadata`, `apiVersion`), passed to Kubernetes as written.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// The `spec` of a pod manifest. Fields other than `containers` are passed through unchecked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PodSpecBody {
    /// Container specs; a container named `determined-container` customizes the trial container, of which only resources, env, volume mounts and similar fields may be set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub containers: Option<Vec<Value>>,
    /// Other `PodSpec` fields (volumes, node selectors, tolerations, ...), passed to Kubernetes as written.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}
