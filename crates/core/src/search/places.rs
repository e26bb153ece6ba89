//! The matches' locations, for the search page's map of the results: the
//! `places=all` extension adds `meta.places`, every location with
//! coordinates of every match (a record with several located places has a
//! point at each), with the record's id and display name, so that a map can
//! draw, cluster and link them without fetching any record. Applied by the
//! router after E2, E3 or `mode=typed` (and `established=`) found the
//! matches, like the facets.
//!
//! Size: ~95 bytes of JSON a point; every record of the real registry
//! (`?all_status&places=all`: 36,171 points) is 3.5 MB, `query=university`
//! 0.65 MB, computed where the registry runs (Worker or server), never
//! downloaded as a file.

use serde::Serialize;

use crate::registry::Registry;
use crate::shard::ShardError;

/// Version of `meta.places` (listed under `extensions` in the root answer);
/// a change of its shape gets a new number.
pub const VERSION: u32 = 1;

/// One located place of one match.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    /// The record's id, its nine characters (`02mhbdp94`).
    pub id: String,
    /// The record's display name.
    pub name: String,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
}

/// `meta.places`: the matches' located places.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Places {
    /// [`VERSION`].
    pub version: u32,
    /// Every located place of every match, in the list's order.
    pub points: Vec<Point>,
    /// Matches without any coordinates.
    pub unlocated: usize,
}

// `Meta` is compared in tests; coordinates are finite numbers read from
// the shard, so equality is an equivalence here.
impl Eq for Places {}

/// The located places of `records` (the records section must be loaded;
/// only the coordinates are decoded).
pub fn places(registry: &Registry, records: &[u32]) -> Result<Places, ShardError> {
    let mut points = Vec::new();
    let mut unlocated = 0;
    for &r in records {
        let i = r as usize;
        let located: Vec<(f64, f64)> = registry.coordinates(i)?.into_iter().flatten().collect();
        if located.is_empty() {
            unlocated += 1;
            continue;
        }
        let id = registry.id(i).unique();
        let name = registry.display_name(i);
        for (lat, lng) in located {
            points.push(Point {
                id: id.clone(),
                name: name.to_string(),
                lat,
                lng,
            });
        }
    }
    Ok(Places {
        version: VERSION,
        points,
        unlocated,
    })
}
