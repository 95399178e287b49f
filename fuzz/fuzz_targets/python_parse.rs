//! `stagec::python::parse::parse_chunk` over every chunk of any text: when
//! it reads a chunk, tree-sitter reads the same chunk without errors into
//! the same tree.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use stagec::python::ast::parse_range;
use stagec::python::parse::parse_chunk;
use stagec::python::ParsedFile;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else { return };
    let file = ParsedFile::new(text);
    for chunk in file.chunks() {
        let Some(mine) = parse_chunk(file.text(), chunk.range.clone()) else {
            continue;
        };
        let theirs = parse_range(file.text(), file.line_starts(), chunk.range.clone());
        let Some(theirs) = theirs else {
            panic!("no tree-sitter parse of {:?}", chunk.range)
        };
        assert!(!theirs.errors, "tree-sitter finds errors in {:?}", chunk.range);
        assert_eq!(mine, theirs, "chunk {:?}", chunk.range);
    }
});
