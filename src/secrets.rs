//! Credentials: which keys and variables hold secrets, whose values must
//! never reach stagec's output (messages, snippets, plans, editor text).

/// Whether a variable or field name holds a credential, whose literal value
/// must never be copied into stagec's outputs.
pub fn is_credential_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "secret",
        "password",
        "passwd",
        "token",
        "auth",
        "credential",
        "access_key",
        "api_key",
        "apikey",
        "private_key",
        "connection_string",
        "account_key",
    ]
    .iter()
    .any(|w| n.contains(w))
        || n.ends_with("_key")
        || n == "key"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_names() {
        for n in [
            "secret_key",
            "S3_SECRET_KEY",
            "WANDB_API_KEY",
            "password",
            "HF_TOKEN",
            "access_key",
            "connection_string",
        ] {
            assert!(is_credential_name(n), "{n}");
        }
        for n in ["bucket", "PYTHONHASHSEED", "endpoint_url", "monkey_patch"] {
            assert!(!is_credential_name(n), "{n}");
        }
    }
}
