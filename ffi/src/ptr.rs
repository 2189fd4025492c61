//! The only module that touches raw pointers: every read from and write to caller memory goes
//! through these few functions, each unsafe block with the argument for why it is sound.
//!
//! The contract, stated once in the header and relied on here: a non-NULL pointer a caller
//! passes points to memory it owns, valid for the length it passes alongside (or for one value
//! of the pointed-to type), for the duration of the call, and not written by anyone else
//! during it. NULL is always checked; alignment is never assumed (reads and writes of structs
//! are unaligned, so a JavaScript or C# caller need not align anything); lengths above
//! `isize::MAX` are refused before any slice is formed.

#![allow(unsafe_code)]

use core::ffi::c_char;
use core::ptr;

use crate::error::Error;
use crate::types::PogoStatus;

/// A place to write one `T` to: a caller's out-parameter, checked non-NULL.
#[derive(Debug)]
pub struct Out<T> {
    ptr: *mut T,
}

/// Checks an out-parameter before any work is done, so a NULL one fails the call without
/// side effects (a created object is not leaked for want of a place to put its handle).
pub fn out<T: Copy>(ptr: *mut T, what: &str) -> Result<Out<T>, Error> {
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    Ok(Out { ptr })
}

/// An optional out-parameter: NULL means the caller does not want the value.
pub fn out_optional<T: Copy>(ptr: *mut T) -> Option<Out<T>> {
    (!ptr.is_null()).then_some(Out { ptr })
}

impl<T: Copy> Out<T> {
    pub fn write(self, value: T) {
        // SAFETY: `ptr` is non-NULL (checked in `out`) and, by the call's contract, valid for
        // writing one `T`; `write_unaligned` needs no alignment and drops nothing (T: Copy).
        unsafe { ptr::write_unaligned(self.ptr, value) }
    }
}

/// Reads one `T` (a definition or input struct) the caller passed by pointer.
pub fn read<T: Copy>(ptr: *const T, what: &str) -> Result<T, Error> {
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    // SAFETY: non-NULL, and by the call's contract valid for reading one `T`, which the
    // caller initialised (every `T` used here is plain integers and raw pointers, for which
    // every bit pattern is a valid value, so no read can produce an invalid `T`).
    Ok(unsafe { ptr::read_unaligned(ptr) })
}

/// The `len` bytes at `ptr` (NULL is fine when `len` is 0).
pub fn bytes<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8], Error> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    if len > isize::MAX as usize {
        return Err(Error::invalid(format_args!(
            "{what}: length {len} is too large"
        )));
    }
    // SAFETY: non-NULL, `len` ≤ isize::MAX, and by the call's contract the caller's memory is
    // valid for reading `len` bytes and not mutated during the call; `u8` has alignment 1 and
    // no invalid bit patterns. The slice does not outlive the call: callers copy what they
    // keep.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// The `len` bytes at `ptr` as UTF-8 text.
