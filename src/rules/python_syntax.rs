declare_rule! {
    /// ## What it checks
    /// That the model files stagec reads for stage declarations parse as Python.
    /// stagec reads them statically with tree-sitter (it never imports or runs
    /// them) and keeps every declaration it can still find.
    ///
    /// ## Why
    /// A syntax error in `model.py` fails the trial at import time on the cluster,
    /// after queueing and image pulls. stagec reports it before submission.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=0, device="a100", dtype=torch.float16
    /// class VisionEncoder(nn.Module):   # error: `(` never closed
    /// ```
    pub static PYTHON_SYNTAX = {
        code: "P102",
        name: "python-syntax",
        severity: Error,
        summary: "A model file has a Python syntax error",
    };
}
