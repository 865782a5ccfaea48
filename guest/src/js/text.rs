//! JavaScript strings as UTF-8, whatever they hold.

use rquickjs::{Ctx, FromJs, Value};

/// A JavaScript string as UTF-8, with each lone surrogate (which UTF-8 cannot hold) replaced by
/// U+FFFD, as `String.prototype.toWellFormed` does. Where code hands text to the outside
/// (output, return values, file contents), `'\ud800'` is printed, not an error: rquickjs's
/// `String` refuses such a string, and the execution used to fail with a restart.
pub struct Text(pub String);

impl<'js> FromJs<'js> for Text {
    fn from_js(ctx: &Ctx<'js>, value: Value<'js>) -> rquickjs::Result<Self> {
        let string = rquickjs::String::from_js(ctx, value)?;
        if let Ok(text) = string.to_string() {
            return Ok(Text(text));
        }
        // QuickJS writes a lone surrogate as its 3-byte WTF-8 form (0xED, 0xA0..=0xBF, ...).
        let wtf8 = string.to_cstring()?;
        // SAFETY: QuickJS's copy of the string, alive while `wtf8` is; read at once.
        let bytes = unsafe { std::slice::from_raw_parts(wtf8.as_ptr().cast::<u8>(), wtf8.len()) };
        Ok(Text(well_formed(bytes)))
    }
}

/// `bytes` (WTF-8) as UTF-8: U+FFFD for each encoded surrogate.
fn well_formed(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0xED && bytes.get(i + 1).is_some_and(|b| (0xA0..=0xBF).contains(b)) {
            out.extend_from_slice("\u{FFFD}".as_bytes());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(
            super::well_formed(b"a\xED\xA0\x80b\xED\xBF\xBF"),
            "a\u{FFFD}b\u{FFFD}"
        );
        assert_eq!(
            super::well_formed("\u{FFFD}\u{FFFD}é".as_bytes()),
            "\u{FFFD}\u{FFFD}é"
        );
    }
}
