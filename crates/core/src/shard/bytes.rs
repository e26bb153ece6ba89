//! Byte-level building blocks of shard sections: LEB128 varints,
//! length-prefixed strings, string tables, tri-state optional indexes and
//! lossless JSON numbers. Every read is bounds-checked and reports where the
//! data stopped making sense; nothing here can panic on hostile bytes.

use std::collections::HashMap;

use super::{SectionKind, ShardError};

/// Appends encoded values to a buffer.
#[derive(Default)]
pub struct Writer {
    /// The encoded bytes so far.
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    pub fn usize(&mut self, v: usize) {
        self.varint(v as u64);
    }

    pub fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    pub fn str(&mut self, s: &str) {
        self.usize(s.len());
        self.buf.extend_from_slice(s.as_bytes());
    }

    pub fn u32_le(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// A JSON number, kept exactly as written (integer vs decimal).
    pub fn number(&mut self, n: Option<&serde_json::Number>) {
        let Some(n) = n else { return self.u8(NUM_NULL) };
        if let Some(i) = n.as_i64() {
            self.u8(NUM_INT);
            return self.zigzag(i);
        }
        if let Some(u) = n.as_u64() {
            self.u8(NUM_U64);
            return self.varint(u);
        }
        let f = n.as_f64().unwrap_or(f64::NAN);
        // serde_json prints the shortest decimal that reads back as the same
        // f64; storing those digits as an integer mantissa and a scale is
        // lossless and compresses far better than 8 raw bytes.
        let text = n.to_string();
        if let Some((mantissa, scale)) = decimal_parts(&text)
            && decode_decimal(mantissa, scale).map(f64::to_bits) == Some(f.to_bits())
        {
            self.u8(NUM_DECIMAL + scale);
            return self.zigzag(mantissa);
        }
        self.u8(NUM_BITS);
        self.buf.extend_from_slice(&f.to_bits().to_le_bytes());
    }
}

const NUM_NULL: u8 = 0;
const NUM_INT: u8 = 1;
const NUM_U64: u8 = 2;
const NUM_BITS: u8 = 3;
const NUM_DECIMAL: u8 = 4;
const MAX_SCALE: u8 = 18;

fn decimal_parts(text: &str) -> Option<(i64, u8)> {
    if text.contains(['e', 'E']) {
        return None;
    }
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let scale = u8::try_from(frac.len()).ok().filter(|&s| s <= MAX_SCALE)?;
    let mantissa: i64 = format!("{int}{frac}").parse().ok()?;
    Some((mantissa, scale))
}

/// `mantissa / 10^scale`, correctly rounded (what parsing its decimal text
/// gives).
fn decode_decimal(mantissa: i64, scale: u8) -> Option<f64> {
    crate::decimal::from_parts(
        mantissa < 0,
        mantissa.unsigned_abs(),
        -i64::from(scale),
        false,
    )
}

/// Reads encoded values, tracking the position for error messages.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    section: SectionKind,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], section: SectionKind) -> Self {
        Reader {
            data,
            pos: 0,
            section,
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn at_end(&self) -> bool {
        self.pos == self.data.len()
    }

    /// An error at the current position.
    pub fn malformed(&self, what: impl Into<String>) -> ShardError {
        ShardError::Malformed {
            section: self.section,
            offset: self.pos,
            what: what.into(),
        }
    }

    pub fn u8(&mut self) -> Result<u8, ShardError> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or_else(|| self.malformed("unexpected end of section"))?;
        self.pos += 1;
        Ok(b)
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ShardError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end =
            end.ok_or_else(|| self.malformed(format!("a {n}-byte field runs past the end")))?;
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    pub fn varint(&mut self) -> Result<u64, ShardError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.malformed("varint longer than 64 bits"))
    }

    /// A count or index; `limit` bounds it so corrupt data cannot make us
    /// allocate or loop without end.
    pub fn usize_max(&mut self, limit: usize, what: &str) -> Result<usize, ShardError> {
        let v = self.varint()?;
        if v > limit as u64 {
            return Err(self.malformed(format!("{what} {v} exceeds {limit}")));
        }
        Ok(v as usize)
    }

    /// A count of items that each take at least one byte.
    pub fn count(&mut self, what: &str) -> Result<usize, ShardError> {
        let left = self.data.len() - self.pos;
        self.usize_max(left, what)
    }

    pub fn zigzag(&mut self) -> Result<i64, ShardError> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    pub fn u32_le(&mut self) -> Result<u32, ShardError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn str(&mut self) -> Result<&'a str, ShardError> {
        let n = self.count("string length")?;
        let start = self.pos;
        let b = self.bytes(n)?;
        std::str::from_utf8(b).map_err(|_| ShardError::Malformed {
            section: self.section,
            offset: start,
            what: "string is not UTF-8".into(),
        })
    }

    pub fn number(&mut self) -> Result<Option<serde_json::Number>, ShardError> {
        let tag = self.u8()?;
        let n = match tag {
            NUM_NULL => return Ok(None),
            NUM_INT => serde_json::Number::from(self.zigzag()?),
            NUM_U64 => serde_json::Number::from(self.varint()?),
            NUM_BITS => {
                let b = self.bytes(8)?;
                let f = f64::from_bits(u64::from_le_bytes(b.try_into().unwrap_or_default()));
                serde_json::Number::from_f64(f)
                    .ok_or_else(|| self.malformed("non-finite number"))?
            }
            t if (NUM_DECIMAL..=NUM_DECIMAL + MAX_SCALE).contains(&t) => {
                let m = self.zigzag()?;
                decode_decimal(m, t - NUM_DECIMAL)
                    .and_then(serde_json::Number::from_f64)
                    .ok_or_else(|| self.malformed("bad decimal"))?
            }
            t => return Err(self.malformed(format!("unknown number tag {t}"))),
        };
        Ok(Some(n))
    }
}

