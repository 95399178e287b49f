declare_rule! {
    /// ## What it checks
    /// That the file is UTF-8 text without NUL bytes.
    ///
    /// ## Why
    /// YAML and Python sources are text; Determined's CLI rejects other
    /// encodings. A binary file (an archive, a checkpoint) passed by mistake
    /// is reported at the first offending byte.
    ///
    /// ## Example
    /// A config saved as Latin-1 with `é` in a description.
    pub static INVALID_UTF8 = {
        code: "Y006",
        name: "invalid-utf8",
        family: Yaml,
        severity: Error,
        summary: "The file is not UTF-8 text",
    };
}

use super::{Cx, Sink};
use crate::source::DecodeIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, unit) in cx.units() {
        let message = match unit.decode {
            Some(DecodeIssue::Nul { .. }) => "the file contains a NUL byte: it looks binary, not YAML text".to_string(),
            Some(DecodeIssue::NotUtf8 { at }) => format!("the file is not valid UTF-8 (byte offset {at})"),
            _ => continue,
        };
        if let Some(issue) = unit.decode {
            out.at(file, issue.span(), message)
                .help("save the file as UTF-8; YAML configs are text");
        }
    }
}
