declare_rule! {
    /// ## What it checks
    /// That stage ids are 0, 1, 2, … without gaps (and none negative).
    ///
    /// ## Why
    /// Pipeline ranks are assigned by stage id; a missing id leaves a rank with
    /// no work and the schedule waiting on it forever.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=0, ...)
    /// class Encoder(nn.Module): ...
    /// @stage_decorator(stage_id=2, ...)   # error: stage 1 is missing
    /// class Head(nn.Module): ...
    /// ```
    pub static STAGE_ID_GAP = {
        code: "P112",
        name: "stage-id-gap",
        family: Stages,
        severity: Error,
        summary: "Stage ids are not contiguous from 0",
    };
}

use super::text::numbers;
use super::{Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    let Some((i, expected)) = pipeline.facts.gap else {
        return;
    };
    let Some(d) = cx.decls().get(i) else { return };
    let id = d.id.value;
    let message = if id < 0 {
        format!("stage id {id} is negative: ids count from 0")
    } else {
        // The missing ids `expected..id`, named without listing them all:
        // the id is a number the user wrote and may be huge.
        let count = id.abs_diff(expected);
        let shown: Vec<String> = (expected..id).take(8).map(|n| n.to_string()).collect();
        let mut missing = shown.join(", ");
        if count > 8 {
            missing.push_str(&format!(" and {} more", count - 8));
        }
        let after = if expected == 0 {
            format!("the first stage is stage {id}")
        } else {
            format!("stage {id} follows stage {}", expected - 1)
        };
        format!(
            "{after}: stage{} {missing} {} missing (declared: {})",
            if count == 1 { "" } else { "s" },
            if count == 1 { "is" } else { "are" },
            numbers(&pipeline.facts.ids)
        )
    };
    out.at_loc(d.id.loc, message)
        .help("number stages 0, 1, 2, … in forward order, without gaps");
}
