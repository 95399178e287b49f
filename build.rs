//! Reads the data files compiled into stagec — the GPU catalog
//! (`src/hardware/gpus.json`) and the runtime tables (`src/runtime/data/*.json`)
//! — with the library's own types, and writes them as Rust tables into the
//! build's output folder, so a check decodes no JSON and builds no index.
//! A data file that does not read stops the build with the reason.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[path = "src/hardware/catalog_data.rs"]
mod catalog_data;
#[path = "src/hardware/catalog_keys.rs"]
mod catalog_keys;
#[path = "src/runtime/data_rows.rs"]
mod data_rows;

use catalog_data::{CatalogData, Gpu};
use data_rows::{ArchRow, DatedBase, DriverRow, EnvMatch, EnvRow, File, ImageRow, NgcRow, TorchRow};

fn main() {
    for path in [
        "build.rs",
        "src/hardware/catalog_data.rs",
        "src/hardware/catalog_keys.rs",
        "src/hardware/gpus.json",
        "src/runtime/data_rows.rs",
        "src/runtime/data",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_else(|| fail("OUT_DIR is not set")));
    write(&out.join("gpus.rs"), &catalog());
    write(&out.join("runtime_tables.rs"), &runtime_tables());
}

fn fail(why: &str) -> ! {
    eprintln!("stagec build: {why}");
    std::process::exit(1)
}

/// A data file, by its path from the package root.
fn read(path: &str) -> String {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| fail(&format!("{path}: {e}")))
}

fn write(path: &Path, text: &str) {
    if let Err(e) = std::fs::write(path, text) {
        fail(&format!("{}: {e}", path.display()));
    }
}

/// `gpus.json`: the variants (made into a vector on first use), the families
/// and the name index as sorted tables.
fn catalog() -> String {
    let path = "src/hardware/gpus.json";
    let text = read(path);
    let data: CatalogData = serde_json::from_str(&text).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    if data.gpus.len() > usize::from(u16::MAX) {
        fail(&format!("{path}: more variants than an index entry can name"));
    }
    let index = catalog_keys::build(&data.gpus, &data.families);
    let mut s = String::from("// Written by build.rs from src/hardware/gpus.json.\n\n");
    s.push_str("/// The variants, in file order.\npub(super) fn gpus() -> Vec<Gpu> {\n    vec![\n");
    for g in &data.gpus {
        let _ = writeln!(s, "        {},", gpu(g));
    }
    s.push_str("    ]\n}\n\n");
    s.push_str("/// Family ids and display names, sorted by id.\npub(super) static FAMILIES: &[(&str, &str)] = &[\n");
    for (id, family) in &data.families {
        let _ = writeln!(s, "    ({id:?}, {:?}),", family.name);
    }
    s.push_str("];\n\n");
    s.push_str("/// Full normalized driver names → variant, sorted.\npub(super) static DRIVER: &[(&str, u16)] = &[\n");
    for (key, i) in &index.driver {
        let _ = writeln!(s, "    ({key:?}, {i}),");
    }
    s.push_str("];\n\n");
    for (name, doc, table) in [
        (
            "NAMES",
            "Names without vendor prefix → (rank, variants), sorted.",
            &index.names,
        ),
        (
            "COMPACT",
            "Names without `-` → (rank, variants), sorted.",
            &index.compact,
        ),
    ] {
        let _ = writeln!(s, "/// {doc}\npub(super) static {name}: &[(&str, (u8, &[u16]))] = &[");
        for (key, rank, targets) in table {
            let list: Vec<String> = targets.iter().map(usize::to_string).collect();
            let _ = writeln!(s, "    ({key:?}, ({rank}, &[{}])),", list.join(", "));
        }
        s.push_str("];\n\n");
    }
    s.push_str("/// Names for completion, sorted.\npub(super) static KNOWN: &[&str] = &[\n");
    for name in &index.known {
        let _ = writeln!(s, "    {name:?},");
    }
    s.push_str("];\n");
    s
}

