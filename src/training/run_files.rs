//! The JSON and YAML files of a context that training code may load at run
//! time (`json.load(open(args.config))`, `yaml.safe_load(f)`,
//! `OmegaConf.load(path)`): discovery reads them (bounded) where the code
//! loads any; they are parsed here, once, when a check first asks for a
//! value in them. Parsing never fails: a file that does not parse has no
//! values.

use std::sync::OnceLock;

use crate::source::{Input, LineIndex};
use crate::yaml::{Located, NodeId, PathSeg, Tree, Value};

/// How a file is written, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Yaml,
}

impl Format {
    /// The format a file's name says, if it is one of these.
    pub fn of(name: &str) -> Option<Format> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".json") {
            Some(Format::Json)
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Some(Format::Yaml)
        } else {
            None
        }
    }

    /// The files' kind, for messages.
    pub fn noun(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Yaml => "YAML",
        }
    }
}

struct Parsed {
    name: String,
    format: Format,
    text: String,
    lines: LineIndex,
    tree: Tree,
}

/// The config files of a compilation (see the module's documentation).
#[derive(Default)]
pub struct RunFiles {
    inputs: Vec<Input>,
    parsed: OnceLock<Vec<Parsed>>,
    naming: OnceLock<Vec<Naming>>,
}

/// A mapping of a config file that names a class (see [`NAMING_KEYS`]).
struct Naming {
    /// The file, an index into the parsed files.
    file: usize,
    /// The dotted name written.
    class: String,
    /// Where its keyword arguments sit (`None`: under an argument key the
    /// mapping lacks).
    args: Option<Located>,
}

impl Clone for RunFiles {
    fn clone(&self) -> Self {
        RunFiles::new(self.inputs.clone())
    }
}

impl std::fmt::Debug for RunFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.inputs.iter().map(|i| &i.name)).finish()
    }
}

/// A scalar written at a path in one file.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The file, relative to the context.
    pub file: String,
    /// Its 1-based line.
    pub line: usize,
    /// The `key: value` text as written (one line).
    pub text: String,
    pub value: Value,
}

/// One step of a path looked up in the files: a key or index, or each
/// value of a mapping (the code iterates `cfg["datasets"].items()` and
/// reads every entry alike).
#[derive(Clone, Debug, PartialEq)]
pub enum Seg {
    At(PathSeg),
    Each,
}

/// Most scalars one lookup reports from one file: a path with `Each`
/// steps matches at most this many places.
const MOST_PER_FILE: usize = 64;

/// Deepest nesting and most nodes of a config file parsed here: configs
/// are small, and a hostile file must not cost more than a config does.
fn budgets() -> crate::yaml::Budgets {
    crate::yaml::Budgets {
        max_bytes: 256 * 1024,
        max_depth: 64,
        max_nodes: 20_000,
        max_alias_bytes: 256 * 1024,
    }
}

