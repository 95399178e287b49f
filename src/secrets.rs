//! Credentials: the one classifier every output asks (messages, snippets,
//! fixes and `check --diff`, plans, `stagec env` and `stagec diff`, editor
//! text) — which keys and variables hold secrets ([`is_credential_name`]),
//! which values are secrets by their shape whatever their name (URL
//! passwords, known tokens: [`value_ranges`]), the two together
//! ([`is_secret`]) — and where they are written in a document ([`spans`]).

use crate::source::Span;
use crate::yaml::{NodeId, Tree, Value};

/// Words that make any name holding them a credential's
/// ([`is_credential_name`]).
const WORDS_ANYWHERE: [&str; 21] = [
    "secret",
    "password",
    "passwd",
    "passphrase",
    "auth",
    "credential",
    "access_key",
    "accesskey",
    "api_key",
    "apikey",
    "private_key",
    "privatekey",
    "connection_string",
    "account_key",
    "jwt",
    "webhook",
    "cookie",
    "bearer",
    "role_id",
    "roleid",
    "sessionid",
];

/// Which bytes a word of [`WORDS_ANYWHERE`] begins with.
const WORD_STARTS: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < WORDS_ANYWHERE.len() {
        table[WORDS_ANYWHERE[i].as_bytes()[0] as usize] = true;
        i += 1;
    }
    table
};

/// Whether a variable or field name holds a credential, whose literal value
/// must never be copied into stagec's outputs. Words anywhere in the name
/// (`secret`, `password`, `passphrase`, `credential`, `auth`, `jwt`,
/// `webhook`, `cookie`, `bearer`, `private_key`, …), `token` as a word of
/// its own (`HF_TOKEN`, `accessToken`, not `tokens_per_batch`), and parts of
/// a `_`/`-`/`.`-separated name: `pat`, `pwd` and `pass` after a prefix
/// (`GITHUB_PAT`, `MYSQL_PWD`, `DB_PASS`), `dsn`, `session`, `role_id`,
/// and any name ending in `_key` (`SSH_KEY`, `WANDB_API_KEY`).
pub fn is_credential_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    if holds_credential_word(n.as_bytes()) || n.ends_with("_key") || n == "key" {
        return true;
    }
    if word_token(name, &n) {
        return true;
    }
    let parts: Vec<&str> = n.split(['_', '-', '.']).filter(|p| !p.is_empty()).collect();
    let after_prefix = |words: &[&str]| parts.iter().skip(1).any(|p| words.contains(p));
    after_prefix(&["pat", "pwd", "pass", "pw"])
        || parts
            .iter()
            .any(|p| matches!(*p, "dsn" | "session" | "sess" | "otp" | "totp"))
}

/// Whether the lower-case name `n` holds a word of [`WORDS_ANYWHERE`], in
/// one pass over it (names are short: a substring search per word costs
/// more to set up than this whole scan). `auth` counts except as the start of
/// `author`/`authority` (`Authorization`, `basic_auth` and `oauth_token` are
/// credentials; `author` and `dataset_authors` are not).
fn holds_credential_word(n: &[u8]) -> bool {
    (0..n.len()).any(|at| {
        let rest = &n[at..];
        WORD_STARTS[usize::from(n[at])]
            && WORDS_ANYWHERE.iter().any(|w| {
                w.as_bytes().first() == Some(&n[at])
                    && rest.starts_with(w.as_bytes())
                    && (*w != "auth" || {
                        let after = &rest[w.len()..];
                        !(after.starts_with(b"or") && !after.starts_with(b"oriz") && !after.starts_with(b"oris"))
                    })
            })
    })
}

/// Whether `token` appears in a name as a word: followed by the end, a
/// separator or a new camel-case word (`HF_TOKEN`, `tokenValue`,
/// `accessToken`), not as part of a longer word (`tokens_per_batch`,
/// `tokenizer`, `MAX_TOKENS`).
fn word_token(name: &str, lower: &str) -> bool {
    let bytes = name.as_bytes();
    lower.match_indices("token").any(|(at, _)| {
        let end = at + "token".len();
        match bytes.get(end) {
            None => true,
            Some(c) if !c.is_ascii_alphabetic() => true,
            // `tokenValue`: a lower-case `n` then a capital.
            Some(c) => c.is_ascii_uppercase() && bytes.get(end - 1).is_some_and(u8::is_ascii_lowercase),
        }
    })
}

