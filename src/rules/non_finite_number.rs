declare_rule! {
    /// ## What it checks
    /// `.nan`, `.inf` and `-.inf` (in any spelling YAML knows) in an
    /// experiment config.
    ///
    /// ## Why
    /// Determined's master converts the config to JSON, which has no NaN or
    /// infinity: the conversion fails and the experiment is refused, whatever
    /// the key. (A number too large for 64 bits, such as `1e400`, is a
    /// string to the master instead; see Y012.)
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   clip: .inf     # error
    /// ```
    pub static NON_FINITE_NUMBER = {
        code: "Y015",
        name: "non-finite-number",
        family: Yaml,
        severity: Error,
        summary: "NaN or an infinity, which Determined's master cannot convert to JSON",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            if let YamlIssue::NonFinite { at, written } = issue {
                let shown = super::text::truncate(written);
                out.at(
                    file,
                    *at,
                    format!("`{shown}` has no JSON form: Determined's master refuses the config"),
                )
                .help("write a finite number, or quote it if the text is meant");
            }
        }
    }
}
