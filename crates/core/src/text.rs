//! Text normalisation shared by the index and every query path, so that the
//! two can never disagree.
//!
//! * **Case**: `char::to_lowercase`.
//! * **Accents**: a compact hand-written folding table (NFKD base letter)
//!   for Latin-1 Supplement, Latin Extended-A/B and Latin Extended
//!   Additional (Vietnamese included), Greek tonos/dialytika and final
//!   sigma, Cyrillic `ё`/`й`; combining marks (U+0300–U+036F, Hebrew points,
//!   Arabic harakat and tatweel) are dropped; special cases `ß→ss`, `æ→ae`,
//!   `œ→oe`, `ø→o`, `ł→l`, `đ→d`, `ð→d`, `ı→i`, `þ→th`, `ħ→h`, `ĳ→ij`,
//!   `ŋ→n`; full-width ASCII → ASCII. No Unicode-tables dependency (wasm size).
//! * **Words**: runs of alphanumeric characters (any script). An apostrophe
//!   between two letters is dropped (`children's` = `childrens`); every other
//!   character separates words (hyphens, dots, slashes…). `&` is the word
//!   `and`, which queries treat as optional.
//! * **No-space scripts**: Han, Hiragana, Katakana, Hangul, Thai, Lao, Khmer
//!   and Myanmar runs become single characters (*unigrams*, the phrase
//!   sequence) plus overlapping character *bigrams* — identically at index
//!   and at query time.

/// Folding of U+00C0..U+017F to a lowercase ASCII base letter; `.` = none.
const LATIN1_EXT_A: &[u8; 192] = b"aaaaaa.ceeeeiiii.nooooo..uuuuy..aaaaaa.ceeeeiiii.nooooo..uuuuy.yaaaaaaccccccccdd..eeeeeeeeeegggggggghh..iiiiiiiii...jjkk.llllll....nnnnnn...oooooo..rrrrrrsssssssstttt..uuuuuuuuuuuuwwyyyzzzzzzs";
/// Folding of U+0180..U+024F; `.` = none.
const LATIN_EXT_B: &[u8; 208] = b"................................oo.............uu............................aaiioouuuuuuuuuu.aaaa....ggkkoooo..j...gg..nnaa....aaaaeeeeiiiioooorrrruuuusstt..hh......aaeeooooooooyy............................";
/// Folding of U+1E00..U+1EFF; `.` = none.
const LATIN_EXT_ADDITIONAL: &[u8; 256] = b"aabbbbbbccddddddddddeeeeeeeeeeffgghhhhhhhhhhiiiikkkkkkllllllllmmmmmmnnnnnnnnoooooooopppprrrrrrrrssssssssssttttttttuuuuuuuuuuvvvvwwwwwwwwwwxxxxyyzzzzzzhtwy.s....aaaaaaaaaaaaaaaaaaaaaaaaeeeeeeeeeeeeeeeeiiiioooooooooooooooooooooooouuuuuuuuuuuuuuyyyyyyyy......";

/// Words a typeahead query may omit ("University of Utrecht" = "Utrecht
/// University"). E2 scoring gives them little weight through their IDF.
pub const OPTIONAL_WORDS: &[&str] = &[
    "a", "an", "and", "at", "da", "das", "de", "del", "della", "den", "der", "des", "di", "die",
    "do", "dos", "du", "e", "et", "for", "fur", "i", "in", "la", "le", "les", "och", "of", "og",
    "the", "und", "van", "von", "voor", "y",
];

/// True for a word a typeahead query may omit.
pub fn is_optional_word(w: &str) -> bool {
    OPTIONAL_WORDS.binary_search(&w).is_ok()
}

/// What a character is for tokenisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// Part of a word.
    Word,
    /// Part of a no-space-script run (bigrams).
    Run,
    /// A combining mark or other character folded away.
    Drop,
    /// An apostrophe: dropped inside a word, a separator elsewhere.
    Apostrophe,
    /// `&`: the word `and`.
    Ampersand,
    /// Anything else.
    Separator,
}

