// A Vue page using <registry-picker> directly (Vue renders custom elements as
// they are; `onChange` listens to its change event). Built with esbuild (see
// tests/examples.test.mjs). The element is loaded by its script from where the
// package is hosted (?picker=<url of registry-picker.js>), not bundled.
import { createApp, h, ref } from "vue";

const params = new URLSearchParams(location.search);
const script = document.createElement("script");
script.type = "module";
script.src = params.get("picker") ?? "/registry-picker/registry-picker.js";
document.head.append(script);
const DATA = params.get("data") ?? "/registry-data/";

createApp({
  setup() {
    const picked = ref(null);
    return () =>
      h("form", { id: "f", method: "get" }, [
        h("registry-picker", { id: "aff", name: "affiliation", label: "Affiliation", "data-url": DATA, onChange: (e) => (picked.value = e.detail) }),
        h("p", null, ["Vue state: ", h("output", { id: "picked" }, picked.value ? (picked.value.id ?? `free text: ${picked.value.name}`) : "nothing picked")]),
        h("button", { id: "send" }, "Send"),
      ]);
  },
}).mount("#root");
