declare_rule! {
    /// ## What it checks
    /// `torch.use_deterministic_algorithms(True)` (without `warn_only=True`; also
    /// its PyTorch 1.7–1.8 name, `torch.set_deterministic(True)`) or
    /// `torch.set_deterministic_debug_mode("error")` in the training code of an
    /// experiment whose image ships a PyTorch that needs `CUBLAS_WORKSPACE_CONFIG`
    /// for deterministic cuBLAS — Determined's default images, or an image whose name
    /// states PyTorch 2.9 or earlier — when neither the experiment's environment nor
    /// the code sets the variable. A custom image (whose environment and PyTorch
    /// stagec cannot read) is left alone, and `stagec plan` sets the variable itself.
    /// Training code checked without an experiment is reported where the
    /// repository's own requirements (`pyproject.toml`, `requirements.txt`,
    /// `setup.py` at its root) bound PyTorch below 2.10 (`torch==2.8.0`); a lower
    /// bound alone (`torch>=2.1`) says nothing, and such code is left alone. So is
    /// a call in an opt-in arm no caller in the code takes (`if
    /// keep_reproducibility:` on a parameter that defaults to `False`).
    ///
    /// ## Why
    /// On those releases, with CUDA 10.2 or later, the first cuBLAS operation (any
    /// matrix multiplication or linear layer) raises a `RuntimeError` when
    /// deterministic algorithms are required and `CUBLAS_WORKSPACE_CONFIG` is not
    /// `:4096:8` or `:16:8`: the trial crashes at its first step, after queueing and
    /// image pulls. PyTorch 2.10 and later no longer need the variable.
    ///
    /// ## Example
    /// ```python
    /// torch.use_deterministic_algorithms(True)   # error with the default image
    /// ```
    /// ```yaml
    /// environment:
    ///   environment_variables:
    ///     - CUBLAS_WORKSPACE_CONFIG=:4096:8   # fix
    /// ```
    pub static DETERMINISTIC_WITHOUT_CUBLAS_WORKSPACE = {
        code: "T107",
        name: "deterministic-without-cublas-workspace",
        family: Training,
        severity: Error,
        summary: "Deterministic algorithms are required but cuBLAS is not configured for them",
    };
}

use super::training_support::{code, env_assignments, env_var_edits, plan_environment};
use super::{path, Cx, Sink};
use crate::training::ast::ExprKind;
use crate::training::runtime::{self, dead_branch, kw, pos};
use crate::training::values::Const;

const VAR: &str = "CUBLAS_WORKSPACE_CONFIG";

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if code.cfg.sets_env(VAR) || plan_environment(cx) {
        return;
    }
    // Without an experiment, the PyTorch the repository's own requirements
    // pin (`torch==2.8.0`); without either, the release is not known.
    let standalone = !code.cfg.present;
    // The release, where the pin or the image tells it; `None` where it is
    // not known, and only `torch.set_deterministic` (a 1.x name) then tells.
    let version = match (standalone, &code.cfg.image) {
        (true, _) => match code.cfg.torch_pin {
            Some((major, minor)) if (major, minor) < (2, 10) => Some(format!(
                "{major}.{minor} (the newest the repository's requirements allow)"
            )),
            Some(_) => return,
            None => None,
        },
        (false, None) => Some("before 2.10 (Determined's default images)".to_string()),
        (false, Some(Some(image))) => match torch_version(image) {
            Some((major, minor)) if (major, minor) < (2, 10) => Some(format!("{major}.{minor} ({image})")),
            Some(_) => return,
            None => None,
        },
        (false, Some(None)) => None,
    };
    if !env_assignments(&code, VAR).is_empty() {
        return;
    }
    let calls = runtime::calls(
        code.prog,
        &[
            "torch.use_deterministic_algorithms",
            // Its name in PyTorch 1.7 and 1.8.
            "torch.set_deterministic",
            "torch.set_deterministic_debug_mode",
        ],
    );
    for (scope, anc, call, path_) in calls {
        // Model-only sources, and named files the experiment never runs
        // (its environment is not theirs).
        if !code
            .prog
            .role(scope.m)
            .is_some_and(|r| r != crate::training::FileRole::Model)
            || !standalone && code.prog.detached(scope.m)
        {
            continue;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        let requires = if path_ == "torch.use_deterministic_algorithms" || path_ == "torch.set_deterministic" {
            let mode = kw(args, "mode").or_else(|| kw(args, "d")).or_else(|| pos(args, 0));
            let on = mode.and_then(|m| runtime::is_true(code.prog, code.cfg, code.rt, scope, m)) == Some(true);
            let warn_only = kw(args, "warn_only").map(|w| runtime::is_true(code.prog, code.cfg, code.rt, scope, w));
            on && matches!(warn_only, None | Some(Some(false)))
        } else {
            let mode = kw(args, "debug_mode").or_else(|| pos(args, 0));
            let value = mode
                .and_then(|m| runtime::constant(code.prog, code.cfg, code.rt, scope, m))
                .and_then(|r| r.single().cloned());
            matches!(value, Some(Const::Int(2))) || matches!(&value, Some(Const::Str(s)) if s == "error")
        };
        if !requires {
            continue;
        }
        let version = match &version {
            Some(v) => v.clone(),
            None if path_ == "torch.set_deterministic" => {
                "1.x (the releases that have `torch.set_deterministic`)".to_string()
            }
            None => continue,
        };
        if let Some(stmt) = code.prog.stmt_of(&anc) {
            if dead_branch(code.prog, code.cfg, code.rt, scope, &anc, stmt)
                || runtime::opt_in_arm_off(code.prog, scope, &anc, stmt)
            {
                continue;
            }
        }
        let who = if standalone {
            "nothing here sets it"
        } else {
            "this experiment does not set it"
        };
        let d = out.at_loc(
            code.loc(scope.m, call.span),
            format!(
                "deterministic algorithms make the first cuBLAS call raise on PyTorch {version} unless {VAR} is :4096:8 or :16:8, and {who}"
            ),
        );
        d.help(if standalone {
            format!("set `{VAR}=:4096:8` in the job's environment (or `os.environ[\"{VAR}\"] = \":4096:8\"` before the first CUDA call), or pass warn_only=True")
        } else {
            format!("add `{VAR}=:4096:8` to environment.environment_variables, or pass warn_only=True")
        });
        if let Some(config) = cx.config() {
            if config.json.pointer("/environment/image").is_some() {
                d.label(
                    config.file,
                    config.value_span(&path(&["environment", "image"])),
                    "the image",
                );
            }
        }
        if let Some(edits) = env_var_edits(cx, &format!("{VAR}=:4096:8")) {
            d.fix(format!("set {VAR}=:4096:8 in the experiment's environment"), edits);
        }
    }
}