pub fn text<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str, Error> {
    let bytes = bytes(ptr.cast::<u8>(), len, what)?;
    core::str::from_utf8(bytes).map_err(|e| {
        Error::invalid(format_args!(
            "{what} is not UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })
}

/// Copies `len` values of `T` from `ptr` (NULL is fine when `len` is 0), element by element
/// without assuming alignment. `len` must be at most `max` (checked before reading).
pub fn array<T: Copy>(ptr: *const T, len: usize, max: usize, what: &str) -> Result<Vec<T>, Error> {
    if len > max {
        return Err(Error::invalid(format_args!(
            "{what}: {len} elements, at most {max} are allowed"
        )));
    }
    if len == 0 {
        return Ok(Vec::new());
    }
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    let mut values = Vec::with_capacity(len);
    for i in 0..len {
        // SAFETY: non-NULL, and by the call's contract valid for reading `len` values of `T`
        // (a few bytes each, `len` ≤ `max`, so `i · size_of::<T>()` stays far inside
        // isize::MAX); `wrapping_add` only computes the address, `read_unaligned` needs no
        // alignment, and every `T` used here (input structs, handles) is valid for any bits.
        values.push(unsafe { ptr::read_unaligned(ptr.wrapping_add(i)) });
    }
    Ok(values)
}

/// Like [`array`], into `buffer` instead of a new vector (for the per-tick inputs, so a step
/// allocates nothing): returns the filled prefix. `len` must be at most `buffer.len()`.
pub fn array_into<'b, T: Copy>(
    ptr: *const T,
    len: usize,
    buffer: &'b mut [T],
    what: &str,
) -> Result<&'b [T], Error> {
    if len > buffer.len() {
        return Err(Error::invalid(format_args!(
            "{what}: {len} elements, at most {} are allowed",
            buffer.len()
        )));
    }
    if len == 0 {
        return Ok(&buffer[..0]);
    }
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    for (i, slot) in buffer[..len].iter_mut().enumerate() {
        // SAFETY: as in `array`: non-NULL, valid for reading `len` values of `T` by the call's
        // contract, `i < len` ≤ 16, no alignment assumed, any bits a valid `T`.
        *slot = unsafe { ptr::read_unaligned(ptr.wrapping_add(i)) };
    }
    Ok(&buffer[..len])
}

/// Copies `values` into the caller's array at `ptr`, which holds `capacity` values of `T`
/// (the caller has already cut `values` to fit: more is refused, nothing is written). NULL
/// is fine with a capacity of 0. Byte for byte, so no alignment is assumed.
pub fn copy_array_out<T: Copy>(
    values: &[T],
    ptr: *mut T,
    capacity: usize,
    what: &str,
) -> Result<(), Error> {
    if ptr.is_null() && capacity != 0 {
        return Err(Error::new(
            PogoStatus::NullPointer,
            format_args!("{what} is NULL with a count of {capacity}"),
        ));
    }
    if values.len() > capacity {
        return Err(Error::new(
            PogoStatus::Internal,
            format_args!("{what}: {} values for room for {capacity}", values.len()),
        ));
    }
    if values.is_empty() {
        return Ok(());
    }
    // SAFETY: `ptr` is non-NULL and by the call's contract valid for writing `capacity` ≥
    // values.len() values of `T`, i.e. `size_of_val(values)` bytes (at most isize::MAX, as
    // `values` is a slice); both sides are viewed as bytes, so no alignment is needed, and
    // every `T` used here (input structs) is plain data without drop glue. `copy` (memmove)
    // is correct even if the caller's array overlaps `values`.
    unsafe {
        ptr::copy(
            values.as_ptr().cast::<u8>(),
            ptr.cast::<u8>(),
            size_of_val(values),
        );
    }
    Ok(())
}

/// Copies `data` into the caller's buffer of `capacity` bytes and writes `data.len()` to
/// `len_out`: the "how many bytes are needed" convention of every variable-length output.
///
/// - `buffer` NULL and `capacity` 0: a size query; only the length is written, status OK.
/// - `capacity` < `data.len()`: nothing is copied, the length is written,
///   `POGO_STATUS_BUFFER_TOO_SMALL`.
pub fn copy_out(
    data: &[u8],
    buffer: *mut u8,
    capacity: usize,
    len_out: Out<usize>,
) -> Result<(), Error> {
    len_out.write(data.len());
    if buffer.is_null() {
        if capacity == 0 {
            return Ok(());
        }
        return Err(Error::null("buffer (with a non-zero capacity)"));
    }
    if capacity < data.len() {
        return Err(Error::new(
            PogoStatus::BufferTooSmall,
            format_args!(
                "the buffer holds {capacity} bytes, {} are needed",
                data.len()
            ),
        ));
    }
    // SAFETY: `buffer` is non-NULL and by the call's contract valid for writing `capacity`
    // ≥ data.len() bytes; `copy` (memmove) is correct even if the caller's buffer overlaps
    // `data`, and u8 needs no alignment.
    unsafe { ptr::copy(data.as_ptr(), buffer, data.len()) };
    Ok(())
}

/// Writes `text` NUL-terminated into `buffer` of `capacity` bytes, cut at a character
/// boundary if it does not fit (`snprintf`'s convention), and returns its full length in
/// bytes, without the NUL. NULL or a zero capacity writes nothing.
pub fn write_text(text: &str, buffer: *mut c_char, capacity: usize) -> usize {
    if buffer.is_null() || capacity == 0 {
        return text.len();
    }
    let mut end = text.len().min(capacity - 1);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    // SAFETY: `buffer` is non-NULL and by the call's contract valid for writing `capacity`
    // bytes; `end` + 1 ≤ capacity bytes are written (the text, then the NUL).
    unsafe {
        ptr::copy(text.as_ptr(), buffer.cast::<u8>(), end);
        ptr::write(buffer.cast::<u8>().wrapping_add(end), 0);
    }
    text.len()
}
