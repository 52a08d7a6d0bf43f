//! Measures how long each encoding's embedded BPE tables take to load (decode and build the
//! tokenizer), the cost a process pays on its first count in that encoding.
//!
//! `cargo run --release --example bpe_load [ROUNDS]`: each round loads every encoding's tables
//! afresh ([`gnaw::count::tables::load`]); the table shows the best and median round.

use std::time::{Duration, Instant};

use gnaw::count::{Encoding, tables};

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    println!("| encoding | stored | best | median |");
    println!("|---|---|---|---|");
    for e in Encoding::ALL {
        let mut times: Vec<Duration> = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                let bpe = tables::load(e).expect("the embedded tables load");
                let took = start.elapsed();
                drop(bpe);
                took
            })
            .collect();
        times.sort();
        println!(
            "| {} | {:.1} MB | {} ms | {} ms |",
            e.name(),
            tables::embedded(e).len() as f64 / 1e6,
            times[0].as_millis(),
            times[times.len() / 2].as_millis()
        );
    }
}
