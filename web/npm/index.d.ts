// Types of the registry-picker package: the <registry-picker> element, its
// events, and the JavaScript runtime (registry.js, registry-pieces.js).

/** One organization in a change event. */
export interface PickedOrganization {
  /** Identifier URL (`https://ror.org/0…`), or null for text kept as typed. */
  id: string | null;
  /** Display name, or the text as typed. */
  name: string;
  /** True when the text was not picked from the registry. */
  freeText: boolean;
}

/** `event.detail` of the element's bubbling "change" event. */
export interface RegistryPickerChangeDetail {
  /** Single mode: the picked id URL, or null for free text. */
  id?: string | null;
  /** Single mode: the display name or the free text. */
  name?: string;
  /** Single mode: the picked record's country code. */
  country?: string | null;
  /** Single mode: `active`, `inactive` or `withdrawn` (null for free text). */
  status?: string | null;
  /** Single mode: true when the value is free text. */
  freeText?: boolean;
  /** `multiple` mode: every entry, in order. */
  values?: PickedOrganization[];
}

/**
 * `event.detail` of the element's bubbling "registry-picker-error" event:
 * its data (or the widget's own code) could not be loaded. The picker still
 * takes free text; the data is asked for again by the first query 30 s later.
 */
export interface RegistryPickerErrorDetail {
  /** The URL that failed (null when the widget's own code failed to start). */
  url: string | null;
  /**
   * `network` (offline, DNS), `cors` (a host on another origin answers without `Access-Control-Allow-Origin`:
   * the data's, or the widget's code's, `url` naming the file), `http` (see `status`), `invalid` (not the data
   * it should be), `code` (the widget's own files).
   */
  reason: "network" | "cors" | "http" | "invalid" | "code";
  /** The HTTP status, when there was one. */
  status: number | null;
  /** A sentence for the console or a log. */
  message: string;
}

/** The element's events ("registry-picker-ready": mounted, also when its data failed; no detail). */
export interface RegistryPickerEventMap extends HTMLElementEventMap {
  change: CustomEvent<RegistryPickerChangeDetail>;
  "registry-picker-ready": CustomEvent<null>;
  "registry-picker-error": CustomEvent<RegistryPickerErrorDetail>;
}

/** Overridable texts (the `strings` attribute, JSON with these keys). */
export interface RegistryPickerStrings {
  noResults?: string; results?: string; oneResult?: string; useSuccessor?: string;
  active?: string; inactive?: string; withdrawn?: string; selected?: string;
  freeText?: string; picked?: string; clear?: string; matchedName?: string;
  matchedAcronym?: string; loading?: string; loadError?: string; pickedBefore?: string;
  fromYourEmail?: string; forget?: string; forgotten?: string; remove?: string;
  removed?: string; pickedList?: string; freeTextItem?: string;
}

/** The <registry-picker> element (form-associated). */
export declare class RegistryPicker extends HTMLElement {
  static readonly formAssociated: true;
  /** The page's one typeahead client, shared by every picker (starts loading). */
  static readonly registry: Promise<TypeaheadClient>;
  /** The last change event's detail (null after a reset). */
  value: RegistryPickerChangeDetail | null;
  /** Texts that override the defaults (also the `strings` attribute). */
  strings?: RegistryPickerStrings;
  /** The form this picker belongs to. */
  readonly form: HTMLFormElement | null;
  /** The localStorage key of the remembered picks, or null without `remember`. */
  readonly rememberKey: string | null;
  /** Forgets the picks remembered for this picker's list. */
  forgetRemembered(): void;
  addEventListener<K extends keyof RegistryPickerEventMap>(type: K, listener: (this: RegistryPicker, ev: RegistryPickerEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/**
 * Options of `suggest`: filters, how many, and the form's context (boosts and offers, never filters).
 * This and the three shapes below are `registry-contract`'s (Rust): its `tests/dts.rs` checks them.
 */
export interface SuggestOptions {
  /** API filters (`types:education`), which all must hold. */
  filters?: string[];
  /** How many hits at most (default 10, at most 100). */
  limit?: number;
  /** Country codes to prefer (a boost, not a filter). */
  preferCountries?: string[];
  /** Organization types to prefer (a boost, not a filter). */
  preferTypes?: string[];
  /** An e-mail address or its domain: its records are offered before anything is typed. */
  emailDomain?: string;
  /** Ids picked before in this browser, most recent first (ids that do not parse are skipped). */
  remembered?: string[];
  /** Language of the labels to show (`localized`). */
  lang?: string;
}

/** What a suggestion shows about its record. */
export interface Summary {
  id: string; name: string; acronyms: string[]; city: string | null;
  country_code: string | null; country_name: string | null; types: string[];
  status: string; successors: string[];
}

/** The name that matched. */
export interface Matched {
  value: string; types: string[]; lang: string | null;
}

/** One suggestion. */
export interface Suggestion {
  /** Record index in the data that answered (not stable across releases: use `summary.id`). */
  index: number;
  summary: Summary;
  matched: Matched;
  /** Highlight ranges in UTF-8 bytes of `matched.value`. */
  ranges: [number, number][];
  /** Why it matched (`exact`, `acronym`, …, `email_domain` or `remembered` for offers). */
  reason: string;
  /** Highlight ranges in UTF-16 code units of `matched.value`. */
  ranges16: [number, number][];
  localized: string | null;
  remembered: boolean;
}

/** registry.js: the whole registry in a Web Worker. */
export interface RegistryClient {
  info: { release: string; recordCount: number } & Record<string, unknown>;
  suggest(text: string, options?: SuggestOptions): Promise<Suggestion[]>;
  suggestNow(text: string, options?: SuggestOptions): Suggestion[] | null;
  request(pathAndQuery: string): Promise<{ status: number; body: string }>;
  close(): void;
}

/** Opens the registry whose data folder is `dataUrl`. */
export declare function openRegistry(options?: {
  dataUrl?: string | URL;
  mode?: "full" | "typeahead";
  wasmUrl?: string | URL;
  suggestOnMainThread?: boolean;
}): Promise<RegistryClient>;

/**
 * Opens the registry for a page that wants to answer before the whole data is in:
 * `typeahead` answers at once from the data's pieces (suggestions, and `request` of a path
 * naming one record, from its record piece), `whole` is `openRegistry`'s client (main-thread
 * suggestions from the same pieces), `info` the manifest's release and record count.
 * `deferWhole`: the whole data is downloaded only when something needs it, or once the page
 * has called `answered()` and is idle.
 */
export declare function openRegistryEarly(options?: {
  dataUrl?: string | URL;
  mode?: "full" | "typeahead";
  wasmUrl?: string | URL;
  deferWhole?: boolean;
}): Promise<{
  typeahead: TypeaheadClient;
  whole: Promise<RegistryClient>;
  info: Promise<{ release: string; recordCount: number }>;
}>;

/** Tells the registry code that the page has shown its answer (fires `registry-answered` once). */
export declare function answered(): void;

/** registry-pieces.js: the typeahead from the pieces a query needs, the whole registry on demand. */
export declare class TypeaheadClient {
  /** Whether the whole registry has been opened. */
  readonly wholeOpened: boolean;
  suggest(text: string, options?: SuggestOptions): Promise<Suggestion[]>;
  suggestNow(text: string, options?: SuggestOptions): Suggestion[] | null;
  whole(): Promise<RegistryClient>;
  /** The API router: a path naming one record from its record piece, anything else from the whole registry. */
  request(pathAndQuery: string): Promise<{ status: number; body: string }>;
}

declare global {
  interface HTMLElementTagNameMap {
    "registry-picker": RegistryPicker;
  }
}
