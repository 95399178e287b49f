declare_rule! {
    /// ## What it checks
    /// The characters U+0085 (NEXT LINE), U+2028 (LINE SEPARATOR) and
    /// U+2029 (PARAGRAPH SEPARATOR) written as themselves anywhere in an
    /// experiment config: in a value, a key or a comment.
    ///
    /// ## Why
    /// YAML 1.2 readers, such as Determined's CLI (ruamel.yaml), read these
    /// characters as text. YAML 1.1 readers, such as Determined's master
    /// (gopkg.in/yaml.v2), read each as a line break: inside a quoted
    /// string it becomes a space, in a plain value it ends the line, and in
    /// a comment the rest of the line is no longer a comment. The config
    /// then means one thing to the CLI and another to the master, and
    /// neither shows anything to a reviewer, since editors draw these
    /// characters as nothing or as a break. Inside a double-quoted string,
    /// the escapes `\N`, `\L` and `\P` (or `\u2028`) mean the character to
    /// both readers; the fix writes them.
    ///
    /// ## Example
    /// ```yaml
    /// description: "first line<U+2028>second"   # warning: write "first line\u2028second"
    /// ```
    pub static LINE_SEPARATOR = {
        code: "Y019",
        name: "line-separator",
        family: Yaml,
        severity: Warning,
        summary: "A raw U+0085, U+2028 or U+2029 is a line break to Determined's master (YAML 1.1) but text to YAML 1.2",
    };
}

use super::{Cx, Sink};
use crate::compiled::Role;
use crate::diagnostic::Edit;
use crate::source::Span;
use crate::yaml::{NodeId, Value};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, role, doc) in cx.documents() {
        if role != Role::Config {
            continue;
        }
        let text = cx.text(file);
        // Most configs have none: one scan for the UTF-8 lead bytes first.
        if !text.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
            continue;
        }
        // Double-quoted scalars, where an escape means the same character.
        let mut quoted: Vec<Span> = (0..doc.tree.len())
            .map(|i| NodeId(i as u32))
            .filter(|&id| matches!(doc.tree.node(id).value, Value::Str(_)))
            .map(|id| doc.tree.span(id))
            .filter(|s| text.get(s.start..s.start + 1) == Some("\""))
            .collect();
        quoted.sort();
        for (at, c) in text.char_indices() {
            let (name, escape) = match c {
                '\u{85}' => ("U+0085 (NEXT LINE)", "\\N"),
                '\u{2028}' => ("U+2028 (LINE SEPARATOR)", "\\L"),
                '\u{2029}' => ("U+2029 (PARAGRAPH SEPARATOR)", "\\P"),
                _ => continue,
            };
            let span = Span::new(at, at + c.len_utf8());
            let in_quotes = {
                let i = quoted.partition_point(|s| s.start <= at);
                // Scalars do not nest: only the last one starting before may hold it.
                quoted[..i].last().is_some_and(|s| s.start < at && at < s.end)
            };
            let d = out.at(
                file,
                span,
                format!("a raw {name} is a line break to Determined's master (YAML 1.1) but text to YAML 1.2 readers such as its CLI"),
            );
            if in_quotes {
                d.help(format!(
                    "write `{escape}`: both readers read the escape as the character"
                ))
                .fix(
                    format!("write `{escape}`"),
                    vec![Edit {
                        file,
                        span,
                        replacement: escape.to_string(),
                    }],
                );
            } else {
                d.help(format!(
                    "remove it, or write it as `{escape}` inside a double-quoted string, where both readers read the escape as the character"
                ));
            }
        }
    }
}
