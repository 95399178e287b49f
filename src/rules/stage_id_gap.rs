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
        severity: Error,
        summary: "Stage ids are not contiguous from 0",
    };
}
