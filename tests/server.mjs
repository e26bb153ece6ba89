// A static file server for the browser tests: serves a directory on
// 127.0.0.1 under an optional sub-path, with the MIME types a deployment
// must use (application/wasm for wasm, so instantiateStreaming works).
import http from "node:http";
import fs from "node:fs/promises";
import path from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".webmanifest": "application/manifest+json",
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".shard": "application/octet-stream",
  ".pack": "application/octet-stream",
};

/**
 * The one range of a `Range` header over a file of `size` bytes, as static
 * hosts (and `registry serve`) answer it: `{start, end}` (inclusive) for
 * `bytes=a-b`, `a-` or `-n`; "unsatisfiable" when it starts past the end
 * (a 416); null for no header, several ranges, or one that does not parse
 * (`bytes=5-2`): the whole file.
 */
export function byteRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header ?? "");
  if (!m || (m[1] === "" && m[2] === "") || (m[1] !== "" && m[2] !== "" && Number(m[2]) < Number(m[1]))) return null;
  const [start, end] = m[1] === "" ? [Math.max(0, size - Number(m[2])), size - 1] : [Number(m[1]), Math.min(size - 1, m[2] === "" ? size - 1 : Number(m[2]))];
  return start >= size || end < start ? "unsatisfiable" : { start, end };
}

/**
 * Starts a server for `root` under `prefix` ("/" or "/some/path/"); resolves
 * to {url, requests, close} (`requests`: what it was asked, in order). `cors`: answer every origin (a CDN serving the widget);
 * a function of the path (relative to `root`) says it per file (a host that sends the header for some files only).
 * `hold(path, url)`: a promise to wait for before answering that path
 * (relative to `root`; `url`: the request's URL, with its query), or null; it holds requests of Workers too, which a page's
 * routes do not see. `noRange`: ignore `Range` and answer every request
 * with the whole file (200), as `python3 -m http.server` does.
 */
export async function serve(root, prefix = "/", { cors = false, hold = null, noRange = false } = {}) {
  const requests = []; // "<METHOD> <path and query>[ <range>]" of every request, in order
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    requests.push(`${req.method} ${url.pathname}${url.search}${req.headers.range ? " " + req.headers.range : ""}`);
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404).end("not under " + prefix);
      return;
    }
    let rel = decodeURIComponent(url.pathname.slice(prefix.length));
    if (rel === "" || rel.endsWith("/")) rel += "index.html";
    const file = path.join(root, rel);
    if (!file.startsWith(path.resolve(root))) {
      res.writeHead(403).end();
      return;
    }
    await hold?.(rel, url);
    const allow = typeof cors === "function" ? cors(rel) : cors;
    try {
      const body = await fs.readFile(file);
      const type = TYPES[path.extname(file)] ?? "application/octet-stream";
      const hashed = /\.[0-9a-f]{16}\./.test(path.basename(file));
      const headers = {
        "content-type": type,
        "cache-control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
        ...(allow ? { "access-control-allow-origin": "*", "access-control-expose-headers": "content-range" } : {}),
        ...(noRange ? {} : { "accept-ranges": "bytes" }),
      };
      const range = noRange ? null : byteRange(req.headers.range, body.length);
      if (range === "unsatisfiable") {
        res.writeHead(416, { ...headers, "content-range": `bytes */${body.length}`, "content-length": 0 }).end();
        return;
      }
      if (range) {
        const { start, end } = range;
        res.writeHead(206, { ...headers, "content-range": `bytes ${start}-${end}/${body.length}`, "content-length": end - start + 1 });
        res.end(body.subarray(start, end + 1));
        return;
      }
      res.writeHead(200, { ...headers, "content-length": body.length });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain", ...(allow ? { "access-control-allow-origin": "*" } : {}) }).end("not found");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}${prefix}`, requests, close: () => new Promise((r) => server.close(r)) };
}

export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

/**
 * Collects a page's errors into `errors`: uncaught exceptions, console
 * errors, and 404s — except a typeahead piece's, which is how "no record
 * under this prefix" is told (the shipped directory lists only split
 * prefixes), a pair group file's (the pair is in its terms' files), and
 * the console line the browser logs for it.
 */
export function watchErrors(page, errors) {
  let pieces404 = 0;
  const inFlight = new Set();
  inFlights.set(page, inFlight);
  page.on("request", (r) => inFlight.add(r));
  page.on("requestfinished", (r) => inFlight.delete(r));
  page.on("requestfailed", (r) => inFlight.delete(r));
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("response", (r) => {
    if (r.status() !== 404) return;
    // (A pair of common words without a group file of its own is a 404 too.)
    if (/data\/pieces\/[0-9a-f]{16}\/((i-|r-|t-|x-)?[0-9a-z]+(\.h)?|g-[0-9a-f]+-[0-9a-f]+)\.shard$/.test(r.url())) pieces404++;
    else errors.push(`404: ${r.url()}`);
  });
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    if (/status of 404/.test(m.text()) && pieces404 > 0) return pieces404--;
    // A failed load says which URL only in its location.
    const at = m.location()?.url;
    errors.push(at && !m.text().includes(at) ? `${m.text()} (${at})` : m.text());
  });
}

const inFlights = new WeakMap(); // page → its requests on their way (watchErrors)

/**
 * Takes `context` offline once `page` (watched by watchErrors) has had no
 * request on its way for 300 ms (at most 10 s): a fetch the network drops
 * mid-way is a console error ("net::ERR_FAILED" through the service
 * worker) that says nothing about working offline, which is what the
 * tests that call this check.
 */
export async function goOffline(context, page) {
  const inFlight = inFlights.get(page);
  if (!inFlight) throw new Error("goOffline: the page is not watched (watchErrors)");
  for (let quiet = 0, end = Date.now() + 10_000; quiet < 3 && Date.now() < end; ) {
    await new Promise((r) => setTimeout(r, 100));
    quiet = inFlight.size ? 0 : quiet + 1;
  }
  await context.setOffline(true);
}

/**
 * The pieces-folder file a request URL reads (`6165.shard`, `r-041q.json`,
 * `ht-3.json`…), or null for any other URL: in a packed folder (pieces
 * version 9) the file's name rides along as the `f` query of its pack's
 * URL; before, it was the URL's last segment under `pieces/<build id>/`.
 */
export function pieceOf(url) {
  const u = new URL(url);
  if (/\/packs\/pieces\.[0-9a-f]{16}\.pack$/.test(u.pathname)) return u.searchParams.get("f");
  const m = /\/pieces\/[0-9a-f]{16}\/([^/]+)$/.exec(u.pathname);
  return m ? m[1] : null;
}