impl RunFiles {
    pub fn new(inputs: Vec<Input>) -> RunFiles {
        RunFiles {
            inputs,
            parsed: OnceLock::new(),
            naming: OnceLock::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    fn parsed(&self) -> &[Parsed] {
        self.parsed.get_or_init(|| {
            self.inputs
                .iter()
                .filter_map(|i| {
                    let format = Format::of(&i.name)?;
                    let text = crate::source::lossy(&i.bytes).into_owned();
                    let (tree, issues) = crate::yaml::parse(&text, &budgets());
                    // A file that does not parse cleanly is not read for
                    // values: Python's loader would raise on it.
                    issues.is_empty().then(|| Parsed {
                        name: i.name.clone(),
                        format,
                        lines: LineIndex::new(&text),
                        text,
                        tree,
                    })
                })
                .collect()
        })
    }

    /// Whether any file of `format` is one of the paths `named`.
    pub fn has_any(&self, format: Format, named: &[String]) -> bool {
        self.parsed()
            .iter()
            .any(|f| f.format == format && named.iter().any(|n| names_file(n, &f.name)))
    }

    /// The scalars written at `path` in the files of `format`: of the files
    /// `named` (paths the code gives, matched as a suffix of the file's
    /// context path), or of every such file where `named` is `None`. Files
    /// without the path are left out; so is a path whose value is a
    /// mapping or a list. A path with [`Seg::Each`] steps gives every
    /// place in a file it matches, in document order.
    pub fn lookup(&self, format: Format, named: Option<&[String]>, path: &[Seg]) -> Vec<Found> {
        let mut out = Vec::new();
        for f in self.parsed() {
            if f.format != format {
                continue;
            }
            if let Some(named) = named {
                if !named.iter().any(|n| names_file(n, &f.name)) {
                    continue;
                }
            }
            let Some(root) = f.tree.root() else { continue };
            let mut places = Vec::new();
            matches(&f.tree, Located { node: root, key: None }, path, &mut places);
            for at in places {
                if let Some(found) = scalar_at(f, at) {
                    out.push(found);
                }
            }
        }
        out
    }

    /// What the mappings of the files that name `class` (its dotted path)
    /// for code to build by name (see [`NAMING_KEYS`]) hold at `path` of
    /// their keyword arguments: `None` where no mapping names it.
    pub fn named_lookup(&self, class: &str, path: &[Seg]) -> Option<NamedFound> {
        let parsed = self.parsed();
        let mut out = NamedFound::default();
        let mut naming = 0usize;
        for n in self
            .naming()
            .iter()
            .filter(|n| names_class(&n.class, class))
            .take(MOST_NAMING)
        {
            let Some(f) = parsed.get(n.file) else { continue };
            naming += 1;
            let Some(args) = n.args else {
                out.lacking += 1;
                continue;
            };
            let mut places = Vec::new();
            matches(&f.tree, args, path, &mut places);
            if places.is_empty() {
                out.lacking += 1;
            }
            for at in places {
                match scalar_at(f, at) {
                    Some(found) => out.found.push(found),
                    None => out.other = true,
                }
            }
        }
        (naming > 0).then_some(out)
    }

    /// The mappings of the files that name a class (see [`NAMING_KEYS`]),
    /// found once, in file and document order.
    fn naming(&self) -> &[Naming] {
        self.naming.get_or_init(|| {
            let mut out = Vec::new();
            for (file, f) in self.parsed().iter().enumerate() {
                for i in 0..f.tree.len() {
                    let Ok(id) = u32::try_from(i) else { break };
                    let node = NodeId(id);
                    if !matches!(f.tree.node(node).value, Value::Map(_)) {
                        continue;
                    }
                    let entries = f.tree.entries_raw(node);
                    let key_is = |e: &crate::yaml::Entry, key: &str| f.tree.as_str(e.key) == Some(key);
                    let Some((class, args_key)) = NAMING_KEYS.iter().find_map(|(key, args)| {
                        let e = entries.iter().find(|e| key_is(e, key))?;
                        Some((f.tree.as_str(e.value)?.trim().to_string(), *args))
                    }) else {
                        continue;
                    };
                    let args = match args_key {
                        None => Some(Located { node, key: None }),
                        Some(k) => entries.iter().find(|e| key_is(e, k)).map(|e| Located {
                            node: e.value,
                            key: Some(e.key),
                        }),
                    };
                    out.push(Naming { file, class, args });
                }
            }
            out
        })
    }
}

/// The keys by which a config file names a class for code to build by
/// name, with the key its keyword arguments sit under: Hydra's
/// `_target_:` beside them, LightningCLI's `class_path:` with
/// `init_args:`, `instantiate_from_config`'s `target:` with `params:`.
const NAMING_KEYS: &[(&str, Option<&str>)] = &[
    ("_target_", None),
    ("class_path", Some("init_args")),
    ("target", Some("params")),
];

/// Most mappings naming one class that a lookup reads, over all files.
const MOST_NAMING: usize = 64;

/// What the mappings that name a class hold at one path of its arguments
/// (see [`RunFiles::named_lookup`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NamedFound {
    /// The scalars set, one per mapping that sets the path.
    pub found: Vec<Found>,
    /// The mappings that name the class and do not set the path (the
    /// parameter's default stands there).
    pub lacking: usize,
    /// Whether some mapping holds a mapping or a list at the path, or a
    /// value not read here (an alias).
    pub other: bool,
}

/// Whether the dotted name `written` in a config file names the class
/// `class` (`package.module.Class`): equal, or one a dotted suffix of the
/// other of at least a module and the class (a file that writes
/// `src.data.dm.DataModule` for the module stagec reads as `data.dm`).
pub fn names_class(written: &str, class: &str) -> bool {
    let w: Vec<&str> = written.split('.').collect();
    let c: Vec<&str> = class.split('.').collect();
    let n = w.len().min(c.len());
    n >= 2 && w[w.len() - n..] == c[c.len() - n..]
}

/// The places `path` leads to from `here`, at most [`MOST_PER_FILE`].
fn matches(tree: &Tree, here: Located, path: &[Seg], out: &mut Vec<Located>) {
    if out.len() >= MOST_PER_FILE {
        return;
    }
    match path.split_first() {
        None => out.push(here),
        Some((Seg::At(seg), rest)) => {
            if let Some(next) = tree.locate_from(here.node, std::slice::from_ref(seg)) {
                matches(tree, next, rest, out);
            }
        }
        Some((Seg::Each, rest)) => {
            for (_, e) in tree.merged_entries(here.node) {
                matches(
                    tree,
                    Located {
                        node: e.value,
                        key: Some(e.key),
                    },
                    rest,
                    out,
                );
            }
        }
    }
}

/// The scalar at a place of a file, as a [`Found`]; `None` for a mapping,
/// a list or an alias.
fn scalar_at(f: &Parsed, at: Located) -> Option<Found> {
    let node = f.tree.resolve(at.node);
    let value = f.tree.value(node).clone();
    if matches!(value, Value::Map(_) | Value::Seq(_) | Value::Alias(_)) {
        return None;
    }
    let start = at.key.map_or(f.tree.span(node).start, |k| f.tree.span(k).start);
    let index = &f.lines;
    let line = index.line_of(start);
    // `key: value` as written where it fits on its line, else the
    // line.
    let end = f.tree.span(node).end;
    let text = f
        .text
        .get(start..end)
        .filter(|t| !t.contains('\n') && t.len() <= 120)
        .or_else(|| index.line_span(&f.text, line).and_then(|s| f.text.get(s.start..s.end)))
        .unwrap_or("")
        .trim()
        .trim_end_matches(',')
        .to_string();
    Some(Found {
        file: f.name.clone(),
        line: line + 1,
        text,
        value,
    })
}

/// Whether the path `given` (as the code writes it: `config_v1.json`,
/// `./configs/a.yaml`) names the context file `file`.
fn names_file(given: &str, file: &str) -> bool {
    let given = given.trim_start_matches("./").replace('\\', "/");
    if given.is_empty() || given.contains("..") || given.starts_with('/') {
        return false;
    }
    file == given || file.ends_with(&format!("/{given}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> RunFiles {
        RunFiles::new(
            list.iter()
                .map(|(n, t)| Input {
                    name: n.to_string(),
                    bytes: t.as_bytes().to_vec(),
                })
                .collect(),
        )
    }

    fn key(path: &[&str]) -> Vec<Seg> {
        path.iter()
            .map(|k| match *k {
                "*" => Seg::Each,
                k => Seg::At(PathSeg::Key(k.to_string())),
            })
            .collect()
    }

    #[test]
    fn finds_the_value_in_each_file_that_has_the_path() {
        let f = files(&[
            ("config_v1.json", "{\n  \"num_workers\": 4,\n  \"lr\": 0.1\n}\n"),
            ("cfg/b.json", "{\"data\": {\"num_workers\": 2}}"),
            ("cfg/c.yaml", "num_workers: 6\n"),
            ("broken.json", "{\"num_workers\": 4"),
        ]);
        let found = f.lookup(Format::Json, None, &key(&["num_workers"]));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].file, "config_v1.json");
        assert_eq!(found[0].line, 2);
        assert_eq!(found[0].text, "\"num_workers\": 4");
        assert_eq!(found[0].value, Value::Int(4));
        let yaml = f.lookup(Format::Yaml, None, &key(&["num_workers"]));
        assert_eq!(
            yaml.iter().map(|x| x.value.clone()).collect::<Vec<_>>(),
            vec![Value::Int(6)]
        );
        // A mapping is not a value.
        assert!(f.lookup(Format::Json, None, &key(&["data"])).is_empty());
    }

