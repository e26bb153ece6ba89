// <registry-picker>: an organization picker for plain HTML forms.
//
//   <script type="module" src="https://your.host/registry/registry-picker.js"></script>
//   <form …>
//     <registry-picker name="affiliation" label="Affiliation"></registry-picker>
//   </form>
//
// The element renders, in its light DOM (so the form submits them and
// autofill works): a <label>, a native <input name="affiliation"> holding the
// display name or the free text typed, and <input type="hidden"
// name="affiliation_id"> holding the picked record's id URL (empty for free
// text). Attributes:
//   data-url — the data folder (default: data/ next to this script; the
//   first picker's counts for the page),
//   name, id-name (default "<name>_id"), label, placeholder, value, id-value,
//   required, autocomplete (default "organization"),
//   country="GB,FR", types="education,healthcare", status="active",
//   continent="EU" — restrict the suggestions,
//   allow-inactive — inactive/withdrawn records can be picked themselves
//   (by default only their successor can), strings='{"noResults":"…"}'.
// Context from the form (boosts and offers, never filters):
//   prefer-country="DE,FR", prefer-types="education,funder",
//   email-domain="uni.example" (or an address), domain-from="<name of the
//   form's e-mail input>" — its records are offered on focus before anything
//   is typed and boosted while typing, lang="de" — labels in that language
//   as the main line, remember[="list"] — the ids picked with this widget
//   are kept in this browser's localStorage (key "registry-picker:remembered"
//   or "registry-picker:remembered:<list>", most recent first, at most 20;
//   nothing leaves the browser), offered and ranked first, marked "picked
//   before"; element.forgetRemembered() clears them (element.rememberKey is
//   the key).
// Form-associated: form.reset() restores value/id-value, a disabled
// <fieldset> or `disabled` disables it, `required` joins the form's validation.
// multiple — several organizations: each pick (or text kept with Enter)
// joins a list of removable entries, submitted as repeated <name> and
// <name>_id fields (the id empty for text kept as typed); the change event's
// detail is then {values: [{id, name, freeText}]}.
// Events (bubbling CustomEvents): "change", detail = {id, name, country,
//   status, freeText}; "registry-picker-ready" (no detail) once the picker
//   is mounted, also when its data failed; "registry-picker-error", detail =
//   {url, reason: "network"|"cors"|"http"|"invalid"|"code", status, message}, when
//   the data (or the widget's own code: "code") could not be loaded; "cors":
//   a host on another origin answers without Access-Control-Allow-Origin
//   (the data's, or the widget's code's: `url` names the file).
// Theming: CSS custom properties --registry-picker-* (see ui/picker.css).
//
// Loading: this script asks at once for the suggest-only registry wasm, the
// data manifest and the small JS modules, and for the widget's UI wasm once
// the suggest-only one is in (on a slow link they would share it, and the
// first suggestions need only the latter) — all under content-hashed names
// (immutable) except this script and the manifest, so a warm visit costs
// one revalidation round trip. Suggestions come from the typeahead pieces a
// query needs (registry-pieces.js: a few kilobytes), on the main thread,
// synchronously once a piece is here; the whole registry (registry.js: a
// Web Worker and the summary + names files) is opened only when a query
// needs it (a pasted id, an e-mail domain, a record by id). Until the UI's
// wasm is ready the element holds a plain enabled input (the page's, if it
// has one, with its label and id field, in the picker's layout, `required`
// and `disabled` applied): what is typed there
// is kept, its word's pieces are fetched, its suggestions are shown in an
// early list under it (a pick there is kept), and the picker, once mounted,
// takes over the text, focus, caret and pick. One registry per page, shared
// by every picker. The folder may be on another origin than the form (with
// CORS): the whole registry's Worker is then started from a Blob module.
const BASE = new URL(".", import.meta.url);
const UI_JS = "ui/__WIDGET_JS__";
const UI_WASM = "ui/__WIDGET_WASM__";
const SUGGEST_JS = "ui/__SUGGEST_JS__";
const SUGGEST_WASM = "ui/__SUGGEST_WASM__";
const PIECES_JS = "ui/__PIECES_JS__";
const CSS = "ui/__PICKER_CSS__";
// The data folder (written by `registry build` / `registry site`): the
// `data-url` attribute of the first picker that connects (relative to the
// page), else data/ next to this script. One registry per page.
// It names a folder, with or without its trailing slash.
function dataUrlOf(el) {
  if (!el?.hasAttribute("data-url")) return new URL("data/", BASE);
  const url = new URL(el.getAttribute("data-url"), document.baseURI);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url;
}

