declare_rule! {
    /// ## What it checks
    /// That a config or stage file is at most 8 MiB.
    ///
    /// ## Why
    /// Experiment configs are a few kilobytes. A file of many megabytes is a
    /// data file or a log passed by mistake; stagec refuses to parse it rather
    /// than spend memory and time on it.
    ///
    /// ## Example
    /// `stagec check checkpoints/model.bin`
    pub static FILE_TOO_LARGE = {
        code: "Y005",
        name: "file-too-large",
        family: Yaml,
        severity: Error,
        summary: "The file is larger than stagec reads",
    };
}

use super::{Cx, Sink};
use crate::compile::Role;
use crate::source::DecodeIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, unit) in cx.units() {
        if let Some(issue @ DecodeIssue::TooLarge { len, max }) = unit.decode {
            let (what, help) = match unit.role {
                Role::Inventory => (
                    "the inventory",
                    "trim the NodeList to the GPU nodes, e.g. `kubectl get nodes -l nvidia.com/gpu.present=true -o json`",
                ),
                _ => ("the file", "experiment configs are a few kilobytes: is this the right file?"),
            };
            out.at(
                file,
                issue.span(),
                format!("{what} is {len} bytes; stagec reads at most {max} bytes"),
            )
            .help(help);
        }
    }
}
