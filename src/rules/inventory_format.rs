declare_rule! {
    /// ## What it checks
    /// That `--inventory FILE` is one of the formats stagec reads: its own
    /// inventory YAML (`nodes:` with GPU types and counts; schema in
    /// `schemas/inventory.schema.json`), a Kubernetes NodeList
    /// (`kubectl get nodes -o json`), or the CSV printed by
    /// `nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv`.
    ///
    /// Also that what it reads as GPU counts are counts: a negative, huge or
    /// non-numeric `nvidia.com/gpu` is an error, not zero GPUs.
    ///
    /// ## Why
    /// Hardware availability is checked against the inventory; an inventory
    /// stagec cannot read must not pass as an empty cluster.
    ///
    /// ## Example
    /// `stagec check const.yaml --inventory nodes.txt` where `nodes.txt` is the
    /// plain-text output of `kubectl get nodes`.
    pub static INVENTORY_FORMAT = {
        code: "P301",
        name: "inventory-format",
        family: Hardware,
        severity: Error,
        summary: "The inventory file is not in a format stagec reads",
    };
}

use super::{Cx, Sink};
use crate::hardware::inventory::{InventoryIssue, NotAnInventory};

/// The formats stagec reads, for the help.
const FORMATS: &str = "stagec reads three inventory formats: its own YAML (`nodes:` entries with `name` and \
    `gpus: {type: a100-40g, count: 8}`; schema in `schemas/inventory.schema.json`), a Kubernetes NodeList \
    (`kubectl get nodes -o json > nodes.json`, or `-o yaml`), and the CSV of \
    `nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv`";

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, unit) in cx.units() {
        for issue in &unit.inventory {
            match issue {
                InventoryIssue::NotAnInventory { at, why } => {
                    let why = match why {
                        NotAnInventory::Unparsable => "it could not be parsed as YAML or JSON".to_string(),
                        NotAnInventory::KubectlTable => {
                            "this is the table `kubectl get nodes` prints; stagec needs `kubectl get nodes -o json`"
                                .to_string()
                        }
                        NotAnInventory::NvidiaSmiError => {
                            "this is an nvidia-smi error message, not a GPU list".to_string()
                        }
                        NotAnInventory::Empty => "the file is empty".to_string(),
                        NotAnInventory::PlainText => {
                            "it is plain text, neither YAML/JSON with nodes nor nvidia-smi CSV".to_string()
                        }
                        NotAnInventory::NotAMapping(found) => format!("the document is {found}, not a mapping"),
                        NotAnInventory::ListOf(kind) => format!(
                            "a Kubernetes List of `{kind}` objects, not of Nodes; run `kubectl get nodes -o json`"
                        ),
                        NotAnInventory::OtherKind(kind) => {
                            format!("a Kubernetes `{kind}`, not a NodeList; run `kubectl get nodes -o json`")
                        }
                        NotAnInventory::Unknown => {
                            "a mapping with neither `nodes:` (stagec inventory) nor `kind: NodeList`".to_string()
                        }
                        NotAnInventory::TooDeep => "it is nested too deeply to read".to_string(),
                        NotAnInventory::ItemsNotAList(found) => {
                            format!("its `items` is {found}, not a list of Nodes")
                        }
                        NotAnInventory::Unreadable(reason) => {
                            format!("it does not fit the inventory schema ({reason})")
                        }
                    };
                    out.at(
                        file,
                        *at,
                        format!("the inventory is not in a format stagec reads: {why}"),
                    )
                    .help(FORMATS);
                }
                InventoryIssue::BadCsvRow { at, fields } => {
                    out.at(
                        file,
                        *at,
                        format!("this line is not a GPU row of the nvidia-smi CSV (expected {fields} fields with a name)"),
                    )
                    .help("the line is left out; regenerate the file with `nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv`");
                }
                InventoryIssue::BadCount { at, written, what } => {
                    let written = super::text::truncate(written);
                    out.at(
                        file,
                        *at,
                        format!("`{written}` ({what}) is not a number of GPUs: this node's GPUs are not counted"),
                    )
                    .help(
                        "a GPU count is a whole number from 0 to 4294967295, as `kubectl get nodes -o json` writes it",
                    );
                }
                // GPUs the catalog does not know are P302's.
                InventoryIssue::UnknownGpu { .. } | InventoryIssue::UnlabelledGpus { .. } => {}
            }
        }
    }
}
