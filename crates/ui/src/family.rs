//! The organisation's family on the record page: its parents → the record
//! → its children as a compact tree (a long list of children collapsed
//! behind "Show all N"), its related records beside it, and its line of
//! predecessors and successors; every entry a link to its record's page.
//!
//! Names come from the record's own relationship labels (no request).
//! Countries and statuses of the few records around the tree's spine
//! (parents, predecessors, successors) and the line of succession beyond
//! one step come from those records themselves: each is a record piece of
//! the data (~1.5 KB, `r-<4 id chars>.shard`) before the whole registry is
//! in, and cached by the service worker like the page's own record, so the
//! family works offline after one visit. Children are not fetched: a large
//! family would cost one request per child for a country the parent
//! usually shares.

use std::collections::HashMap;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::record::{display_name, first_country, record_link, relations};
use crate::registry_client::{self, bare_id};
use crate::title_case;
use crate::url_state::State;

/// Children listed before "Show all N" (a family larger than this by more
/// than two is collapsed; hiding one or two would save nothing).
pub const CHILDREN_SHOWN: usize = 8;

/// How far the line of succession is followed each way from the record.
const CHAIN_STEPS: usize = 4;

/// What the family shows of a record other than the page's own.
#[derive(Clone, Debug, PartialEq)]
struct Known {
    name: String,
    country: String,
    status: String,
    predecessors: Vec<(String, String)>,
    successors: Vec<(String, String)>,
}

async fn fetch(id: &str) -> Option<Known> {
    let path = format!("/v2/organizations/{}", bare_id(id));
    let (status, body) = registry_client::request(&path).await.ok()?;
    if status != 200 {
        return None;
    }
    let v: Value = serde_json::from_str(&body).ok()?;
    Some(Known {
        name: display_name(&v),
        country: first_country(&v),
        status: v
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("active")
            .to_string(),
        predecessors: relations(&v, "predecessor"),
        successors: relations(&v, "successor"),
    })
}

/// A related record: (id, label).
type Relation = (String, String);

/// The line of succession as far as the fetched records tell: the records to list, in
/// order, as (id, label) — predecessors oldest first, then successors.
fn line(
    own: &str,
    own_pred: &[(String, String)],
    own_succ: &[(String, String)],
    known: &HashMap<String, Known>,
) -> (Vec<Relation>, Vec<Relation>) {
    let walk = |start: &[(String, String)], next: fn(&Known) -> &[(String, String)]| {
        let mut out: Vec<(String, String)> = Vec::new();
        let mut step: Vec<(String, String)> = start.to_vec();
        for _ in 0..CHAIN_STEPS {
            let mut after = Vec::new();
            for (id, label) in step {
                if bare_id(&id) == bare_id(own)
                    || out.iter().any(|(i, _)| bare_id(i) == bare_id(&id))
                {
                    continue; // a cycle in the data
                }
                if let Some(k) = known.get(bare_id(&id)) {
                    after.extend(next(k).iter().cloned());
                }
                out.push((id, label));
            }
            if after.is_empty() {
                break;
            }
            step = after;
        }
        out
    };
    let mut pred = walk(own_pred, |k| &k.predecessors);
    pred.reverse();
    (pred, walk(own_succ, |k| &k.successors))
}

/// A link to a family member with its country (when known) and, unless
/// active, its status.
fn member(id: &str, label: &str, known: Option<&Known>, go: Callback<State>) -> AnyView {
    let label = if label.is_empty() {
        known.map(|k| k.name.clone()).unwrap_or_default()
    } else {
        label.to_string()
    };
    let country = known
        .map(|k| k.country.clone())
        .filter(|c| !c.is_empty())
        .map(|c| view! { " " <span class="fam-country">{c}</span> });
    let status = known
        .filter(|k| k.status != "active")
        .map(|k| view! { " " <span class="badge" data-status=k.status.clone()>{title_case(&k.status)}</span> });
    view! { {record_link(id, &label, go)}{country}{status} }.into_any()
}

