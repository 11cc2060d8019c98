//! Benchmarks only: `cargo bench -p lrank-bench --bench engine` (see `benches/engine.rs`).