fn is_run_char(c: char) -> bool {
    matches!(c as u32,
        0x0E01..=0x0E4E        // Thai
        | 0x0E81..=0x0EDF      // Lao
        | 0x1000..=0x109F      // Myanmar
        | 0x1100..=0x11FF      // Hangul Jamo
        | 0x1780..=0x17DD      // Khmer
        | 0x3040..=0x309F      // Hiragana
        | 0x30A0..=0x30FA      // Katakana (not the middle dot U+30FB)
        | 0x30FC..=0x30FF
        | 0x3130..=0x318F      // Hangul compatibility Jamo
        | 0x31F0..=0x31FF      // Katakana extensions
        | 0x3400..=0x4DBF      // Han extension A
        | 0x4E00..=0x9FFF      // Han
        | 0xAC00..=0xD7AF      // Hangul syllables
        | 0xF900..=0xFAFF      // Han compatibility
        | 0xFF66..=0xFF9F      // half-width Katakana
        | 0x20000..=0x2FA1F) // Han extensions B–F, compatibility supplement
}

fn is_dropped_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x05BF | 0x05C1..=0x05C2
        | 0x05C4..=0x05C5 | 0x05C7 | 0x0610..=0x061A | 0x0640 | 0x064B..=0x065F | 0x0670
        | 0x06D6..=0x06DC | 0x06DF..=0x06E8 | 0x06EA..=0x06ED | 0x1AB0..=0x1AFF
        | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F | 0x200B..=0x200D | 0xFEFF)
}

/// Indic and other combining signs that belong to the word (vowel signs,
/// virama…) although `char::is_alphanumeric` says no.
fn is_word_mark(c: char) -> bool {
    matches!(c as u32, 0x0900..=0x0DFF if !matches!(c as u32, 0x0964 | 0x0965))
}

/// Scripts without case and outside the folding tables: every character
/// folds to itself (checked exhaustively by a test), so folding can skip the
/// special cases and `char::to_lowercase`.
fn is_caseless(cp: u32) -> bool {
    matches!(cp,
        0x0590..=0x08FF        // Hebrew, Arabic, Syriac, Thaana, NKo…
        | 0x0900..=0x0DFF      // Indic
        | 0x0E00..=0x0FFF      // Thai, Lao, Tibetan
        | 0x1000..=0x109F      // Myanmar
        | 0x1100..=0x11FF      // Hangul Jamo
        | 0x1780..=0x17FF      // Khmer
        | 0x3040..=0x9FFF      // Kana, Bopomofo, CJK symbols, Han
        | 0xAC00..=0xD7AF      // Hangul syllables
        | 0xF900..=0xFAFF      // Han compatibility
        | 0x20000..=0x2FA1F) // Han extensions
}

/// Frequent letters of common scripts that are words whatever the slower
/// checks below say (checked exhaustively by a test): accented Latin,
/// Greek, Cyrillic, Arabic letters and digits, Indic.
fn is_plain_letter(cp: u32) -> bool {
    match cp {
        0xC0..=0x17F => LATIN1_EXT_A[(cp - 0xC0) as usize] != b'.',
        0x0388..=0x038A | 0x038C | 0x038E..=0x03A1 | 0x03A3..=0x03F5 => true,
        0x0400..=0x0481 | 0x048A..=0x052F => true,
        0x0620..=0x063F | 0x0641..=0x064A | 0x0660..=0x0669 | 0x0671..=0x06D3 => true,
        0x0900..=0x0DFF => !matches!(cp, 0x0964 | 0x0965),
        _ => false,
    }
}

fn class(c: char) -> Class {
    if c.is_ascii() {
        return match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => Class::Word,
            '\'' | '`' => Class::Apostrophe,
            '&' => Class::Ampersand,
            _ => Class::Separator,
        };
    }
    if is_plain_letter(c as u32) {
        return Class::Word;
    }
    if is_dropped_mark(c) {
        Class::Drop
    } else if is_run_char(c) {
        Class::Run
    } else if matches!(
        c,
        '\u{2019}' | '\u{2018}' | '\u{02BC}' | '\u{00B4}' | '\u{FF07}'
    ) {
        Class::Apostrophe
    } else if c == '\u{FF06}' {
        Class::Ampersand
    } else if c.is_alphanumeric() || is_word_mark(c) {
        // Includes full-width digits and letters (folded to ASCII).
        Class::Word
    } else {
        Class::Separator
    }
}

