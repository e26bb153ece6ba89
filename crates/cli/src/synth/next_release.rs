//! `registry synth --next-release`: the registry's next release made from a
//! dump, for the release benchmarks and tests (issue #37). A release of the
//! real registry (every 2–4 weeks) changes ~5,000 of its 152,297 records,
//! adds ~1,000 and withdraws a few dozen; this does the same in the same
//! proportions:
//!
//! * **changed** (3.3 %): an alias added (the display name with its words
//!   redrawn, as `synth` draws them) or a link changed (`http` → `https`,
//!   else a path added), half each; `admin.last_modified` set to the date;
//! * **added** (0.66 %): copies of records drawn at random, as `synth`
//!   makes them (new id, new names, unique external ids and links), put
//!   after the rest;
//! * **withdrawn** (0.03 %): the status set to `withdrawn` (the registry
//!   keeps withdrawn records).
//!
//! Records keep their order; the same input, date and seed give the same
//! bytes (one seeded PRNG, draws in dump order).

use std::collections::{HashMap, HashSet};

use registry_core::RecordId;
use registry_core::model::{ALIAS, Name, Record};

use super::draw::{NameRewriter, Pools, Rng, copy_record, record_seed};

/// Records changed per million, as in a real release (5,000 of 152,297).
pub const CHANGED_PER_MILLION: u64 = 32_831;
/// Records added per million (1,000 of 152,297).
pub const ADDED_PER_MILLION: u64 = 6_566;
/// Records withdrawn per million (~45 of 152,297).
pub const WITHDRAWN_PER_MILLION: u64 = 300;

/// The date of a next release when none is given (`--date`).
pub const DEFAULT_DATE: &str = "2026-12-17";

/// The copy number in added records' external ids and links (`-s<n>`):
/// far above any `synth --factor`, so they never meet a scale-up's.
const ADDED_COPY: u32 = 900;

/// What a next release did, by id (URL form).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Records that got an alias.
    pub aliased: Vec<String>,
    /// Records whose link changed.
    pub relinked: Vec<String>,
    /// Records added.
    pub added: Vec<String>,
    /// Records withdrawn.
    pub withdrawn: Vec<String>,
}

/// `records`' next release (see the module's docs), dated `date`
/// (`YYYY-MM-DD`).
pub fn next_release(
    records: &[Record],
    date: &str,
    seed: u64,
) -> Result<(Vec<Record>, Changes), String> {
    let mut rng = Rng::new(seed ^ 0x4e58_7452_656c);
    let pools = Pools::new(records);
    let mut changes = Changes::default();
    let mut out = records.to_vec();
    let share =
        |per_million: u64| (records.len() as u64 * per_million).div_ceil(1_000_000) as usize;
    let changed = pick_distinct(&mut rng, records.len(), share(CHANGED_PER_MILLION), |_| {
        true
    });
    let taken: HashSet<usize> = changed.iter().copied().collect();
    let withdrawn = pick_distinct(&mut rng, records.len(), share(WITHDRAWN_PER_MILLION), |i| {
        !taken.contains(&i) && records[i].status != "withdrawn"
    });
    for (n, &i) in changed.iter().enumerate() {
        let r = &mut out[i];
        if n % 2 == 0 {
            add_alias(r, &pools, record_seed(seed, ADDED_COPY + 1, i));
            changes.aliased.push(r.id.clone());
        } else if change_link(r) {
            changes.relinked.push(r.id.clone());
        } else {
            // No link to change: an alias, so that every pick is a change.
            add_alias(r, &pools, record_seed(seed, ADDED_COPY + 1, i));
            changes.aliased.push(r.id.clone());
        }
        r.admin.last_modified.date = date.to_string();
    }
    for &i in &withdrawn {
        let r = &mut out[i];
        r.status = "withdrawn".into();
        r.admin.last_modified.date = date.to_string();
        changes.withdrawn.push(r.id.clone());
    }
    let mut used: HashSet<u32> = records
        .iter()
        .map(|r| RecordId::parse(&r.id).map(RecordId::number))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    for n in 0..share(ADDED_PER_MILLION) {
        if records.is_empty() {
            break;
        }
        let t = rng.below(records.len());
        let id = loop {
            let n = (rng.next_u64() >> 34) as u32 & RecordId::MAX;
            if used.insert(n) {
                break RecordId::from_number(n).expect("masked to 30 bits");
            }
        };
        let names = NameRewriter {
            pools: &pools,
            rng: Rng::new(record_seed(seed, ADDED_COPY, n)),
            chosen: HashMap::new(),
        }
        .names(&records[t]);
        // Its relationships would point at the template's relatives as if
        // they were its own: a new record starts without any.
        let mut r = copy_record(&records[t], ADDED_COPY, id, &names, |_| None);
        r.admin.created.date = date.to_string();
        r.admin.last_modified.date = date.to_string();
        changes.added.push(r.id.clone());
        out.push(r);
    }
    Ok((out, changes))
}

