// Rust names for run-symbols.sh: rs::make_vec builds 10 vectors of 32768 B
// through vec! (the alloc crate), kept by rs::store::keep_many; rs::main
// reserves 64 slots (1536 B).  Everything is leaked on purpose.
use std::hint::black_box;

#[inline(never)]
fn make_vec(n: usize) -> Vec<u8> {
    let v = vec![1u8; n];
    black_box(v)
}

mod store {
    #[inline(never)]
    pub fn keep_many(out: &mut Vec<Vec<u8>>) {
        for _ in 0..10 {
            out.push(crate::make_vec(32768));
        }
    }
}

fn main() {
    let mut out = Vec::with_capacity(64);
    store::keep_many(&mut out);
    black_box(&out);
    std::mem::forget(out);
}