/// The family section of record `r`, or nothing when it has no
/// relationships.
pub fn family_view(r: &Value, go: Callback<State>) -> Option<AnyView> {
    let parents = relations(r, "parent");
    let mut children = relations(r, "child");
    let related = relations(r, "related");
    let own_pred = relations(r, "predecessor");
    let own_succ = relations(r, "successor");
    if parents.is_empty()
        && children.is_empty()
        && related.is_empty()
        && own_pred.is_empty()
        && own_succ.is_empty()
    {
        return None;
    }
    children.sort_by_key(|a| a.1.to_lowercase());
    let name = display_name(r);
    let country = first_country(r);
    let own_id = r
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();

    // Parents and the line of succession, fetched one step at a time.
    let known = RwSignal::new(HashMap::<String, Known>::new());
    let mut first: Vec<String> = parents
        .iter()
        .chain(&own_pred)
        .chain(&own_succ)
        .map(|(i, _)| i.clone())
        .collect();
    first.dedup();
    fetch_around(
        known,
        first,
        own_id.clone(),
        own_pred.clone(),
        own_succ.clone(),
    );
    let status = r
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("active")
        .to_string();
    let self_country = (!country.is_empty())
        .then(|| view! { " " <span class="fam-country">{country.clone()}</span> });
    let chain = (!own_pred.is_empty() || !own_succ.is_empty())
        .then(|| chain_view(known, own_id, own_pred, own_succ, name.clone(), status, go));
    Some(
        view! {
            <section aria-labelledby="h-rel" class="family">
                <h2 id="h-rel">"Family and relationships"</h2>
                <div class="fam-grid">
                    <div class="fam-tree">
                        {parents_view(&parents, known, go)}
                        <p class="fam-self" aria-current="page"><strong>{name.clone()}</strong>{self_country}</p>
                        {children_view(&children, go)}
                    </div>
                    {related_view(&related, go)}
                </div>
                {chain}
            </section>
        }
        .into_any(),
    )
}

/// Fetches the records around the tree's spine into `known`, one step at a
/// time: `first` (parents, predecessors, successors), then the line of
/// succession as far as [`CHAIN_STEPS`] from the record `own_id`.
fn fetch_around(
    known: RwSignal<HashMap<String, Known>>,
    first: Vec<String>,
    own_id: String,
    own_pred: Vec<Relation>,
    own_succ: Vec<Relation>,
) {
    spawn_local(async move {
        let mut want = first;
        for _ in 0..=CHAIN_STEPS {
            // `known` goes with the page: once another record is shown
            // (the fetches outlive it) the walk stops, where reading a
            // disposed signal would panic.
            let Some(asked) = known.try_with_untracked(|k| {
                want.iter()
                    .filter(|id| !k.contains_key(bare_id(id)))
                    .map(|id| (bare_id(id).to_string(), fetch(id)))
                    .collect::<Vec<_>>()
            }) else {
                return;
            };
            if asked.is_empty() {
                break;
            }
            for (id, f) in asked {
                if let Some(k) = f.await
                    && known
                        .try_update(|m| {
                            m.insert(id, k);
                        })
                        .is_none()
                {
                    return;
                }
            }
            let Some((p, s)) = known.try_with_untracked(|k| line(&own_id, &own_pred, &own_succ, k))
            else {
                return;
            };
            want = p.into_iter().chain(s).map(|(i, _)| i).collect();
        }
    });
}

/// "Part of": the parents, each with its country and status once fetched.
fn parents_view(
    parents: &[Relation],
    known: RwSignal<HashMap<String, Known>>,
    go: Callback<State>,
) -> Option<impl IntoView + use<>> {
    (!parents.is_empty()).then(|| {
        let items = parents
            .iter()
            .map(|(i, l)| {
                let (i, l) = (i.clone(), l.clone());
                view! { <li>{move || known.with(|k| member(&i, &l, k.get(bare_id(&i)), go))}</li> }
            })
            .collect_view();
        let title = if parents.len() == 1 { "Part of" } else { "Part of each of" };
        view! { <div class="rel fam-parents" data-rel="parent"><p class="fam-label">{title}</p><ul>{items}</ul></div> }
    })
}