// SHA-384 (SRI) of every file the loader loads: a loader pinned by the
// page's SRI hash pins them too.
const UI_WASM_SRI = "__WIDGET_WASM_SRI__";
const SUGGEST_WASM_SRI = "__SUGGEST_WASM_SRI__";
const UI_JS_SRI = "__WIDGET_JS_SRI__";
const SUGGEST_JS_SRI = "__SUGGEST_JS_SRI__";
const PIECES_JS_SRI = "__PIECES_JS_SRI__";
const CSS_SRI = "__PICKER_CSS_SRI__";
const pinned = (sri) => sri.startsWith("sha"); // web/ unbuilt: nothing to pin

// import() takes no integrity: a modulepreload link with one puts the
// checked module in the module map, which the import then uses (a
// mismatch rejects it). An import map cannot be added after the page's
// first module.
function pinnedImport(path, integrity) {
  const href = new URL(path, BASE).href;
  if (pinned(integrity) && !document.querySelector(`link[rel=modulepreload][href="${href}"]`))
    document.head.append(Object.assign(document.createElement("link"), { rel: "modulepreload", href, integrity }));
  return import(href);
}

/**
 * A wasm-bindgen module, its wasm fetched in parallel with its JS (both
 * checked against their hashes); the wasm once `after` has settled.
 */
function wasmModule(js, jsIntegrity, wasm, integrity, after = null) {
  const bytes = Promise.resolve(after).then(() => fetch(new URL(wasm, BASE), pinned(integrity) ? { integrity } : {}));
  return pinnedImport(js, jsIntegrity).then(async (m) => {
    await m.default({ module_or_path: bytes });
    return m;
  });
}

const idle = (f) => (typeof requestIdleCallback === "function" ? requestIdleCallback(f, { timeout: 2000 }) : setTimeout(f, 200));

let started = null;
/** Starts every download once; `{ui, pieces, client}` promises and the pieces (at once). */
function start(el) {
  if (started) return started;
  const DATA = dataUrlOf(el);
  if (!document.querySelector("link[data-registry-picker]")) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = new URL(CSS, BASE).href;
    if (pinned(CSS_SRI)) Object.assign(link, { integrity: CSS_SRI, crossOrigin: "anonymous" });
    link.dataset.registryPicker = "";
    document.head.prepend(link); // first, so page styles win
  }
  const suggest = wasmModule(SUGGEST_JS, SUGGEST_JS_SRI, SUGGEST_WASM, SUGGEST_WASM_SRI);
  const piecesJs = pinnedImport(PIECES_JS, PIECES_JS_SRI);
  // The UI's wasm once the suggest-only one is in: on a slow link the two
  // would share its bandwidth, and the first suggestions need only the
  // latter (the early list shows them until the picker is mounted).
  const ui = wasmModule(UI_JS, UI_JS_SRI, UI_WASM, UI_WASM_SRI, suggest.catch(() => {}));
  // The manifest (which names every data file) with the code, not after
  // registry-pieces.js: the first keystroke's files follow it at once.
  const manifestUrl = new URL("manifest.json", DATA);
  const manifestRes = fetch(manifestUrl, { cache: "no-cache" }).then(
    (res) => {
      if (res.ok) return res;
      throw dataError(manifestUrl, "http", res.status, res.status === 404 ? "not found: data-url must name a folder written by `registry build` / `registry site`" : "the data host answered with an error");
    },
    async (e) => {
      throw (await refusedByCors(manifestUrl)) ? corsError(manifestUrl, "The registry's data") : networkError(manifestUrl, e);
    },
  );
  manifestRes.catch(() => {}); // reported by the pieces, which read it
  const pieces = piecesJs.then((m) => {
    const manifest = m.fetchPiecesManifest(DATA, manifestRes);
    // Data without pieces is not a failure: the whole registry answers it.
    manifest.catch((e) => e?.name !== "NoPiecesError" && health.failed(e, manifestUrl));
    return m.startPieces({ dataUrl: DATA, wasm: suggest, manifest });
  });
  const openWhole = () =>
    import(new URL("registry.js", BASE).href)
      .then((r) => r.openRegistry({ dataUrl: DATA, mode: "typeahead" }))
      .then(
        (whole) => (health.ok(), whole),
        async (e) => {
          throw health.failed(await corsOr(e, manifestUrl, "The registry's data"), manifestUrl);
        },
      );
  const client = Promise.all([piecesJs, pieces]).then(([m, p]) => new (guarded(m.TypeaheadClient))(p, openWhole));
  const loaded = Promise.all([ui, client]).then(([ui, client]) => {
    ui.setClient(client);
    return ui;
  });
  // Once the page is idle after loading, the pieces of the commonest first
  // characters (one small file of fixed size), so that a first keystroke is
  // answered at once; not when the browser asks to save data.
  if (!navigator.connection?.saveData)
    Promise.all([loaded, pieces]).then(([, p]) => idle(() => p.warm()), () => {});
  started = { loaded, pieces, client };
  return started;
}

