//! Structure-aware hostile input (issue 9) through the public API: YAML with
//! anchors, aliases and merges, numbers beyond 64 bits, odd line endings,
//! decorators with extreme arguments, NodeLists with counts that are not
//! counts. The invariant: never a panic; every diagnostic inside its own
//! file, on character boundaries, with a message; every format renders.
//!
//! A runaway allocation (a stage id of 4,000,000,000 once allocated a list
//! of every missing id) must not take the machine with it: the test process
//! limits its own address space to 4 GiB on Linux, so such a bug ends in an
//! allocation failure (the process aborts with "memory allocation of N bytes
//! failed") instead of swapping.

mod common;
#[path = "common/hostile_gen.rs"]
mod hostile_gen;

use hostile_gen::{eol, experiment_config, nodelist, python_model, stages_yaml, yaml_document, Eol};
use proptest::prelude::*;
use stagec::compile::{compile, Compiled};
use stagec::project::{Input, Project};

fn limit_address_space() {
    #[cfg(target_os = "linux")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            #[repr(C)]
            struct RLimit {
                cur: std::os::raw::c_ulong,
                max: std::os::raw::c_ulong,
            }
            extern "C" {
                fn setrlimit(resource: std::os::raw::c_int, rlim: *const RLimit) -> std::os::raw::c_int;
            }
            const RLIMIT_AS: std::os::raw::c_int = 9;
            let bytes = 4 << 30;
            // SAFETY: a plain system call on a value we own; failing to set
            // the limit only loses the guard.
            unsafe {
                setrlimit(RLIMIT_AS, &RLimit { cur: bytes, max: bytes });
            }
        });
    }
}

/// Every diagnostic inside its own file, on character boundaries, with a
/// message; every format renders.
fn well_formed(checked: &Compiled) -> Result<(), TestCaseError> {
    for d in &checked.diagnostics {
        let text = &checked
            .sources
            .get(d.file)
            .ok_or_else(|| TestCaseError::fail(format!("{d:?}: unknown file")))?
            .text;
        prop_assert!(
            d.span.start <= d.span.end && d.span.end <= text.len(),
            "{d:?} outside {} bytes",
            text.len()
        );
        prop_assert!(
            text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end),
            "{d:?} splits a character"
        );
        prop_assert!(!d.message.is_empty(), "{d:?} has no message");
    }
    let _ = common::render(checked);
    Ok(())
}

fn input(name: &str, text: String) -> Input {
    Input {
        name: name.into(),
        bytes: text.into_bytes(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Anchors, aliases, `<<` merges of aliases, lists and scalars, quoted
    /// `"<<"`, directives, huge numbers, odd line endings.
    #[test]
    fn yaml_documents_never_panic(doc in yaml_document(), eol in eol()) {
        limit_address_space();
        let checked = common::check("const.yaml", eol.apply(&doc).as_bytes());
        well_formed(&checked)?;
    }

    /// The valid experiment with hostile numbers (2^64+1, 1e400, .nan, …)
    /// where counts go, and hostile YAML beside it.
    #[test]
    fn experiment_configs_never_panic(config in experiment_config(), eol in eol()) {
        limit_address_space();
        let checked = common::check("const.yaml", eol.apply(&config).as_bytes());
        well_formed(&checked)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A config with a model (decorators with extreme arguments), maybe a
    /// `stages.yaml` and a NodeList, checked together: the stage graph, the
    /// pipeline arithmetic and the hardware match.
    #[test]
    fn projects_never_panic(
        config in experiment_config(),
        model in python_model(),
        stages in prop::option::of(stages_yaml()),
        inventory in prop::option::of(nodelist()),
        config_eol in eol(),
        model_eol in eol(),
    ) {
        limit_address_space();
        let mut models = vec![input("model.py", model_eol.apply(&model))];
        if let Some(s) = stages {
            models.push(input("stages.yaml", s));
        }
        let project = Project {
            config: input("const.yaml", config_eol.apply(&config)),
            models: Some(models),
            inventory: inventory.map(|i| input("inventory.json", i)),
            probe: None,
            searched: "test".into(),
            training: None,
        };
        let checked = compile(&project, &stagec::Options::default());
        well_formed(&checked)?;
    }

    /// The valid experiment with a generated model alone: what the model
    /// declares meets a config that otherwise checks clean.
    #[test]
    fn models_beside_a_valid_config_never_panic(model in python_model(), eol in eol()) {
        limit_address_space();
        let project = Project {
            config: input("const.yaml", hostile_gen::VALID_CONFIG.to_string()),
            models: Some(vec![input("model.py", eol.apply(&model))]),
            inventory: None,
            probe: None,
            searched: "test".into(),
            training: None,
        };
        let checked = compile(&project, &stagec::Options::default());
        well_formed(&checked)?;
    }
}

/// The generators produce what they promise (a guard against a generator
/// that silently stops producing its hostile shapes).
#[test]
fn generators_cover_the_hostile_shapes() {
    fn sample(s: impl Strategy<Value = String>) -> String {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        (0..400)
            .map(|_| s.new_tree(&mut runner).expect("tree").current())
            .collect::<Vec<_>>()
            .join("\n")
    }
    let docs = sample(yaml_document());
    for shape in ["<<", "&a", "*a", "\"<<\"", "%YAML 9.9"] {
        assert!(docs.contains(shape), "no `{shape}` in generated YAML");
    }
    let models = sample(python_model());
    for shape in [
        "stage_id=4000000000",
        "stage_id=-1",
        "stage_id=2**70",
        "@stage_decorator\n",
    ] {
        assert!(models.contains(shape), "no `{shape}` in generated models");
    }
    let lists = sample(nodelist());
    assert!(lists.contains("\"items\": {"), "no NodeList with items as an object");
    assert!(lists.contains("\"-4\""), "no negative count");
    let cr = Eol::Cr.apply("a\nb\n");
    assert_eq!(cr, "a\rb\r");
}