/// Appends the folded form of one character (lowercase, accents removed).
pub fn fold_char_into(c: char, out: &mut String) {
    let cp = c as u32;
    if cp < 0x80 {
        out.push(c.to_ascii_lowercase());
        return;
    }
    if is_caseless(cp) {
        out.push(c);
        return;
    }
    // Basic Cyrillic: lowercase by offset, then `й`→`и`, `ё`→`е`.
    if let 0x0400..=0x045F = cp {
        let l = match cp {
            0x0400..=0x040F => cp + 0x50,
            0x0410..=0x042F => cp + 0x20,
            _ => cp,
        };
        out.push(match l {
            0x0439 => 'и',
            0x0451 => 'е',
            _ => char::from_u32(l).unwrap_or(c),
        });
        return;
    }
    fold_char_slow(c, out)
}

/// [`fold_char_into`] without the fast paths.
fn fold_char_slow(c: char, out: &mut String) {
    let cp = c as u32;
    if cp < 0x80 {
        out.push(c.to_ascii_lowercase());
        return;
    }
    let table = |t: &[u8], base: u32| {
        let b = t[(cp - base) as usize];
        (b != b'.').then_some(b as char)
    };
    let simple = match cp {
        0xC0..=0x17F => table(LATIN1_EXT_A, 0xC0),
        0x180..=0x24F => table(LATIN_EXT_B, 0x180),
        0x1E00..=0x1EFF => table(LATIN_EXT_ADDITIONAL, 0x1E00),
        0xFF01..=0xFF5E => char::from_u32(cp - 0xFEE0).map(|a| a.to_ascii_lowercase()),
        _ => None,
    };
    if let Some(s) = simple {
        out.push(s);
        return;
    }
    let special = match c {
        'ß' | 'ẞ' => "ss",
        'æ' | 'Æ' | 'ǽ' | 'Ǽ' | 'ǣ' | 'Ǣ' => "ae",
        'œ' | 'Œ' => "oe",
        'ø' | 'Ø' | 'ǿ' | 'Ǿ' => "o",
        'ł' | 'Ł' | 'ŀ' | 'Ŀ' => "l",
        'đ' | 'Đ' | 'ð' | 'Ð' => "d",
        'ı' => "i",
        'þ' | 'Þ' => "th",
        'ħ' | 'Ħ' => "h",
        'ĳ' | 'Ĳ' => "ij",
        'ŋ' | 'Ŋ' => "n",
        'ŉ' => "n",
        'ĸ' => "k",
        'ƒ' => "f",
        // Greek tonos / dialytika and final sigma.
        'ά' | 'Ά' => "α",
        'έ' | 'Έ' => "ε",
        'ή' | 'Ή' => "η",
        'ί' | 'Ί' | 'ϊ' | 'Ϊ' | 'ΐ' => "ι",
        'ό' | 'Ό' => "ο",
        'ύ' | 'Ύ' | 'ϋ' | 'Ϋ' | 'ΰ' => "υ",
        'ώ' | 'Ώ' => "ω",
        'ς' => "σ",
        // Cyrillic.
        'ё' | 'Ё' => "е",
        'й' | 'Й' => "и",
        _ => "",
    };
    if !special.is_empty() {
        out.push_str(special);
        return;
    }
    for l in c.to_lowercase() {
        if l != c && (l as u32) >= 0x80 {
            // Lowercasing may land on a foldable character (e.g. Greek capitals).
            fold_char_into(l, out);
        } else {
            out.push(l);
        }
    }
}

/// The folded form of a string (lowercase, accents removed), characters
/// otherwise unchanged.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if !is_dropped_mark(c) {
            fold_char_into(c, &mut out);
        }
    }
    out
}

