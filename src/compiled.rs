//! What a compilation produced: every input file with its facts (a
//! [`Unit`] per file, by [`Role`]), the typed settings, the stage
//! declarations, the pipeline, the training analysis and the diagnostics.
//! Plain data: the driver fills it in phase by phase, the rules read it,
//! every output renders it.

use std::sync::OnceLock;

use serde_json::Value as Json;

use crate::diagnostic::{Diagnostic, Severity};
use crate::document::Document;
use crate::hardware::inventory::{Inventory, InventoryIssue};
use crate::hardware::probe::ProbeReport;
use crate::pipeline::Pipeline;
use crate::settings::Settings;
use crate::source::{DecodeIssue, FileId, SourceMap, Span};
use crate::spec::ExperimentConfig;
use crate::stages::python::PyModel;
use crate::stages::stages_yaml::StagesIssue;
use crate::stages::StageDecl;
use crate::yaml::Tree;

/// What an input file is to the compilation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The experiment config.
    Config,
    /// A Python model source.
    Model,
    /// A `stages.yaml`.
    Stages,
    /// A cluster inventory.
    Inventory,
    /// The probed host's report.
    Probe,
    /// A Python file of the training code (not a model source).
    Training,
}

impl Role {
    /// The schema a YAML document of this role is checked against (the
    /// experiment's, `stages.yaml`'s, the inventory's); `None` for a role
    /// without one.
    pub fn schema_index(self) -> Option<&'static crate::schema::SchemaIndex> {
        match self {
            Role::Config => Some(crate::schema::experiment()),
            Role::Stages => Some(crate::stages::stages_yaml::stages_index()),
            Role::Inventory => Some(crate::hardware::inventory::inventory_index()),
            Role::Model | Role::Probe | Role::Training => None,
        }
    }
}

/// One input file and what the phases found in it.
#[derive(Clone, Debug)]
pub struct Unit {
    pub role: Role,
    /// Why the bytes are not usable text (too large, binary, not UTF-8);
    /// such a file is read no further.
    pub decode: Option<DecodeIssue>,
    /// The YAML document (config, `stages.yaml`, a YAML or JSON inventory).
    pub yaml: Option<Document>,
    /// The Python model.
    pub python: Option<PyModel>,
    /// What `stages.yaml` entries got wrong beyond their schema.
    pub stages: Vec<StagesIssue>,
    /// What the inventory reader found wrong.
    pub inventory: Vec<InventoryIssue>,
    /// Where credential values are written (YAML documents), computed when
    /// output first needs them: see [`Compiled::secrets`].
    secrets: OnceLock<Vec<Span>>,
    /// One pattern of the credential values written in the file: see
    /// [`Compiled::secret_pattern`].
    secret_pattern: OnceLock<Option<crate::secrets::LiteralPattern>>,
}

impl Unit {
    pub(crate) fn new(role: Role, decode: Option<DecodeIssue>) -> Unit {
        Unit {
            role,
            decode,
            yaml: None,
            python: None,
            stages: Vec::new(),
            inventory: Vec::new(),
            secrets: OnceLock::new(),
            secret_pattern: OnceLock::new(),
        }
    }
}

