//! Applying fixes (`stagec check --fix`): the compile → edit → recompile
//! loop over a [`Project`] held in memory. Nothing here touches the disk;
//! the caller writes the changed files (atomically) or prints their diff.
//!
//! Each round applies every selected fix whose edits overlap no edit taken
//! before it in that round (in diagnostic order), then compiles again: a
//! fix that needed another one's result gets its turn in the next round.
//! A round whose fixes make the check report something it did not report
//! before is taken back and its fixes are tried one at a time, each kept
//! only when it introduces nothing; the loop stops when no fix applies,
//! after [`MAX_ROUNDS`], or when a text comes back to an earlier state.

use std::collections::{BTreeMap, HashSet};

use crate::compile::{compile, Compiled, Options};
use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::project::Project;
use crate::source::Span;

/// Most rounds of fixing.
pub const MAX_ROUNDS: usize = 10;

/// Which fixes to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Only safe fixes (`--fix`).
    Safe,
    /// Safe and unsafe fixes (`--fix --unsafe-fixes`).
    All,
}

impl Level {
    fn allows(self, a: Applicability) -> bool {
        match self {
            Level::Safe => a == Applicability::Safe,
            Level::All => true,
        }
    }
}

/// A file the fixes changed: its text before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    pub name: String,
    pub before: String,
    pub after: String,
    /// The fixes applied to this file (by the file of a fix's first edit),
    /// by rule code: what writing it makes true.
    pub fixed: Vec<(&'static str, usize)>,
}

/// What fixing did.
#[derive(Debug)]
pub struct Outcome {
    /// The project with the fixed texts.
    pub project: Project,
    /// The check of the fixed project: what is left.
    pub compiled: Compiled,
    /// Changed files, by path.
    pub changed: Vec<Changed>,
    /// The fixes applied, by rule code (code, count), in code order.
    pub fixed: Vec<(&'static str, usize)>,
    /// Rounds run.
    pub rounds: usize,
}

impl Outcome {
    /// How many fixes were applied.
    pub fn fixed_count(&self) -> usize {
        self.fixed.iter().map(|(_, n)| n).sum()
    }
}

/// What is left after fixing, for the summary: remaining errors and
/// warnings with a fix `--unsafe-fixes` would apply, and those that need a
/// person.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Remaining {
    pub unsafe_fixable: usize,
    pub manual: usize,
}

/// Counts the remaining findings (errors and warnings) of a check by what
/// could fix them.
pub fn remaining(diagnostics: &[Diagnostic], level: Level) -> Remaining {
    let mut r = Remaining::default();
    for d in diagnostics.iter().filter(|d| d.severity != Severity::Info) {
        match &d.fix {
            Some(f) if !level.allows(f.applicability) => r.unsafe_fixable += 1,
            _ => r.manual += 1,
        }
    }
    r
}