fn string(s: &str) -> String {
    format!("String::from({s:?})")
}

fn strings(list: &[String]) -> String {
    let items: Vec<String> = list.iter().map(|s| string(s)).collect();
    format!("vec![{}]", items.join(", "))
}

fn option<T>(value: &Option<T>, lit: impl Fn(&T) -> String) -> String {
    value
        .as_ref()
        .map_or_else(|| "None".to_string(), |v| format!("Some({})", lit(v)))
}

fn float(f: &f64) -> String {
    format!("{f:?}")
}

/// A variant as a struct expression (every field named, so a field added
/// to `Gpu` and not here fails the build).
fn gpu(g: &Gpu) -> String {
    let Gpu {
        id,
        family,
        name,
        architecture,
        compute_capability: (major, minor),
        form_factor,
        form_aliases,
        memory_gb,
        memory_type,
        memory_mib,
        memory_bandwidth_gbps,
        interconnect,
        driver_names,
        tflops,
        aliases,
        notes,
    } = g;
    let catalog_data::Interconnect {
        kind,
        generation,
        bandwidth_gbps,
        note,
    } = interconnect;
    let catalog_data::PeakTflops {
        fp32,
        tf32,
        fp16,
        bf16,
        fp8,
        int8,
        fp4,
    } = tflops;
    format!(
        "Gpu {{ id: {}, family: {}, name: {}, architecture: Architecture::{architecture:?}, \
         compute_capability: ({major}, {minor}), form_factor: {}, form_aliases: {}, memory_gb: {memory_gb}, \
         memory_type: {}, memory_mib: {memory_mib}, memory_bandwidth_gbps: {}, \
         interconnect: Interconnect {{ kind: LinkKind::{kind:?}, generation: {}, bandwidth_gbps: {}, note: {} }}, \
         driver_names: {}, tflops: PeakTflops {{ fp32: {}, tf32: {}, fp16: {}, bf16: {}, fp8: {}, int8: {}, fp4: {} }}, \
         aliases: {}, notes: {} }}",
        string(id),
        string(family),
        string(name),
        option(form_factor, |s| string(s)),
        strings(form_aliases),
        string(memory_type),
        float(memory_bandwidth_gbps),
        option(generation, u32::to_string),
        option(bandwidth_gbps, float),
        option(note, |s| string(s)),
        strings(driver_names),
        option(fp32, float),
        option(tf32, float),
        option(fp16, float),
        option(bf16, float),
        option(fp8, float),
        option(int8, float),
        option(fp4, float),
        strings(aliases),
        strings(notes),
    )
}

/// The runtime tables as statics. A list inside a row becomes a static
/// array of its own (`L<n>`), which the row borrows.
fn runtime_tables() -> String {
    let mut g = Statics::default();
    let mut s = String::from("// Written by build.rs from src/runtime/data/*.json.\n\n");
    table::<ImageRow>(&mut s, &mut g, "IMAGES", "images.json");
    table::<TorchRow>(&mut s, &mut g, "TORCH_BUILDS", "torch_builds.json");
    table::<TorchRow>(&mut s, &mut g, "TORCH_DTYPES", "torch_dtypes.json");
    table::<ArchRow>(&mut s, &mut g, "ARCHITECTURES", "architectures.json");
    table::<DriverRow>(&mut s, &mut g, "CUDA_DRIVERS", "cuda_drivers.json");
    table::<NgcRow>(&mut s, &mut g, "NGC_PYTORCH", "ngc_pytorch.json");
    table::<EnvRow>(&mut s, &mut g, "DEBUG_ENV", "debug_env.json");
    s.push_str(&g.text);
    s
}

fn table<R: serde::Deserialize<'static> + Lit>(s: &mut String, g: &mut Statics, name: &str, file: &str) {
    let path = format!("src/runtime/data/{file}");
    // The rows borrow the text for as long as the build script runs.
    let text: &'static str = Box::leak(read(&path).into_boxed_str());
    let rows: File<R> = serde_json::from_str(text).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let _ = writeln!(
        s,
        "/// The rows of `{file}`.\npub(super) static {name}: &[{}] = &[",
        R::ty()
    );
    for row in &rows.rows {
        let _ = writeln!(s, "    {},", row.lit(g));
    }
    s.push_str("];\n\n");
}