/// Everything one compilation produced.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub sources: SourceMap,
    /// One unit per file of `sources`, by [`FileId`].
    pub units: Vec<Unit>,
    /// The experiment config's file.
    pub config: FileId,
    /// The config's settings, typed: present when the config parsed into a
    /// mapping.
    pub settings: Option<Settings>,
    /// Stage declarations from every model source, in file order.
    pub decls: Vec<StageDecl>,
    /// Where the declarations were looked for; `None` when they were not
    /// (a config checked on its own).
    pub searched: Option<String>,
    /// The inventory stages are checked against (read or probed).
    pub inventory: Option<Inventory>,
    /// The probe's report and the file registered for it.
    pub probe: Option<(FileId, ProbeReport)>,
    /// The image the GPU stages run in and what it provides.
    pub runtime: Option<crate::runtime::Runtime>,
    /// The resolved pipeline, when there are stage declarations.
    pub pipeline: Option<Pipeline>,
    /// The training code, when it was looked for (see [`crate::training`]).
    pub training: Option<crate::training::Training>,
    /// Every diagnostic, suppressions applied, sorted by file and position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Compiled {
    /// The unit of a file.
    pub fn unit(&self, file: FileId) -> Option<&Unit> {
        self.units.get(file.0 as usize)
    }

    /// Whether a fix may edit `file`: a config, model, `stages.yaml` or
    /// training file read as text (not an inventory, not the probe's report).
    pub fn is_editable(&self, file: FileId) -> bool {
        self.unit(file).is_some_and(|u| {
            u.decode.is_none() && matches!(u.role, Role::Config | Role::Model | Role::Stages | Role::Training)
        })
    }

    /// The text of a file ("" for an unknown id).
    pub fn text(&self, file: FileId) -> &str {
        self.sources.get(file).map_or("", |f| f.text.as_str())
    }

    /// The experiment config's YAML document, when it was text.
    pub fn config_document(&self) -> Option<&Document> {
        self.unit(self.config)?.yaml.as_ref()
    }

    /// The config's spanned tree.
    pub fn config_tree(&self) -> Option<&Tree> {
        self.config_document().map(|d| &d.tree)
    }

    /// The config as JSON, when it parsed into a mapping within budget.
    pub fn config_json(&self) -> Option<&Json> {
        self.config_document()?.json.as_ref()
    }

    /// Where credential values are written in a file (in a YAML document
    /// by key and by shape, in other files by shape): output masks them.
    /// Located once, on first use.
    pub fn secrets(&self, file: FileId) -> &[Span] {
        let Some(unit) = self.unit(file) else { return &[] };
        unit.secrets.get_or_init(|| match &unit.yaml {
            Some(doc) => crate::secrets::spans(&doc.tree, self.text(file)),
            // Python and other text: secrets by their shape.
            None => crate::secrets::value_ranges(self.text(file))
                .into_iter()
                .map(|r| Span::new(r.start, r.end))
                .collect(),
        })
    }

    /// Drops what output does not read — syntax trees, JSON, the model,
    /// the pipeline, the training analysis — keeping the sources, the
    /// diagnostics and where credentials are written (computed first, so
    /// output still masks them). A run over thousands of configs then holds
    /// a few kilobytes per config, not every compilation whole.
    pub fn keep_for_output(&mut self) {
        for i in 0..self.units.len() {
            let _ = self.secrets(FileId(i as u32));
        }
        for unit in &mut self.units {
            unit.yaml = None;
            unit.python = None;
            unit.stages = Vec::new();
            // The inventory's issues stay: they decide whether its text may
            // be shown at all (`withheld`).
        }
        self.settings = None;
        self.decls = Vec::new();
        self.inventory = None;
        self.probe = None;
        self.runtime = None;
        self.pipeline = None;
        self.training = None;
        self.diagnostics.shrink_to_fit();
    }

    /// A pattern matching every credential value written in `file` (see
    /// [`crate::secrets::literal_pattern`]), for text that may quote one.
    pub fn secret_pattern(&self, file: FileId) -> Option<&crate::secrets::LiteralPattern> {
        let unit = self.unit(file)?;
        unit.secret_pattern
            .get_or_init(|| crate::secrets::literal_pattern(self.text(file), self.secrets(file)))
            .as_ref()
    }

    /// Text that output shows (a message, a fix's replacement) with every
    /// credential of `file` in it masked: the values written there and
    /// secrets by their shape.
    pub fn redact(&self, file: FileId, text: &str) -> String {
        let mut t = crate::secrets::redact(text).into_owned();
        if let Some(re) = self.secret_pattern(file) {
            if re.is_match(&t) {
                t = re.mask_in(&t);
            }
        }
        t
    }

    /// Whether the text of `file` must not be shown: an inventory stagec
    /// could not read (not text, or not recognisably what an inventory
    /// comes from: see [`crate::hardware::inventory::NotAnInventory::recognised`]). Such a
    /// file may be anything a settings file or a slip of the hand named (a
    /// credentials file, `/proc/self/environ`): output names where, never
    /// what.
    pub fn withheld(&self, file: FileId) -> bool {
        self.unit(file).is_some_and(|u| {
            u.role == Role::Inventory
                && (u.decode.is_some()
                    || u.inventory.iter().any(|i| {
                        matches!(i, crate::hardware::inventory::InventoryIssue::NotAnInventory { why, .. } if !why.recognised())
                    }))
        })
    }

    /// The YAML document of any file.
    pub fn document(&self, file: FileId) -> Option<&Document> {
        self.unit(file)?.yaml.as_ref()
    }

    /// The typed experiment, when the config has no errors. Deserialised on
    /// demand: checking alone does not need it.
    pub fn typed(&self) -> Option<ExperimentConfig> {
        if self.error_count() > 0 {
            return None;
        }
        serde_json::from_value(self.config_json()?.clone()).ok()
    }

    pub fn error_count(&self) -> usize {
        self.count(Severity::Error)
    }

    pub fn warning_count(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, severity: Severity) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == severity).count()
    }
}
