//! Editor features as plain data: which YAML is an experiment, hover text,
//! completion items, definition targets and the document outline, all at
//! byte offsets and with byte spans. The language server (`lsp/`) converts
//! these to LSP types; nothing here knows about LSP.

pub mod classify;
pub mod complete;
pub mod cursor;
pub mod hover;
pub mod navigate;
pub mod outline;

pub use classify::{classify, DocumentKind};
pub use complete::{complete_config, complete_python, complete_stages_yaml, Completion, CompletionKind};
pub use cursor::{node_at, yaml_context, NodeAt, Slot, YamlContext};
pub use hover::{hover_config, hover_stage, Hover};
pub use navigate::{config_stage_at, model_stage_at, stage_gpus_span, stage_targets, StageRef};
pub use outline::{outline, Symbol, SymbolKind};
