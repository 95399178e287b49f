//! Which documents stagec has something to say about: experiment configs,
//! `stages.yaml`, and Python files declaring stages. Other YAML
//! (Kubernetes manifests, CI workflows, Helm values) gets nothing.

/// What an open document is to stagec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DocumentKind {
    /// A Determined experiment config (`const.yaml` and friends).
    Experiment,
    /// A `stages.yaml` stage declaration file.
    StagesYaml,
    /// A Python file that mentions `stage_decorator`.
    Python,
    /// Python without stage declarations: part of no project's stages.
    OtherPython,
    /// YAML that is not an experiment (a Kubernetes manifest, a CI file).
    OtherYaml,
    /// Anything else.
    Other,
}

/// Top-level keys only an experiment config has (Kubernetes manifests and CI
/// files have none of them).
const EXPERIMENT_KEYS: &[&str] = &[
    "entrypoint",
    "searcher",
    "hyperparameters",
    "checkpoint_storage",
    "checkpoints",
    "min_validation_period",
    "min_checkpoint_period",
    "records_per_epoch",
    "max_restarts",
    "bind_mounts",
    "scheduling_unit",
    "reproducibility",
    "perform_initial_validation",
];

/// Top-level keys that mark other YAML: Kubernetes (`apiVersion`, `kind`),
/// GitHub Actions and GitLab CI (`jobs`, `stages`), Compose (`services`).
const FOREIGN_KEYS: &[&str] = &["apiVersion", "kind", "jobs", "services", "stages", "steps"];

/// Classifies a document by its file name (a path or URI path) and text.
pub fn classify(name: &str, text: &str) -> DocumentKind {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name).to_ascii_lowercase();
    if file.ends_with(".py") || file.ends_with(".pyi") {
        return if text.contains(crate::stages::python::STAGE_DECORATOR) {
            DocumentKind::Python
        } else {
            DocumentKind::OtherPython
        };
    }
    if !(file.ends_with(".yaml") || file.ends_with(".yml")) {
        return DocumentKind::Other;
    }
    if file == "stages.yaml" || file == "stages.yml" {
        return DocumentKind::StagesYaml;
    }
    if is_experiment_yaml(text) {
        DocumentKind::Experiment
    } else {
        DocumentKind::OtherYaml
    }
}

/// Whether YAML text is an experiment config: a modeline says so, or its
/// top-level keys look like Determined's.
pub fn is_experiment_yaml(text: &str) -> bool {
    if let Some(verdict) = modeline(text) {
        return verdict;
    }
    let mut experiment = false;
    for key in top_level_keys(text).take(2000) {
        if FOREIGN_KEYS.contains(&key) {
            return false;
        }
        experiment |= EXPERIMENT_KEYS.contains(&key);
    }
    experiment
}

/// `# stagec: experiment` or a `yaml-language-server` modeline naming the
/// experiment schema, in the comment lines that open the file. `Some(false)`
/// for a modeline naming another schema.
fn modeline(text: &str) -> Option<bool> {
    for line in text.lines().take(50) {
        let line = line.trim();
        if line.is_empty() || line == "---" {
            continue;
        }
        let Some(comment) = line.strip_prefix('#') else {
            // Modelines may also follow the first keys; keep looking a while.
            continue;
        };
        let comment = comment.trim();
        if let Some(rest) = comment.strip_prefix("stagec:") {
            if rest.trim() == "experiment" {
                return Some(true);
            }
        }
        if let Some(rest) = comment.strip_prefix("yaml-language-server:") {
            if let Some(schema) = rest.trim().strip_prefix("$schema=") {
                return Some(schema.trim().ends_with("experiment.schema.json"));
            }
        }
    }
    None
}

/// Keys written at column 0 (`key:`), read from the text so that
/// half-typed YAML still classifies.
fn top_level_keys(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|line| {
        let first = line.chars().next()?;
        if first.is_whitespace() || matches!(first, '#' | '-' | '{' | '[' | '%') {
            return None;
        }
        let (key, _) = line.split_once(':')?;
        Some(key.trim().trim_matches(['"', '\'']))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let seed = "# const.yaml\nname: x\nentrypoint: python train.py\n";
        assert_eq!(classify("/p/const.yaml", seed), DocumentKind::Experiment);
        let k8s = "apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n";
        assert_eq!(classify("/p/pod.yaml", k8s), DocumentKind::OtherYaml);
        let ci = "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n";
        assert_eq!(classify("ci.yml", ci), DocumentKind::OtherYaml);
        assert_eq!(
            classify("a.yaml", "# stagec: experiment\nname: x\n"),
            DocumentKind::Experiment
        );
        let modeline = "# yaml-language-server: $schema=../schemas/experiment.schema.json\nfoo: 1\n";
        assert_eq!(classify("a.yaml", modeline), DocumentKind::Experiment);
        assert_eq!(classify("dir/stages.yaml", "stages: []"), DocumentKind::StagesYaml);
        assert_eq!(
            classify("m.py", "@stage_decorator(stage_id=0)\nclass A: pass"),
            DocumentKind::Python
        );
        assert_eq!(classify("m.py", "import os"), DocumentKind::OtherPython);
        assert_eq!(classify("notes.md", "entrypoint:"), DocumentKind::Other);
    }
}
