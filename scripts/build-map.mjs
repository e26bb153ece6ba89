#!/usr/bin/env node
// Regenerates web/static/world-map.json, the offline world map of the record
// page and the country facet, from Natural Earth's 1:50m country shapes as
// packaged by `world-atlas` (TopoJSON; Natural Earth is public domain, the
// package ISC). The output is checked in so that `registry site` and
// scripts/build-web.sh work on a fresh clone without npm; run this after
// bumping world-atlas:   node scripts/build-map.mjs [out.json]
//
// What it does: decodes the TopoJSON arcs, projects them with Equal Earth
// (web/registry-world.js has the same formula: the page places dots with it),
// simplifies every shared arc once (Douglas–Peucker in projected units, so
// neighbours keep a common border), and writes one SVG path per ISO 3166-1
// alpha-2 code (world-atlas keys countries by ISO numeric codes).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = process.argv[2] ?? path.join(ROOT, "web/static/world-map.json");
const atlasFile = require.resolve("world-atlas/countries-50m.json");
const atlasVersion = require("world-atlas/package.json").version;
const iso = require("i18n-iso-countries");

// Projected units per radian-ish: the world is ~1083 × 527 units.
const SCALE = 200;
// Douglas–Peucker tolerance (projected units; 1 unit ≈ 37 km at the equator).
const TOLERANCE = 0.04;
// Coordinates are written with one decimal: ≈ 3.7 km, finer than the tolerance.
const DIGITS = 1;

// Equal Earth (Šavrič, Patterson, Jenny 2018). y grows northwards here;
// SVG's y is its negation.
const A1 = 1.340264, A2 = -0.081106, A3 = 0.000893, A4 = 0.003796, M = Math.sqrt(3) / 2;
export function project(lng, lat) {
  const l = (lng * Math.PI) / 180, p = (lat * Math.PI) / 180;
  const t = Math.asin(M * Math.sin(p)), t2 = t * t, t6 = t2 * t2 * t2;
  const x = (l * Math.cos(t)) / (M * (A1 + 3 * A2 * t2 + t6 * (7 * A3 + 9 * A4 * t2)));
  const y = t * (A1 + A2 * t2 + t6 * (A3 + A4 * t2));
  return [x * SCALE, -y * SCALE];
}

// Names world-atlas gives without a numeric code: where their land goes.
const UNCODED = {
  Kosovo: "XK",
  Somaliland: "SO", // within Somalia's internationally recognised border
  "N. Cyprus": "CY",
  // Christmas Island and the Cocos (Keeling) Islands, split by PARTS.
  "Indian Ocean Ter.": "CC",
  // Disputed between India and Pakistan; drawn as land of neither.
  "Siachen Glacier": null,
};

// Natural Earth draws these territories as parts of another country; the
// registry's data (GeoNames) gives them their own codes. A polygon of the
// first code whose first point lies in the box [west, east, south, north]
// belongs to the second.
const PARTS = [
  ["CC", "CX", [105, 106.5, -11, -10]],
  ["FR", "GF", [-55, -51, 1.5, 6.5]],
  ["FR", "GP", [-62, -60.9, 15.8, 16.6]],
  ["FR", "MQ", [-61.3, -60.7, 14.3, 14.95]],
  ["FR", "RE", [55, 56, -21.5, -20.8]],
  ["FR", "YT", [44.9, 45.4, -13.1, -12.5]],
  ["NO", "SJ", [-10, 35, 70.5, 81]], // Svalbard and Jan Mayen, north of the mainland's 71.2°N cape only at sea
  ["NL", "BQ", [-69, -62, 11.5, 18]],
];

// ISO codes with no shape at 1:50m (islands of a few km²): drawn as a marker
// at this [lng, lat] so that they can be shown and picked on the facet map.
const MARKERS = {
  BV: [3.36, -54.42], // Bouvet Island
  GI: [-5.35, 36.14], // Gibraltar
  TK: [-171.85, -9.2], // Tokelau
  TV: [179.2, -8.52], // Tuvalu (Funafuti)
  UM: [166.62, 19.29], // U.S. Minor Outlying Islands (Wake Island)
};

