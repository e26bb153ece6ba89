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
// Event: a bubbling "change" CustomEvent with
//   detail = {id, name, country, status, freeText}.
// Theming: CSS custom properties --registry-picker-* (see ui/picker.css).
//
// The registry runs in a Web Worker loaded from this script's folder, so
// host the folder on the form's origin (module workers are same-origin).
// Once the page is idle, suggestions are also computed on the main thread
// (registry.js `suggestOnMainThread`), so they paint in the keystroke's frame.
const BASE = new URL(".", import.meta.url);
const UI_JS = "ui/__UI_JS__";
const UI_WASM = "ui/__UI_WASM__";
const CSS = "ui/__PICKER_CSS__";

let loading = null;
function load() {
  loading ??= (async () => {
    if (!document.querySelector("link[data-registry-picker]")) {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = new URL(CSS, BASE).href;
      link.dataset.registryPicker = "";
      document.head.prepend(link); // first, so page styles win
    }
    const ui = await import(new URL(UI_JS, BASE).href);
    await ui.default({ module_or_path: new URL(UI_WASM, BASE) });
    const { openRegistry } = await import(new URL("registry.js", BASE).href);
    const client = await openRegistry({ dataUrl: new URL("data/", BASE), mode: "typeahead", suggestOnMainThread: true });
    // Pickers that offer the organisation of an e-mail address need the
    // domains file on the main thread too: fetch it once the page is idle.
    if (document.querySelector("registry-picker[email-domain], registry-picker[domain-from]")) client.loadDomains();
    ui.setClient(client);
    return ui;
  })();
  return loading;
}

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

class RegistryPicker extends HTMLElement {
  #mounted = false;

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

  async connectedCallback() {
    if (this.#mounted) return;
    this.#mounted = true;
    const name = this.getAttribute("name") || "organization";
    // Until the wasm is ready, a plain input keeps the form usable.
    const uid = this.id ? `${this.id}-picker` : `registry-picker-${++counter}`;
    const fallback = document.createElement("input");
    fallback.name = name;
    fallback.value = this.getAttribute("value") ?? "";
    fallback.setAttribute("aria-label", this.getAttribute("label") || "Organization");
    fallback.disabled = true;
    this.replaceChildren(fallback);
    let strings = {};
    try { strings = JSON.parse(this.getAttribute("strings") || "{}"); } catch {}
    if (this.strings && typeof this.strings === "object") strings = { ...strings, ...this.strings };
    const filters = [
      ...list(this.getAttribute("country")).map((c) => `country.country_code:${c}`),
      ...list(this.getAttribute("types")).map((t) => `types:${t}`),
      ...list(this.getAttribute("status")).map((s) => `status:${s}`),
      ...list(this.getAttribute("continent")).map((c) => `locations.geo_details.continent_code:${c}`),
    ];
    try {
      const ui = await load();
      const typed = fallback.value;
      this.replaceChildren();
      ui.mountPicker(this, {
        uid,
        name,
        idName: this.getAttribute("id-name") || `${name}_id`,
        label: this.getAttribute("label") || "Organization",
        placeholder: this.getAttribute("placeholder") || "",
        value: typed,
        idValue: this.getAttribute("id-value") || "",
        autocomplete: this.getAttribute("autocomplete") || "organization",
        required: this.hasAttribute("required"),
        allowInactive: this.hasAttribute("allow-inactive"),
        filters,
        strings,
        context: () => this.#context(),
        onForget: () => this.forgetRemembered(),
        onChange: (detail) => {
          if (detail.id && this.rememberKey) memory.add(this.rememberKey, detail.id);
          this.value = detail;
          this.toggleAttribute("data-free-text", detail.freeText);
          this.dispatchEvent(new CustomEvent("change", { bubbles: true, detail }));
        },
      });
      // The inner input's own change event would reach host listeners without
      // a detail: the element's "change" (above) replaces it.
      this.querySelector("input[role=combobox]")?.addEventListener("change", (e) => e.stopPropagation());
      this.dispatchEvent(new CustomEvent("registry-picker-ready", { bubbles: true }));
    } catch (e) {
      fallback.disabled = false; // free text still works
      console.error("registry-picker:", e);
    }
  }
}

if (!customElements.get("registry-picker")) customElements.define("registry-picker", RegistryPicker);