/// The PyTorch release an image's name states.
pub(crate) fn torch_version(image: &str) -> Option<(u32, u32)> {
    let lower = image.to_ascii_lowercase();
    let version_at = |s: &str| -> Option<(u32, u32)> {
        let mut parts = s.split(|c: char| !c.is_ascii_digit());
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some((major, minor))
    };
    for marker in ["pytorch-", "-pt-", "torch-"] {
        let mut from = 0;
        while let Some(i) = lower.get(from..).and_then(|r| r.find(marker)) {
            let at = from + i + marker.len();
            if lower[at..].starts_with(|c: char| c.is_ascii_digit()) {
                return version_at(&lower[at..]);
            }
            from = at;
        }
    }
    if lower.starts_with("determinedai/pytorch-ngc") {
        // NGC 24.03 (PyTorch 2.3).
        return Some((2, 3));
    }
    if lower.starts_with("determinedai/pytorch-tensorflow") {
        return Some((1, 12));
    }
    if let Some(tag) = lower.strip_prefix("nvcr.io/nvidia/pytorch:") {
        let (yy, mm) = version_at(tag)?;
        // NGC 25.12 carries PyTorch 2.10; earlier ones at most 2.9.
        return Some(if (yy, mm) >= (25, 12) { (2, 10) } else { (2, 9) });
    }
    if let Some(tag) = lower.strip_prefix("pytorch/pytorch:") {
        return version_at(tag);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::torch_version;

    #[test]
    fn versions_from_image_names() {
        assert_eq!(
            torch_version("determinedai/environments:cuda-11.8-pytorch-2.0-gpu-95c7a14"),
            Some((2, 0))
        );
        assert_eq!(
            torch_version("determinedai/environments:py-3.9-pt-1.13-cu117"),
            Some((1, 13))
        );
        assert_eq!(torch_version("determinedai/pytorch-ngc:0.38.1"), Some((2, 3)));
        assert_eq!(torch_version("nvcr.io/nvidia/pytorch:24.03-py3"), Some((2, 9)));
        assert_eq!(torch_version("nvcr.io/nvidia/pytorch:25.12-py3"), Some((2, 10)));
        assert_eq!(
            torch_version("pytorch/pytorch:2.4.1-cuda12.1-cudnn9-runtime"),
            Some((2, 4))
        );
        assert_eq!(torch_version("my-registry.example/team/train:2024-11"), None);
    }

    #[test]
    fn torch_pins_from_requirements() {
        use crate::training::runtime::ConfigFacts;
        let pin = ConfigFacts::torch_pin_in;
        assert_eq!(pin("torch==2.8.0\ntorchaudio==2.8.0\n"), Some((2, 8)));
        assert_eq!(
            pin("dependencies = [\"numpy\", \"torch==2.8.0\", \"einx[torch]==0.2.2\"]"),
            Some((2, 8))
        );
        assert_eq!(pin("torch>=2.1,<2.5\n"), Some((2, 4)));
        assert_eq!(pin("torch<=2.4.1; python_version >= '3.9'\n"), Some((2, 4)));
        assert_eq!(pin("torch<3.0\n"), Some((2, u32::MAX)));
        // Lower bounds, other packages, and comments bound nothing.
        assert_eq!(pin("torch>=2.1.0\npytorch-lightning<2.0\ntorchvision==0.19\n"), None);
        assert_eq!(pin("# torch==1.13 was the old pin\ntorch\n"), None);
        assert_eq!(pin("torch == 2.3.1\n"), Some((2, 3)));
        // Hostile text: numbers past u32, a 300 KB name, 10,000 mentions.
        assert_eq!(pin("torch==1180591620717411303424.1\ntorch<5000000000.0\n"), None);
        let long = format!("{}torch==2.1\n", "x".repeat(300 * 1024));
        assert_eq!(pin(&long), None);
        let many = "torchvision==0.1\n".repeat(10_000) + "torch<=2.2\n";
        assert_eq!(pin(&many), Some((2, 2)));
    }
}
