declare_rule! {
    /// ## What it checks
    /// That a trial's world — pipeline stages × data-parallel replicas, i.e.
    /// `resources.slots_per_trial` — is at most 1,048,576 ranks.
    ///
    /// ## Why
    /// No cluster schedules a trial of more than a million GPUs (the largest
    /// training clusters have about a hundred thousand), so such a number is
    /// a typo or a generated value; and `stagec plan` writes every rank of
    /// every stage and process group, which for billions of ranks would be
    /// gigabytes. stagec stops at this bound instead of allocating for
    /// whatever number a config holds.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   slots_per_trial: 3000000000   # error: 3,000,000,000 ranks
    /// ```
    pub static TOO_MANY_RANKS = {
        code: "L002",
        name: "too-many-ranks",
        family: Output,
        severity: Error,
        summary: "A trial has more ranks than any cluster schedules (over 1,048,576)",
    };
}

use super::{path, Cx, Sink};

/// Most ranks in one trial.
pub const MAX_WORLD: u64 = 1 << 20;

/// Whether a trial of `pipeline` has more ranks than stagec checks and
/// plans ([`MAX_WORLD`]).
pub fn refuses(pipeline: &crate::pipeline::Pipeline) -> bool {
    pipeline.world_size() > MAX_WORLD
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(config), Some(pipeline)) = (cx.config(), cx.pipeline()) else {
        return;
    };
    if !refuses(pipeline) {
        return;
    }
    let world = pipeline.world_size();
    let slots = path(&["resources", "slots_per_trial"]);
    out.at(
        config.file,
        config.value_span(&slots),
        format!(
            "{} ranks ({} stages × {} replicas): no cluster schedules a trial this large",
            group(world),
            pipeline.degree,
            group(pipeline.data_parallel.unwrap_or(1))
        ),
    )
    .help(format!(
        "stagec checks and plans trials of at most {} ranks; check `slots_per_trial`",
        group(MAX_WORLD)
    ));
}

/// `3000000000` as `3,000,000,000`.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
