//! The `nvidia-smi --query-gpu=… --format=csv` reader: one host, one node.

use super::*;

/// One comma-separated field, trimmed, with its span.
struct Field<'t> {
    text: &'t str,
    span: Span,
}

/// The columns a header names.
#[derive(Default)]
struct Columns {
    name: Option<usize>,
    compute_cap: Option<usize>,
    memory: Option<usize>,
    driver: Option<usize>,
    width: usize,
}

/// What one data row says.
struct Row {
    name: String,
    name_span: Span,
    memory_mib: Option<u64>,
    cc: Option<(u32, u32)>,
    /// `driver_version`, with its span.
    driver: Option<(String, Span)>,
}

/// `550.54.15`: a driver release (three or more dotted numbers).
fn is_driver(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() >= 3 && parts.iter().all(|p| is_integer(p))
}

/// Non-empty lines with their byte offsets.
fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let line = piece.trim_end_matches(['\n', '\r']);
        if !line.trim().is_empty() {
            out.push((start, line));
        }
        start += piece.len();
    }
    out
}

fn fields(line: &str, at: usize) -> Vec<Field<'_>> {
    let mut out = Vec::new();
    let mut offset = 0;
    for raw in line.split(',') {
        let lead = raw.len() - raw.trim_start_matches([' ', '\t', '\u{feff}', '"']).len();
        let text = raw.trim_matches([' ', '\t', '\u{feff}', '"']);
        let start = at + offset + lead;
        out.push(Field {
            text,
            span: Span::new(start, start + text.len()),
        });
        offset += raw.len() + 1;
    }
    out
}

/// A header field's column name: `memory.total [MiB]` → `memory.total`.
fn column_name(field: &str) -> String {
    let base = field.split('[').next().unwrap_or(field);
    base.trim().to_ascii_lowercase()
}

fn header(fields: &[Field<'_>]) -> Option<Columns> {
    let mut cols = Columns {
        width: fields.len(),
        ..Columns::default()
    };
    for (i, f) in fields.iter().enumerate() {
        match column_name(f.text).as_str() {
            "name" | "gpu_name" => cols.name = Some(i),
            "compute_cap" => cols.compute_cap = Some(i),
            "memory.total" => cols.memory = Some(i),
            "driver_version" => cols.driver = Some(i),
            _ => {}
        }
    }
    cols.name.map(|_| cols)
}

/// `143771 MiB` or `143771` → 143771; `[N/A]` → `None`.
fn memory(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.strip_suffix("MiB").unwrap_or(s);
    parse_u64(digits)
}

fn is_integer(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// A data row without a header: fields classified by content. An integer
/// below 1024 is the index, a larger one (or `N MiB`) the memory, `d.d`
/// the compute capability, the first other field with a letter the name.
fn row_by_content(fields: &[Field<'_>]) -> Option<Row> {
    let mut name: Option<&Field<'_>> = None;
    let mut memory_mib = None;
    let mut cc = None;
    let mut driver = None;
    let mut numeric = false;
    for f in fields {
        let t = f.text;
        if is_driver(t) {
            driver = Some((t.to_string(), f.span));
        } else if t.strip_suffix("MiB").is_some_and(|d| is_integer(d.trim())) {
            memory_mib = memory(t);
            numeric = true;
        } else if is_integer(t) {
            let v = parse_u64(t);
            if v.is_some_and(|v| v >= 1024) {
                memory_mib = v;
            }
            numeric = true;
        } else if let Some(c) = parse_cc(t).filter(|_| t.bytes().all(|b| b.is_ascii_digit() || b == b'.')) {
            cc = Some(c);
            numeric = true;
        } else if t == "[N/A]" {
        } else if name.is_none() && t.chars().any(|c| c.is_ascii_alphabetic()) {
            name = Some(f);
        } else {
            return None;
        }
    }
    let name = name.filter(|_| numeric && fields.len() >= 2)?;
    Some(Row {
        name: name.text.to_string(),
        name_span: name.span,
        memory_mib,
        cc,
        driver,
    })
}

fn row_by_header(cols: &Columns, fields: &[Field<'_>]) -> Option<Row> {
    if fields.len() != cols.width {
        return None;
    }
    let name = fields.get(cols.name?)?;
    if name.text.is_empty() {
        return None;
    }
    Some(Row {
        name: name.text.to_string(),
        name_span: name.span,
        memory_mib: cols.memory.and_then(|i| fields.get(i)).and_then(|f| memory(f.text)),
        cc: cols
            .compute_cap
            .and_then(|i| fields.get(i))
            .and_then(|f| parse_cc(f.text)),
        driver: cols
            .driver
            .and_then(|i| fields.get(i))
            .filter(|f| is_driver(f.text) || is_integer(f.text))
            .map(|f| (f.text.to_string(), f.span)),
    })
}

/// Reads `nvidia-smi` CSV; `None` when the text is not CSV of that kind.
pub(super) fn read(file: FileId, text: &str, issues: &mut Vec<InventoryIssue>) -> Option<Inventory> {
    let lines = lines(text);
    let &(first_at, first) = lines.first()?;
    let first_fields = fields(first, first_at);
    let cols = header(&first_fields);
    if cols.is_none() && first_fields.len() < 2 {
        return None;
    }
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    match &cols {
        Some(cols) => {
            for &(at, line) in lines.iter().skip(1) {
                match row_by_header(cols, &fields(line, at)) {
                    Some(row) => rows.push(row),
                    None => bad.push((at, line)),
                }
            }
        }
        None => {
            // Without a header every line must look like a GPU row.
            for &(at, line) in &lines {
                rows.push(row_by_content(&fields(line, at))?);
            }
        }
    }
    for (at, line) in bad {
        issues.push(InventoryIssue::BadCsvRow {
            at: Span::new(at, at + line.len()),
            fields: cols.as_ref().map_or(0, |c| c.width),
        });
    }
    // One host: the driver of its first row that gives one.
    let driver = rows.iter().find_map(|r| r.driver.clone()).map(|(value, span)| Located {
        value,
        loc: Loc { file, span },
    });
    // One entry per distinct (name, memory, compute capability).
    let mut groups: Vec<(Row, u32)> = Vec::new();
    for row in rows {
        match groups
            .iter_mut()
            .find(|(g, _)| g.name == row.name && g.memory_mib == row.memory_mib && g.cc == row.cc)
        {
            Some((_, n)) => *n = n.saturating_add(1),
            None => groups.push((row, 1)),
        }
    }
    let mut gpus = Vec::new();
    for (row, count) in groups {
        let loc = Loc {
            file,
            span: row.name_span,
        };
        let gpu = build_gpu(&row.name, None, count, row.memory_mib, row.cc, loc);
        if !gpu.is_known() {
            issues.push(InventoryIssue::UnknownGpu {
                at: row.name_span,
                label: row.name.clone(),
                source: GpuSource::NvidiaSmi,
                count,
            });
        }
        gpus.push(gpu);
    }
    Some(Inventory {
        format: InventoryFormat::NvidiaSmi,
        nodes: vec![InvNode {
            name: NVIDIA_SMI_NODE.to_string(),
            loc: Loc {
                file,
                span: Span::new(first_at, first_at + first.len()),
            },
            gpus,
            labels: BTreeMap::new(),
            driver,
        }],
        skipped: Vec::new(),
    })
}
