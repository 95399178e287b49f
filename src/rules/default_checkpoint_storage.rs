declare_rule! {
    /// ## What it checks
    /// Whether the experiment chooses its checkpoint storage. Without a
    /// `checkpoint_storage` section, or with one that has no `type` (one
    /// that only tunes retention, such as `save_trial_latest`), stagec notes
    /// once that checkpoints go to the cluster's default storage.
    ///
    /// ## Why
    /// Determined fills an absent `checkpoint_storage` from the master's
    /// configuration, so the config is valid, but where checkpoints end up
    /// (and how long they survive) depends on the cluster the experiment is
    /// submitted to. Other keys the cluster can supply, such as `name`,
    /// `reproducibility` or the environment image, are not reported.
    ///
    /// ## Example
    /// ```yaml
    /// name: mnist            # info: checkpoints will go to the cluster's
    /// entrypoint: python3 train.py   # default checkpoint storage
    /// searcher: {name: single, metric: validation_loss}
    /// ```
    pub static DEFAULT_CHECKPOINT_STORAGE = {
        code: "C210",
        name: "default-checkpoint-storage",
        family: Determined,
        severity: Info,
        summary: "Checkpoints will go to the cluster's default checkpoint storage",
    };
}

use serde_json::Value as Json;

use crate::rules::{is_set, path, Cx, Sink};
use crate::source::Span;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    let (span, message) = match ctx.get(&["checkpoint_storage"]) {
        None | Some(Json::Null) => (
            Span::at(0),
            "`checkpoint_storage` is not set: checkpoints will go to the cluster's default checkpoint storage",
        ),
        Some(Json::Object(cs)) if !is_set(cs.get("type")) => (
            ctx.key_span(&path(&["checkpoint_storage"])),
            "`checkpoint_storage` has no `type`: checkpoints will go to the cluster's default checkpoint storage",
        ),
        Some(_) => return,
    };
    out.at(ctx.file, span, message).help(
        "to choose the storage, set e.g. `checkpoint_storage: {type: s3, bucket: my-bucket}` or `{type: shared_fs, host_path: /mnt/checkpoints}`",
    );
}
