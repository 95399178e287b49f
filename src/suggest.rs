//! "Did you mean …?": the nearest known name to a misspelled one.

/// Longest name a suggestion is looked for: every known name (keys, GPU
/// types, dtypes) is far shorter, and edit distances cost the product of the
/// lengths, so a megabyte of text in a key costs nothing.
pub const MAX_LEN: usize = 64;

/// Whether a name is short enough to look for suggestions.
pub fn worth_suggesting(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_LEN
}

/// The closest candidate by edit distance, if it is close enough to be a
/// plausible typo.
pub fn nearest<'a>(given: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if !worth_suggesting(given) {
        return None;
    }
    let given_l = given.to_ascii_lowercase();
    candidates
        .map(|c| {
            (
                c,
                strsim::jaro_winkler(&given_l, &c.to_ascii_lowercase()),
                strsim::levenshtein(&given_l, &c.to_ascii_lowercase()),
            )
        })
        .filter(|(c, jw, lev)| *jw >= 0.85 || *lev <= 2.min(c.len() / 3 + 1))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.2.cmp(&a.2)))
        .map(|(c, _, _)| c)
}