/// Byte ranges of `value` that are secrets by their shape, whatever name
/// holds them: the password of a URL's user-info (`postgres://u:PW@host`),
/// and tokens of known shapes (GitHub `ghp_…`/`github_pat_…`, GitLab
/// `glpat-…`, Slack `xox?-…` and `hooks.slack.com` URLs, AWS `AKIA…`/
/// `ASIA…` key ids, `sk-…` API keys, Hugging Face `hf_…`, Google `AIza…`,
/// npm and PyPI tokens, JSON Web Tokens `eyJ….eyJ….…`). Sorted, without
/// overlaps. `${VAR}` references are not secrets.
pub fn value_ranges(value: &str) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    // Cheap tests first: most values hold neither a URL nor a token prefix.
    if value.contains("://") {
        url_passwords(value, &mut out);
    }
    // Every shape begins with a literal: without one, the shapes' pattern
    // is neither built nor run (most text holds none).
    let shapes = if TOKEN_STARTS.iter().any(|start| value.contains(start)) {
        token_shapes()
    } else {
        None
    };
    for m in shapes.into_iter().flat_map(|re| re.find_iter(value)) {
        // A token starts a word: `mask-abc…` holds no `sk-` key.
        let starts_word = value[..m.start()]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_ascii_alphanumeric());
        if starts_word {
            out.push(m.range());
        }
    }
    out.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<std::ops::Range<usize>> = Vec::new();
    for r in out {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// The literals [`token_shapes`]' alternatives begin with: a match of the
/// shapes starts with one of them (a unit test checks each alternative).
const TOKEN_STARTS: &[&str] = &[
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xox",
    "xapp-",
    "AKIA",
    "ASIA",
    "AGPA",
    "AIDA",
    "AROA",
    "ANPA",
    "sk-",
    "sk_",
    "rk_",
    "pk_",
    "hf_",
    "AIza",
    "npm_",
    "pypi-",
    "eyJ",
    "hooks.slack.com/",
];

/// The alternatives of [`token_shapes`].
const TOKEN_SHAPES: &[&str] = &[
    r"gh[pousr]_[A-Za-z0-9]{20,}",
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"glpat-[A-Za-z0-9_\-]{20,}",
    r"xox[abposr]-[A-Za-z0-9\-]{10,}",
    r"xapp-[A-Za-z0-9\-]{10,}",
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}",
    r"sk-[A-Za-z0-9_\-]{20,}",
    r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}",
    r"hf_[A-Za-z0-9]{30,}",
    r"AIza[0-9A-Za-z_\-]{35}",
    r"npm_[A-Za-z0-9]{30,}",
    r"pypi-[A-Za-z0-9_\-]{50,}",
    r"eyJ[A-Za-z0-9_\-]+\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*",
    r"hooks\.slack\.com/[A-Za-z0-9_/\-]+",
];

/// Known token shapes, compiled once, when some text first holds one of
/// [`TOKEN_STARTS`].
fn token_shapes() -> Option<&'static regex::Regex> {
    static SHAPES: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    SHAPES
        .get_or_init(|| regex::Regex::new(&TOKEN_SHAPES.join("|")).ok())
        .as_ref()
}

/// The password part of each `scheme://user:password@host` in `value`.
fn url_passwords(value: &str, out: &mut Vec<std::ops::Range<usize>>) {
    for (at, _) in value.match_indices("://") {
        let start = at + 3;
        let rest = &value[start..];
        // The authority ends at the path, query, fragment or a space.
        let end = rest
            .find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace() || c == '"' || c == '\'')
            .unwrap_or(rest.len());
        let authority = &rest[..end];
        let Some(userinfo_end) = authority.rfind('@') else {
            continue;
        };
        let userinfo = &authority[..userinfo_end];
        let Some(colon) = userinfo.find(':') else {
            continue;
        };
        let password = &userinfo[colon + 1..];
        if password.is_empty() || password.starts_with("${") {
            continue;
        }
        out.push(start + colon + 1..start + userinfo_end);
    }
}

/// Whether a value holds a secret by its shape ([`value_ranges`]).
pub fn value_holds_secret(value: &str) -> bool {
    !value_ranges(value).is_empty()
}

