// Registers the service worker (sw.js, beside this file) and resolves to its
// registration once it controls the page. A page loaded while the worker was
// activating is not among the pages its `clients.claim()` took, and no
// `controllerchange` would ever come: such a page asks to be claimed.
export async function serviceWorkerControl() {
  const reg = await navigator.serviceWorker.register(new URL("./sw.js", import.meta.url), { type: "module" });
  const ready = await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    const claimed = new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
    ready.active?.postMessage({ type: "claim" });
    await claimed;
  }
  return reg;
}
