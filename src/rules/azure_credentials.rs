declare_rule! {
    /// ## What it checks
    /// For `checkpoint_storage` of `type: azure`: that exactly one of
    /// `connection_string` and `account_url` is set, and that `credential`
    /// is not combined with `connection_string`.
    ///
    /// ## Why
    /// Determined connects to Azure Blob Storage either with a connection
    /// string (which carries its own key) or with an account URL plus an
    /// optional credential. Giving both is an error: the master refuses the
    /// experiment at submission, in the completeness check of its JSON Schema
    /// (the azure schema's `eventually` one-of), even though its harness would
    /// only use the connection string. Giving neither is a
    /// warning: Determined checks this only after merging the workspace's and
    /// the cluster's checkpoint storage into the experiment's, and an azure
    /// storage configured there supplies the credentials — but a cluster
    /// without one (the default) rejects the experiment at submission.
    ///
    /// ## Example
    /// ```yaml
    /// checkpoint_storage:
    ///   type: azure
    ///   container: checkpoints
    ///   connection_string: ${AZURE_CONNECTION_STRING}
    ///   account_url: https://acct.blob.core.windows.net   # error: both set
    /// ```
    pub static AZURE_CREDENTIALS = {
        code: "C204",
        name: "azure-credentials",
        family: Determined,
        severity: Error,
        summary: "Azure storage needs exactly one of `connection_string` and `account_url`",
    };
}

use serde_json::Value as Json;

use crate::rules::{is_set, path, Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    const S: &str = "checkpoint_storage";
    if ctx.get(&[S, "type"]).and_then(Json::as_str) != Some("azure") {
        return;
    }
    let connection = ctx.get(&[S, "connection_string"]);
    let credential = ctx.get(&[S, "credential"]);
    let conn_span = ctx.key_span(&path(&[S, "connection_string"]));
    // Determined's check: both present as strings.
    if connection.is_some_and(Json::is_string) && credential.is_some_and(Json::is_string) {
        out.at(
            ctx.file,
            ctx.key_span(&path(&[S, "credential"])),
            "`checkpoint_storage.credential` cannot be combined with `connection_string`",
        )
        .label(
            ctx.file,
            conn_span,
            "the connection string already carries the account key",
        )
        .help("use `connection_string` alone, or `account_url` with `credential`");
    }
    match (is_set(connection), is_set(ctx.get(&[S, "account_url"]))) {
        (true, true) => {
            out.at(
                ctx.file,
                ctx.key_span(&path(&[S, "account_url"])),
                "`checkpoint_storage` sets both `account_url` and `connection_string`; exactly one must be set",
            )
            .label(ctx.file, conn_span, "`connection_string` set here")
            .help("keep `connection_string`, or replace it with `account_url` (and `credential`)");
        }
        (false, false) => {
            out.at(ctx.file, ctx.key_span(&path(&[S])),
                "`checkpoint_storage` (azure) sets neither `connection_string` nor `account_url`: Determined accepts it only if the workspace's or cluster's azure storage supplies one",
            )
            .help(
                "add `connection_string: ${AZURE_STORAGE_CONNECTION_STRING}`, or `account_url: https://<account>.blob.core.windows.net` with an optional `credential`",
            )
            .severity(crate::diagnostic::Severity::Warning);
        }
        _ => {}
    }
}