/// Builds a table of distinct strings, most frequent first (small indexes).
#[derive(Default)]
pub struct TableBuilder {
    counts: HashMap<String, usize>,
}

impl TableBuilder {
    pub fn add(&mut self, s: &str) {
        *self.counts.entry(s.to_string()).or_default() += 1;
    }

    /// The table in `previous`'s order (see [`order_after`]).
    pub fn finish_after(self, previous: &[String]) -> StringTable {
        let strings = order_after(self.counts, previous);
        let index = strings
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i))
            .collect();
        StringTable { strings, index }
    }
}

/// The distinct values of a table in the order of `previous` (a release's
/// table, which the next one keeps: references to a moved value would all
/// change), values no longer used left out; then the new ones, the most used
/// first (small indexes), ties by value.
pub fn order_after<T: Clone + Eq + std::hash::Hash + Ord>(
    counts: HashMap<T, usize>,
    previous: &[T],
) -> Vec<T> {
    let mut order: Vec<T> = previous
        .iter()
        .filter(|v| counts.contains_key(*v))
        .cloned()
        .collect();
    let kept: std::collections::HashSet<&T> = order.iter().collect();
    let mut new: Vec<(T, usize)> = counts
        .iter()
        .filter(|(v, _)| !kept.contains(v))
        .map(|(v, n)| (v.clone(), *n))
        .collect();
    new.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    order.extend(new.into_iter().map(|(v, _)| v));
    order
}

/// Distinct strings referred to by index.
#[derive(Clone, Debug, Default)]
pub struct StringTable {
    /// The strings, by index.
    pub strings: Vec<String>,
    index: HashMap<String, usize>,
}

impl StringTable {
    /// Index of a string that was added to the builder.
    pub fn idx(&self, s: &str) -> usize {
        self.index[s]
    }

    pub fn write(&self, w: &mut Writer) {
        w.usize(self.strings.len());
        self.strings.iter().for_each(|s| w.str(s));
    }

    pub fn read(r: &mut Reader<'_>) -> Result<StringTable, ShardError> {
        let n = r.count("string-table size")?;
        let strings = (0..n)
            .map(|_| r.str().map(str::to_string))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(StringTable {
            strings,
            index: HashMap::new(),
        })
    }

    /// Reads an index and returns its string.
    pub fn get<'t>(&'t self, r: &mut Reader<'_>) -> Result<&'t str, ShardError> {
        let i = r.usize_max(self.strings.len().saturating_sub(1), "string index")?;
        self.strings
            .get(i)
            .map(String::as_str)
            .ok_or_else(|| r.malformed("index into an empty table"))
    }

    /// Writes a tri-state optional string: absent, null or a table entry.
    pub fn write_tri(&self, w: &mut Writer, v: &Option<Option<String>>) {
        match v {
            None => w.varint(0),
            Some(None) => w.varint(1),
            Some(Some(s)) => w.usize(self.idx(s) + 2),
        }
    }

    /// Reads what [`StringTable::write_tri`] wrote.
    pub fn read_tri(&self, r: &mut Reader<'_>) -> Result<Option<Option<String>>, ShardError> {
        Ok(
            match r.usize_max(self.strings.len() + 1, "optional string index")? {
                0 => None,
                1 => Some(None),
                i => Some(Some(self.strings[i - 2].clone())),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_exactly() {
        let cases = [
            "0",
            "18",
            "-71",
            "41.69411",
            "-0.5",
            "0.1",
            "1e-7",
            "123456789.123456789",
            "-33.86785",
            "1.7976931348623157e308",
            "18446744073709551615",
            "5e-324",
            "0.30000000000000004",
        ];
        for text in cases {
            let n: serde_json::Number = serde_json::from_str(text).unwrap();
            let mut w = Writer::default();
            w.number(Some(&n));
            let mut r = Reader::new(&w.buf, SectionKind::Records);
            let back = r.number().unwrap().unwrap();
            assert_eq!(back, n, "{text}");
            assert_eq!(back.to_string(), n.to_string(), "{text}");
            assert!(r.at_end());
        }
    }

    #[test]
    fn varints_and_zigzag() {
        let mut w = Writer::default();
        for v in [0u64, 1, 127, 128, 300, u64::MAX] {
            w.varint(v);
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX] {
            w.zigzag(v);
        }
        let mut r = Reader::new(&w.buf, SectionKind::Names);
        for v in [0u64, 1, 127, 128, 300, u64::MAX] {
            assert_eq!(r.varint().unwrap(), v);
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(r.zigzag().unwrap(), v);
        }
        assert!(r.at_end());
        assert!(r.u8().is_err());
    }

    #[test]
    fn hostile_bytes_give_errors() {
        let mut r = Reader::new(&[0xff; 11], SectionKind::Names);
        assert!(r.varint().is_err());
        let mut r = Reader::new(&[0x05, b'a'], SectionKind::Names);
        assert!(r.str().is_err());
        let mut r = Reader::new(&[0x02, 0xff, 0xfe], SectionKind::Names);
        assert!(r.str().is_err());
        let mut r = Reader::new(&[0x7f], SectionKind::Names);
        assert!(r.number().is_err());
    }
}