/** An Error for a data file that could not be loaded: `detail` is the `registry-picker-error` event's. */
function dataError(url, reason, status, why) {
  const message = `cannot load ${url}${status ? ` (HTTP ${status})` : ""}: ${why}`;
  return Object.assign(new Error(message), { detail: { url: String(url), reason, status, message } });
}

/** A fetch of `url` that failed before any answer (`e`): unreachable, or refused by CORS (told apart by `corsError`). */
function networkError(url, e) {
  return dataError(url, "network", null, `${e.message}: the data host is unreachable, or it sends no Access-Control-Allow-Origin for this page's origin (CORS)`);
}

/**
 * Whether `url`, which could not be read, is on another origin whose host
 * answers but without the Access-Control-Allow-Origin header this page
 * needs: the CORS read failed, and one opaque (no-cors) read of the same URL
 * arrives (one request more, once per failure, never per keystroke). A failed CORS read says nothing more to a page (the browser's
 * own console line names the header, but no event can see it).
 */
function refusedByCors(url) {
  url = new URL(url, document.baseURI);
  if (url.origin === location.origin) return Promise.resolve(false);
  // One probe per URL while the failure is held (RETRY_MS), whichever read failed.
  const held = probes.get(url.href);
  if (held && Date.now() - held.at < RETRY_MS) return held.verdict;
  const verdict = fetch(url, { mode: "no-cors", cache: "no-store" }).then(() => true, () => false);
  probes.set(url.href, { at: Date.now(), verdict });
  return verdict;
}
const probes = new Map(); // url → {at, verdict}: refusedByCors's probes

/** `e`, or the "cors" error for `url` when `e` is a network failure of a host that answers without the header. */
async function corsOr(e, url, what) {
  if (e?.detail) return e;
  const network = e instanceof TypeError || /fetch|network/i.test(e?.message ?? "");
  return network && (await refusedByCors(url)) ? corsError(url, what) : e;
}

/** The error for `url` refused by CORS: `detail.reason` "cors", the message naming the header to add. */
function corsError(url, what) {
  const origin = new URL(url, document.baseURI).origin;
  return dataError(
    url,
    "cors",
    null,
    `${what} on ${origin} cannot be read from this page (${location.origin}): its host sends no Access-Control-Allow-Origin header. ` +
      `Serve the widget's files and data with "Access-Control-Allow-Origin: *" (or this page's origin; see HOSTING.md, and \`registry check-host\`); until then the input works as free text, without an id`,
  );
}

// After the data failed to load, the page's queries fail at once with that
// error for RETRY_MS (one console line and one event per failed attempt,
// not a refetch per keystroke); the first query after that tries again.
const RETRY_MS = 30_000;
const health = {
  error: null,
  at: 0,
  listeners: new Set(),
  /** Records `e` (made to name `url` and its likely cause if it does not); → the error to throw. */
  failed(e, url) {
    if (!e?.detail) {
      const network = e instanceof TypeError || /fetch|network/i.test(e?.message ?? "");
      e = network
        ? networkError(url, e)
        : Object.assign(new Error(String(e?.message ?? e)), { detail: { url: String(url), reason: "invalid", status: null, message: String(e?.message ?? e) } });
    }
    if (health.error?.detail.message !== e.detail.message || Date.now() - health.at >= RETRY_MS) {
      console.error(`registry-picker: ${e.message}`);
      for (const f of health.listeners) f(e.detail);
    }
    health.error = e;
    health.at = Date.now();
    return e;
  },
  ok() {
    health.error = null;
  },
  /** The error to answer with now, or null: then ask (again). */
  holding() {
    return health.error && Date.now() - health.at < RETRY_MS ? health.error : null;
  },
};