/// The one classifier of a variable or field every output asks: whether
/// its value must be withheld. A credential name with a literal value (a
/// `${VAR}` reference is not a secret), or a value that holds a secret by
/// its shape whatever its name.
pub fn is_secret(name: &str, value: &str) -> bool {
    (is_credential_name(name) && !value.trim_start().starts_with("${")) || value_holds_secret(value)
}

/// `text` with every secret found by its shape ([`value_ranges`]) replaced
/// by `****`: for free text (messages, hover text, lines of a diff) where
/// no name says what a value is.
pub fn redact(text: &str) -> std::borrow::Cow<'_, str> {
    let ranges = value_ranges(text);
    if ranges.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in ranges {
        out.push_str(&text[last..r.start]);
        out.push_str("****");
        last = r.end;
    }
    out.push_str(&text[last..]);
    std::borrow::Cow::Owned(out)
}

/// Credential words a misspelled key is compared with (`pasword`,
/// `secert`, `tokn`).
const WORDS: [&str; 6] = ["password", "passwd", "secret", "token", "credential", "credentials"];

/// Whether a key names a credential, or nearly does: a misspelled
/// credential key (`pasword: hunter2`) is still a credential, and is still
/// shown in a snippet next to the error about its spelling.
pub fn looks_like_credential(name: &str) -> bool {
    if is_credential_name(name) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    lower.split(['_', '-', '.']).any(|part| {
        WORDS.iter().any(|w| {
            let limit = if w.len() >= 8 { 2 } else { 1 };
            // Only words of about the same length, starting alike, can be
            // that close: most keys are ruled out without a distance.
            // (A word the part starts with is a derivative, not a
            // misspelling: `tokens`, `tokenizer`.)
            part.len().abs_diff(w.len()) <= limit
                && !part.starts_with(w)
                && part.len() >= 5
                && part.as_bytes().first() == w.as_bytes().first()
                && strsim::osa_distance(part, w) <= limit
        })
    })
}

/// The byte spans of credential values in a YAML document, computed once
/// from its tree: the value of every credential-like key in any mapping
/// (anchored ones included, so what an alias or a `<<` merge copies is
/// covered where it is written), every scalar below such a key, and the
/// value part of `NAME=value` strings whose name is a credential (the list
/// form of `environment_variables`), and every secret found by its shape
/// ([`value_ranges`]) anywhere in the text, comments included. `${VAR}`
/// references are not secrets and stay visible. Sorted, without overlaps.
pub fn spans(tree: &Tree, text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    for i in 0..tree.len() {
        let id = NodeId(i as u32);
        match &tree.node(id).value {
            Value::Map(entries) => {
                for e in entries {
                    if looks_like_credential(&tree.key_text(e.key)) {
                        secret_values(tree, text, e.value, &mut out, 0);
                    }
                }
            }
            Value::Str(s) => {
                if let Some((name, value)) = s.split_once('=') {
                    let name = name.trim();
                    let plain = !name.is_empty()
                        && name.len() <= 256
                        && name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
                    if plain && is_credential_name(name) && !value.trim_start().starts_with("${") {
                        out.push(env_value_span(tree.span(id), text, value));
                    }
                }
            }
            _ => {}
        }
    }
    // Secrets by their shape, wherever they are written (comments too).
    out.extend(value_ranges(text).into_iter().map(|r| Span::new(r.start, r.end)));
    out.retain(|s| !s.is_empty());
    out.sort();
    let mut merged: Vec<Span> = Vec::with_capacity(out.len());
    for s in out {
        match merged.last_mut() {
            Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
            _ => merged.push(s),
        }
    }
    merged
}

/// A file's text as output may show it (the lines of `check --diff`):
/// credential values masked as in snippets ([`spans`]) when the file reads
/// as YAML, secrets by their shape ([`value_ranges`]) in any file. Offsets
/// and line breaks are kept.
pub fn masked_text(name: &str, text: &str) -> String {
    let python = name.ends_with(".py") || name.ends_with(".pyi");
    let spans = if python {
        value_ranges(text)
            .into_iter()
            .map(|r| Span::new(r.start, r.end))
            .collect()
    } else {
        let (tree, _) = crate::yaml::parse(text, &crate::yaml::Budgets::default());
        spans(&tree, text)
    };
    mask(text, &spans)
}

