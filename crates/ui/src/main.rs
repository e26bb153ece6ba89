//! Entry point: mounts the app when the page has `#app` (the widget script
//! loads the same module and mounts pickers instead). Built without the
//! `app` feature, the wasm holds only the widget (`registry-picker.js`).
// Linked even when `main` calls nothing of it: its #[wasm_bindgen] exports
// (`mountPicker`, `setClient`) are what the widget script calls.
extern crate registry_ui;

fn main() {
    console_error_panic_hook::set_once();
    #[cfg(feature = "app")]
    registry_ui::start();
}