/** The typeahead client, answering with the data's error while `health` holds one. */
function guarded(TypeaheadClient) {
  return class extends TypeaheadClient {
    suggestNow(text, options) {
      return health.holding() ? null : super.suggestNow(text, options);
    }
    suggestPartialNow(text, options) {
      return health.holding() ? null : super.suggestPartialNow(text, options);
    }
    suggest(text, options) {
      const e = health.holding();
      return e ? Promise.reject(e) : super.suggest(text, options);
    }
    call(method, args) {
      const e = health.holding();
      return e ? Promise.reject(e) : super.call(method, args);
    }
    request(pathAndQuery) {
      const e = health.holding();
      return e ? Promise.reject(e) : super.request(pathAndQuery);
    }
  };
}

// Attributes of the page's input that the picker's input takes over
// (autocomplete, required and placeholder count too when the element has none).
const CARRIED = ["maxlength", "minlength", "pattern", "title", "inputmode", "enterkeyhint", "dir"];

const list = (v) => (v ? v.split(",").map((s) => s.trim()).filter(Boolean) : []);
let counter = 0;

// Picks remembered in localStorage. Storage may throw (privacy modes,
// quota, disabled cookies): the widget then works without remembering.
const REMEMBER_MAX = 20;
const memory = {
  key: (list) => `registry-picker:remembered${list ? `:${list}` : ""}`,
  read(key) {
    try {
      const ids = JSON.parse(localStorage.getItem(key) ?? "[]");
      return Array.isArray(ids) ? ids.filter((id) => typeof id === "string").slice(0, REMEMBER_MAX) : [];
    } catch {
      return [];
    }
  },
  add(key, id) {
    const ids = [id, ...memory.read(key).filter((x) => x !== id)].slice(0, REMEMBER_MAX);
    try {
      localStorage.setItem(key, JSON.stringify(ids));
    } catch {}
  },
  clear(key) {
    try {
      localStorage.removeItem(key);
    } catch {}
  },
};

/**
 * Until the picker's UI is mounted, the suggestions for what is typed in
 * the plain input, from the pieces (`client`, the suggest-only wasm): a
 * listbox of the same look under the input, whose options can be picked
 * with the mouse or the arrow keys and Enter. `options()` → the suggest
 * options of this picker. `onPick(hit)`, and `onPick(null, text)` when a
 * pick is edited; `stop()` removes the list and returns the hit picked, if any.
 */
