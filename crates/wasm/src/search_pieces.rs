//! E2 over pieces (feature `search`; `full` includes it): the first page of a `query` from the
//! few files it needs, exactly as the whole registry answers it
//! ([`registry_core::pieces::search`]). The host fetches the files each
//! answer names and hands them back; nothing here does I/O.

use std::collections::HashMap;

use registry_contract::Row;
use registry_core::pieces::search::{ListQuery, Need, PageAnswer, SearchAnswer, SearchClient};
use registry_core::pieces::{Directory, ID_KEY_CHARS};
#[cfg(feature = "full")]
use registry_core::router;
use registry_core::search::facets::Meta;
use registry_core::search::filters::Version;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::params::ListParams;
use crate::{js_err, params, to_js};

/// What `answer` returns (one member set).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    need: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hits: Option<&'a [Row]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    number_of_results: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Meta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    errors: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    whole: Option<&'static str>,
}

/// E2 over the pieces of a data folder (manifest `pieces`).
#[wasm_bindgen]
pub struct PiecesSearch {
    client: SearchClient,
    /// Files asked for, by name, and what they are.
    asked: HashMap<String, Need>,
    /// The last page answered (for `response`, in the `full` build).
    #[cfg_attr(not(feature = "full"), allow(dead_code))]
    last: Option<PageAnswer>,
}

#[wasm_bindgen]
impl PiecesSearch {
    fn page(&mut self, page: PageAnswer) -> Result<JsValue, JsError> {
        let out = to_js(&Answer {
            hits: Some(&page.hits),
            number_of_results: Some(page.number_of_results),
            meta: Some(&page.meta),
            need: None,
            errors: None,
            whole: None,
        });
        self.last = Some(page);
        out
    }

    /// From the manifest's `pieces.split_first` and `pieces.id_chars`.
    #[wasm_bindgen(constructor)]
    pub fn new(split_first: JsValue, id_chars: Option<u32>) -> Result<PiecesSearch, JsError> {
        let client = SearchClient::new(Directory::sharded(params::strings(&split_first)?));
        Ok(PiecesSearch {
            client: if id_chars == Some(ID_KEY_CHARS as u32) {
                client.with_id_pieces()
            } else {
                client
            },
            asked: HashMap::new(),
            last: None,
        })
    }

    /// `{query, filter, allStatus, page, version, typed}` → `{need: [file names]}`
    /// (fetch them from the pieces folder, `add` each, ask again), `{hits:
    /// [{summary, score}], numberOfResults, meta}`, `{errors}` (the whole
    /// registry's 400 messages) or `{whole: why}` (ask the whole registry).
    pub fn answer(&mut self, params: JsValue) -> Result<JsValue, JsError> {
        let p = ListParams::from_js(&params)?;
        let q = ListQuery {
            query: p.query.clone().unwrap_or_default(),
            filter: p.filter.clone().filter(|f| !f.is_empty()),
            all_status: p.all_status,
            page: p.page.unwrap_or(1).max(1) as usize,
            version: if p.version == Some(1) {
                Version::V1
            } else {
                Version::V2
            },
            typed: p.typed,
        };
        let none = Answer {
            need: None,
            hits: None,
            number_of_results: None,
            meta: None,
            errors: None,
            whole: None,
        };
        match self.client.answer(&q) {
            SearchAnswer::Need(needs) => {
                let names = needs
                    .into_iter()
                    .map(|n| {
                        let name = n.file_name();
                        self.asked.insert(name.clone(), n);
                        name
                    })
                    .collect();
                to_js(&Answer {
                    need: Some(names),
                    ..none
                })
            }
            SearchAnswer::Page(page) => self.page(page),
            SearchAnswer::Invalid(errors) => to_js(&Answer {
                errors: Some(&errors),
                ..none
            }),
            SearchAnswer::Whole(why) => to_js(&Answer {
                whole: Some(why),
                ..none
            }),
        }
    }

    /// The API's answer body (`{items, meta, number_of_results,
    /// time_taken}`) for the last page `answer` gave, with `items` the JSON
    /// text of each hit's record (its `/v2/organizations/<id>` answer, or
    /// v1's for a v1 page), in the page's order.
    #[cfg(feature = "full")]
    pub fn response(&self, items: Vec<String>, time_taken: f64) -> Result<String, JsError> {
        let Some(page) = &self.last else {
            return Err(JsError::new("no page has been answered yet"));
        };
        if items.len() != page.hits.len() {
            return Err(JsError::new(&format!(
                "the page has {} records, {} were given",
                page.hits.len(),
                items.len()
            )));
        }
        let items = items
            .iter()
            .zip(&page.hits)
            .map(|(text, hit)| {
                serde_json::from_str(text).map_err(|e| {
                    JsError::new(&format!(
                        "the record of {} is not JSON: {e}",
                        hit.summary.id
                    ))
                })
            })
            .collect::<Result<Vec<serde_json::Value>, JsError>>()?;
        let body = router::list_body(
            items,
            page.meta.clone(),
            page.number_of_results,
            time_taken.max(0.0).round() as u64,
        );
        Ok(body.json)
    }

    /// Adds file `name` (one `answer` asked for); `bytes` undefined: the
    /// file does not exist (HTTP 404). Damaged bytes are an error and the
    /// file stays missing.
    pub fn add(&mut self, name: &str, bytes: Option<Vec<u8>>) -> Result<(), JsError> {
        let Some(need) = self.asked.get(name).cloned() else {
            return Err(JsError::new(&format!("'{name}' was not asked for")));
        };
        if let Need::Directory(first) = &need {
            let keys: Vec<String> = match &bytes {
                Some(b) => serde_json::from_slice(b)
                    .map_err(|_| JsError::new(&format!("{name} is not a JSON array of strings")))?,
                None => Vec::new(),
            };
            self.client.add_directory(first, keys);
        } else {
            self.client.add(&need, bytes.as_deref()).map_err(js_err)?;
        }
        self.asked.remove(name);
        Ok(())
    }
}
