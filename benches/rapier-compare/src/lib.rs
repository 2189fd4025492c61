//! Nothing here: the benchmark is `benches/compare.rs`.