    #[test]
    fn a_named_file_is_matched_by_its_path_suffix_only() {
        let f = files(&[
            ("cfg/a.yaml", "w: 1\n"),
            ("other/a.yaml", "w: 2\n"),
            ("cfg/b.yaml", "w: 3\n"),
        ]);
        let named = vec!["./cfg/a.yaml".to_string()];
        let found = f.lookup(Format::Yaml, Some(&named), &key(&["w"]));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].file, "cfg/a.yaml");
        for bad in ["", "../cfg/a.yaml", "/cfg/a.yaml", "g/a.yaml"] {
            let named = vec![bad.to_string()];
            assert!(f.lookup(Format::Yaml, Some(&named), &key(&["w"])).is_empty(), "{bad}");
        }
    }

    #[test]
    fn each_value_of_a_mapping_is_read_in_document_order() {
        let f = files(&[(
            "options/train.yml",
            "datasets:\n  train:\n    n_workers: 4\n  val:\n    name: v\n  test:\n    n_workers: 0\nn_workers: 9\n",
        )]);
        let found = f.lookup(Format::Yaml, None, &key(&["datasets", "*", "n_workers"]));
        let got: Vec<(usize, Value)> = found.iter().map(|x| (x.line, x.value.clone())).collect();
        assert_eq!(got, vec![(3, Value::Int(4)), (7, Value::Int(0))]);
        // A scalar has no values to step into; nor a path the file lacks.
        assert!(f.lookup(Format::Yaml, None, &key(&["n_workers", "*"])).is_empty());
        assert!(f
            .lookup(Format::Yaml, None, &key(&["model", "*", "n_workers"]))
            .is_empty());
        // Steps over every entry stop at the cap.
        let wide: String = (0..200).map(|i| format!("k{i}: {{w: {i}}}\n")).collect();
        let f = files(&[("wide.yaml", &wide)]);
        assert_eq!(f.lookup(Format::Yaml, None, &key(&["*", "w"])).len(), MOST_PER_FILE);
    }

    #[test]
    fn mappings_that_name_a_class_give_its_arguments() {
        let f = files(&[
            (
                "configs/data/lj.yaml",
                "_target_: matcha.data.dm.TextMelDataModule\nbatch_size: 32\nnum_workers: 20\n",
            ),
            (
                "configs/vocoder.yaml",
                "data:\n  class_path: decoder.dataset.VocosDataModule\n  init_args:\n    train_params:\n      num_workers: 8\n",
            ),
            (
                "configs/ldm.yaml",
                "model:\n  target: ldm.models.LatentDiffusion\n  params:\n    timesteps: 1000\n    nested: {a: 1}\n",
            ),
            ("configs/bare.yaml", "model:\n  target: ldm.models.LatentDiffusion\n"),
            ("other.json", "{\"_target_\": \"src.matcha.data.dm.TextMelDataModule\"}"),
        ]);
        // `_target_` beside the arguments; a file that writes the module
        // with a package before it names the class too, and sets nothing.
        let dm = f
            .named_lookup("matcha.data.dm.TextMelDataModule", &key(&["num_workers"]))
            .unwrap_or_default();
        assert_eq!(
            dm.found.iter().map(|x| x.value.clone()).collect::<Vec<_>>(),
            vec![Value::Int(20)]
        );
        assert_eq!(
            (dm.found[0].file.as_str(), dm.found[0].line),
            ("configs/data/lj.yaml", 3)
        );
        assert_eq!((dm.lacking, dm.other), (1, false));
        // `class_path` with `init_args`, read below the parameter.
        let voc = f
            .named_lookup(
                "decoder.dataset.VocosDataModule",
                &key(&["train_params", "num_workers"]),
            )
            .unwrap_or_default();
        assert_eq!(
            voc.found.iter().map(|x| x.value.clone()).collect::<Vec<_>>(),
            vec![Value::Int(8)]
        );
        // `target` with `params`; a mapping without `params` leaves it out;
        // a mapping where a scalar is read is something else.
        let ldm = f
            .named_lookup("ldm.models.LatentDiffusion", &key(&["timesteps"]))
            .unwrap_or_default();
        assert_eq!((ldm.found.len(), ldm.lacking, ldm.other), (1, 1, false));
        let nested = f
            .named_lookup("ldm.models.LatentDiffusion", &key(&["nested"]))
            .unwrap_or_default();
        assert!(nested.other);
        // Another module's class of the same name, a bare class name: not named.
        assert!(f
            .named_lookup("other.dm.TextMelDataModule", &key(&["num_workers"]))
            .is_none());
        assert!(f.named_lookup("TextMelDataModule", &key(&["num_workers"])).is_none());
        assert!(names_class("src.matcha.data.dm.X", "data.dm.X"));
        assert!(!names_class("dm.X", "other.X"));
    }

    #[test]
    fn a_lookup_of_a_named_class_reads_a_bounded_number_of_mappings() {
        // 10,000 mappings naming the class, and 200: a lookup reads at most
        // MOST_NAMING of them either way.
        let huge: String = (0..10_000)
            .map(|i| format!("m{i}:\n  _target_: a.b.C\n  num_workers: {i}\n"))
            .collect();
        let fits: String = (0..200)
            .map(|i| format!("m{i}:\n  _target_: a.b.C\n  num_workers: {i}\n"))
            .collect();
        let f = files(&[("huge.yaml", &huge)]);
        let read = f.named_lookup("a.b.C", &key(&["num_workers"])).unwrap_or_default();
        assert!(read.found.len() + read.lacking <= MOST_NAMING, "{}", read.found.len());
        let f = files(&[("fits.yaml", &fits)]);
        let found = f.named_lookup("a.b.C", &key(&["num_workers"])).unwrap_or_default();
        assert_eq!(found.found.len(), MOST_NAMING);
    }

    #[test]
    fn hostile_files_cost_what_their_budget_allows() {
        // An alias bomb and deep nesting: parsed within the budgets, no
        // values read from them.
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        let mut prev = "a".to_string();
        for i in 0..12 {
            let refs = vec![format!("*{prev}"); 10].join(", ");
            bomb.push_str(&format!("b{i}: &b{i} [{refs}]\n"));
            prev = format!("b{i}");
        }
        bomb.push_str("num_workers: 4\n");
        let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        let f = files(&[("bomb.yaml", &bomb), ("deep.yaml", &deep)]);
        let found = f.lookup(Format::Yaml, None, &key(&["num_workers"]));
        assert!(found.iter().all(|x| x.value == Value::Int(4)), "{found:?}");
    }
}
