//! The memory limit: a global allocator that counts the bytes live in the process and aborts
//! it, with a message the supervisor recognises, when an allocation would pass the limit. An
//! abort (not a null pointer, not a panic: an allocator may not unwind) ends the worker; the
//! supervisor sees the message on its stderr and records the input as a memory failure.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the worker prints before it aborts; the supervisor looks for it.
pub const OVER_LIMIT: &str = "scalinglaws-fuzz: allocation over the memory limit";

pub struct CountingAllocator {
    live: AtomicUsize,
    limit: AtomicUsize,
}

impl CountingAllocator {
    pub const fn new() -> CountingAllocator {
        CountingAllocator {
            live: AtomicUsize::new(0),
            limit: AtomicUsize::new(usize::MAX),
        }
    }

    /// Sets the limit of live bytes (the worker sets it; the supervisor has none).
    pub fn set_limit(&self, bytes: usize) {
        self.limit.store(bytes, Ordering::Relaxed);
    }

    fn reserve(&self, size: usize) {
        let live = self.live.fetch_add(size, Ordering::Relaxed);
        let limit = self.limit.load(Ordering::Relaxed);
        if live.saturating_add(size) > limit {
            over_limit(size, live, limit);
        }
    }

    fn release(&self, size: usize) {
        self.live.fetch_sub(size, Ordering::Relaxed);
    }
}

/// Writes the message without allocating and aborts.
fn over_limit(size: usize, live: usize, limit: usize) -> ! {
    let mut buffer = [0u8; 256];
    let mut cursor: &mut [u8] = &mut buffer;
    let _ = writeln!(
        cursor,
        "{OVER_LIMIT}: {size} bytes asked with {live} live, limit {limit}"
    );
    let written = 256 - cursor.len();
    let _ = std::io::stderr().write_all(&buffer[..written]);
    std::process::abort()
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.reserve(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.reserve(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.release(layout.size());
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            self.reserve(new_size - layout.size());
        } else {
            self.release(layout.size() - new_size);
        }
        System.realloc(ptr, layout, new_size)
    }
}