/// Every scalar at or below `id` (following aliases to what they name).
fn secret_values(tree: &Tree, text: &str, id: NodeId, out: &mut Vec<Span>, depth: usize) {
    if depth > 64 {
        return;
    }
    let target = tree.resolve(id);
    match &tree.node(target).value {
        Value::Map(entries) => {
            for e in entries {
                secret_values(tree, text, e.value, out, depth + 1);
            }
        }
        Value::Seq(items) => {
            for &item in items {
                secret_values(tree, text, item, out, depth + 1);
            }
        }
        Value::Null => {}
        Value::Str(s) if s.trim_start().starts_with("${") => {}
        _ => out.push(scalar_body(tree.span(target), text)),
    }
}

/// A scalar token without its quotes or its block indicator line, so the
/// mask keeps the token's shape.
fn scalar_body(span: Span, text: &str) -> Span {
    let token = text.get(span.start..span.end).unwrap_or("");
    let bytes = token.as_bytes();
    match bytes.first() {
        Some(b'"' | b'\'') if bytes.len() >= 2 && bytes.last() == bytes.first() => {
            Span::new(span.start + 1, span.end - 1)
        }
        // `>` / `|` block scalars: the lines after the indicator.
        Some(b'>' | b'|') => match token.find('\n') {
            Some(nl) => Span::new(span.start + nl + 1, span.end),
            None => span,
        },
        _ => span,
    }
}

/// The value part of a `NAME=value` scalar, when it is written out in the
/// token; otherwise the whole token.
fn env_value_span(token: Span, text: &str, value: &str) -> Span {
    let written = text.get(token.start..token.end).unwrap_or("");
    match written.find('=') {
        Some(eq) if written.get(eq + 1..).is_some_and(|rest| rest.contains(value.trim())) => {
            let start = token.start + eq + 1;
            let end = scalar_body(token, text).end.max(start);
            Span::new(start, end)
        }
        _ => scalar_body(token, text),
    }
}

/// One pattern matching the credential values written in `text` at
/// `spans` (what [`spans`] found): each line of at least 4 characters
/// other than a boolean or null word, and
/// the first 12 characters of a longer one (what a shortened quote shows).
/// Longest first, so a value is masked whole before its prefix. `None`
/// when there is none (or too many to build an automaton of).
pub fn literal_pattern(text: &str, spans: &[Span]) -> Option<LiteralPattern> {
    let mut literals: Vec<&str> = Vec::new();
    for span in spans.iter().take(10_000) {
        let Some(written) = text.get(span.start..span.end) else {
            continue;
        };
        // (Not the words `true`, `null`, `yes`…: masking every one of
        // them would hide what messages say, and tell nothing.)
        let word = |l: &str| {
            matches!(
                crate::yaml::resolve_master_non_string(l),
                Some(crate::yaml::Value::Bool(_) | crate::yaml::Value::Null)
            )
        };
        for line in written
            .lines()
            .map(str::trim)
            .filter(|l| l.chars().count() >= 4 && !word(l))
        {
            literals.push(line);
            if let Some((cut, _)) = line.char_indices().nth(12) {
                literals.push(&line[..cut]);
            }
        }
    }
    if literals.is_empty() {
        return None;
    }
    literals.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    literals.dedup();
    aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .build(&literals)
        .ok()
        .map(LiteralPattern)
}

/// The credential values written in a file, as [`literal_pattern`] found
/// them: one automaton over all of them (building a regular expression of
/// the same alternatives cost more than the rest of masking).
#[derive(Debug, Clone)]
pub struct LiteralPattern(aho_corasick::AhoCorasick);

impl LiteralPattern {
    /// Whether `text` holds any of the values.
    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }

    /// `text` with every value in it (the longest at each place) replaced by
    /// `****`.
    pub fn mask_in(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        self.0.replace_all_with(text, &mut out, |_, _, out| {
            out.push_str("****");
            true
        });
        out
    }
}