// A ring that crosses the antimeridian (Chukotka, Fiji's Vanua Levu)
// would be drawn across the whole world: made continuous in longitude,
// then cut at ±180° into one ring on each side (Sutherland–Hodgman against
// the meridian). Antarctica's jump along the pole is a real edge of the
// projection and stays.
function unwrap(ring) {
  const jump = (i) => Math.abs(ring[i][0] - ring[i - 1][0]) > 180;
  if (!ring.some((_, i) => i && jump(i))) return [ring];
  if (ring.some(([, lat], i) => i && jump(i) && (Math.abs(lat) > 89 || Math.abs(ring[i - 1][1]) > 89))) return [ring];
  const cont = [ring[0]];
  for (let i = 1; i < ring.length; i++) {
    const prev = cont[i - 1][0];
    let lng = ring[i][0];
    while (lng - prev > 180) lng -= 360;
    while (lng - prev < -180) lng += 360;
    cont.push([lng, ring[i][1]]);
  }
  const edge = cont.some(([lng]) => lng > 180) ? 180 : -180;
  const west = clip(cont, (lng) => lng <= edge, edge);
  const east = clip(cont, (lng) => lng >= edge, edge);
  const back = edge === 180 ? east : west;
  const shift = edge === 180 ? -360 : 360;
  return [edge === 180 ? west : east, back.map(([lng, lat]) => [lng + shift, lat])].filter((r) => r.length >= 4);
}

/** The part of a closed ring on the `inside` side of the meridian `at`. */
function clip(ring, inside, at) {
  const out = [];
  for (let i = 0; i < ring.length - 1; i++) {
    const [a, b] = [ring[i], ring[i + 1]];
    const [ia, ib] = [inside(a[0]), inside(b[0])];
    if (ia) out.push(a);
    if (ia !== ib) {
      const t = (at - a[0]) / (b[0] - a[0]);
      out.push([at, a[1] + t * (b[1] - a[1])]);
    }
  }
  if (out.length) out.push(out[0]);
  return out;
}

/** The indices Douglas–Peucker keeps of `points`. */
function simplify(points, tol) {
  if (points.length <= 2) return new Set(points.keys());
  const keep = new Uint8Array(points.length);
  keep[0] = keep[points.length - 1] = 1;
  const stack = [[0, points.length - 1]];
  while (stack.length) {
    const [a, b] = stack.pop();
    const [ax, ay] = points[a], [bx, by] = points[b];
    const dx = bx - ax, dy = by - ay, len = Math.hypot(dx, dy);
    let worst = -1, far = 0;
    for (let i = a + 1; i < b; i++) {
      const [px, py] = points[i];
      const d = len ? Math.abs(dy * px - dx * py + bx * ay - by * ax) / len : Math.hypot(px - ax, py - ay);
      if (d > far) (far = d), (worst = i);
    }
    if (far > tol) {
      keep[worst] = 1;
      stack.push([a, worst], [worst, b]);
    }
  }
  return new Set([...keep.keys()].filter((i) => keep[i]));
}

const f = (v) => +v.toFixed(DIGITS);