/// Up to `k` distinct indexes below `n` that `allowed`, in the order drawn
/// (all the allowed ones when fewer).
fn pick_distinct(rng: &mut Rng, n: usize, k: usize, allowed: impl Fn(usize) -> bool) -> Vec<usize> {
    let room = (0..n).filter(|&i| allowed(i)).count();
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(k.min(room));
    while out.len() < k.min(room) {
        let i = rng.below(n);
        if allowed(i) && seen.insert(i) {
            out.push(i);
        }
    }
    out
}

/// A new alias: the display name with its words redrawn.
fn add_alias(r: &mut Record, pools: &Pools, seed: u64) {
    let display = r.display_name().unwrap_or("").to_string();
    let value = NameRewriter {
        pools,
        rng: Rng::new(seed),
        chosen: HashMap::new(),
    }
    .name(&display, false);
    r.names.push(Name {
        lang: None,
        types: vec![ALIAS.to_string()],
        value,
    });
}

/// A changed link (`http://` → `https://`, else `/en` added); false when
/// the record has none.
fn change_link(r: &mut Record) -> bool {
    let Some(link) = r.links.first_mut() else {
        return false;
    };
    link.value = match link.value.strip_prefix("http://") {
        Some(rest) => format!("https://{rest}"),
        None => format!("{}/en", link.value.trim_end_matches('/')),
    };
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> Vec<Record> {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/demo/registry-demo.json"
        ))
        .unwrap();
        registry_core::import::import_dump(&bytes, Default::default(), &mut |_, _| {})
            .unwrap()
            .records
    }

    #[test]
    fn changes_adds_and_withdraws_in_the_real_proportions_and_nothing_else() {
        let old = demo();
        let (new, c) = next_release(&old, "2026-12-17", 7).unwrap();
        let share = |pm: u64| (old.len() as u64 * pm).div_ceil(1_000_000) as usize;
        assert_eq!(
            c.aliased.len() + c.relinked.len(),
            share(CHANGED_PER_MILLION)
        );
        assert_eq!(c.added.len(), share(ADDED_PER_MILLION));
        assert_eq!(c.withdrawn.len(), share(WITHDRAWN_PER_MILLION));
        assert_eq!(new.len(), old.len() + c.added.len());
        let touched: HashSet<&str> = c
            .aliased
            .iter()
            .chain(&c.relinked)
            .chain(&c.withdrawn)
            .map(String::as_str)
            .collect();
        for (o, n) in old.iter().zip(&new) {
            assert_eq!(o.id, n.id, "records keep their order");
            if touched.contains(o.id.as_str()) {
                assert_ne!(o, n, "{} was to change", o.id);
                assert_eq!(n.admin.last_modified.date, "2026-12-17");
            } else {
                assert_eq!(o, n, "{} was not to change", o.id);
            }
        }
        for id in &c.aliased {
            let (o, n) = (
                old.iter().find(|r| &r.id == id).unwrap(),
                new.iter().find(|r| &r.id == id).unwrap(),
            );
            assert_eq!(n.names.len(), o.names.len() + 1);
            assert!(n.names.last().unwrap().types == [ALIAS]);
        }
        for id in &c.withdrawn {
            assert_eq!(
                new.iter().find(|r| &r.id == id).unwrap().status,
                "withdrawn"
            );
        }
        let ids: HashSet<&str> = new.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), new.len(), "added ids are new");
        for r in &new[old.len()..] {
            assert!(RecordId::parse(&r.id).is_ok());
            assert!(r.relationships.is_empty());
        }
        assert_eq!(
            next_release(&old, "2026-12-17", 7).unwrap().0,
            new,
            "deterministic"
        );
        assert_ne!(
            next_release(&old, "2026-12-17", 8).unwrap().0,
            new,
            "the seed picks another"
        );
    }
}
