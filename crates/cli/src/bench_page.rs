//! `registry bench-search <data> --page` (and part of every relevance run):
//! does the search page's first result equal the typeahead's first
//! suggestion for text typed in full and submitted with Enter?
//!
//! Queries: the relevance set of `bench-search` typed in full — for every
//! uniform target its display name, the name with its rarest word first,
//! its acronym, the accent-stripped name and a non-Latin name; for every
//! realistic target (the gold record of affiliation rows) its display name
//! and the rarest word first. Each is sent as the search box sends it
//! (escaped, default filters: active records) and compared with the
//! typeahead's first suggestion as the search box asks for it (no filters,
//! 8 suggestions). Printed for the page as it was (plain E2) and as it is
//! (`mode=typed`). Queries without a suggestion are not counted.

use registry_core::search::{Engine, Filters, Hits, query};

use crate::name_forms::{accent_stripped, is_non_latin, rarest_first};

/// The families of queries typed in full, in print order.
pub fn queries(
    engine: &Engine,
    uniform: &[usize],
    realistic: &[usize],
) -> Vec<(&'static str, Vec<String>)> {
    let reg = engine.registry();
    let mut fams: Vec<(&'static str, Vec<String>)> = [
        "display name",
        "rarest word first",
        "acronym",
        "accent-stripped",
        "non-Latin name",
        "realistic: display name",
        "realistic: rarest first",
    ]
    .into_iter()
    .map(|f| (f, Vec::new()))
    .collect();
    for &i in uniform {
        let name = reg.display_name(i);
        fams[0].1.push(name.to_string());
        fams[1].1.push(rarest_first(engine, name));
        if let Some(acr) = reg
            .names(i)
            .find(|x| x.is_acronym() && x.value.chars().count() >= 2)
        {
            fams[2].1.push(acr.value.to_string());
        }
        if !name.is_ascii() && !is_non_latin(name) {
            fams[3].1.push(accent_stripped(name));
        }
        if let Some(nl) = reg.names(i).find(|x| is_non_latin(x.value)) {
            fams[4].1.push(nl.value.to_string());
        }
    }
    for &i in realistic {
        let name = reg.display_name(i);
        fams[5].1.push(name.to_string());
        fams[6].1.push(rarest_first(engine, name));
    }
    fams
}

/// Counts of one family.
#[derive(Default)]
struct Agreement {
    /// Queries with a suggestion.
    asked: usize,
    /// Page's first = typeahead's first: plain E2, typed reading.
    e2: usize,
    typed: usize,
    /// Of the typed misses, those whose first suggestion the list does not
    /// show by default (inactive or withdrawn).
    hidden: usize,
}

/// Prints the agreement per family and overall.
pub fn print(engine: &Engine, fams: &[(&'static str, Vec<String>)]) {
    let first = |hits: Result<Hits, String>| hits.ok().and_then(|h| h.records.first().copied());
    let list = Filters::default();
    let mut all = Agreement::default();
    let mut misses: Vec<String> = Vec::new();
    println!(
        "\nsearch page vs typeahead (text typed in full + Enter): the page's first result = the typeahead's first suggestion"
    );
    for (fam, texts) in fams {
        let mut a = Agreement::default();
        for text in texts {
            let Some(s) = engine.suggest(text, &list, 8).into_iter().next() else {
                continue;
            };
            let want = s.index as u32;
            let sent = query::escape(text.trim());
            a.asked += 1;
            a.e2 += usize::from(first(engine.search(&sent, &list)) == Some(want));
            if first(engine.search_typed(&sent, &list)) == Some(want) {
                a.typed += 1;
            } else {
                a.hidden += usize::from(s.summary.status != "active");
                if misses.len() < 40 && std::env::var_os("BENCH_DEBUG").is_some() {
                    misses.push(format!(
                        "{text:?} → {:?} ({})",
                        s.summary.name, s.summary.status
                    ));
                }
            }
        }
        report(fam, &a);
        all.asked += a.asked;
        all.e2 += a.e2;
        all.typed += a.typed;
        all.hidden += a.hidden;
    }
    report("all", &all);
    // Not in the figure above: what a person submits half typed, where E2
    // reads the unfinished word whole.
    let mut part = Agreement::default();
    for (fam, texts) in &fams[..1] {
        for cut in [4, 8] {
            for text in texts {
                let Some(end) = text.char_indices().nth(cut).map(|(i, _)| i) else {
                    continue;
                };
                let Some(s) = engine.suggest(&text[..end], &list, 8).into_iter().next() else {
                    continue;
                };
                let sent = query::escape(text[..end].trim());
                part.asked += 1;
                part.e2 += usize::from(first(engine.search(&sent, &list)) == Some(s.index as u32));
                part.typed +=
                    usize::from(first(engine.search_typed(&sent, &list)) == Some(s.index as u32));
            }
        }
        report(
            &format!("({fam}: first 4 / 8 characters, not in 'all')"),
            &part,
        );
    }
    for m in misses {
        eprintln!("  miss: {m}");
    }
}

fn report(fam: &str, a: &Agreement) {
    let f = |n: usize| 100.0 * n as f64 / a.asked.max(1) as f64;
    let hidden = if a.hidden > 0 {
        format!(
            " (typed misses on an inactive/withdrawn suggestion: {})",
            a.hidden
        )
    } else {
        String::new()
    };
    println!(
        "  {fam:<24} queries {:>5}  plain E2 (before) {:>5.1} %  mode=typed (now) {:>5.1} %{hidden}",
        a.asked,
        f(a.e2),
        f(a.typed),
    );
}
