// A React page using <registry-picker> through a thin wrapper component (no
// React in the package). Built with esbuild (see tests/examples.test.mjs):
//   esbuild web/examples/react/main.js --bundle --format=esm --outfile=…
// The element itself is loaded by its script from where the package is
// hosted (?picker=<url of registry-picker.js>, default /registry-picker/…),
// not bundled: it loads its wasm and CSS relative to its own URL.
import { createElement as h, useEffect, useRef, useState } from "react";
import { createRoot } from "react-dom/client";

const params = new URLSearchParams(location.search);
const script = document.createElement("script");
script.type = "module";
script.src = params.get("picker") ?? "/registry-picker/registry-picker.js";
document.head.append(script);
const DATA = params.get("data") ?? "/registry-data/";

/** `<RegistryPicker name label onChange={(detail) => …} …/>`: attributes pass through; `onChange` gets the event's detail. */
export function RegistryPicker({ onChange, ...attributes }) {
  const ref = useRef(null);
  useEffect(() => {
    const el = ref.current;
    const listener = (e) => onChange?.(e.detail);
    el.addEventListener("change", listener);
    return () => el.removeEventListener("change", listener);
  }, [onChange]);
  return h("registry-picker", { ref, ...attributes });
}

function App() {
  const [picked, setPicked] = useState(null);
  return h(
    "form",
    { id: "f", method: "get" },
    h(RegistryPicker, { id: "aff", name: "affiliation", label: "Affiliation", "data-url": DATA, onChange: setPicked }),
    h("p", null, "React state: ", h("output", { id: "picked" }, picked ? (picked.id ?? `free text: ${picked.name}`) : "nothing picked")),
    h("button", { id: "send" }, "Send"),
  );
}

createRoot(document.getElementById("root")).render(h(App));
