//! The E2 search files ([`registry_core::shard::search`]): the statistics
//! file's section and a common term's member list. What decodes must
//! re-encode to the same bytes (so no two readings of one file differ) and
//! decode again unchanged.

use registry_core::shard::search::{SearchStats, TermMembers};

/// The input's first byte picks the format: even, [`SearchStats`]; odd,
/// [`TermMembers`] with the second byte as the build's country count.
pub fn search(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    if selector % 2 == 0 {
        if let Ok(stats) = SearchStats::decode(rest) {
            let bytes = stats.encode();
            let again = SearchStats::decode(&bytes).expect("encoded statistics decode");
            assert_eq!(again.encode(), bytes, "statistics re-encode as read");
            for t in &stats.common {
                assert!(stats.common(&t.term).is_some(), "a common term is found");
            }
        }
    } else {
        let Some((&countries, body)) = rest.split_first() else {
            return;
        };
        if let Ok(m) = TermMembers::decode(body, usize::from(countries)) {
            let bytes = m.encode();
            let again = TermMembers::decode(&bytes, usize::from(countries))
                .expect("encoded members decode");
            assert_eq!(again, m, "members survive their round trip");
        }
    }
}