/// The arrays rows borrow, in the order they were met.
#[derive(Default)]
struct Statics {
    text: String,
    count: usize,
}

/// A value as a Rust expression of its type with `'static` lifetimes.
trait Lit {
    fn ty() -> String;
    fn lit(&self, g: &mut Statics) -> String;
}

impl Lit for Cow<'_, str> {
    fn ty() -> String {
        "Cow<'static, str>".into()
    }
    fn lit(&self, _: &mut Statics) -> String {
        format!("Cow::Borrowed({:?})", &**self)
    }
}

impl Lit for bool {
    fn ty() -> String {
        "bool".into()
    }
    fn lit(&self, _: &mut Statics) -> String {
        self.to_string()
    }
}

impl Lit for u32 {
    fn ty() -> String {
        "u32".into()
    }
    fn lit(&self, _: &mut Statics) -> String {
        self.to_string()
    }
}

impl<T: Lit> Lit for Option<T> {
    fn ty() -> String {
        format!("Option<{}>", T::ty())
    }
    fn lit(&self, g: &mut Statics) -> String {
        match self {
            Some(v) => format!("Some({})", v.lit(g)),
            None => "None".to_string(),
        }
    }
}

impl<T: Lit + Clone> Lit for Cow<'_, [T]> {
    fn ty() -> String {
        format!("Cow<'static, [{}]>", T::ty())
    }
    fn lit(&self, g: &mut Statics) -> String {
        if self.is_empty() {
            return "Cow::Borrowed(&[])".to_string();
        }
        let items: Vec<String> = self.iter().map(|v| v.lit(g)).collect();
        g.count += 1;
        let name = format!("L{}", g.count);
        let _ = writeln!(
            g.text,
            "static {name}: [{}; {}] = [{}];",
            T::ty(),
            items.len(),
            items.join(", ")
        );
        format!("Cow::Borrowed(&{name})")
    }
}

/// A row type: its expression names every field (destructured without
/// `..`, so a field added to the type and not here fails the build).
macro_rules! row {
    ($ty:ident, $($field:ident),* $(,)?) => {
        impl Lit for $ty<'_> {
            fn ty() -> String {
                concat!(stringify!($ty), "<'static>").into()
            }
            fn lit(&self, g: &mut Statics) -> String {
                let $ty { $($field),* } = self;
                let mut s = String::from(concat!(stringify!($ty), " { "));
                $(
                    s.push_str(concat!(stringify!($field), ": "));
                    s.push_str(&$field.lit(g));
                    s.push_str(", ");
                )*
                s.push('}');
                s
            }
        }
    };
}

row!(
    ImageRow,
    kind,
    id,
    repository,
    regex,
    image,
    cuda,
    torch,
    python,
    rocm,
    known_published,
    base,
    determined_from,
    determined_to,
    gpu_image,
    image_family,
    base_image,
    base_images,
);
row!(DatedBase, image, from, to);
row!(
    TorchRow,
    kind,
    torch,
    channel,
    variant,
    arch_list,
    includes,
    ptx,
    pip_variants,
    pypi_default,
    name,
    first_torch,
);
row!(ArchRow, kind, cc, sm, arch, first_cuda, first_cuda_at_most, removed_in);
row!(
    DriverRow,
    kind,
    cuda,
    release,
    min_driver,
    cuda_major,
    cuda_from,
    cuda_to,
    host_branches,
);
row!(
    NgcRow,
    kind,
    tag,
    cuda,
    driver,
    torch,
    torch_version,
    torch_cuda_arch_list,
    requires_driver_branch,
);
row!(EnvRow, kind, name, matches, effect, category, severity, aliases, note);
row!(EnvMatch, values, case_insensitive, any);
