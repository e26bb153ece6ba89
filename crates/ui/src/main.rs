//! Entry point: mounts the app when the page has `#app` (the widget script
//! loads the same module and mounts pickers instead).
fn main() {
    console_error_panic_hook::set_once();
    registry_ui::start();
}
