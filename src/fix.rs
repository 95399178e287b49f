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
pub fn fix(
    project: &Project,
    options: &Options<'_>,
    level: Level,
    filter: &dyn Fn(&mut Compiled),
    refresh: &mut dyn FnMut(&Project) -> Option<Project>,
) -> Outcome {
    let mut project = project.clone();
    let originals = texts(&project);
    let check = |p: &Project| {
        let mut c = compile(p, options);
        filter(&mut c);
        c
    };
    let mut compiled = check(&project);
    let mut fixed: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut seen: HashSet<Vec<(String, String)>> = HashSet::new();
    seen.insert(texts(&project));
    let mut rounds = 0;
    while rounds < MAX_ROUNDS {
        let candidates = candidates(&compiled, level);
        if candidates.is_empty() {
            break;
        }
        rounds += 1;
        let before = findings(&compiled);
        // All non-overlapping fixes at once.
        let batch = non_overlapping(&candidates);
        let mut trial = project.clone();
        apply(&mut trial, &compiled, &batch);
        let trial = refresh(&trial).unwrap_or(trial);
        let after = check(&trial);
        let (next, next_compiled, applied) = if introduces(&before, &after) {
            // One at a time, keeping each that introduces nothing.
            let mut current = project.clone();
            let mut current_compiled = compiled.clone();
            let mut applied = Vec::new();
            for fix in &batch {
                // Spans refer to the round's first check; later fixes of the
                // round are tried on the original texts plus the kept ones,
                // so only fixes in files no kept fix touched are tried.
                if applied.iter().any(|a: &&(Diagnostic, Fix)| shares_file(&a.1, &fix.1)) {
                    continue;
                }
                let mut one = current.clone();
                apply(&mut one, &compiled, std::slice::from_ref(fix));
                let one = refresh(&one).unwrap_or(one);
                let c = check(&one);
                if !introduces(&findings(&current_compiled), &c) {
                    current = one;
                    current_compiled = c;
                    applied.push(fix);
                }
            }
            let applied: Vec<&(Diagnostic, Fix)> = applied.into_iter().collect();
            (current, current_compiled, applied)
        } else {
            (trial, after, batch.iter().collect())
        };
        if applied.is_empty() {
            break;
        }
        for (d, _) in &applied {
            *fixed.entry(d.code).or_default() += 1;
        }
        project = next;
        compiled = next_compiled;
        // A text seen before: the fixes go round in circles.
        if !seen.insert(texts(&project)) {
            break;
        }
    }
    // By name: a project discovered again may hold other files than before.
    let changed = texts(&project)
        .into_iter()
        .filter_map(|(name, after)| {
            let before = originals.iter().find(|(n, _)| *n == name)?.1.clone();
            (before != after).then_some(Changed { name, before, after })
        })
        .collect();
    Outcome {
        project,
        compiled,
        changed,
        fixed: fixed.into_iter().collect(),
        rounds,
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
    let mut taken: Vec<(crate::source::FileId, Span)> = Vec::new();
    let mut out = Vec::new();
    for (d, f) in candidates {
        let clash = f
            .edits
            .iter()
            .any(|e| taken.iter().any(|(file, s)| *file == e.file && overlaps(*s, e.span)));
        // The edits of one fix must not overlap each other either.
        let inner = f.edits.iter().enumerate().any(|(i, a)| {
            f.edits[i + 1..]
                .iter()
                .any(|b| a.file == b.file && overlaps(a.span, b.span))
        });
        if clash || inner {
            continue;
        }
        taken.extend(f.edits.iter().map(|e| (e.file, e.span)));
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

fn shares_file(a: &Fix, b: &Fix) -> bool {
    a.edits.iter().any(|x| b.edits.iter().any(|y| x.file == y.file))
}

/// Applies the fixes' edits (spans of `compiled`'s texts) to the project's
/// inputs.
fn apply(project: &mut Project, compiled: &Compiled, fixes: &[(Diagnostic, Fix)]) {
    let mut by_file: BTreeMap<crate::source::FileId, Vec<(Span, &str)>> = BTreeMap::new();
    for (_, f) in fixes {
        for e in &f.edits {
            by_file.entry(e.file).or_default().push((e.span, &e.replacement));
        }
    }
    for (file, mut edits) in by_file {
        let Some(source) = compiled.sources.get(file) else {
            continue;
        };
        let mut text = source.text.clone();
        // From the end, so earlier offsets stay valid.
        edits.sort_by(|a, b| b.0.start.cmp(&a.0.start).then(b.0.end.cmp(&a.0.end)));
        for (span, replacement) in edits {
            if span.start <= span.end
                && span.end <= text.len()
                && text.is_char_boundary(span.start)
                && text.is_char_boundary(span.end)
            {
                text.replace_range(span.start..span.end, replacement);
            }
        }
        set_text(project, &source.name, &text);
    }
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
fn introduces(before: &BTreeMap<(&'static str, String), usize>, after: &Compiled) -> bool {
    findings(after)
        .iter()
        .any(|(k, n)| before.get(k).copied().unwrap_or(0) < *n)
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