/// The children by name, a long list collapsed behind "Show all N".
fn children_view(children: &[Relation], go: Callback<State>) -> Option<impl IntoView + use<>> {
    let n = children.len();
    let collapsed = n > CHILDREN_SHOWN + 2;
    let expanded = RwSignal::new(false);
    (n > 0).then(|| {
        let items = children
            .iter()
            .enumerate()
            .map(|(k, (i, l))| {
                let later = collapsed && k >= CHILDREN_SHOWN;
                view! { <li hidden=move || later && !expanded.get()>{record_link(i, l, go)}</li> }
            })
            .collect_view();
        let more = collapsed.then(|| {
            view! {
                <button type="button" class="link show-all" aria-expanded=move || expanded.get().to_string()
                    aria-controls="fam-children-list" on:click=move |_| expanded.update(|x| *x = !*x)>
                    {move || if expanded.get() { format!("Show the first {CHILDREN_SHOWN}") } else { format!("Show all {}", crate::grouped(n as u64)) }}
                </button>
            }
        });
        let label = if n == 1 { "1 child".to_string() } else { format!("{} children", crate::grouped(n as u64)) };
        view! {
            <div class="rel fam-children" data-rel="child">
                <p class="fam-label">{label}{collapsed.then(|| format!(" — the first {CHILDREN_SHOWN} shown"))}</p>
                <ul id="fam-children-list">{items}</ul>{more}
            </div>
        }
    })
}

/// "Related": links beside the tree.
fn related_view(related: &[Relation], go: Callback<State>) -> Option<impl IntoView + use<>> {
    (!related.is_empty()).then(|| {
        let items = related.iter().map(|(i, l)| view! { <li>{record_link(i, l, go)}</li> }).collect_view();
        view! { <div class="rel fam-related" data-rel="related"><h3>"Related"</h3><ul>{items}</ul></div> }
    })
}

/// The line of succession, oldest first, around the record `own_id`
/// (`self_name`, `status`), redrawn as the records along it arrive.
fn chain_view(
    known: RwSignal<HashMap<String, Known>>,
    own_id: String,
    own_pred: Vec<Relation>,
    own_succ: Vec<Relation>,
    self_name: String,
    status: String,
    go: Callback<State>,
) -> impl IntoView {
    move || {
        known.with(|k| {
            let (pred, succ) = line(&own_id, &own_pred, &own_succ, k);
            let item = |kind: &'static str, (i, l): &(String, String)| {
                view! { <li class="rel" data-rel=kind>{member(i, l, k.get(bare_id(i)), go)}</li> }
            };
            let before = pred.iter().map(|x| item("predecessor", x)).collect_view();
            let after = succ.iter().map(|x| item("successor", x)).collect_view();
            let badge = (status != "active").then(|| view! { " " <span class="badge" data-status=status.clone()>{title_case(&status)}</span> });
            view! {
                <h3>"Line of succession"</h3>
                <ol class="fam-chain" aria-label="Predecessors, this organization, successors (oldest first)">
                    {before}
                    <li class="fam-self" aria-current="page"><strong>{self_name.clone()}</strong>{badge}</li>
                    {after}
                </ol>
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(pred: &[&str], succ: &[&str]) -> Known {
        let p = |v: &[&str]| v.iter().map(|i| (i.to_string(), format!("L{i}"))).collect();
        Known {
            name: String::new(),
            country: String::new(),
            status: "inactive".into(),
            predecessors: p(pred),
            successors: p(succ),
        }
    }

    #[test]
    fn the_line_follows_known_records_and_stops_at_cycles() {
        let own = |i: &str| vec![(format!("https://ror.org/{i}"), format!("L{i}"))];
        let mut known = HashMap::new();
        known.insert("b".to_string(), k(&["a"], &[]));
        known.insert("a".to_string(), k(&["b"], &[])); // a cycle
        known.insert("d".to_string(), k(&[], &["e"]));
        let (pred, succ) = line("https://ror.org/x", &own("b"), &own("d"), &known);
        let ids = |v: Vec<(String, String)>| {
            v.into_iter()
                .map(|(i, _)| bare_id(&i).to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(pred), ["a", "b"]);
        assert_eq!(ids(succ), ["d", "e"]);
    }
}
