declare_rule! {
    /// ## What it checks
    /// That every stage reaches the last stage (the pipeline's output) through
    /// the `inputs` edges.
    ///
    /// ## Why
    /// A stage whose output nobody consumes does work that never reaches the
    /// loss: its parameters get no gradients.
    ///
    /// ## Example
    /// ```yaml
    /// stages:
    ///   - {id: 0, name: enc_a, device: a100, dtype: bf16, inputs: []}
    ///   - {id: 1, name: enc_b, device: a100, dtype: bf16, inputs: []}
    ///   - {id: 2, name: head, device: a100, dtype: bf16, inputs: [0]}   # stage 1 leads nowhere
    /// ```
    pub static STAGE_NOT_REACHING_OUTPUT = {
        code: "P116",
        name: "stage-not-reaching-output",
        severity: Error,
        summary: "A stage does not lead to the last stage",
    };
}
