//! Speed targets of `stagec check` (see benches/README.md for the figures):
//! - a typical 50–150-line config: < 3 ms median as a whole process, and
//!   within 2× of `stagec --version`;
//! - batch: ≥ 20 MB/s of YAML in one process, cost linear in input size.

use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use stagec::{check_experiment, Options};

const SEED: &str = include_str!("../examples/hpp-seed-fixed/const.yaml");

/// A valid config of about `lines` lines: the seed plus extra hyperparameters.
fn config_of(lines: usize) -> String {
    let mut text = SEED.replace("hyperparameters:\n", "hyperparameters:\n  # generated\n");
    let mut i = 0;
    while text.lines().count() < lines {
        let hp = format!(
            "  extra_{i}:\n    type: double\n    minval: 0.{i}\n    maxval: {}.5\n",
            i + 1
        );
        text = text.replace("  # generated\n", &format!("  # generated\n{hp}"));
        i += 1;
    }
    text
}

fn env(_: &str) -> Option<String> {
    Some("set".into())
}

fn in_process(c: &mut Criterion) {
    let opts = Options {
        env: &env,
        ..Options::default()
    };
    let mut group = c.benchmark_group("check_in_process");
    for lines in [60, 150, 600, 2400] {
        let text = config_of(lines);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(lines), &text, |b, text| {
            b.iter(|| check_experiment("const.yaml", text.as_bytes(), &opts))
        });
    }
    group.finish();
}

fn batch(c: &mut Criterion) {
    let opts = Options {
        env: &env,
        ..Options::default()
    };
    let configs: Vec<String> = (0..1000).map(|i| config_of(60 + (i % 10) * 10)).collect();
    let bytes: usize = configs.iter().map(String::len).sum();
    let mut group = c.benchmark_group("batch");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("1000_configs", |b| {
        b.iter(|| {
            configs
                .iter()
                .map(|t| check_experiment("const.yaml", t.as_bytes(), &opts).error_count())
                .sum::<usize>()
        })
    });
    group.finish();
}

fn whole_process(c: &mut Criterion) {
    let exe = env!("CARGO_BIN_EXE_stagec");
    let dir = std::env::temp_dir().join(format!("stagec-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("const.yaml");
    let _ = std::fs::write(&file, config_of(100));
    let mut group = c.benchmark_group("process");
    group.bench_function("version", |b| b.iter(|| Command::new(exe).arg("--version").output()));
    group.bench_function("check_100_lines", |b| {
        b.iter(|| {
            Command::new(exe)
                .arg("check")
                .arg("--format")
                .arg("json")
                .arg(&file)
                .env("S3_ACCESS_KEY", "x")
                .env("S3_SECRET_KEY", "x")
                .output()
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, in_process, batch, whole_process);
criterion_main!(benches);
