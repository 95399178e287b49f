//! `--format concise`: one line per diagnostic, `path:line:col: CODE
//! message`, the one-line form of compilers and ruff, for editors' problem
//! matchers and `grep`; then the summary line.

use super::{position, Report, Summary};

pub fn render(reports: &[Report<'_>], summary: Summary) -> String {
    let mut out = String::new();
    for r in reports {
        for d in r.diagnostics {
            let p = position(r.sources, d.file, d.span);
            // One line whatever the message holds (a line break in it is a
            // space), and the path's and message's control characters
            // escaped: input cannot forge a line nor drive the terminal.
            let message = d.message.replace(['\r', '\n'], " ");
            out.push_str(&format!(
                "{}:{}:{}: {} {}\n",
                crate::escape::line(&p.file),
                p.line,
                p.column,
                d.code,
                crate::escape::line(&message)
            ));
        }
    }
    out.push_str(&summary.line());
    out
}

#[cfg(test)]
mod tests {
    use crate::project::Project;
    use crate::render::{Report, Summary};

    #[test]
    fn one_line_per_diagnostic_then_the_summary() {
        let project = Project::config_only("c.yaml", "name: x\nname: y\nslots_per_trial: 2\n");
        let compiled = crate::compile(&project, &crate::Options::default());
        let reports = [Report::of(&compiled)];
        let text = super::render(&reports, Summary::of(&reports, 1));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), compiled.diagnostics.len() + 1, "{text}");
        assert!(lines.contains(&"c.yaml:2:1: Y002 duplicate key `name`"), "{text}");
        assert!(lines.iter().all(|l| !l.is_empty()));
    }
}
