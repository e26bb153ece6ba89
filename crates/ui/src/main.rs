//! Entry point: sets the panic hook. The page mounts what it needs: the app
//! (index.html calls `startApp()`, when it hands its early search box over)
//! or pickers (the widget script calls `mountPicker`). Built without the
//! `app` feature, the wasm holds only the widget (`registry-picker.js`).
// Linked even when `main` calls nothing of it: its #[wasm_bindgen] exports
// (`startApp`, `mountPicker`, `setClient`) are what the pages call.
extern crate registry_ui;

fn main() {
    console_error_panic_hook::set_once();
}
