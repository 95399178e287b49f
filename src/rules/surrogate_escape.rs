declare_rule! {
    /// ## What it checks
    /// `\u` escapes of UTF-16 surrogates in double-quoted strings: a pair
    /// such as `"\ud83d\ude00"` in an experiment config, and a lone half of
    /// a pair anywhere.
    ///
    /// ## Why
    /// YAML's `\u` escape names a Unicode character, and surrogates are not
    /// characters. Determined's master (yaml.v2) refuses the config with
    /// "found invalid Unicode character escape code"; a lone surrogate is
    /// not text in any reader. JSON writes characters beyond the Basic
    /// Multilingual Plane as such pairs, so stagec reads a pair in a JSON
    /// file (an inventory) as its character.
    ///
    /// ## Example
    /// ```yaml
    /// description: "smile \ud83d\ude00"   # error: write "\U0001F600"
    /// ```
    pub static SURROGATE_ESCAPE = {
        code: "Y018",
        name: "surrogate-escape",
        family: Yaml,
        severity: Error,
        summary: "A `\\u` escape names a UTF-16 surrogate, not a character",
    };
}

use super::{Cx, Sink};
use crate::diagnostic::Edit;
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            let YamlIssue::SurrogateEscape { at, pair } = issue else {
                continue;
            };
            let written = cx.text(file).get(at.start..at.end).unwrap_or("");
            match pair {
                Some(c) => {
                    let escape = format!("\\U{:08X}", *c as u32);
                    out.at(
                        file,
                        *at,
                        format!("`{written}` is a UTF-16 surrogate pair: Determined's master refuses the config"),
                    )
                    .help(format!("write the character as `{escape}`, or the character itself"))
                    .fix(
                        format!("write `{escape}`"),
                        vec![Edit {
                            file,
                            span: *at,
                            replacement: escape.clone(),
                        }],
                    );
                }
                None => {
                    out.at(file, *at, format!("`{written}` is half of a UTF-16 surrogate pair, not a character"))
                        .help("write the whole character with a `\\U` escape (for example `\\U0001F600`), or the character itself");
                }
            }
        }
    }
}