function earlyList(input, uid, label, client, options, allowInactive, strings, onPick) {
  const STATUS = { active: "Active", inactive: "Inactive", withdrawn: "Withdrawn" }; // the UI's defaults (lib.rs Strings)
  const list = Object.assign(document.createElement("ul"), { id: `${uid}-early`, className: "cb-list", hidden: true });
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", label);
  input.after(list);
  input.setAttribute("aria-controls", list.id);
  let hits = [];
  let active = -1;
  let picked = null;
  let stopped = false;
  const pickable = (h) => allowInactive || h.summary.status === "active";
  const setActive = (i) => {
    active = i;
    [...list.children].forEach((li, n) => {
      li.classList.toggle("cb-active", n === i);
      li.setAttribute("aria-selected", String(n === i));
    });
    if (i < 0) input.removeAttribute("aria-activedescendant");
    else input.setAttribute("aria-activedescendant", `${list.id}-${i}`);
  };
  const show = (found, text = "") => {
    hits = found;
    list.dataset.for = text;
    list.replaceChildren(
      ...found.map((h, i) => {
        const s = h.summary;
        const li = Object.assign(document.createElement("li"), { id: `${list.id}-${i}`, className: "cb-opt" });
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        li.dataset.status = s.status;
        if (!pickable(h)) li.setAttribute("aria-disabled", "true");
        const span = (className, text) => Object.assign(document.createElement("span"), { className, textContent: text });
        const line = span("cb-line", "");
        const badge = span("badge", strings[s.status] ?? STATUS[s.status] ?? s.status);
        badge.dataset.status = s.status;
        const tags = span("cb-tags", "");
        tags.append(badge);
        line.append(span("cb-name", s.name), tags);
        const place = [s.city, s.country_name].filter(Boolean).join(", ");
        const types = (s.types ?? []).map((t) => t.charAt(0).toUpperCase() + t.slice(1)).join(", ");
        li.append(line, span("cb-meta", [place, types].filter(Boolean).join(" · ")));
        li.addEventListener("mousedown", (e) => e.preventDefault()); // the input keeps the focus
        li.addEventListener("click", () => pick(i));
        return li;
      }),
    );
    list.hidden = found.length === 0;
    input.setAttribute("aria-expanded", String(!list.hidden));
    setActive(-1);
  };
  const hide = () => show([]);
  const pick = (i) => {
    const h = hits[i];
    if (!h || !pickable(h)) return;
    picked = h;
    input.value = h.summary.name;
    hide();
    onPick(h);
  };
  const onInput = () => {
    const text = input.value;
    // An edited pick is text as typed again: the element's value says so at once.
    if (picked) onPick(null, text);
    picked = null;
    if (!text.trim()) return hide();
    client.then((c) => {
      const opts = options();
      if (stopped || !opts) return;
      const now = c.suggestNow(text, opts);
      (now ? Promise.resolve(now) : c.suggest(text, opts)).then(
        (found) => !stopped && input.value === text && show(found, text),
        () => {}, // superseded, or the whole registry is needed: the mounted picker answers
      );
    }, () => {});
  };
  const onKey = (e) => {
    if (list.hidden) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const n = hits.length;
      setActive(e.key === "ArrowDown" ? (active + 1) % n : (active - 1 + n) % n);
    } else if (e.key === "Enter" && active >= 0) {
      e.preventDefault();
      pick(active);
    } else if (e.key === "Escape") hide();
  };
  input.addEventListener("input", onInput);
  input.addEventListener("keydown", onKey);
  input.addEventListener("blur", hide);
  if (input.value !== input.defaultValue) onInput(); // typed before this script ran
  return {
    stop() {
      stopped = true;
      input.removeEventListener("input", onInput);
      input.removeEventListener("keydown", onKey);
      input.removeEventListener("blur", hide);
      input.removeAttribute("aria-activedescendant");
      list.remove();
      return picked;
    },
  };
}

// Whether the widget's code at `url` is refused by CORS: asked once per
// page (every picker of the page shares the answer); the error, or null.
let codeCors = null;
function codeRefusedByCors(url) {
  codeCors ??= refusedByCors(url).then((refused) => (refused ? corsError(url, "The widget's code") : null));
  return codeCors;
}

class RegistryPicker extends HTMLElement {
  // A form-associated custom element: the form's reset() and a disabled
  // <fieldset> (or the element's own `disabled`) reach it. Its values are
  // submitted by its light-DOM inputs (autofill, and no JavaScript needed for
  // free text), so it sets no form value of its own; `required` is the
  // inner input's, so the browser's validation UI points at it.
  static formAssociated = true;
  #mounted = false;
  #picker = null; // {reset(value, idValue)} once mounted
  #initial = null; // [value, idValue] when connected, what reset() restores
  #disabled = false;
  #idField = null; // the early input's id field, until the picker is mounted
  #earlyInput = null; // the early (page's or own) input, until the picker is mounted
  #pendingList = null; // a `multiple` list restored before the picker was mounted

  /** The form this picker belongs to (ElementInternals), or null. */
  get form() {
    return this.#internals?.form ?? this.closest("form");
  }
  #internals = typeof this.attachInternals === "function" ? this.attachInternals() : null;

