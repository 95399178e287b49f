declare_rule! {
    /// ## What it checks
    /// That a config or stage file is at most 8 MiB, and that the training
    /// code read for a config fits its budgets: 1 MiB per file, 4 MiB in
    /// all (a file beyond them is not read, and reported here as a warning).
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
use crate::compiled::Role;
use crate::source::DecodeIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, unit) in cx.units() {
        if let Some(issue @ DecodeIssue::TooLarge { len, max }) = unit.decode {
            let (what, help) = match unit.role {
                Role::Inventory => (
                    "the inventory",
                    "trim the NodeList to the GPU nodes, e.g. `kubectl get nodes -l nvidia.com/gpu.present=true -o json`",
                ),
                Role::Training if max == crate::training::MAX_BYTES => {
                    out.at(
                        file,
                        issue.span(),
                        format!(
                            "the training code holds more than {max} bytes; this file ({len} bytes) and the files imported after it were not read"
                        ),
                    )
                    .help("stagec reads at most 4 MiB of training code per config: vendored libraries belong outside the context (or in `.detignore`)")
                    .severity(crate::diagnostic::Severity::Warning);
                    continue;
                }
                Role::Training => (
                    "the training file",
                    "stagec does not check generated or vendored modules this large; its imports were not followed",
                ),
                _ => ("the file", "experiment configs are a few kilobytes: is this the right file?"),
            };
            let d = out
                .at(
                    file,
                    issue.span(),
                    format!("{what} is {len} bytes; stagec reads at most {max} bytes"),
                )
                .help(help);
            // Training code left out is checked less, not wrong.
            if unit.role == Role::Training {
                d.severity(crate::diagnostic::Severity::Warning);
            }
        }
    }
}
