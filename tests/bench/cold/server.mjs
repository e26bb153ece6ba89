// The cold-start benchmark's HTTP server: static files served the way a
// well-configured host would (brotli for text, JS, wasm and JSON, compressed
// once at start; hashed names immutable, everything else `no-cache` with an
// ETag so a warm visit revalidates with a 304), plus `/v1/…` and `/v2/…`
// proxied to `registry serve` (brotli on the fly, as an API server would).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import crypto from "node:crypto";
import zlib from "node:zlib";
import { byteRange } from "../../server.mjs";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".webmanifest": "application/manifest+json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".md": "text/plain; charset=utf-8",
};
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".webmanifest", ".wasm", ".svg", ".md"]);
const HASHED = /\.[0-9a-f]{16}\.|\/pieces\/[0-9a-f]{16}\//; // registry site: ui/*.<hash>.*, data/*.<hash>.shard, data/packs/*.<hash>.pack, data/pieces/<build id>/* (before packs); ours: flex/*.<hash>.json

/** Brotli at the quality a static host would precompress with; large files at 9 to keep start-up in seconds. */
function brotli(buf) {
  const quality = buf.length <= 2 << 20 ? 11 : 9;
  return zlib.brotliCompressSync(buf, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length },
  });
}

function* walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}

/** Every file under each mount, read and compressed once: url path → {body, br, type, etag, cache}. */
function precompress(mounts) {
  const files = new Map();
  for (const [prefix, dir] of Object.entries(mounts)) {
    for (const file of walk(dir)) {
      const rel = path.relative(dir, file).split(path.sep).join("/");
      const body = fs.readFileSync(file);
      const ext = path.extname(file);
      const br = COMPRESSIBLE.has(ext) && body.length > 512 ? brotli(body) : null;
      files.set(prefix + rel, {
        body,
        br: br && br.length < body.length ? br : null,
        type: TYPES[ext] ?? "application/octet-stream",
        etag: `"${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
        cache: HASHED.test("/" + rel) ? "public, max-age=31536000, immutable" : "no-cache",
      });
    }
  }
  return files;
}

const wantsBrotli = (req) => /\bbr\b/.test(req.headers["accept-encoding"] ?? "");

function sendStatic(req, res, f) {
  const headers = { "cache-control": f.cache, etag: f.etag, vary: "accept-encoding", "accept-ranges": "bytes" };
  if (req.headers["if-none-match"] === f.etag) return res.writeHead(304, headers).end();
  // One range, as static hosts answer it: identity bytes (packs are read so).
  const range = byteRange(req.headers.range, f.body.length);
  if (range === "unsatisfiable") return res.writeHead(416, { ...headers, "content-range": `bytes */${f.body.length}` }).end();
  if (range) {
    const { start, end } = range;
    const body = f.body.subarray(start, end + 1);
    res.writeHead(206, { ...headers, "content-type": f.type, "content-length": body.length, "content-range": `bytes ${start}-${end}/${f.body.length}` });
    return res.end(req.method === "HEAD" ? undefined : body);
  }
  const br = f.br && wantsBrotli(req);
  const body = br ? f.br : f.body;
  res.writeHead(200, {
    ...headers,
    "content-type": f.type,
    "content-length": body.length,
    ...(br ? { "content-encoding": "br" } : {}),
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

/** Forwards an API request to `apiOrigin` (a local `registry serve`), compressing the JSON answer. */
function proxy(req, res, apiOrigin) {
  http
    .get(apiOrigin + req.url, (up) => {
      const parts = [];
      up.on("data", (d) => parts.push(d));
      up.on("end", () => {
        let body = Buffer.concat(parts);
        const headers = { "content-type": up.headers["content-type"] ?? "application/json", "cache-control": "no-store", vary: "accept-encoding" };
        if (wantsBrotli(req) && body.length > 512) {
          // Quality 5: what a dynamic response gets (fast, most of q11's gain on JSON).
          body = zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
          headers["content-encoding"] = "br";
        }
        res.writeHead(up.statusCode ?? 502, { ...headers, "content-length": body.length }).end(body);
      });
    })
    .on("error", (e) => res.writeHead(502, { "content-type": "text/plain" }).end(String(e)));
}

/**
 * Starts the server on 127.0.0.1: `mounts` maps URL prefixes ("/site/") to
 * directories; `/v1/…`, `/v2/…` go to `apiOrigin` when given.
 * Resolves to {url, close, files} (files: url path → sizes, for the report).
 */
export async function startServer({ mounts, apiOrigin }) {
  const files = precompress(mounts);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (apiOrigin && /^\/(v1|v2)\//.test(url.pathname)) return proxy(req, res, apiOrigin);
    let p = decodeURIComponent(url.pathname);
    if (p.endsWith("/")) p += "index.html";
    const f = files.get(p);
    if (!f) return res.writeHead(404, { "content-type": "text/plain", "cache-control": "no-store" }).end("not found");
    sendStatic(req, res, f);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    files,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }),
  };
}
