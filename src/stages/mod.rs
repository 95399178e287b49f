//! Stage declarations read from the model's sources: `@stage_decorator`
//! classes in Python (`python`) or a `stages.yaml` (`stages_yaml`), as plain
//! data with the location of everything the user wrote.

pub mod from_python;
pub mod python;
pub mod stages_yaml;

use crate::source::{Loc, Located};

/// Which kind of source declared a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclSource {
    /// A class decorated with `@stage_decorator`.
    Decorator,
    /// An undecorated submodule of the root model, assigned after stage
    /// *k*: it forms stage *k+1* (device from `stage_<N>_gpus`, dtype from
    /// `hpp_config.default_dtype`, else fp32).
    Implicit,
    /// An entry of `stages.yaml`.
    StagesYaml,
}

/// One declared pipeline stage.
#[derive(Clone, Debug, PartialEq)]
pub struct StageDecl {
    /// The stage id as written (`stage_id=` argument, `id:` value).
    pub id: Located<i64>,
    /// Class name, `stages.yaml` name, or the implicit submodule's attribute.
    pub name: Located<String>,
    /// The whole declaration (decorator, `stages.yaml` entry, assignment):
    /// where "declared here" labels point.
    pub decl: Loc,
    /// Device as written (`"a100"`), if any.
    pub device: Option<Located<String>>,
    /// Dtype as written (`torch.float16`, `bf16`), if any.
    pub dtype: Option<Located<String>>,
    /// Stage ids feeding this one as written; `None` means the default
    /// (`[id - 1]`, or `[]` for stage 0).
    pub inputs: Option<Located<Vec<Located<i64>>>>,
    /// Module names (informational).
    pub modules: Vec<String>,
    /// Parameter count, if declared.
    pub params: Option<u64>,
    /// FLOPs per sample, if declared.
    pub flops_per_sample: Option<f64>,
    pub source: DeclSource,
}