/// The kind of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A word of a space-separated script.
    Word,
    /// One character of a no-space-script run (part of the phrase sequence).
    Unigram,
    /// Two adjacent characters of a no-space-script run.
    Bigram,
}

/// A token borrowed from the tokeniser's buffer.
#[derive(Clone, Copy, Debug)]
pub struct TokenRef<'a> {
    /// Folded text.
    pub text: &'a str,
    /// Byte range in the original string.
    pub start: usize,
    /// End of the byte range (exclusive).
    pub end: usize,
    /// What kind of token.
    pub kind: TokenKind,
}

/// An owned token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// Folded text.
    pub text: String,
    /// Byte range in the original string.
    pub start: usize,
    /// End of the byte range (exclusive).
    pub end: usize,
    /// What kind of token.
    pub kind: TokenKind,
}

/// Calls `f` for every token of `s`, in order. Unigrams of a run come in
/// order; the bigram starting at a character comes right after that
/// character's unigram.
pub fn for_each_token(s: &str, f: impl FnMut(TokenRef<'_>)) {
    Tokenizer::default().for_each(s, f)
}

/// Reusable buffers for tokenising many strings (the index build): once
/// warmed up, tokenising allocates nothing. Same tokens as
/// [`for_each_token`].
#[derive(Debug, Default)]
pub struct Tokenizer {
    word: String,
    run_prev: String,
    run_cur: String,
    bigram: String,
}

/// Emits the pending word, if any.
fn flush_word(
    word: &mut String,
    start: &mut Option<usize>,
    end: usize,
    f: &mut impl FnMut(TokenRef<'_>),
) {
    if let Some(st) = start.take() {
        if !word.is_empty() {
            f(TokenRef {
                text: word,
                start: st,
                end,
                kind: TokenKind::Word,
            });
        }
        word.clear();
    }
}

impl Tokenizer {
    /// Calls `f` for every token of `s`, in order (see [`for_each_token`]).
    pub fn for_each(&mut self, s: &str, mut f: impl FnMut(TokenRef<'_>)) {
        if s.is_ascii() {
            return self.ascii(s, f);
        }
        let word = &mut self.word;
        word.clear();
        let mut word_start: Option<usize> = None;
        let mut word_end = 0;
        // Start of the previous run character (its folded text: run_prev).
        let mut run_prev: Option<usize> = None;
        let mut chars = s.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let end = i + c.len_utf8();
            match class(c) {
                Class::Word => {
                    run_prev = None;
                    if word_start.is_none() {
                        word_start = Some(i);
                    }
                    fold_char_into(c, word);
                    word_end = end;
                }
                Class::Drop => {
                    if word_start.is_some() {
                        word_end = end;
                    }
                }
                Class::Apostrophe => {
                    let next_is_word = chars.peek().is_some_and(|&(_, n)| class(n) == Class::Word);
                    if word_start.is_some() && next_is_word {
                        continue;
                    }
                    flush_word(word, &mut word_start, word_end, &mut f);
                    run_prev = None;
                }
                Class::Ampersand => {
                    flush_word(word, &mut word_start, word_end, &mut f);
                    run_prev = None;
                    f(TokenRef {
                        text: "and",
                        start: i,
                        end,
                        kind: TokenKind::Word,
                    });
                }
                Class::Separator => {
                    flush_word(word, &mut word_start, word_end, &mut f);
                    run_prev = None;
                }
                Class::Run => {
                    flush_word(word, &mut word_start, word_end, &mut f);
                    self.run_cur.clear();
                    fold_char_into(c, &mut self.run_cur);
                    f(TokenRef {
                        text: &self.run_cur,
                        start: i,
                        end,
                        kind: TokenKind::Unigram,
                    });
                    if let Some(ps) = run_prev {
                        self.bigram.clear();
                        self.bigram.push_str(&self.run_prev);
                        self.bigram.push_str(&self.run_cur);
                        f(TokenRef {
                            text: &self.bigram,
                            start: ps,
                            end,
                            kind: TokenKind::Bigram,
                        });
                    }
                    std::mem::swap(&mut self.run_prev, &mut self.run_cur);
                    run_prev = Some(i);
                }
            }
        }
        flush_word(word, &mut word_start, word_end, &mut f);
    }

    /// The same tokens as the general path, for ASCII text (most names),
    /// byte by byte.
    fn ascii(&mut self, s: &str, mut f: impl FnMut(TokenRef<'_>)) {
        let b = s.as_bytes();
        let buf = &mut self.word;
        buf.clear();
        let mut start: Option<usize> = None;
        let mut end = 0;
        for (i, &c) in b.iter().enumerate() {
            if c.is_ascii_alphanumeric() {
                if start.is_none() {
                    start = Some(i);
                }
                buf.push(c.to_ascii_lowercase() as char);
                end = i + 1;
            } else if (c == b'\'' || c == b'`')
                && start.is_some()
                && b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)
            {
                // An apostrophe inside a word: dropped.
            } else {
                flush_word(buf, &mut start, end, &mut f);
                if c == b'&' {
                    f(TokenRef {
                        text: "and",
                        start: i,
                        end: i + 1,
                        kind: TokenKind::Word,
                    });
                }
            }
        }
        flush_word(buf, &mut start, end, &mut f);
    }
}

/// Whether token `t` of `toks` lies in one of its bigrams: a character of
/// a longer no-space run, which queries match by its bigrams rather than by
/// itself.
pub fn in_bigram(toks: &[Token], t: &Token) -> bool {
    toks.iter()
        .any(|x| x.kind == TokenKind::Bigram && (x.start == t.start || x.end == t.end))
}

/// All tokens of `s`.
pub fn tokens(s: &str) -> Vec<Token> {
    let mut v = Vec::new();
    for_each_token(s, |t| {
        v.push(Token {
            text: t.text.to_string(),
            start: t.start,
            end: t.end,
            kind: t.kind,
        })
    });
    v
}

/// The phrase sequence of `s`: words and unigrams (no bigrams), folded.
pub fn phrase_tokens(s: &str) -> Vec<String> {
    let mut v = Vec::new();
    for_each_token(s, |t| {
        if t.kind != TokenKind::Bigram {
            v.push(t.text.to_string())
        }
    });
    v
}

/// The normalised form used for "same name" comparisons: the phrase
/// sequence without `and`, joined by single spaces.
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for_each_token(s, |t| {
        if t.kind != TokenKind::Bigram && t.text != "and" {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(t.text);
        }
    });
    out
}

/// Byte offset in `original` (a token's original text) after which the
/// folded text has at least `folded_len` bytes: maps a matched folded prefix
/// back to the original for highlighting.
pub fn original_prefix_end(original: &str, folded_len: usize) -> usize {
    let mut acc = String::new();
    for (i, c) in original.char_indices() {
        if acc.len() >= folded_len {
            return i;
        }
        let apostrophe = class(c) == Class::Apostrophe;
        if !is_dropped_mark(c) && !apostrophe {
            fold_char_into(c, &mut acc);
        }
    }
    original.len()
}

/// `s` lower-cased character by character (`char::to_lowercase`; unlike
/// `str::to_lowercase`, no final-sigma rule, and much less wasm).
pub fn lower(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}

/// Normalised key of an external identifier for typeahead look-ups:
/// lowercase, without spaces and hyphens, without a resolver prefix
/// (`https://isni.org/isni/`, `wikidata.org/wiki/`, `doi.org/10.13039/`…).
pub fn external_id_key(s: &str) -> String {
    let k: String = s
        .trim()
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-' && *c != '\u{2010}' && *c != '\u{2011}')
        .flat_map(char::to_lowercase)
        .collect();
    let mut r: &str = &k;
    for p in ["https://", "http://"] {
        if let Some(x) = r.strip_prefix(p) {
            r = x;
        }
    }
    if let Some(x) = r.strip_prefix("www.") {
        r = x;
    }
    for p in [
        "isni.org/isni/",
        "isni.org/",
        "wikidata.org/wiki/",
        "wikidata.org/entity/",
        "dx.doi.org/10.13039/",
        "doi.org/10.13039/",
        "10.13039/",
        "grid.ac/institutes/",
    ] {
        if let Some(x) = r.strip_prefix(p) {
            r = x;
            break;
        }
    }
    let r = r.trim_end_matches('/');
    if r.len() == k.len() { k } else { r.to_string() }
}

/// True when `s` could be (the start of) an external identifier in a form
/// [`external_id_key`] understands: its key is digits (ISNI, FundRef; an
/// ISNI may end in `X`), `q` + digits (Wikidata) or `grid.` + a digit
/// (GRID). Names such as "3M" or "Area 51" are not, so typing them never
/// needs the external-id tables (nor, in typeahead mode, the records).
pub fn looks_like_external_id(s: &str) -> bool {
    if !s.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    let k = external_id_key(s);
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    if let Some(rest) = k.strip_prefix("grid.") {
        return rest.bytes().next().is_some_and(|b| b.is_ascii_digit());
    }
    if let Some(rest) = k.strip_prefix('q') {
        return digits(rest);
    }
    digits(&k) || (k.len() == 16 && k.ends_with('x') && digits(&k[..15]))
}

/// Levenshtein distance between `a` and `b`, or `max + 1` as soon as it is
/// certain to exceed `max` (fuzzy terms and near-miss matching).
pub fn bounded_distance(a: &[char], b: &str, max: usize) -> usize {
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return max + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > max {
            return max + 1;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()].min(max + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        tokens(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn folds_case_and_accents() {
        assert_eq!(
            normalize("Université de Montréal"),
            "universite de montreal"
        );
        assert_eq!(
            normalize("Julius-Maximilians-Universität Würzburg"),
            "julius maximilians universitat wurzburg"
        );
        assert_eq!(
            normalize("Technische Universität München"),
            "technische universitat munchen"
        );
        assert_eq!(
            fold("Straße Æsir Œuvre Øst Łódź Đà Nẵng ıstanbul Þór"),
            "strasse aesir oeuvre ost lodz da nang istanbul thor"
        );
        assert_eq!(fold("ΑΘΉΝΑ Πανεπιστήμιο"), "αθηνα πανεπιστημιο");
        assert_eq!(fold("Ёлка Йошкар"), "елка иошкар");
        assert_eq!(fold("ＡＢＣ１２３"), "abc123");
        assert_eq!(
            fold("Universidade Federal do Pará"),
            "universidade federal do para"
        );
        assert_eq!(fold("Trường Đại học Bách khoa"), "truong dai hoc bach khoa");
        // Decomposed input folds the same as composed input.
        assert_eq!(
            normalize("Unive\u{301}rsite\u{301}"),
            normalize("Univérsité")
        );
    }

    #[test]
    fn apostrophes_and_ampersands() {
        assert_eq!(
            words("Boston Children's Hospital"),
            ["boston", "childrens", "hospital"]
        );
        assert_eq!(words("O’Brien & Daughters"), ["obrien", "and", "daughters"]);
        assert_eq!(
            normalize("O'Brien & Daughters"),
            normalize("OBrien and Daughters")
        );
        assert_eq!(words("'quoted'"), ["quoted"]);
    }

    #[test]
    fn cjk_runs_become_unigrams_and_bigrams() {
        let t = tokens("東京大学 Tokyo");
        let texts: Vec<_> = t.iter().map(|t| (t.text.as_str(), t.kind)).collect();
        use TokenKind::*;
        assert_eq!(
            texts,
            [
                ("東", Unigram),
                ("京", Unigram),
                ("東京", Bigram),
                ("大", Unigram),
                ("京大", Bigram),
                ("学", Unigram),
                ("大学", Bigram),
                ("tokyo", Word)
            ]
        );
        assert_eq!(&"東京大学 Tokyo"[t[2].start..t[2].end], "東京");
        assert_eq!(phrase_tokens("서울대학교"), ["서", "울", "대", "학", "교"]);
    }

    #[test]
    fn other_scripts_are_words() {
        assert_eq!(
            words("Московский университет"),
            ["московскии", "университет"]
        );
        assert_eq!(words("جامعة القاهرة"), ["جامعة", "القاهرة"]);
        assert_eq!(words("भारतीय विज्ञान संस्थान").len(), 3);
        assert_eq!(words("האוניברסיטה העברית").len(), 2);
    }

    #[test]
    fn maps_folded_prefixes_back() {
        let s = "Université";
        assert_eq!(&s[..original_prefix_end(s, 6)], "Univer");
        assert_eq!(&s[..original_prefix_end(s, 10)], "Université");
        let s = "Straße";
        assert_eq!(&s[..original_prefix_end(s, 5)], "Straß");
        let s = "Children's";
        assert_eq!(&s[..original_prefix_end(s, 9)], "Children's");
    }

    #[test]
    fn external_id_keys() {
        assert_eq!(external_id_key("0000 0004 1936 8948"), "0000000419368948");
        assert_eq!(
            external_id_key("https://isni.org/isni/0000000419368948"),
            "0000000419368948"
        );
        assert_eq!(external_id_key("Q34433"), "q34433");
        assert_eq!(
            external_id_key("https://www.wikidata.org/wiki/Q34433"),
            "q34433"
        );
        assert_eq!(
            external_id_key("http://dx.doi.org/10.13039/501100000769"),
            "501100000769"
        );
        assert_eq!(external_id_key("grid.4991.5"), "grid.4991.5");
        assert_eq!(
            external_id_key("https://grid.ac/institutes/grid.4991.5/"),
            "grid.4991.5"
        );
    }

    #[test]
    fn external_id_look_alikes() {
        for s in [
            "0000 0004 1936 8948",
            "0000 0004 1936 894X",
            "https://isni.org/isni/0000000419368948",
            "0000",
            "Q34433",
            "q3",
            "https://www.wikidata.org/wiki/Q34433",
            "501100000769",
            "http://dx.doi.org/10.13039/501100000769",
            "grid.4991.5",
            "grid.4",
        ] {
            assert!(looks_like_external_id(s), "{s}");
        }
        for s in [
            "univ",
            "3M",
            "Area 51",
            "Q",
            "Qatar 1",
            "grid.",
            "grid",
            "1st Faculty",
            "",
        ] {
            assert!(!looks_like_external_id(s), "{s}");
        }
    }

    #[test]
    fn ascii_fast_path_agrees_with_the_general_path() {
        for s in [
            "O'Brien & Daughters Instruments",
            "Boston Children's Hospital",
            "'quoted' word's end'",
            "a&b&&c",
            "U.S. Geological Survey (USGS)",
            "grid.4991.5 0000 0004 1936 8948",
            "it`s  --  x",
            "",
            "&",
            "'",
        ] {
            // A trailing non-ASCII character sends the text down the general path.
            let general: Vec<Token> = tokens(&format!("{s}\u{00a0}"));
            assert_eq!(tokens(s), general, "{s}");
        }
    }

    #[test]
    fn fast_paths_agree_with_the_slow_paths() {
        let (mut fast, mut slow) = (String::new(), String::new());
        for cp in 0..=0x2FA1F {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            fast.clear();
            slow.clear();
            fold_char_into(c, &mut fast);
            fold_char_slow(c, &mut slow);
            assert_eq!(fast, slow, "{cp:04X}");
            if is_caseless(cp) {
                assert!(c.to_lowercase().eq([c]), "{cp:04X}");
            }
            if is_plain_letter(cp) {
                // What `class` decides without the shortcut.
                assert!(
                    !is_dropped_mark(c)
                        && !is_run_char(c)
                        && !matches!(c, '\u{2019}' | '\u{2018}' | '\u{02BC}' | '\u{00B4}')
                        && (c.is_alphanumeric() || is_word_mark(c)),
                    "{cp:04X}"
                );
            }
        }
    }

    #[test]
    fn optional_words_are_sorted() {
        let mut v = OPTIONAL_WORDS.to_vec();
        v.sort_unstable();
        assert_eq!(v, OPTIONAL_WORDS);
    }
}
