//! The engine: runs every enabled rule over a compilation's facts, caps
//! what one rule and one file list, drops what the YAML layer already
//! rejected, and keeps credentials out of diagnostic text.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{diagnostics_capped, text, Cx, RULES};
use crate::compiled::Compiled;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rule::{Family, Rule};
use crate::source::{FileId, Loc, Span};
use crate::vars::EnvLookup;

/// What a run of the rules is told beside the facts: how the environment
/// is seen, whether every `${VAR}` must be set, whether the per-rule caps
/// apply, and which rules are enabled (rule selection lives with the
/// driver; the engine only asks).
#[derive(Clone, Copy)]
pub struct RunOptions<'a> {
    /// `${VAR}` lookups.
    pub env: EnvLookup<'a>,
    /// Whether an unset `${VAR}` is an error (`stagec plan`) rather than a
    /// warning.
    pub require_variables: bool,
    /// List every diagnostic, without the per-rule cap (L001).
    pub uncapped: bool,
    /// Whether a rule's diagnostics are reported, by code.
    pub enabled: &'a (dyn Fn(&str) -> bool + Sync),
}

impl Default for RunOptions<'_> {
    fn default() -> Self {
        RunOptions {
            env: &|_| None,
            require_variables: false,
            uncapped: false,
            enabled: &|_| true,
        }
    }
}

/// Runs every rule over a compilation's facts. A rule lists at most
/// [`diagnostics_capped::PER_RULE`] diagnostics per file; what it leaves out
/// is counted and noted.
pub fn run(compiled: &Compiled, options: &RunOptions<'_>) -> Vec<Diagnostic> {
    let cx = Cx {
        compiled,
        env: options.env,
        require_variables: options.require_variables,
    };
    let mut out = Vec::new();
    let mut from_yaml: Vec<bool> = Vec::new();
    let mut notes = Vec::new();
    for r in RULES {
        // A rule no file reports is not run; YAML rules always are, since
        // what they reject keeps the other families quiet at that value.
        let selected = (options.enabled)(r.rule.code);
        if !selected && r.rule.family != Family::Yaml {
            continue;
        }
        let mut sink = Sink {
            rule: r.rule,
            out: &mut out,
            listed: HashMap::new(),
            cap: if options.uncapped {
                usize::MAX
            } else {
                diagnostics_capped::PER_RULE
            },
            left_out: BTreeMap::new(),
            scratch: Diagnostic::new(r.rule, FileId(0), Span::default(), ""),
        };
        (r.check)(&cx, &mut sink);
        let left_out = std::mem::take(&mut sink.left_out);
        for (file, n) in left_out.into_iter().filter(|_| selected) {
            let severity = out
                .iter()
                .filter(|d| d.code == r.rule.code && d.file == file)
                .map(|d| d.severity)
                .min()
                .unwrap_or(r.rule.severity);
            notes.push(diagnostics_capped::note(file, n, Some(r.rule.code), severity));
        }
        from_yaml.resize(out.len(), r.rule.family == Family::Yaml);
    }
    // A value the YAML layer already rejected (a bad tag, a duplicate key)
    // is not reported again by the rules of other families; a YAML warning
    // rejects nothing.
    let rejected: HashSet<(FileId, Span)> = out
        .iter()
        .zip(&from_yaml)
        .filter(|(d, yaml)| **yaml && d.severity == Severity::Error)
        .map(|(d, _)| (d.file, d.span))
        .collect();
    if !rejected.is_empty() {
        let mut flags = from_yaml.into_iter();
        out.retain(|d| flags.next().unwrap_or(false) || !rejected.contains(&(d.file, d.span)));
    }
    out.extend(notes);
    redact(compiled, &mut out);
    out
}

/// Credentials never reach a diagnostic's text (message, help, labels, fix
/// title), whichever rule wrote it: what a credential key holds in the
/// file and secrets found by their shape become `****`
/// ([`Compiled::redact`]). Fix edits keep their text: outputs that show
/// them mask them (the renderers' `Report::shown_replacement`, `check
/// --diff`).
fn redact(compiled: &Compiled, diags: &mut [Diagnostic]) {
    for d in diags.iter_mut() {
        let file = d.file;
        let clean = |s: &mut String| *s = compiled.redact(file, s);
        clean(&mut d.message);
        if let Some(help) = &mut d.help {
            clean(help);
        }
        for label in &mut d.labels {
            clean(&mut label.message);
        }
        if let Some(fix) = &mut d.fix {
            clean(&mut fix.title);
        }
    }
}

