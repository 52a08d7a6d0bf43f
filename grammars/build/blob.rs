//! The stored form of a grammar's tables: deflated (zlib format, level 9), written into C as a
//! string literal that the language function inflates on first use.

use std::fmt::Write as _;

/// `raw` deflated, in zlib's format (what `uncompress` reads: header, deflate, Adler-32).
pub fn deflate(raw: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; zlib_rs::compress_bound(raw.len())];
    let (stored, rc) = zlib_rs::compress_slice(&mut out, raw, zlib_rs::DeflateConfig::new(9));
    if rc != zlib_rs::ReturnCode::Ok {
        return Err(format!("deflate failed: {rc:?}"));
    }
    let len = stored.len();
    out.truncate(len);
    Ok(out)
}

/// `bytes` as the lines of a C string literal (its `sizeof` is one more, for the NUL). Octal
/// escapes are always three digits, so a digit after one is never read into it; `?` is escaped
/// too, so no trigraph can form in a C11 compile.
pub fn c_string(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 3);
    let mut line = 0;
    text.push('"');
    for &b in bytes {
        if line >= 100 {
            text.push_str("\"\n\"");
            line = 0;
        }
        match b {
            b'"' | b'\\' | b'?' => {
                let _ = write!(text, "\\{:03o}", b);
                line += 4;
            }
            0x20..=0x7e => {
                text.push(b as char);
                line += 1;
            }
            _ => {
                let _ = write!(text, "\\{:03o}", b);
                line += 4;
            }
        }
    }
    text.push('"');
    text
}
