//! Reading the option objects JS passes in (`search({query, page, …})`,
//! `suggest(text, {filters, limit})`), with the rules and error messages of
//! serde's derive over serde-wasm-bindgen, which this replaces to keep its
//! generic deserialiser (and the float formatting its messages need) out of
//! the wasm: a missing or `undefined` member takes its default, `null` is
//! `None` for optional members, integers must be safe non-negative integers
//! in range, sequences may be any JS iterable. Messages are what those
//! exports threw: `String(error)` of serde-wasm-bindgen's error, so serde's
//! messages come as `Error: …` and exceptions thrown by JS as they are.

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsError, JsValue};

#[wasm_bindgen]
extern "C" {
    /// JS `String(value)`.
    #[wasm_bindgen(js_name = String)]
    fn js_string(value: &JsValue) -> String;
}

/// A serde error message, as serde-wasm-bindgen's error displayed it.
fn serde_error(message: &str) -> JsError {
    JsError::new(&format!("Error: {message}"))
}

/// An options object.
pub(crate) struct Object<'a>(&'a JsValue);

/// `v` as an options object, or the error for a non-object.
pub(crate) fn object<'a>(v: &'a JsValue, expected: &str) -> Result<Object<'a>, JsError> {
    if v.is_object() {
        Ok(Object(v))
    } else {
        Err(invalid_type(v, expected))
    }
}

impl Object<'_> {
    /// Member `key`, `None` when missing (absent, or `undefined` by not being
    /// an own or inherited property).
    pub(crate) fn field(&self, key: &str) -> Option<JsValue> {
        let key = JsValue::from_str(key);
        let v = js_sys::Reflect::get(self.0, &key).unwrap_or(JsValue::UNDEFINED);
        (!v.is_undefined() || js_sys::Reflect::has(self.0, &key).unwrap_or(false)).then_some(v)
    }
}

/// `invalid type: <what v is>, expected <expected>`.
#[cold]
pub(crate) fn invalid_type(v: &JsValue, expected: &str) -> JsError {
    let unexpected = if v.is_null() || v.is_undefined() {
        "unit value".to_string()
    } else if let Some(b) = v.as_bool() {
        format!("boolean `{b}`")
    } else if let Some(f) = v.as_f64() {
        format!("floating point `{}`", float_text(f))
    } else if let Some(s) = v.as_string() {
        format!("string {s:?}")
    } else if v.is_instance_of::<js_sys::Uint8Array>() || v.is_instance_of::<js_sys::ArrayBuffer>()
    {
        "byte array".to_string()
    } else {
        format!("{v:?}")
    };
    serde_error(&format!("invalid type: {unexpected}, expected {expected}"))
}

/// A finite or infinite number as Rust's `Display` writes it (positional
/// notation, shortest round-trip digits), with `.0` appended when that has
/// no decimal point. JS's `toString` gives the same shortest digits, only
/// in exponent notation outside 1e-7..1e21, and without the sign of -0.
fn float_text(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let js = String::from(
        js_sys::Number::from(f.abs())
            .to_string_with_radix(10)
            .unwrap_or_default(),
    );
    let (mantissa, exp) = match js.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (js.as_str(), 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let point = int.len() as i32 + exp;
    let mut out = String::from(if f.is_sign_negative() { "-" } else { "" });
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else if point as usize >= digits.len() {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
        out.push_str(".0");
    } else {
        let (a, b) = digits.split_at(point as usize);
        out.push_str(a);
        out.push('.');
        out.push_str(b);
    }
    out
}

/// An optional string: `null` is `None`.
pub(crate) fn opt_string(v: &JsValue) -> Result<Option<String>, JsError> {
    if v.is_null() || v.is_undefined() {
        return Ok(None);
    }
    v.as_string()
        .map(Some)
        .ok_or_else(|| invalid_type(v, "a string"))
}

/// An optional unsigned integer at most `max` (`name` is its Rust type).
pub(crate) fn opt_uint(v: &JsValue, max: u64, name: &str) -> Result<Option<u64>, JsError> {
    if v.is_null() || v.is_undefined() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(f) if js_sys::Number::is_safe_integer(v) && f >= 0.0 => {
            let n = f as u64;
            if n > max {
                return Err(serde_error(&format!(
                    "invalid value: integer `{n}`, expected {name}"
                )));
            }
            Ok(Some(n))
        }
        _ => Err(invalid_type(v, name)),
    }
}

/// A sequence of strings: an array or any other JS iterable.
pub(crate) fn strings(v: &JsValue) -> Result<Vec<String>, JsError> {
    let string = |x: JsValue| x.as_string().ok_or_else(|| invalid_type(&x, "a string"));
    if let Some(a) = v.dyn_ref::<js_sys::Array>() {
        return a.iter().map(string).collect();
    }
    let thrown = |e: JsValue| JsError::new(&js_string(&e));
    match js_sys::try_iter(v).map_err(thrown)? {
        Some(iter) => iter.map(|x| x.map_err(thrown).and_then(string)).collect(),
        None => Err(invalid_type(v, "a sequence")),
    }
}

/// Parameters of `search`, `advanced` and `affiliation` (and of E2 over pieces).
#[cfg(feature = "search")]
#[derive(Default)]
pub(crate) struct ListParams {
    pub(crate) query: Option<String>,
    pub(crate) expression: Option<String>,
    pub(crate) text: Option<String>,
    pub(crate) filter: Option<String>,
    pub(crate) all_status: bool,
    pub(crate) page: Option<u32>,
    pub(crate) version: Option<u8>,
    /// `mode=typed` (E2 over pieces only: the search page's reading).
    pub(crate) typed: bool,
}

#[cfg(feature = "search")]
impl ListParams {
    pub(crate) fn from_js(v: &JsValue) -> Result<ListParams, JsError> {
        let o = object(v, "struct ListParams")?;
        let mut p = ListParams::default();
        if let Some(x) = o.field("query") {
            p.query = opt_string(&x)?;
        }
        if let Some(x) = o.field("expression") {
            p.expression = opt_string(&x)?;
        }
        if let Some(x) = o.field("text") {
            p.text = opt_string(&x)?;
        }
        if let Some(x) = o.field("filter") {
            p.filter = opt_string(&x)?;
        }
        if let Some(x) = o.field("allStatus") {
            p.all_status = x.as_bool().ok_or_else(|| invalid_type(&x, "a boolean"))?;
        }
        if let Some(x) = o.field("page") {
            p.page = opt_uint(&x, u32::MAX.into(), "u32")?.map(|n| n as u32);
        }
        if let Some(x) = o.field("version") {
            p.version = opt_uint(&x, u8::MAX.into(), "u8")?.map(|n| n as u8);
        }
        if let Some(x) = o.field("typed") {
            p.typed = x.as_bool().ok_or_else(|| invalid_type(&x, "a boolean"))?;
        }
        Ok(p)
    }
}
