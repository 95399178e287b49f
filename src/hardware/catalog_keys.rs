//! GPU names as keys: how a name is normalized, and the lookup index built
//! from the catalog data. The build script includes this file to compute
//! the index once, at build time (the library compiles the result in as
//! sorted tables); the library uses the same functions on the names it is
//! asked about, so both sides normalize alike.

use std::collections::{BTreeMap, HashMap};

use super::catalog_data::{FamilyData, Gpu};

/// Vendor prefixes dropped from driver names and labels (`NVIDIA `, `Tesla `, `GeForce `).
const VENDOR_PREFIXES: [&str; 3] = ["nvidia-", "tesla-", "geforce-"];

/// Index priority: on a key clash the higher rank wins; equal ranks merge.
#[cfg_attr(not(test), allow(dead_code))]
mod rank {
    pub const DRIVER_NAME_WITHOUT_VENDOR: u8 = 1;
    pub const COMBINATION: u8 = 2;
    pub const FAMILY: u8 = 3;
    pub const ALIAS: u8 = 4;
    pub const ID: u8 = 5;
}

/// Lower-cases and trims; spaces and `_` become `-`; runs of `-` collapse.
pub fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.trim().chars() {
        let c = match c {
            ' ' | '_' | '\t' => '-',
            c => c.to_ascii_lowercase(),
        };
        if c == '-' && (out.is_empty() || out.ends_with('-')) {
            continue;
        }
        out.push(c);
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// Drops leading `nvidia-`, `tesla-`, `geforce-` (in any combination).
pub fn strip_vendor(mut s: &str) -> &str {
    loop {
        match VENDOR_PREFIXES.iter().find_map(|p| s.strip_prefix(p)) {
            Some(rest) => s = rest,
            None => return s,
        }
    }
}

/// Removes all `-`.
pub fn compact(s: &str) -> String {
    s.chars().filter(|&c| c != '-').collect()
}

/// The catalog's lookup index; every list is sorted by its key.
#[cfg_attr(not(test), allow(dead_code))] // the library reads the compiled-in copy
#[derive(Debug, Default, PartialEq)]
pub struct Index {
    /// Full normalized driver names (with vendor prefix) → variant.
    pub driver: Vec<(String, usize)>,
    /// Normalized names without vendor prefix → (rank, variants).
    pub names: Vec<(String, u8, Vec<usize>)>,
    /// `names` keys with `-` removed → (rank, variants); a key that two
    /// equally ranked names with different variants share maps to none.
    pub compact: Vec<(String, u8, Vec<usize>)>,
    /// Names for completion: family names and aliases, catalog ids, variant
    /// aliases and `<family>-<memory>g` forms; sorted, without repeats.
    pub known: Vec<String>,
}

#[cfg_attr(not(test), allow(dead_code))]
type Keys = HashMap<String, (u8, Vec<usize>)>;

#[cfg_attr(not(test), allow(dead_code))]
fn insert(index: &mut Keys, key: String, rank: u8, gpus: &[usize]) {
    if key.is_empty() {
        return;
    }
    let entry = index.entry(key).or_insert((rank, Vec::new()));
    if rank > entry.0 {
        *entry = (rank, Vec::new());
    }
    if rank == entry.0 {
        for &g in gpus {
            if !entry.1.contains(&g) {
                entry.1.push(g);
            }
        }
        entry.1.sort_unstable();
    }
}

#[cfg_attr(not(test), allow(dead_code))]
fn sorted(keys: Keys) -> Vec<(String, u8, Vec<usize>)> {
    let mut out: Vec<(String, u8, Vec<usize>)> = keys.into_iter().map(|(k, (r, t))| (k, r, t)).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Every name each variant answers to, ranked.
#[cfg_attr(not(test), allow(dead_code))] // run by build.rs, and by the test of its output
pub fn build(gpus: &[Gpu], families: &BTreeMap<String, FamilyData>) -> Index {
    let mut driver: Vec<(String, usize)> = Vec::new();
    let mut index: Keys = HashMap::new();
    let mut known: Vec<String> = Vec::new();

    for (i, gpu) in gpus.iter().enumerate() {
        let one = [i];
        insert(&mut index, normalize(&gpu.id), rank::ID, &one);
        known.push(normalize(&gpu.id));
        for alias in &gpu.aliases {
            insert(&mut index, normalize(alias), rank::ALIAS, &one);
            known.push(normalize(alias));
        }
        let family = normalize(&gpu.family);
        insert(&mut index, family.clone(), rank::FAMILY, &one);
        known.push(family.clone());
        if let Some(fam) = families.get(&gpu.family) {
            for alias in &fam.aliases {
                insert(&mut index, normalize(alias), rank::FAMILY, &one);
                known.push(normalize(alias));
            }
        }
        let mem = gpu.memory_gb;
        for key in [format!("{family}-{mem}g"), format!("{family}-{mem}gb")] {
            insert(&mut index, key, rank::COMBINATION, &one);
        }
        known.push(format!("{family}-{mem}g"));
        let forms = gpu.form_factor.iter().chain(gpu.form_aliases.iter());
        for form in forms.map(|f| normalize(f)) {
            for key in [
                format!("{family}-{form}"),
                format!("{family}-{form}-{mem}g"),
                format!("{family}-{form}-{mem}gb"),
                format!("{family}-{mem}g-{form}"),
                format!("{family}-{mem}gb-{form}"),
            ] {
                insert(&mut index, key, rank::COMBINATION, &one);
            }
        }
        for name in &gpu.driver_names {
            let full = normalize(name);
            insert(
                &mut index,
                strip_vendor(&full).to_string(),
                rank::DRIVER_NAME_WITHOUT_VENDOR,
                &one,
            );
            // A driver name two variants print belongs to the last (the
            // catalog's test keeps driver names unique).
            match driver.iter_mut().find(|(k, _)| *k == full) {
                Some(entry) => entry.1 = i,
                None => driver.push((full, i)),
            }
        }
    }
    let names = sorted(index);

    // In key order, so the outcome never depends on a hash map's.
    let mut compact_keys: Keys = HashMap::new();
    for (key, rank, targets) in &names {
        let compact = compact(key);
        match compact_keys.get_mut(&compact) {
            None => {
                compact_keys.insert(compact, (*rank, targets.clone()));
            }
            Some(existing) => {
                if *rank > existing.0 {
                    *existing = (*rank, targets.clone());
                } else if *rank == existing.0 && existing.1 != *targets {
                    existing.1.clear();
                }
            }
        }
    }

    driver.sort_by(|a, b| a.0.cmp(&b.0));
    known.sort();
    known.dedup();
    Index {
        driver,
        names,
        compact: sorted(compact_keys),
        known,
    }
}
