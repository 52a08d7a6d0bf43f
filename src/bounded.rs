//! Reads with a ceiling, and OS error text fit to show: the two small pieces every reader of an
//! untrusted file needs (file contents, ignore files, `.gnawconfig`).

use std::io::{self, Read};

/// Largest preallocation made from a size the file claims (`st_size` may lie).
const MAX_PREALLOC: u64 = 64 << 20;

/// Read `r` to its end, but never more than `max + 1` bytes. `Ok(None)` when it holds more than
/// `max` bytes, however much it claimed. `size_hint` (the file's `st_size`, or 0) sizes the
/// buffer, within `max` and 64 MiB.
pub fn read_capped(r: impl Read, max: u64, size_hint: u64) -> io::Result<Option<Vec<u8>>> {
    let cap = size_hint.min(max.saturating_add(1)).min(MAX_PREALLOC) as usize;
    let mut buf = Vec::with_capacity(cap);
    r.take(max.saturating_add(1)).read_to_end(&mut buf)?;
    Ok((buf.len() as u64 <= max).then_some(buf))
}

/// An I/O error's text without the `(os error N)` suffix, and so without anything the OS
/// appended after it: the caller shows the path itself, relative to the repo.
pub fn os_message(e: &io::Error) -> String {
    let s = e.to_string();
    s.split(" (os error").next().unwrap_or(&s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_holds_whatever_the_hint() {
        let data = [7u8; 100];
        assert_eq!(read_capped(&data[..], 100, 0).unwrap().unwrap().len(), 100);
        assert_eq!(read_capped(&data[..], 99, u64::MAX).unwrap(), None);
        assert_eq!(read_capped(io::repeat(1), 10, 5).unwrap(), None);
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(os_message(&e), "No such file or directory");
    }
}