/// Fixes `project` in memory at `level`; `filter` keeps the diagnostics
/// that count (rule selection), as the caller's check would report them.
/// `refresh` discovers the project again from its edited texts (a fixed
/// entrypoint runs other training code); `None` keeps it as it is.
///
/// The rounds check without the output caps ([`Options::uncapped`]): a
/// finding the caps hide would otherwise look new once the listed ones are
/// fixed, and only the listed ones could be fixed. The outcome's check is
/// the capped one, as `check` reports it.
pub fn fix(
    project: &Project,
    options: &Options<'_>,
    level: Level,
    filter: &dyn Fn(&mut Compiled),
    refresh: &mut dyn FnMut(&Project) -> Option<Project>,
) -> Outcome {
    let uncapped = Options {
        env: options.env,
        budgets: options.budgets,
        require_variables: options.require_variables,
        determined: options.determined,
        selection: options.selection,
        uncapped: true,
    };
    let mut project = project.clone();
    let originals = texts(&project);
    let check = |p: &Project| {
        let mut c = compile(p, &uncapped);
        filter(&mut c);
        c
    };
    let mut compiled = check(&project);
    let mut fixed: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut by_file: BTreeMap<(String, &'static str), usize> = BTreeMap::new();
    let mut seen: HashSet<Vec<(String, String)>> = HashSet::new();
    seen.insert(texts(&project));
    let mut rounds = 0;
    while rounds < MAX_ROUNDS {
        let candidates = candidates(&compiled, level);
        if candidates.is_empty() {
            break;
        }
        rounds += 1;
        // All non-overlapping fixes at once; when they make the check report
        // something new, halves of them, down to single fixes.
        let batch = non_overlapping(&candidates);
        let mut round = Round {
            start: &project,
            compiled: &compiled,
            kept: Vec::new(),
            current: None,
            current_findings: findings(&compiled),
        };
        round.try_batch(&batch, &check, refresh);
        let Round { kept, current, .. } = round;
        let Some((next, next_compiled)) = current else {
            break;
        };
        for fix in kept.iter().map(|&i| &batch[i]) {
            *fixed.entry(fix.0.code).or_default() += 1;
            if let Some(name) = fix
                .1
                .edits
                .first()
                .and_then(|e| compiled.sources.get(e.file))
                .map(|s| s.name.clone())
            {
                *by_file.entry((name, fix.0.code)).or_default() += 1;
            }
        }
        project = next;
        compiled = next_compiled;
        // A text seen before: the fixes go round in circles.
        if !seen.insert(texts(&project)) {
            break;
        }
    }
    // By name: a project discovered again may hold other files than before.
    let changed: Vec<Changed> = texts(&project)
        .into_iter()
        .filter_map(|(name, after)| {
            let before = originals.iter().find(|(n, _)| *n == name)?.1.clone();
            (before != after).then(|| {
                let fixed = by_file
                    .iter()
                    .filter(|((file, _), _)| *file == name)
                    .map(|((_, code), n)| (*code, *n))
                    .collect();
                Changed {
                    name,
                    before,
                    after,
                    fixed,
                }
            })
        })
        .collect();
    // What is left, as `check` reports it (capped).
    let mut compiled = compile(&project, options);
    filter(&mut compiled);
    Outcome {
        project,
        compiled,
        changed,
        fixed: fixed.into_iter().collect(),
        rounds,
    }
}

/// One round's search for the fixes that introduce nothing: `kept` are
/// indexes into the round's batch, all applied together to `start` (their
/// spans are of `compiled`'s texts, and none overlap) giving `current`.
struct Round<'r> {
    start: &'r Project,
    compiled: &'r Compiled,
    kept: Vec<usize>,
    current: Option<(Project, Compiled)>,
    current_findings: BTreeMap<(&'static str, String), usize>,
}

impl Round<'_> {
    /// Tries the batch's fixes on top of those kept: a range of them is kept
    /// whole when the check reports nothing new, else each half in turn.
    /// A batch where every fix is fine costs one check; `k` bad fixes among
    /// `n` cost about `2 k log n`.
    fn try_batch(
        &mut self,
        batch: &[(Diagnostic, Fix)],
        check: &dyn Fn(&Project) -> Compiled,
        refresh: &mut dyn FnMut(&Project) -> Option<Project>,
    ) {
        // Ranges of the batch still to try, as (start, end), last first.
        let mut pending: Vec<(usize, usize)> = vec![(0, batch.len())];
        while let Some((from, to)) = pending.pop() {
            let range = from..to;
            if range.is_empty() {
                continue;
            }
            let mut with: Vec<usize> = self.kept.clone();
            with.extend(range.clone());
            let fixes: Vec<&(Diagnostic, Fix)> = with.iter().map(|&i| &batch[i]).collect();
            let mut trial = self.start.clone();
            apply(&mut trial, self.compiled, &fixes);
            let trial = refresh(&trial).unwrap_or(trial);
            let after = check(&trial);
            let after_findings = findings(&after);
            if !introduces(&self.current_findings, &after_findings) {
                self.kept = with;
                self.current = Some((trial, after));
                self.current_findings = after_findings;
            } else if range.len() > 1 {
                let mid = range.start + range.len() / 2;
                // Stack: the first half is tried first.
                pending.push((mid, range.end));
                pending.push((range.start, mid));
            }
        }
    }
}

/// The fixes of a check that `level` applies and that edit only files the
/// project holds as text, in diagnostic order.
fn candidates(compiled: &Compiled, level: Level) -> Vec<(Diagnostic, Fix)> {
    compiled
        .diagnostics
        .iter()
        .filter_map(|d| {
            let f = d.fix.as_ref()?;
            let editable = !f.edits.is_empty()
                && f.edits.iter().all(|e| {
                    compiled.sources.get(e.file).is_some_and(|s| !s.name.starts_with('<'))
                        && compiled.is_editable(e.file)
                        && compiled.sources.get(e.file).is_some_and(|s| e.span.end <= s.text.len())
                });
            (level.allows(f.applicability) && editable).then(|| (d.clone(), f.clone()))
        })
        .collect()
}

