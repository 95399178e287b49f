declare_rule! {
    /// ## What it checks
    /// That `resources.slots_per_trial` equals `pipeline_parallel_degree` ×
    /// data-parallel degree for a whole data-parallel degree of at least 1. The
    /// error lists the valid slot counts nearby and offers the nearest as a fix.
    ///
    /// ## Why
    /// Every data-parallel replica needs one GPU per stage. 8 slots for 3
    /// stages leave 2 GPUs idle, or worse, make the launcher build
    /// uneven pipeline groups.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   slots_per_trial: 8   # error: with 3 stages, use 6 or 9
    /// ```
    pub static SLOTS_NOT_MULTIPLE_OF_STAGES = {
        code: "P118",
        name: "slots-not-multiple-of-stages",
        family: Stages,
        severity: Error,
        summary: "slots_per_trial is not a multiple of the pipeline degree",
    };
}

use super::text::numbers;
use super::{path, Cx, Sink};
use crate::edit;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(pipeline), Some(config), Some(settings)) = (cx.pipeline(), cx.config(), cx.settings()) else {
        return;
    };
    if !pipeline.facts.numbered {
        return;
    }
    let Some(slots) = settings.slots_per_trial.count() else {
        return;
    };
    let p = pipeline.degree.max(1) as i64;
    if slots >= p && slots % p == 0 {
        return;
    }
    let at = path(&["resources", "slots_per_trial"]);
    let span = config.value_span(&at);
    let present = config.tree.locate(&at).is_some();
    let message = if present {
        format!(
            "`slots_per_trial: {slots}` does not fit {p} pipeline stage{}: it must be {p} × the data-parallel degree",
            super::text::plural(p as u64)
        )
    } else {
        format!(
            "`slots_per_trial` defaults to {slots}, fewer than the {p} pipeline stage{}",
            super::text::plural(p as u64)
        )
    };
    let (nearby, nearest) = valid_counts(slots, p);
    let d = out
        .at(config.file, span, message)
        .help(format!("valid slot counts nearby: {}", numbers(&nearby)));
    if present {
        d.unsafe_fix(
            format!("Set to {nearest}"),
            vec![edit::replace(config.file, span, nearest.to_string())],
        );
    }
}

/// Slot counts that fit `p` stages near `slots`: the multiples of `p` within
/// 2p of it that are among the first four multiples or at most `slots + p`
/// (else the first three multiples), and the nearest of those counts (the
/// larger on a tie). Computed from a window of multiples, never by counting
/// up to `slots`, which is a number the user wrote.
fn valid_counts(slots: i64, p: i64) -> (Vec<i64>, i64) {
    let (s, q) = (i128::from(slots), i128::from(p.max(1)));
    let valid = |k: i128| k >= 1 && (k <= 4 || k * q <= s + q);
    let to_i64 = |v: i128| i64::try_from(v).unwrap_or(i64::MAX);
    let lo = ((s - 2 * q) / q - 1).max(1);
    let hi = (s + 2 * q) / q + 1;
    let mut nearby: Vec<i64> = (lo..=hi)
        .filter(|&k| valid(k) && (k * q - s).abs() <= 2 * q)
        .map(|k| to_i64(k * q))
        .collect();
    if nearby.is_empty() {
        nearby = (1..=3).map(|k| to_i64(k * q)).collect();
    }
    // The nearest valid multiple: one of the multiples around `slots`, or
    // the first ones when `slots` is below them.
    let around = [s / q - 1, s / q, s / q + 1, 1, 2, 3, 4];
    let nearest = around
        .into_iter()
        .filter(|&k| valid(k))
        .min_by_key(|&k| ((k * q - s).abs(), -(k * q)))
        .map_or(p, |k| to_i64(k * q));
    (nearby, nearest)
}

#[cfg(test)]
mod tests {
    use super::valid_counts;

    /// The definition, by enumeration (for small numbers only).
    fn by_enumeration(slots: i64, p: i64) -> (Vec<i64>, i64) {
        let valid: Vec<i64> = (1..=4)
            .map(|k| k * p)
            .chain((5..).map(|k| k * p).take_while(|v| *v <= slots + p))
            .collect();
        let mut nearby: Vec<i64> = valid.iter().copied().filter(|v| (*v - slots).abs() <= 2 * p).collect();
        if nearby.is_empty() {
            nearby = valid.iter().copied().take(3).collect();
        }
        let nearest = valid
            .iter()
            .copied()
            .min_by_key(|v| ((*v - slots).abs(), -*v))
            .unwrap_or(p);
        (nearby, nearest)
    }

    #[test]
    fn agrees_with_the_definition() {
        for p in 1..12 {
            for slots in -30..300 {
                assert_eq!(valid_counts(slots, p), by_enumeration(slots, p), "slots {slots}, p {p}");
            }
        }
    }

    #[test]
    fn huge_counts_cost_nothing() {
        let (nearby, nearest) = valid_counts(i64::MAX, 3);
        assert!(!nearby.is_empty() && nearest > 0);
        let (_, nearest) = valid_counts(i64::MIN, i64::MAX);
        assert_eq!(nearest, i64::MAX);
    }
}
