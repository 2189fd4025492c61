//! Memory for hosts that cannot hand this library pointers into their own memory — the
//! WebAssembly build, whose callers (JavaScript) can only pass offsets into the module's
//! linear memory. `pogo_alloc` returns a zeroed block; `pogo_dealloc` frees it and refuses
//! any pointer it did not return (instead of corrupting the heap, as `free` would).
//!
//! Blocks are `Vec<u64>`s (8-byte aligned, so a JavaScript caller may lay a `Float64Array` or
//! `BigInt64Array` over one) kept in a map by address: no unsafe code, and a freed block's
//! address is forgotten, so a double free is an error, not a crash.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::error::Error;

/// Largest block (bytes): more than the largest level file (64 MiB) a caller passes in.
pub(crate) const ALLOC_BYTES_MAX: usize = 128 << 20;

/// Most blocks alive at once.
pub(crate) const ALLOCS_MAX: usize = 4096;

static BLOCKS: Mutex<BTreeMap<usize, Vec<u64>>> = Mutex::new(BTreeMap::new());

/// A zeroed, 8-byte aligned block of `len` bytes (1…`ALLOC_BYTES_MAX`).
pub fn alloc(len: usize) -> Result<*mut u8, Error> {
    if len == 0 || len > ALLOC_BYTES_MAX {
        return Err(Error::invalid(format_args!(
            "pogo_alloc({len}): the length must be 1…{ALLOC_BYTES_MAX}"
        )));
    }
    let mut blocks = BLOCKS.lock().unwrap_or_else(|p| p.into_inner());
    if blocks.len() >= ALLOCS_MAX {
        return Err(Error::limit(format_args!(
            "{ALLOCS_MAX} blocks are allocated: free some with pogo_dealloc"
        )));
    }
    let mut block = vec![0u64; len.div_ceil(8)];
    let ptr = block.as_mut_ptr().cast::<u8>();
    // Moving the Vec into the map moves its (pointer, length, capacity), not its bytes.
    blocks.insert(ptr as usize, block);
    Ok(ptr)
}

/// Frees a block `alloc` returned.
pub fn dealloc(ptr: *mut u8) -> Result<(), Error> {
    let mut blocks = BLOCKS.lock().unwrap_or_else(|p| p.into_inner());
    match blocks.remove(&(ptr as usize)) {
        Some(_) => Ok(()),
        None if ptr.is_null() => Err(Error::null("pointer")),
        None => Err(Error::invalid(format_args!(
            "pogo_dealloc: {ptr:p} is not a block from pogo_alloc (or was freed already)"
        ))),
    }
}

/// Blocks alive.
pub fn live() -> usize {
    BLOCKS.lock().unwrap_or_else(|p| p.into_inner()).len()
}