function build() {
  const topo = JSON.parse(fs.readFileSync(atlasFile, "utf8"));
  const { scale: [kx, ky], translate: [tx, ty] } = topo.transform;
  // Delta-decoded, projected and simplified once per arc.
  const lngLat = topo.arcs.map((arc) => {
    let x = 0, y = 0;
    return arc.map(([dx, dy]) => {
      x += dx;
      y += dy;
      return [x * kx + tx, y * ky + ty];
    });
  });
  // Simplified where projected (what the eye sees), kept as lng/lat until
  // the rings are whole (see unwrap).
  const arcs = lngLat.map((arc) => {
    const keep = simplify(arc.map(([lng, lat]) => project(lng, lat)), TOLERANCE);
    return arc.filter((_, i) => keep.has(i));
  });
  const ring = (ids, from = arcs) => {
    const out = [];
    for (const i of ids) {
      const pts = i < 0 ? from[~i].slice().reverse() : from[i];
      out.push(...(out.length ? pts.slice(1) : pts));
    }
    return unwrap(out).map((r) => r.map(([lng, lat]) => project(lng, lat)));
  };
  // An island simplified below a triangle keeps its full outline instead:
  // microstates and small territories must stay on the map.
  const ringOf = (ids) => {
    const rs = ring(ids);
    return rs.every((r) => distinct(r) >= 4) ? rs : ring(ids, lngLat);
  };
  const distinct = (r) => new Set(r.map(([x, y]) => `${f(x)},${f(y)}`)).size + 1;
  // Relative commands: short numbers, and brotli finds the repeats. The
  // first ring starts with an absolute move, later ones move relative to
  // the start of the ring before (where `z` leaves the current point).
  const pathOf = (rings) => {
    let d = "", sx = 0, sy = 0;
    for (const r of rings) {
      const pts = r.map(([x, y]) => [f(x), f(y)]).filter((p, i, a) => i === 0 || p[0] !== a[i - 1][0] || p[1] !== a[i - 1][1]);
      if (pts.length < 4) continue; // a ring simplified to nothing (an islet of a few km)
      const [x0, y0] = pts[0];
      const nums = [];
      let px = x0, py = y0;
      for (const [x, y] of pts.slice(1, -1)) {
        nums.push(x - px, y - py);
        px = x;
        py = y;
      }
      d += (d ? "m" : "M") + join([x0 - sx, y0 - sy]) + "l" + join(nums) + "z";
      sx = x0;
      sy = y0;
    }
    return d;
  };
  const countries = new Map();
  const add = (code, rings, name) => {
    if (!code) return;
    const c = countries.get(code) ?? { rings: [], names: new Set() };
    c.rings.push(...rings);
    c.names.add(name);
    countries.set(code, c);
  };
  for (const g of topo.objects.countries.geometries) {
    const polys = g.type === "Polygon" ? [g.arcs] : g.type === "MultiPolygon" ? g.arcs : [];
    const name = g.properties?.name ?? "";
    let code = g.id != null ? iso.numericToAlpha2(g.id) : UNCODED[name];
    if (g.id != null && !code) throw new Error(`world-atlas id ${g.id} (${name}) has no ISO alpha-2 code`);
    if (code === undefined) throw new Error(`world-atlas shape "${name}" has no id: say where it goes in UNCODED`);
    for (const poly of polys) {
      const rings = poly.flatMap(ringOf);
      const a = poly[0][0];
      const [lng, lat] = a < 0 ? lngLat[~a].at(-1) : lngLat[a][0];
      const part = PARTS.find(([of, , [w, e, s, n]]) => of === code && lng >= w && lng <= e && lat >= s && lat <= n);
      add(part ? part[1] : code, rings, name);
    }
  }
  const out = {};
  // Countries too small to keep an outline at this precision: a marker.
  const markers = {};
  for (const code of [...countries.keys()].sort()) {
    const { rings } = countries.get(code);
    const d = pathOf(rings);
    if (d) out[code] = d;
    else {
      const pts = rings.flat();
      markers[code] = [0, 1].map((k) => f(pts.reduce((a, p) => a + p[k], 0) / pts.length));
    }
  }
  for (const [code, [lng, lat]] of Object.entries(MARKERS)) {
    if (out[code]) throw new Error(`${code} has a shape now: drop its marker`);
    markers[code] = project(lng, lat).map(f);
  }
  const [w] = project(180, 0), [, h] = project(0, -90);
  return {
    source: `Natural Earth 1:50m admin-0 countries (public domain), via world-atlas ${atlasVersion} (ISC)`,
    projection: "equal-earth",
    scale: SCALE,
    // The view box of the whole world, centred on (0, 0).
    box: [-w, -h, 2 * w, 2 * h].map((v) => +v.toFixed(1)),
    countries: out,
    markers,
  };
}

// Numbers of a path, as short as SVG's grammar allows: no leading zero, and
// no separator before a minus sign or before ".5" after a number with a point.
function join(values) {
  let out = "", prev = "";
  for (const v of values) {
    const s = (+v.toFixed(DIGITS)).toString().replace(/^(-?)0\./, "$1.");
    const glued = !prev || s.startsWith("-") || (s.startsWith(".") && prev.includes("."));
    out += (glued ? "" : " ") + s;
    prev = s;
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const map = build();
  const json = JSON.stringify(map);
  fs.writeFileSync(OUT, json + "\n");
  const all = Object.keys(iso.getAlpha2Codes());
  const missing = all.filter((c) => !map.countries[c] && !map.markers[c]);
  console.log(`${OUT}: ${Object.keys(map.countries).length} outlines, markers for ${Object.keys(map.markers).join(" ")}, ${json.length} bytes`);
  console.log(`ISO codes without a shape at 1:50m: ${missing.join(" ") || "none"}`);
}
