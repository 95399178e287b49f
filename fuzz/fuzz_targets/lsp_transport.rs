//! The language server's stdio framing (`stagec_lsp::transport::read_loop`):
//! any byte stream ends (no hang, no huge allocation) and never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (to_server, messages) = crossbeam_channel::unbounded();
    let (to_client, answers) = crossbeam_channel::unbounded();
    stagec_lsp::transport::read_loop(&mut std::io::Cursor::new(data), &to_server, &to_client);
    drop((messages, answers));
});
