//! T101 (`sampler-rng-shared-across-ranks`) on a Hugging Face dataset
//! shuffled without a seed: `ds.shuffle()` on a `datasets` dataset (from
//! `load_dataset`, `load_from_disk`, `Dataset.from_*`, through its splits
//! and methods) in multi-rank code, when the shuffled dataset then reaches a
//! consumer that hands its positions out by rank (`transformers.Trainer`'s
//! `train_dataset`, a `DistributedSampler`, `split_dataset_by_node`).
//! Without `seed=` or `generator=`, `datasets` draws the shuffle's seed from
//! numpy's global RNG, which each rank's interpreter seeds from its own
//! entropy: each rank shuffles into its own order, and the positions each
//! rank takes from its own order overlap with other ranks' and miss others.
//!
//! Silent where numpy's global RNG may be seeded anywhere in the program
//! (the same test as the in-place shuffles of `sampler_rng_shuffled_list`),
//! on a one-rank path, where the receiver is not known to be a `datasets`
//! dataset, and where the shuffled dataset reaches no sharding consumer.

use super::training_support::{excerpt, Code};
use super::Sink;
use crate::training::ast::{Expr, ExprKind};
use crate::training::program::{Anc, ArgPos, Callee, Flow, LocalDef, Scope};
use crate::training::runtime::{self, kw, pos};

/// Calls that make a `datasets` dataset (or a dict of splits).
const MAKERS: &[&str] = &[
    "datasets.load_dataset",
    "datasets.load_from_disk",
    "datasets.concatenate_datasets",
    "datasets.interleave_datasets",
    "datasets.Dataset.from_dict",
    "datasets.Dataset.from_list",
    "datasets.Dataset.from_pandas",
    "datasets.Dataset.from_generator",
    "datasets.Dataset.from_json",
    "datasets.Dataset.from_csv",
    "datasets.Dataset.from_parquet",
    "datasets.Dataset.from_text",
];

/// Methods of a dataset (or a dict of splits) whose result is again one,
/// rows in the order they had.
const KEEP_ORDER: &[&str] = &[
    "map",
    "filter",
    "select",
    "remove_columns",
    "rename_column",
    "rename_columns",
    "select_columns",
    "cast",
    "cast_column",
    "with_format",
    "with_transform",
    "set_format",
    "flatten",
    "flatten_indices",
    "train_test_split",
];

/// Consumers that give each rank the positions of its own copy of the
/// dataset (keyword, or positional index).
const SHARDING: &[(&str, &str, usize)] = &[
    ("transformers.Trainer", "train_dataset", 3),
    ("transformers.trainer.Trainer", "train_dataset", 3),
    ("transformers.Seq2SeqTrainer", "train_dataset", 3),
    ("trl.SFTTrainer", "train_dataset", 3),
    ("transformers.Trainer", "eval_dataset", 4),
    ("transformers.trainer.Trainer", "eval_dataset", 4),
    ("transformers.Seq2SeqTrainer", "eval_dataset", 4),
    ("trl.SFTTrainer", "eval_dataset", 4),
    ("torch.utils.data.DistributedSampler", "dataset", 0),
    ("torch.utils.data.distributed.DistributedSampler", "dataset", 0),
    ("datasets.distributed.split_dataset_by_node", "dataset", 0),
];

/// Deepest chain of dataset steps followed, back to the maker or forward
/// to the consumer.
const MAX_STEPS: u32 = 8;

pub(super) fn unseeded_dataset_shuffles(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    for m in prog.code_modules() {
        if !code.rt.world_at(prog, m).distributed() {
            continue;
        }
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &["shuffle"]).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                let mut hits: Vec<(Vec<Anc<'_>>, &Expr)> = Vec::new();
                prog.walk_exprs(scope, &mut |anc, e| {
                    if unseeded_shuffle(e).is_some() {
                        hits.push((anc.to_vec(), e));
                    }
                });
                for (anc, call) in hits {
                    report(code, scope, &anc, call, out);
                }
            }
        }
    }
}

/// The receiver of `x.shuffle(...)` called without a seed or a generator.
fn unseeded_shuffle(e: &Expr) -> Option<&Expr> {
    let ExprKind::Call { func, args, .. } = &e.kind else {
        return None;
    };
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return None;
    };
    let given = pos(args, 0).is_some() || kw(args, "seed").is_some() || kw(args, "generator").is_some();
    (attr == "shuffle" && !given && !args.iter().any(|a| matches!(a, crate::training::ast::Arg::StarStar(_))))
        .then_some(&**value)
}

