declare_rule! {
    /// ## What it checks
    /// Each stage boundary where the dtype changes gets a cast. A cast that
    /// narrows the representable range (fp16, max 65504, into float8_e4m3fn, max
    /// 448) is reported at the receiving stage, with both ranges.
    ///
    /// ## Why
    /// Values beyond the narrower range become inf or NaN (e4m3fn has no inf:
    /// they turn into NaN), the field notes' "loss suddenly inf". Scale the
    /// activations into range before the boundary, or sanitise with
    /// `torch.nan_to_num` after the cast.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=0, device="a100", dtype=torch.float16)
    /// class Encoder(nn.Module): ...
    /// @stage_decorator(stage_id=1, device="h100", dtype=torch.float8_e4m3fn)   # warning: 65504 → 448
    /// class Block(nn.Module): ...
    /// ```
    pub static NARROWING_STAGE_CAST = {
        code: "P206",
        name: "narrowing-stage-cast",
        severity: Warning,
        summary: "Activations are cast to a dtype with a smaller range between stages",
    };
}