  formResetCallback() {
    const [value, id] = this.#initial ?? ["", ""];
    this.#picker?.reset(value, id);
    // (A hidden input's value is its attribute: a form reset leaves it.)
    if (this.#idField) this.#idField.value = id;
    this.value = null;
    this.removeAttribute("data-free-text");
  }

  // Back to a submitted form (a history traversal without the back/forward
  // cache) or its reload: the browser restores the state saved below (text
  // and id, or a `multiple` picker's list), as it does a plain input's value.
  formStateRestoreCallback(state, reason) {
    if (reason !== "restore" || typeof state !== "string") return;
    let text, id, values;
    try {
      ({ text, id, values } = JSON.parse(state));
    } catch {
      return;
    }
    if (this.hasAttribute("multiple")) {
      if (!Array.isArray(values)) return;
      values = values.filter((v) => typeof v?.name === "string").map((v) => ({ id: typeof v.id === "string" && v.id ? v.id : null, name: v.name, freeText: !v.id }));
      // Before the picker is mounted, it takes the list when it is.
      if (this.#picker) this.#picker.restore?.(values);
      else this.#pendingList = values;
      this.#saveList(values);
      this.value = { values };
      return;
    }
    if (typeof text !== "string" || typeof id !== "string") return;
    if (this.#picker) this.#picker.reset(text, id);
    else if (this.#earlyInput) {
      this.#earlyInput.value = text;
      this.#idField.value = id;
    } else return;
    this.#saveState(text, id);
    this.value = id ? { id, name: text, freeText: false } : text.trim() ? { id: null, name: text, freeText: true } : null;
    this.toggleAttribute("data-free-text", !id && !!text.trim());
  }

  /** What the browser keeps for this picker when the page is left (its text and id), restored by formStateRestoreCallback. */
  #saveState(text, id) {
    if (this.hasAttribute("multiple")) return;
    try {
      this.#internals?.setFormValue(null, JSON.stringify({ text, id: id ?? "" }));
    } catch {}
  }

  /** The same for a `multiple` picker: its list, [{id, name}]. */
  #saveList(values) {
    try {
      this.#internals?.setFormValue(null, JSON.stringify({ values: values.map((v) => ({ id: v.id ?? "", name: v.name })) }));
    } catch {}
  }

  formDisabledCallback(disabled) {
    this.#disabled = disabled;
    for (const input of this.querySelectorAll("input")) input.disabled = disabled;
  }

  /**
   * The page's one typeahead client (registry-pieces.js TypeaheadClient),
   * shared by every picker: `await RegistryPicker.registry` (e.g.
   * `customElements.get("registry-picker").registry`). Starts loading.
   */
  static get registry() {
    return start(document.querySelector("registry-picker")).client;
  }

  /** The localStorage key of this widget's remembered picks, or null without `remember`. */
  get rememberKey() {
    return this.hasAttribute("remember") ? memory.key(this.getAttribute("remember")) : null;
  }

  /** Forgets the picks remembered for this widget's list (the "Forget my past picks" button does the same). */
  forgetRemembered() {
    if (this.rememberKey) memory.clear(this.rememberKey);
  }

  // The e-mail address of the form's `domain-from` input, read when the
  // picker asks (on focus and per keystroke), so an address typed later
  // counts; else the `email-domain` attribute.
  #emailDomain() {
    const from = this.getAttribute("domain-from");
    if (from) {
      const field = this.closest("form")?.elements.namedItem(from) ?? document.getElementsByName(from)[0];
      const v = field?.value?.trim();
      if (v) return v;
    }
    return this.getAttribute("email-domain") || null;
  }