/// The fixes, in order, whose edits overlap none taken before them (two
/// insertions at one point overlap too: their order would be a guess).
fn non_overlapping(candidates: &[(Diagnostic, Fix)]) -> Vec<(Diagnostic, Fix)> {
    // Taken spans by file and start: disjoint, so a span can only overlap
    // the last one starting at or before it and the first after it.
    let mut taken: BTreeMap<(crate::source::FileId, usize), usize> = BTreeMap::new();
    let clashes = |taken: &BTreeMap<(crate::source::FileId, usize), usize>, file, span: Span| {
        let before = taken.range(..=(file, span.start)).next_back();
        let after = taken.range((file, span.start)..).next();
        [before, after]
            .into_iter()
            .flatten()
            .any(|(&(f, start), &end)| f == file && overlaps(Span { start, end }, span))
    };
    let mut out = Vec::new();
    for (d, f) in candidates {
        let clash = f.edits.iter().any(|e| clashes(&taken, e.file, e.span));
        // The edits of one fix must not overlap each other either.
        let inner = f.edits.iter().enumerate().any(|(i, a)| {
            f.edits[i + 1..]
                .iter()
                .any(|b| a.file == b.file && overlaps(a.span, b.span))
        });
        if clash || inner {
            continue;
        }
        taken.extend(f.edits.iter().map(|e| ((e.file, e.span.start), e.span.end)));
        out.push((d.clone(), f.clone()));
    }
    out
}

fn overlaps(a: Span, b: Span) -> bool {
    if a.start == b.start {
        return true;
    }
    a.start < b.end && b.start < a.end
}

/// Applies the fixes' edits (spans of `compiled`'s texts) to the project's
/// inputs, each text rebuilt once.
fn apply(project: &mut Project, compiled: &Compiled, fixes: &[&(Diagnostic, Fix)]) {
    let mut by_file: BTreeMap<crate::source::FileId, Vec<(Span, &str)>> = BTreeMap::new();
    for (_, f) in fixes {
        for e in &f.edits {
            by_file.entry(e.file).or_default().push((e.span, &e.replacement));
        }
    }
    for (file, edits) in by_file {
        let Some(source) = compiled.sources.get(file) else {
            continue;
        };
        // Overlapping or broken edits are skipped (the batch has none).
        let text = crate::edit::apply(&source.text, edits);
        set_text(project, &source.name, &text);
    }
}

/// `project` with the texts of the files named replaced: what is on disk
/// when only some of the fixed files could be written.
pub fn with_texts(project: &Project, texts: &[(&str, &str)]) -> Project {
    let mut project = project.clone();
    for (name, text) in texts {
        set_text(&mut project, name, text);
    }
    project
}

/// Replaces the bytes of every input of the project named `name`.
fn set_text(project: &mut Project, name: &str, text: &str) {
    let mut inputs: Vec<&mut crate::project::Input> = vec![&mut project.config];
    inputs.extend(project.models.iter_mut().flatten());
    if let Some(t) = project.training.as_mut() {
        for f in &mut t.files {
            if f.input.name == name {
                // A kept parse is of the old text.
                f.parsed = None;
            }
            inputs.push(&mut f.input);
        }
    }
    for input in inputs {
        if input.name == name {
            input.bytes = text.as_bytes().to_vec();
        }
    }
}

/// Every input's name and text (one per path, in path order): what the
/// fixes may have changed.
fn texts(project: &Project) -> Vec<(String, String)> {
    project
        .texts()
        .0
        .into_iter()
        .map(|(path, text)| (path.display().to_string(), text))
        .collect()
}

/// What a check reports, by rule and message (positions move as text is
/// edited), counted.
fn findings(compiled: &Compiled) -> BTreeMap<(&'static str, String), usize> {
    let mut out = BTreeMap::new();
    for d in &compiled.diagnostics {
        *out.entry((d.code, d.message.clone())).or_default() += 1;
    }
    out
}

