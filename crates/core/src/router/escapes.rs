//! Percent-escapes of an API request target, checked before it is routed.
//! The decoding itself is lenient (an escape that is not `%` and two
//! hex digits stays as text, bytes that are not UTF-8 become U+FFFD), so
//! `?query=%ZZ` searched for the text `%ZZ` and answered 200 with nothing:
//! the client's mistake was hidden. Upstream does the same (Python's
//! `unquote`); upstream-behaviour.md §0 asks for a clear JSON error where
//! upstream silently misbehaves, in the spec's `{"errors": [...]}` shape.

use super::form_decode;

/// One message per part of `target` (the path, each parameter's name or
/// value) whose escapes cannot be decoded; empty when all can.
pub(super) fn malformed(target: &str) -> Vec<String> {
    let target = target.split('#').next().unwrap_or("");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut errors = Vec::new();
    if let Some(why) = check(path) {
        errors.push(format!("the path '{path}' {why}"));
    }
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if let Some(why) = check(key) {
            errors.push(format!("the query parameter name '{key}' {why}"));
        } else if let Some(why) = check(value) {
            errors.push(format!("query parameter '{}' {why}", form_decode(key)));
        }
    }
    errors
}

/// What is wrong with the escapes of `s`, if anything.
fn check(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut decoded = Vec::with_capacity(b.len());
    // Where in `s` each decoded byte came from, to show the bad part.
    let mut origin = Vec::with_capacity(b.len());
    let hex = |i: usize| b.get(i).and_then(|c| (*c as char).to_digit(16));
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let (Some(high), Some(low)) = (hex(i + 1), hex(i + 2)) else {
                let bad: String = s[i..].chars().take(3).collect();
                return Some(format!(
                    "has a malformed percent-escape '{bad}': '%' must be followed by two \
                     hexadecimal digits (a literal '%' is written %25)"
                ));
            };
            decoded.push((high * 16 + low) as u8);
            origin.push(i);
            i += 3;
        } else {
            decoded.push(b[i]);
            origin.push(i);
            i += 1;
        }
    }
    let e = std::str::from_utf8(&decoded).err()?;
    let at = origin[e.valid_up_to()];
    let shown: String = s.get(at..).unwrap_or("").chars().take(12).collect();
    Some(format!(
        "is not UTF-8 once its percent-escapes are decoded (at '{shown}'): text is sent as \
         the escapes of its UTF-8 bytes"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_is_checked_and_named() {
        assert!(malformed("/v2/organizations?query=100%25%20sure&page=2").is_empty());
        assert!(malformed("/v2/organizations?query=%E6%9D%B1+x&all_status").is_empty());
        let e = malformed("/v2/organizations?query=%ZZ");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].starts_with("query parameter 'query' has a malformed percent-escape '%ZZ'"),
            "{e:?}"
        );
        // A '%' at the very end, in a filter; a bad name; a page.
        let e = malformed("/v2/organizations?filter=types:education%&q%2=1&page=%2");
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(e[0].contains("'filter'") && e[0].contains("'%'"), "{e:?}");
        assert!(
            e[1].contains("name 'q%2'") && e[1].contains("'%2'"),
            "{e:?}"
        );
        assert!(e[2].contains("'page'") && e[2].contains("'%2'"), "{e:?}");
        // Escapes of bytes that are not UTF-8 (Latin-1 'é').
        let e = malformed("/v1/organizations?affiliation=Universit%E9+Paris");
        assert!(
            e[0].starts_with("query parameter 'affiliation' is not UTF-8")
                && e[0].contains("'%E9+Paris'"),
            "{e:?}"
        );
        let e = malformed("/v2/organizations/%G0abc");
        assert!(
            e[0].starts_with("the path '/v2/organizations/%G0abc' has a malformed"),
            "{e:?}"
        );
    }
}
