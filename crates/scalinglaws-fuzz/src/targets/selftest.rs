//! The driver's own target, to show that it catches what it must: the input `panic` panics,
//! `hang` sleeps past any time limit, `alloc` allocates past any memory limit, `abort` aborts
//! the process and `deep` overflows the stack; anything else passes. It is never fuzzed unless
//! named (`scalinglaws-fuzz selftest`), and the driver's tests run it.

use crate::Signature;

pub fn run(input: &[u8]) -> Signature {
    match input {
        b"panic" => panic!("the self test panics on request"),
        b"hang" => {
            std::thread::sleep(std::time::Duration::from_secs(3600));
            Signature::tag("woke")
        }
        b"alloc" => {
            let big: Vec<u8> = vec![1; 1 << 40];
            Signature::tag("allocated").mix(&big[..1])
        }
        b"abort" => std::process::abort(),
        b"deep" => Signature::tag("deep").mix(&[recurse(u64::MAX) as u8]),
        _ => Signature::tag("pass"),
    }
}

/// Recursion that never ends, with a frame the optimiser cannot remove.
fn recurse(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 64]);
    if depth == 0 {
        return frame[0];
    }
    recurse(depth - 1).wrapping_add(frame[1])
}