/// Whether `after` reports something `before` did not (or more of it).
fn introduces(
    before: &BTreeMap<(&'static str, String), usize>,
    after: &BTreeMap<(&'static str, String), usize>,
) -> bool {
    after.iter().any(|(k, n)| before.get(k).copied().unwrap_or(0) < *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(text: &str) -> Project {
        Project::config_only("c.yaml", text)
    }

    #[test]
    fn safe_fixes_only_unless_asked() {
        // `base` missing (safe) and `checkpoints` (unsafe).
        let text = "name: x\nentrypoint: python3 train.py\nsearcher: {name: single, metric: loss, max_length: {batches: 10}}\nhyperparameters:\n  lr:\n    type: log\n    minval: -5\n    maxval: -2\ncheckpoints:\n  storage_type: shared_fs\n  config: {host_path: /tmp}\n";
        let options = Options::default();
        let safe = fix(&project(text), &options, Level::Safe, &|_| {}, &mut |_| None);
        let after = &safe.changed[0].after;
        assert!(after.contains("base: 10"), "{after}");
        assert!(after.contains("checkpoints:"), "{after}");
        assert!(safe.fixed.iter().any(|(c, _)| *c == "C103"), "{:?}", safe.fixed);
        let all = fix(&project(text), &options, Level::All, &|_| {}, &mut |_| None);
        let after = &all.changed[0].after;
        assert!(after.contains("checkpoint_storage:"), "{after}");
        assert!(!after.contains("checkpoints:"), "{after}");
    }

    #[test]
    fn many_findings_of_one_rule_are_fixed_in_one_round() {
        // 1,000 C103 (`base` missing): beyond the 200 a rule lists per file.
        let mut text = String::from("name: x\nentrypoint: python3 train.py\nhyperparameters:\n");
        for i in 0..1000 {
            text.push_str(&format!("  lr{i}:\n    type: log\n    minval: -5\n    maxval: -2\n"));
        }
        let out = fix(&project(&text), &Options::default(), Level::Safe, &|_| {}, &mut |_| {
            None
        });
        let n = |fixed: &[(&str, usize)]| fixed.iter().find(|(c, _)| *c == "C103").map(|(_, n)| *n);
        assert_eq!(n(&out.fixed), Some(1000), "{:?}", out.fixed);
        // C206's fixes of the same bounds wait for the second round; before,
        // no fix applied (the 800 unlisted looked new) and each was tried
        // on its own.
        assert!(out.rounds <= 2, "{} rounds", out.rounds);
        assert_eq!(out.changed[0].after.matches("base: 10").count(), 1000);
        assert_eq!(out.changed[0].fixed, out.fixed);
        assert!(!out.compiled.diagnostics.iter().any(|d| d.code == "C103"));
    }

    #[test]
    fn the_outcome_is_capped_as_check_reports_it() {
        // 300 C103 (fixed) and 300 C201 without a fix (equal bounds): what
        // is left is listed as `check` lists it, 200 and a note.
        let mut text = String::from("name: x\nentrypoint: python3 train.py\nhyperparameters:\n");
        for i in 0..300 {
            text.push_str(&format!("  lr{i}:\n    type: log\n    minval: -5\n    maxval: -2\n"));
            text.push_str(&format!("  n{i}:\n    type: int\n    minval: 5\n    maxval: 5\n"));
        }
        let out = fix(&project(&text), &Options::default(), Level::Safe, &|_| {}, &mut |_| {
            None
        });
        assert!(out.fixed.contains(&("C103", 300)), "{:?}", out.fixed);
        let count = |code: &str| out.compiled.diagnostics.iter().filter(|d| d.code == code).count();
        assert_eq!(count("C103"), 0);
        assert_eq!(count("C201"), crate::rules::diagnostics_capped::PER_RULE);
        assert_eq!(count("L001"), 1);
    }

    #[test]
    fn nothing_to_fix_changes_nothing() {
        let out = fix(
            &project("name: x\nentrypoint: python3 train.py\n"),
            &Options::default(),
            Level::All,
            &|_| {},
            &mut |_| None,
        );
        assert!(out.changed.is_empty());
        assert_eq!(out.rounds, 0);
    }

    #[test]
    fn crlf_and_comments_are_kept() {
        let text = "# top\r\nname: x   # the name\r\nentrypoint: python3 train.py\r\nhyperparameters:\r\n  lr:\r\n    type: log  # keep\r\n    minval: -5\r\n    maxval: -2\r\n";
        let out = fix(&project(text), &Options::default(), Level::Safe, &|_| {}, &mut |_| None);
        let after = &out.changed[0].after;
        assert!(
            after.contains("# the name\r\n") && after.contains("# keep"),
            "{after:?}"
        );
        assert!(!after.replace("\r\n", "").contains('\n'), "{after:?}");
    }
}
