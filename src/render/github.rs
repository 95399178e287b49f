//! `--format github`: GitHub Actions workflow commands. GitHub shows at
//! most 10 annotations of each severity per step, so stagec prints the
//! first 10 of each and one summary line for the rest.

use super::{position, Report, Summary};
use crate::diagnostic::Severity;

const PER_SEVERITY: usize = 10;

pub fn render(reports: &[Report<'_>], summary: Summary) -> String {
    let mut out = String::new();
    let mut shown = [0usize; 3];
    let mut hidden = [0usize; 3];
    for r in reports {
        for d in r.diagnostics {
            let idx = d.severity as usize;
            if shown[idx] >= PER_SEVERITY {
                hidden[idx] += 1;
                continue;
            }
            shown[idx] += 1;
            let p = position(r.sources, d.file, d.span);
            let command = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            // Control characters escaped (GitHub's log shows ANSI
            // sequences), then the workflow command's own escaping of `%`
            // and line breaks: a message cannot end its command.
            let mut message = crate::escape::line(&d.message).into_owned();
            if let Some(help) = &d.help {
                message.push_str("\nhelp: ");
                message.push_str(&crate::escape::text(help));
            }
            out.push_str(&format!(
                "::{command} file={},line={},endLine={},col={},endColumn={},title={}::{}\n",
                // Line breaks are left to the property escaping (`%0A`,
                // which GitHub reads back as the path's own).
                escape_property(&crate::escape::text(&p.file)),
                p.line,
                p.end_line,
                p.column,
                p.end_column,
                escape_property(d.code),
                escape_data(&message),
            ));
        }
    }
    let names = ["errors", "warnings", "notices"];
    let rest: Vec<String> = hidden
        .iter()
        .zip(names)
        .filter(|(n, _)| **n > 0)
        .map(|(n, name)| format!("{n} more {name}"))
        .collect();
    if !rest.is_empty() {
        out.push_str(&format!(
            "stagec: {} not annotated (GitHub shows {PER_SEVERITY} per severity); run `stagec check` locally for all of them\n",
            rest.join(", ")
        ));
    }
    out.push_str("stagec: ");
    out.push_str(&summary.line());
    out
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}