/// Keeps at most [`diagnostics_capped::PER_FILE`] of a file's (sorted)
/// diagnostics, noting how many more there were.
pub fn cap_per_file(diags: &mut Vec<Diagnostic>) {
    let mut per_file: BTreeMap<FileId, usize> = BTreeMap::new();
    for d in diags.iter() {
        *per_file.entry(d.file).or_default() += 1;
    }
    if per_file.values().all(|n| *n <= diagnostics_capped::PER_FILE) {
        return;
    }
    let mut seen: BTreeMap<FileId, usize> = BTreeMap::new();
    let mut worst: BTreeMap<FileId, Severity> = BTreeMap::new();
    diags.retain(|d| {
        let n = seen.entry(d.file).or_default();
        *n += 1;
        let keep = *n <= diagnostics_capped::PER_FILE;
        if keep {
            let w = worst.entry(d.file).or_insert(Severity::Info);
            *w = (*w).min(d.severity);
        }
        keep
    });
    for (file, n) in per_file {
        if n > diagnostics_capped::PER_FILE {
            let severity = worst.get(&file).copied().unwrap_or(Severity::Info);
            diags.push(diagnostics_capped::note(
                file,
                n - diagnostics_capped::PER_FILE,
                None,
                severity,
            ));
        }
    }
    crate::diagnostic::sort_and_dedup(diags);
}

/// Where a rule reports: every diagnostic carries the rule's code and
/// default severity.
pub struct Sink<'o> {
    rule: &'static Rule,
    out: &'o mut Vec<Diagnostic>,
    /// Diagnostics listed per file.
    listed: HashMap<FileId, usize>,
    /// Most diagnostics listed per file ([`diagnostics_capped::PER_RULE`],
    /// or none with [`RunOptions::uncapped`]).
    cap: usize,
    /// Diagnostics left out per file, beyond the cap.
    left_out: BTreeMap<FileId, usize>,
    /// Where a left-out diagnostic is built (and forgotten).
    scratch: Diagnostic,
}

impl Sink<'_> {
    /// Reports `message` at `span` of `file`.
    pub fn at(&mut self, file: FileId, span: Span, message: impl Into<String>) -> &mut Diagnostic {
        let listed = self.listed.entry(file).or_default();
        if *listed >= self.cap {
            *self.left_out.entry(file).or_default() += 1;
            self.scratch = Diagnostic::new(self.rule, file, span, "");
            return &mut self.scratch;
        }
        *listed += 1;
        self.out
            .push(Diagnostic::new(self.rule, file, span, text::bounded(message.into())));
        let last = self.out.len() - 1;
        &mut self.out[last]
    }

    /// Whether `file` has all the diagnostics of this rule it lists: if so,
    /// one more is counted as left out, and the rule need not work out its
    /// message (a hostile file can hold hundreds of thousands).
    pub fn full_for(&mut self, file: FileId) -> bool {
        let full = self.listed.get(&file).is_some_and(|n| *n >= self.cap);
        if full {
            *self.left_out.entry(file).or_default() += 1;
        }
        full
    }

    /// Reports `message` at `loc`.
    pub fn at_loc(&mut self, loc: Loc, message: impl Into<String>) -> &mut Diagnostic {
        self.at(loc.file, loc.span, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::unknown_key;

    #[test]
    fn a_file_lists_at_most_its_cap_and_notes_the_rest() {
        let mut diags: Vec<Diagnostic> = (0..1_500)
            .map(|i| Diagnostic::new(&unknown_key::UNKNOWN_KEY, FileId(0), Span::at(i), "x"))
            .chain((0..10).map(|i| Diagnostic::new(&unknown_key::UNKNOWN_KEY, FileId(1), Span::at(i), "y")))
            .collect();
        cap_per_file(&mut diags);
        let in_file = |f: u32| diags.iter().filter(|d| d.file == FileId(f)).count();
        assert_eq!(in_file(0), diagnostics_capped::PER_FILE + 1);
        assert_eq!(in_file(1), 10);
        let note = diags.iter().find(|d| d.code == "L001");
        assert_eq!(
            note.map(|d| d.message.as_str()),
            Some("500 more diagnostics in this file are not shown")
        );
        assert_eq!(note.map(|d| d.severity), Some(Severity::Error));
    }
}
