// The world map every map of the app draws on: its shapes, world-map.json
// (scripts/build-map.mjs: Natural Earth 1:50m, Equal Earth projection, one
// SVG path per ISO alpha-2 code), fetched the first time a map is shown and
// never before; the projection that places a point on it; its colours. Used
// by the record and country maps (registry-map.js) and the results map
// (registry-dots.js), which registry-map.js loads: below both, so that
// neither imports the other for it. The service worker keeps the map file
// for offline use (sw.js: cached when a visit has fetched it, else with the
// offline copy of the data, which is made once a page has shown its answer).

import { addSheet } from "./registry-draw.js";

// Equal Earth (Šavrič, Patterson, Jenny 2018), as in scripts/build-map.mjs:
// SVG coordinates, y pointing south, `scale` units per radian-ish.
const A1 = 1.340264, A2 = -0.081106, A3 = 0.000893, A4 = 0.003796, M = Math.sqrt(3) / 2;
export function project(lng, lat, scale) {
  const l = (lng * Math.PI) / 180, p = (lat * Math.PI) / 180;
  const t = Math.asin(M * Math.sin(p)), t2 = t * t, t6 = t2 * t2 * t2;
  const x = (l * Math.cos(t)) / (M * (A1 + 3 * A2 * t2 + t6 * (7 * A3 + 9 * A4 * t2)));
  const y = t * (A1 + A2 * t2 + t6 * (A3 + A4 * t2));
  return [x * scale, -y * scale];
}

let mapPromise = null;
/** The world map, fetched once per page. */
export function loadMap() {
  mapPromise ??= (async () => {
    const url = new URL("world-map.json", import.meta.url);
    // Offline, only a copy saved on this device can answer: asking the
    // network would only log a failed request.
    let res = null;
    if (navigator.onLine === false && globalThis.caches) {
      res = await caches.match(url);
      if (!res) throw new Error("the map has not been saved on this device for offline use yet");
    }
    res ??= await fetch(url);
    if (!res.ok) throw new Error(`world-map.json: HTTP ${res.status}`);
    const map = await res.json();
    if (map.projection !== "equal-earth" || typeof map.countries !== "object") throw new Error("world-map.json: not a map this page can draw");
    return map;
  })();
  mapPromise.catch(() => (mapPromise = null));
  return mapPromise;
}

/** The map's colours (light and dark schemes), for every module that draws on it. */
export const addMapStyles = () => addSheet("map", `
.world-map { display: block; width: 100%; max-width: 44rem; height: auto; background: #dbe8f4; border: 1px solid #9db3cf; border-radius: 6px; }
.world-map .land { fill: #f3f1ea; stroke: #8a8a8a; stroke-width: .6; vector-effect: non-scaling-stroke; }
.world-map .here { fill: #fff7d6; stroke: #123a66; stroke-width: 2.2; }
.world-map .dot { fill: #a1162b; stroke: #fff; stroke-width: 1.5; vector-effect: non-scaling-stroke; }
.world-map .label { fill: #1b1b1b; paint-order: stroke; stroke: #fff; stroke-width: 3; stroke-linejoin: round; vector-effect: non-scaling-stroke; font-weight: 600; }
@media (prefers-color-scheme: dark) {
  .world-map { background: #10233a; border-color: #3d4f66; }
  .world-map .land { fill: #2b3442; stroke: #8896a8; }
  .world-map .here { fill: #3d4a2a; stroke: #ffd866; }
  .world-map .dot { fill: #ff7a8a; stroke: #10233a; }
  .world-map .label { fill: #f5f5f5; stroke: #10233a; }
}
.record-map { margin: .75rem 0 0; }
.record-map figcaption { margin-top: .35rem; }
`);