  #context() {
    const key = this.rememberKey;
    return {
      preferCountries: list(this.getAttribute("prefer-country")),
      preferTypes: list(this.getAttribute("prefer-types")),
      emailDomain: this.#emailDomain(),
      remembered: key ? memory.read(key) : [],
      lang: this.getAttribute("lang") || null,
    };
  }

  /** A pick or free text: remembered, the element's value, its change event. */
  #changed(detail) {
    if (detail.id && this.rememberKey) memory.add(this.rememberKey, detail.id);
    if (Array.isArray(detail.values)) this.#saveList(detail.values);
    else this.#saveState(detail.name ?? "", detail.id);
    this.value = detail;
    this.toggleAttribute("data-free-text", !!detail.freeText);
    this.dispatchEvent(new CustomEvent("change", { bubbles: true, detail }));
  }

  // The early list's suggest options, as the mounted picker asks them
  // (registry_client.rs suggest_options); null when the context adds what
  // that list does not show (labels in a language, e-mail and remembered marks).
  #earlyOptions(filters) {
    const c = this.#context();
    if (c.emailDomain || c.remembered.length || c.lang) return null;
    const o = { filters, limit: 8 };
    if (c.preferCountries.length) o.preferCountries = c.preferCountries;
    if (c.preferTypes.length) o.preferTypes = c.preferTypes;
    return o;
  }

  async connectedCallback() {
    if (this.#mounted) return;
    this.#mounted = true;
    const o = this.#options();
    const { fallback } = o;
    const idField = this.#showEarlyInput(o);
    const { loaded, pieces, client } = start(this);
    this.#listenToHealth();
    // The first character's pieces, while the code still loads.
    const prefetch = () => pieces.then((p) => p.prefetch(fallback.value), () => {});
    fallback.addEventListener("input", prefetch);
    if (fallback.value !== fallback.defaultValue) prefetch(); // typed before this script ran
    const early = this.#earlySuggestions(o, client, idField);
    try {
      const ui = await loaded;
      this.#initial = [fallback.defaultValue, this.getAttribute("id-value") || ""];
      fallback.removeEventListener("input", prefetch);
      this.#mountUi(ui, o, idField, early?.stop());
    } catch (e) {
      await this.#codeFailed(e);
    }
  }

  /**
   * What the element and the page's own input (progressive enhancement:
   * usable from the first paint, and submitted as free text without
   * JavaScript, with a <label> of its own) say of the picker; an input is
   * made when the page has none.
   */
  #options() {
    const name = this.getAttribute("name") || "organization";
    let fallback = this.querySelector("input:not([type=hidden])");
    const pageLabel = this.querySelector("label")?.textContent.trim();
    if (!fallback) {
      fallback = document.createElement("input");
      fallback.value = fallback.defaultValue = this.getAttribute("value") ?? "";
    }
    let strings = {};
    try { strings = JSON.parse(this.getAttribute("strings") || "{}"); } catch {}
    if (this.strings && typeof this.strings === "object") strings = { ...strings, ...this.strings };
    return {
      name,
      idName: this.getAttribute("id-name") || `${name}_id`,
      uid: this.id ? `${this.id}-picker` : `registry-picker-${++counter}`,
      label: this.getAttribute("label") || pageLabel || "Organization",
      fallback,
      // What the page's input says that the picker's input (which replaces it) keeps.
      carried: CARRIED.filter((a) => fallback.hasAttribute(a)).map((a) => [a, fallback.getAttribute(a)]),
      autocomplete: this.getAttribute("autocomplete") || fallback.getAttribute("autocomplete") || "organization",
      required: this.hasAttribute("required") || fallback.required,
      placeholder: this.getAttribute("placeholder") ?? fallback.getAttribute("placeholder") ?? "",
      strings,
      filters: [
        ...list(this.getAttribute("country")).map((c) => `country.country_code:${c}`),
        ...list(this.getAttribute("types")).map((t) => `types:${t}`),
        ...list(this.getAttribute("status")).map((s) => `status:${s}`),
        ...list(this.getAttribute("continent")).map((c) => `locations.geo_details.continent_code:${c}`),
      ],
    };
  }

  /**
   * Until the wasm is ready, the plain input in the picker's own layout
   * (its label, the id field, the note's room), so nothing moves when the
   * picker replaces it; what is typed there is carried over to the picker.
   * Returns the id field.
   */
  #showEarlyInput({ name, idName, uid, label, fallback, required, placeholder }) {
    const hadFocus = document.activeElement === fallback;
    const caret = [fallback.selectionStart, fallback.selectionEnd];
    const el = (tag, props) => Object.assign(document.createElement(tag), props);
    if (!fallback.id) fallback.id = `${uid}-early-input`;
    const cb = el("div", { className: "cb" });
    cb.append(el("label", { htmlFor: fallback.id, textContent: label }), fallback);
    const idField = el("input", { type: "hidden", name: idName });
    idField.value = this.getAttribute("id-value") ?? "";
    // Typed before this script ran: not the page's pick any more.
    if (fallback.value !== fallback.defaultValue) idField.value = "";
    this.#idField = idField;
    this.#earlyInput = fallback;
    // An edit is text as typed, without an id (a pick sets the text without an input event).
    this.addEventListener("input", (e) => e.target.matches?.("input[role=combobox]") && this.#saveState(e.target.value, ""));
    const box = el("div", { className: "rp" });
    box.append(cb, idField, el("p", { className: "rp-note" }));
    this.replaceChildren(box);
    if (hadFocus) {
      // Moving the input took its focus.
      fallback.focus();
      if (caret[0] !== null) fallback.setSelectionRange(...caret);
    }
    fallback.name = name;
    fallback.required = required;
    if (placeholder) fallback.placeholder = placeholder;
    if (this.#disabled || this.matches(":disabled")) this.formDisabledCallback(true);
    // Its native change event (fired as it is replaced by the picker too)
    // has no detail: the element's own "change" stands for it, as for the picker's input.
    fallback.addEventListener("change", (e) => e.stopPropagation());
    // Any edit makes it text as typed (a pick sets the text without one).
    fallback.addEventListener("input", () => (idField.value = ""));
    fallback.autocomplete = "off"; // the early list stands for the browser's
    fallback.setAttribute("role", "combobox");
    fallback.setAttribute("aria-expanded", "false");
    fallback.setAttribute("aria-autocomplete", "list");
    fallback.removeAttribute("aria-label"); // named by its label
    return idField;
  }

  /** The registry's failures reach this element as `registry-picker-error`, one from before it was connected too. */
  #listenToHealth() {
    const onError = (detail) => this.dispatchEvent(new CustomEvent("registry-picker-error", { bubbles: true, detail }));
    health.listeners.add(onError);
    if (health.error) queueMicrotask(() => onError(health.error.detail));
  }

  /** The first suggestions from the pieces, before the UI's wasm is in (not for `multiple`). */
  #earlySuggestions({ fallback, uid, label, strings, filters }, client, idField) {
    if (this.hasAttribute("multiple")) return null;
    return earlyList(fallback, uid, label, client, () => this.#earlyOptions(filters), this.hasAttribute("allow-inactive"), strings, (h, text) => {
      idField.value = h?.summary.id ?? "";
      this.#changed(
        h
          ? { id: h.summary.id, name: h.summary.name, country: h.summary.country_code ?? null, status: h.summary.status, freeText: false }
          : { id: null, name: text, country: null, status: null, freeText: !!text.trim() },
      );
    });
  }

  /**
   * The UI's picker in place of the early input: its text, the early pick
   * (`earlyPick`) or the page's id, its focus and caret, and the
   * suggestions for text typed before it was ready.
   */
  #mountUi(ui, { uid, name, idName, label, placeholder, autocomplete, required, filters, strings, carried, fallback }, idField, earlyPick) {
    const typed = fallback.value;
    const focused = document.activeElement === fallback;
    const [selStart, selEnd] = [fallback.selectionStart, fallback.selectionEnd];
    this.replaceChildren();
    this.#picker = ui.mountPicker(this, {
      uid,
      name,
      idName,
      label,
      placeholder,
      value: typed,
      // The early pick, the page's id-value, or none after an edit.
      idValue: idField.value,
      autocomplete,
      required,
      allowInactive: this.hasAttribute("allow-inactive"),
      multiple: this.hasAttribute("multiple"),
      filters,
      strings,
      context: () => this.#context(),
      onForget: () => this.forgetRemembered(),
      onChange: (detail) => this.#changed(detail),
    });
    // The inner input's own change event would reach host listeners without
    // a detail: the element's "change" (above) replaces it.
    const input = this.querySelector("input[role=combobox]");
    input?.addEventListener("change", (e) => e.stopPropagation());
    for (const [a, v] of carried) input?.setAttribute(a, v);
    this.#idField = null;
    this.#earlyInput = null;
    if (this.#pendingList) this.#picker.restore?.(this.#pendingList);
    this.#pendingList = null;
    if (this.#disabled) this.formDisabledCallback(true);
    // Typed before the picker was ready: same text, focus and caret, and
    // the suggestions for it.
    if (input && focused) {
      input.value = typed; // Leptos sets it in a microtask; the input event below reads it now
      input.focus();
      input.setSelectionRange(selStart, selEnd);
      // (A pick made in the early list is kept: no edit to answer.)
      if (typed !== fallback.defaultValue && !earlyPick) input.dispatchEvent(new Event("input", { bubbles: true }));
    }
    this.dispatchEvent(new CustomEvent("registry-picker-ready", { bubbles: true }));
  }

  /**
   * The widget's code could not be loaded: free text (and an early pick's
   * id) still work in the plain input. From another origin without CORS,
   * the widget's modules are refused (this loader was let through: a host
   * that sends the header for some files only): said as such, naming the
   * header.
   */
  async #codeFailed(e) {
    const code = new URL(UI_JS, BASE);
    const cors = await codeRefusedByCors(code);
    if (cors) {
      console.error(`registry-picker: ${cors.message}`);
      this.dispatchEvent(new CustomEvent("registry-picker-error", { bubbles: true, detail: cors.detail }));
      return;
    }
    console.error("registry-picker: the widget's code could not be loaded:", e);
    const message = String(e?.message ?? e);
    this.dispatchEvent(new CustomEvent("registry-picker-error", { bubbles: true, detail: { url: null, reason: "code", status: null, message } }));
  }
}

if (!customElements.get("registry-picker")) customElements.define("registry-picker", RegistryPicker);
