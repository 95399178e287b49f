declare_rule! {
    /// ## What it checks
    /// That every stage id is declared once, across all model files and
    /// `stages.yaml`.
    ///
    /// ## Why
    /// Two classes decorated with the same `stage_id` are placed on the same
    /// pipeline rank; one silently overwrites the other in the stage registry.
    /// The error points at both declarations.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=1, device="h100", dtype=torch.bfloat16)
    /// class TransformerBlock(nn.Module): ...
    /// @stage_decorator(stage_id=1, device="h100", dtype=torch.bfloat16)   # error
    /// class Decoder(nn.Module): ...
    /// ```
    pub static DUPLICATE_STAGE_ID = {
        code: "P111",
        name: "duplicate-stage-id",
        severity: Error,
        summary: "Two declarations claim the same stage id",
    };
}
