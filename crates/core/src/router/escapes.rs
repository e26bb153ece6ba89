//! Percent-escapes of an API request target, checked before it is routed.
//! The decoding itself is lenient (an escape that is not `%` and two
//! hex digits stays as text, bytes that are not UTF-8 become U+FFFD), so
//! `?query=%ZZ` searched for the text `%ZZ` and answered 200 with nothing:
//! the client's mistake was hidden. Upstream does the same (Python's
//! `unquote`); upstream-behaviour.md §0 asks for a clear JSON error where
//! upstream silently misbehaves, in the spec's `{"errors": [...]}` shape.
//! The decoding here is the one every reader uses (`id::percent_unescape`);
//! this module only says what went wrong and where.

use super::form_decode;
use crate::id::percent_unescape;

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
    let decoded = percent_unescape(s);
    if let Some(at) = decoded.malformed {
        let bad: String = s[at..].chars().take(3).collect();
        return Some(format!(
            "has a malformed percent-escape '{bad}': '%' must be followed by two \
             hexadecimal digits (a literal '%' is written %25)"
        ));
    }
    let e = std::str::from_utf8(&decoded.bytes).err()?;
    let at = source_offset(s, e.valid_up_to());
    let shown: String = s.get(at..).unwrap_or("").chars().take(12).collect();
    Some(format!(
        "is not UTF-8 once its percent-escapes are decoded (at '{shown}'): text is sent as \
         the escapes of its UTF-8 bytes"
    ))
}

/// Where in `s` (whose escapes are all well formed) the decoded byte
/// `decoded` came from: each escape is three bytes of `s`, any other byte one.
fn source_offset(s: &str, decoded: usize) -> usize {
    let b = s.as_bytes();
    let mut at = 0;
    for _ in 0..decoded {
        at += if b[at] == b'%' { 3 } else { 1 };
    }
    at
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