fn report<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], call: &'p Expr, out: &mut Sink<'_>) {
    let prog = code.prog;
    let Some(receiver) = unseeded_shuffle(call) else { return };
    if !super::sampler_rng_shared_across_ranks::live(code, scope, anc, call)
        || runtime::runs_on_one_rank(prog, scope, anc, call as *const Expr as *const ())
        || !hf_dataset(code, scope, receiver, 0)
        || super::sampler_rng_shuffled_list::seeded(code, scope.m, "numpy.random.seed")
    {
        return;
    }
    let Some((consumer, key)) = sharded_by(code, scope, anc, call, 0) else {
        return;
    };
    let harm = if key == "eval_dataset" {
        "ranks evaluate overlapping samples and skip others, so the metrics gathered from them are not the evaluation set's"
    } else {
        "ranks train on overlapping samples and skip others"
    };
    let ExprKind::Call { func, args_span, .. } = &call.kind else {
        return;
    };
    // From `shuffle` to the closing parenthesis.
    let start = func.span.end.saturating_sub("shuffle".len());
    let span = crate::source::Span::new(start, args_span.end);
    let name = excerpt(code.text(scope.m, receiver.span));
    let d = out.at_loc(
        code.loc(scope.m, span),
        format!(
            "{name}.shuffle() without a seed takes its seed from numpy's global RNG, which this code never seeds: each rank's interpreter seeds it from its own entropy, so each rank shuffles the dataset into a different order, and {consumer} then hands each rank positions of its own order: {harm}"
        ),
    );
    d.help("pass the same seed on every rank (shuffle(seed=42)), or seed numpy's global RNG alike on every rank before this runs");
    let at = crate::source::Span::at(args_span.start + 1);
    d.unsafe_fix(
        "shuffle with a seed shared by every rank",
        vec![crate::edit::replace(code.file(scope.m), at, "seed=42".to_string())],
    );
}

/// Whether `e` is known to be a `datasets` dataset (or a dict of splits):
/// made by one of [`MAKERS`], through subscripts and [`KEEP_ORDER`] methods
/// and local names each of whose assignments is one.
fn hf_dataset(code: &Code<'_>, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > MAX_STEPS {
        return false;
    }
    let prog = code.prog;
    match &e.kind {
        ExprKind::Subscript { value, .. } => hf_dataset(code, scope, value, depth + 1),
        ExprKind::Call { func, .. } => match &func.kind {
            ExprKind::Attribute { value, attr } if KEEP_ORDER.contains(&attr.as_str()) || attr == "shuffle" => {
                hf_dataset(code, scope, value, depth + 1)
            }
            _ => matches!(prog.callee(scope, func), Callee::External(p) if MAKERS.contains(&p.as_str())),
        },
        ExprKind::Name(n) => {
            let Some(f) = scope.func() else {
                // A script's module-level name: each value assigned to it.
                let values: Vec<&Expr> = prog
                    .module_assignments(scope.m)
                    .into_iter()
                    .filter(|(name, _)| name == n)
                    .map(|(_, v)| v)
                    .collect();
                return !values.is_empty() && values.iter().all(|v| hf_dataset(code, scope, v, depth + 1));
            };
            let defs = prog.local_defs(f, n);
            !defs.is_empty()
                && defs.iter().all(|d| match d {
                    LocalDef::Assign { value, proj } => proj.is_empty() && hf_dataset(code, scope, value, depth + 1),
                    _ => false,
                })
        }
        _ => false,
    }
}

/// The consumer (its name as a message shows it, and the argument) that the
/// dataset made at `e` reaches, following [`KEEP_ORDER`] methods and
/// subscripts.
fn sharded_by<'p>(
    code: &Code<'p>,
    scope: Scope,
    anc: &[Anc<'p>],
    e: &'p Expr,
    depth: u32,
) -> Option<(String, &'static str)> {
    if depth > MAX_STEPS {
        return None;
    }
    let through = |_: &Callee, _: &ArgPos<'_>| false;
    let mut next: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = Vec::new();
    let mut found = None;
    code.prog.flows(scope, anc, e, &through, &mut |flow| match flow {
        Flow::Arg {
            callee: Callee::External(p),
            pos,
            ..
        } => {
            let hit = SHARDING
                .iter()
                .find(|(path, key, index)| *path == p && (pos == ArgPos::Kw(key) || pos == ArgPos::Pos(*index)));
            if let Some((path, key, _)) = hit {
                let short = path.rsplit('.').next().unwrap_or(path);
                found.get_or_insert_with(|| (format!("`{short}({key}=…)`"), *key));
            }
        }
        Flow::Method { scope, call, name, anc } if KEEP_ORDER.contains(&name) => next.push((scope, anc, call)),
        Flow::Index { scope, expr, anc, .. } => next.push((scope, anc, expr)),
        _ => {}
    });
    if found.is_some() {
        return found;
    }
    next.into_iter()
        .find_map(|(s, a, x)| sharded_by(code, s, &a, x, depth + 1))
}
