declare_rule! {
    /// ## What it checks
    /// The `%YAML` directive at the top of a file, when a reader refuses its
    /// version.
    ///
    /// ## Why
    /// Determined's master reads configs with yaml.v2, which accepts only
    /// `%YAML 1.1` and refuses a document marked with any other version
    /// ("found incompatible YAML document") — `%YAML 1.2` included. The CLI
    /// (ruamel.yaml) accepts only 1.x. Without a directive both read their
    /// default, so removing it is always safe.
    ///
    /// ## Example
    /// ```yaml
    /// %YAML 1.2     # error: the master refuses it
    /// ---
    /// name: mnist
    /// ```
    pub static YAML_VERSION = {
        code: "Y016",
        name: "yaml-version",
        family: Yaml,
        severity: Error,
        summary: "A `%YAML` directive names a version a reader refuses",
    };
}

use super::{Cx, Sink};
use crate::compiled::Role;
use crate::diagnostic::Edit;
use crate::source::Span;
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, role, doc) in cx.documents() {
        for issue in &doc.issues {
            let YamlIssue::Version {
                at,
                version,
                cli_refuses,
            } = issue
            else {
                continue;
            };
            let version = super::text::truncate(version);
            let message = match (role, cli_refuses) {
                (Role::Config, false) => {
                    format!("`%YAML {version}`: Determined's master reads only documents marked `%YAML 1.1`")
                }
                (Role::Config, true) => format!("`%YAML {version}`: Determined's CLI reads only YAML 1.x"),
                _ => format!("`%YAML {version}` is not a YAML version readers accept (1.x)"),
            };
            // The directive's whole line, with its line break.
            let text = cx.text(file);
            let start = text[..at.start].rfind('\n').map_or(0, |i| i + 1);
            let end = text[at.end..].find('\n').map_or(text.len(), |i| at.end + i + 1);
            out.at(file, *at, message)
                .help("remove the directive: without one, every reader uses its default")
                .fix(
                    "remove the `%YAML` directive",
                    vec![Edit {
                        file,
                        span: Span::new(start, end),
                        replacement: String::new(),
                    }],
                );
        }
    }
}