/// `text` with every byte of `spans` replaced by `*`, line breaks kept, so
/// every offset into the text stays valid.
pub fn mask(text: &str, spans: &[Span]) -> String {
    if spans.is_empty() {
        return text.to_string();
    }
    let mut bytes = text.as_bytes().to_vec();
    for span in spans {
        let end = span.end.min(bytes.len());
        for b in bytes.get_mut(span.start.min(end)..end).into_iter().flatten() {
            if *b != b'\n' && *b != b'\r' {
                *b = b'*';
            }
        }
    }
    // Whole characters were replaced byte by byte with ASCII, and line
    // breaks are ASCII: the result is UTF-8 whenever the spans fall on
    // character boundaries, which the tree's spans do.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {

    /// The prefilter is exact: every alternative of the shapes begins with
    /// one of the literals, and a text holding none is never matched.
    #[test]
    fn every_token_shape_begins_with_a_listed_literal() {
        assert!(token_shapes().is_some(), "the shapes compile");
        for shape in TOKEN_SHAPES {
            // Expand the leading alternation or class into the literals it stands for.
            let starts: Vec<String> = if let Some(rest) = shape.strip_prefix("(?:") {
                let (alts, _) = rest.split_once(')').unwrap_or((rest, ""));
                let after = &rest[alts.len() + 1..];
                let lit: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                alts.split('|').map(|a| format!("{a}{lit}")).collect()
            } else if let Some((head, tail)) = shape.split_once('[') {
                let class: String = tail.chars().take_while(|c| *c != ']').collect();
                let after = &tail[class.len() + 1..];
                let lit: String = after.chars().take_while(|c| *c == '_' || *c == '-').collect();
                if class.chars().all(|c| c.is_ascii_lowercase()) {
                    class.chars().map(|c| format!("{head}{c}{lit}")).collect()
                } else {
                    vec![head.replace('\\', "")]
                }
            } else {
                vec![shape.replace('\\', "")]
            };
            for start in starts {
                assert!(
                    TOKEN_STARTS.iter().any(|t| start.starts_with(t)),
                    "{shape}: `{start}` begins with no literal of TOKEN_STARTS"
                );
            }
        }
        for text in ["a high weight", "skip_sk", "eyes", "github", "hf-x"] {
            assert!(value_ranges(text).is_empty(), "{text}");
        }
        assert_eq!(value_ranges("t=ghp_0123456789abcdefghij0123").len(), 1);
    }

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

    #[test]
    fn credential_names_of_issue_21() {
        for n in [
            "GITHUB_PAT",
            "GH_PAT",
            "CI_JOB_JWT",
            "CI_JOB_JWT_V2",
            "MYSQL_PWD",
            "PASSPHRASE",
            "SENTRY_DSN",
            "SLACK_WEBHOOK_URL",
            "COOKIE",
            "BEARER",
            "SESSION_ID",
            "VAULT_ROLE_ID",
            "VAULT_SECRET_ID",
            "DB_PASS",
            "accessToken",
            "ssh_key",
            "Authorization",
            "basic_auth",
            "OAUTH_TOKEN",
            "authorisation",
            "AUTH",
        ] {
            assert!(is_credential_name(n), "{n}");
        }
        for n in [
            "tokens_per_batch",
            "max_tokens",
            "MAX_TOKENS",
            "tokenizer",
            "PWD",
            "OLDPWD",
            "PATH",
            "pattern",
            "passes",
            "num_sessions",
            "dataset",
            "CUBLAS_WORKSPACE_CONFIG",
            "NCCL_DEBUG",
            "author",
            "dataset_authors",
            "AUTHORITY",
        ] {
            assert!(!is_credential_name(n), "{n}");
        }
    }

    #[test]
    fn secrets_by_their_shape() {
        assert!(token_shapes().is_some());
        let shown = |v: &str| redact(v).into_owned();
        for (value, secret) in [
            ("postgres://u:PW1secret@h:5432/db", "PW1secret"),
            ("https://user:pr0xyPass@proxy:3128", "pr0xyPass"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdef"),
            ("token github_pat_11ABCDEFG0123456789_abcdefghijkl", "github_pat_11"),
            ("glpat-abcdefghij0123456789", "glpat-abc"),
            ("xoxb-123456789012-abcdefghij", "xoxb-1234"),
            ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
            ("key=sk-proj-abcdefghijklmnopqrstuv", "sk-proj-abc"),
            ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "eyJzdWIi"),
            ("https://hooks.slack.com/services/T000/B000/XXXXsecret", "XXXXsecret"),
        ] {
            let out = shown(value);
            assert!(!out.contains(secret), "{value} → {out}");
            assert!(out.contains("****"), "{value} → {out}");
            assert!(is_secret("NOTE", value), "{value}");
        }
        for value in [
            "https://example.com/path",
            "postgres://u@h/db",
            "postgres://u:${DB_PASSWORD}@h/db",
            "task-abcdefghijklmnopqrstuvwxyz",
            "mask-abcdefghijklmnopqrstuvwxyz",
            ":4096:8",
            "s3://bucket/prefix",
            "user@example.com",
        ] {
            assert_eq!(shown(value), value);
            assert!(!is_secret("NOTE", value), "{value}");
        }
        assert!(is_secret("GITHUB_PAT", "abc"));
        assert!(!is_secret("GITHUB_PAT", "${GITHUB_PAT}"));
    }

    #[test]
    fn literal_pattern_masks_values_and_their_prefixes() {
        let text = "s:\n  password: hunter2hunter2hunter2\n  auth: true\n  token: abc\n";
        let (tree, _) = crate::yaml::parse(text, &Default::default());
        let re = literal_pattern(text, &spans(&tree, text)).expect("a pattern");
        let out = re.mask_in("`hunter2hunter2hunter2` and `hunter2hunte…` are true");
        assert_eq!(out, "`****` and `****…` are true");
        assert!(literal_pattern("a: 1\n", &[]).is_none());
    }

    #[test]
    fn masked_text_of_a_diff() {
        let yaml = "a: 1\nsecret_key: hunter2x\nurl: postgres://u:pw9@h/db\n# ghp_abcdefghijklmnopqrstuvwxyz0123\n";
        let out = masked_text("const.yaml", yaml);
        assert_eq!(out.len(), yaml.len());
        for secret in ["hunter2x", "pw9", "ghp_abc"] {
            assert!(!out.contains(secret), "{out}");
        }
        let py = "TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123'\n";
        assert!(!masked_text("model.py", py).contains("ghp_abc"));
    }

    fn masked(text: &str) -> String {
        let (tree, _) = crate::yaml::parse(text, &Default::default());
        mask(text, &spans(&tree, text))
    }

    #[test]
    fn every_form_of_a_credential_is_masked() {
        for (text, secret) in [
            (
                "checkpoint_storage: {type: s3, bucket: b, secret_key: hunter2, access_key: 5}\n",
                "hunter2",
            ),
            ("checkpoint_storage:\n  secret_key: >\n    hunter2\n", "hunter2"),
            (
                "checkpoint_storage:\n  secret_key: |\n    hunter2\n    more\n",
                "hunter2",
            ),
            ("s:\n  password: \"hunter2\"\n", "hunter2"),
            ("s:\n  token: 'hunter2'\n", "hunter2"),
            ("base: &b hunter2\ns:\n  password: *b\n", "hunter2"),
            (
                "creds: &c {secret_key: hunter2}\ncheckpoint_storage:\n  <<: *c\n",
                "hunter2",
            ),
            ("s:\n  pasword: hunter2\n", "hunter2"),
            (
                "e:\n  - AWS_SECRET_ACCESS_KEY=hunter2\n  - \"HF_TOKEN=hunter2\"\n",
                "hunter2",
            ),
            ("s:\n  password:\n    - hunter2\n", "hunter2"),
            ("s:\n  password: 秘密秘密\n", "秘密"),
        ] {
            let out = masked(text);
            assert_eq!(out.len(), text.len(), "{text:?}");
            assert!(!out.contains(secret), "{text:?} → {out:?}");
        }
    }

    #[test]
    fn references_and_other_values_stay() {
        let text = "checkpoint_storage:\n  secret_key: ${S3_SECRET_KEY}\n  bucket: b\n  keyword: x\ne:\n  - PYTHONHASHSEED=0\n  - HF_TOKEN=${HF_TOKEN}\n";
        assert_eq!(masked(text), text);
        for name in ["pasword", "secert", "Credentails", "db_passwrd"] {
            assert!(looks_like_credential(name), "{name}");
        }
        for name in ["bucket", "passes", "keyword", "sectors", "tokens_per_batch"] {
            assert!(!looks_like_credential(name), "{name}");
        }
    }
}
