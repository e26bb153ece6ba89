//! The precision–recall curve of the `chosen` score as an SVG
//! (`registry eval-affiliation --svg`): one curve per held-out check, the
//! operating point (the fitted threshold) marked on each, the target
//! (precision 0.96 at recall 0.85) drawn as guides, so a threshold is chosen
//! by looking at the trade-off, not guessed.

use std::fmt::Write;

/// One curve.
pub struct Curve {
    /// Legend text.
    pub label: String,
    /// (recall, precision) at each distinct threshold, highest first.
    pub points: Vec<(f64, f64)>,
    /// (recall, precision) at the model's threshold.
    pub operating: (f64, f64),
}

/// The curve of scored answers `best` (score, correct) over rows of which
/// `with_gold` have a gold id; an answer on an empty-gold row is wrong.
/// `threshold`: the operating point's.
pub fn curve(label: String, mut best: Vec<(f32, bool)>, with_gold: usize, threshold: f32) -> Curve {
    best.sort_by(|a, b| b.0.total_cmp(&a.0));
    let denom = with_gold.max(1) as f64;
    let mut points = Vec::new();
    let mut operating = (0.0, 1.0);
    let mut correct = 0usize;
    for (k, &(s, ok)) in best.iter().enumerate() {
        correct += usize::from(ok);
        if best.get(k + 1).is_some_and(|n| n.0 == s) {
            continue;
        }
        let pt = (correct as f64 / denom, correct as f64 / (k + 1) as f64);
        points.push(pt);
        if s >= threshold {
            operating = pt;
        }
    }
    Curve {
        label,
        points,
        operating,
    }
}

const W: f64 = 640.0;
const H: f64 = 420.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 20.0;
const BOTTOM: f64 = 50.0;
/// Axis ranges: the part of the square where the thresholds worth choosing
/// lie (points outside are drawn on the border).
const R_MIN: f64 = 0.5;
const P_MIN: f64 = 0.8;
const COLORS: [&str; 4] = ["#1b6ca8", "#c0392b", "#2e8540", "#7d3c98"];

fn x(r: f64) -> f64 {
    LEFT + (r.clamp(R_MIN, 1.0) - R_MIN) / (1.0 - R_MIN) * (W - LEFT - RIGHT)
}

fn y(p: f64) -> f64 {
    TOP + (1.0 - p.clamp(P_MIN, 1.0)) / (1.0 - P_MIN) * (H - TOP - BOTTOM)
}

/// The SVG document; `target`: the wanted (precision, recall).
pub fn svg(title: &str, curves: &[Curve], target: (f64, f64)) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" font-family="sans-serif" font-size="12" role="img" aria-labelledby="t">"#
    );
    let _ = write!(
        s,
        r##"<title id="t">{}</title><rect width="{W}" height="{H}" fill="#fff"/>"##,
        escape(title)
    );
    // Grid and ticks.
    for k in 0..=5 {
        let r = R_MIN + (1.0 - R_MIN) * f64::from(k) / 5.0;
        let _ = write!(
            s,
            r##"<line x1="{0:.1}" y1="{TOP}" x2="{0:.1}" y2="{1}" stroke="#eee"/><text x="{0:.1}" y="{2}" text-anchor="middle">{r:.1}</text>"##,
            x(r),
            H - BOTTOM,
            H - BOTTOM + 16.0
        );
        let p = P_MIN + (1.0 - P_MIN) * f64::from(k) / 5.0;
        let _ = write!(
            s,
            r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1}" y2="{0:.1}" stroke="#eee"/><text x="{2}" y="{3:.1}" text-anchor="end">{p:.2}</text>"##,
            y(p),
            W - RIGHT,
            LEFT - 6.0,
            y(p) + 4.0
        );
    }
    let _ = write!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{0}" height="{1}" fill="none" stroke="#888"/><text x="{2}" y="{3}" text-anchor="middle">recall</text><text transform="translate(16 {4}) rotate(-90)" text-anchor="middle">precision (a chosen on an empty-gold row is wrong)</text>"##,
        W - LEFT - RIGHT,
        H - TOP - BOTTOM,
        (LEFT + W - RIGHT) / 2.0,
        H - 10.0,
        (TOP + H - BOTTOM) / 2.0
    );
    // The target: precision and recall both at least this.
    let (tp, tr) = target;
    let _ = write!(
        s,
        r##"<rect x="{0:.1}" y="{TOP}" width="{1:.1}" height="{2:.1}" fill="#2e8540" fill-opacity="0.07" stroke="#2e8540" stroke-dasharray="4 3"/><text x="{3:.1}" y="{4:.1}" fill="#2e8540" text-anchor="end">target: P ≥ {tp} at R ≥ {tr}</text>"##,
        x(tr),
        x(1.0) - x(tr),
        y(tp) - TOP,
        x(1.0) - 6.0,
        TOP + 14.0
    );
    for (k, c) in curves.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let step = (c.points.len() / 400).max(1);
        let mut d = String::new();
        for (i, &(r, p)) in c.points.iter().enumerate() {
            // Below the axis range the few top-scored answers swing
            // (precision of a handful); they are not a threshold to choose.
            if (i % step != 0 && i + 1 != c.points.len()) || r < R_MIN {
                continue;
            }
            let _ = write!(
                d,
                "{}{:.1},{:.1}",
                if d.is_empty() { "M" } else { " L" },
                x(r),
                y(p)
            );
        }
        let (orr, op) = c.operating;
        let _ = write!(
            s,
            r##"<path d="{d}" fill="none" stroke="{color}" stroke-width="1.6"/><circle cx="{0:.1}" cy="{1:.1}" r="5" fill="{color}" stroke="#fff"/>"##,
            x(orr),
            y(op)
        );
        // The legend in the lower left, where no curve worth reading runs.
        let ly = H - BOTTOM - 12.0 - 16.0 * (curves.len() - 1 - k) as f64;
        let _ = write!(
            s,
            r#"<line x1="{0}" y1="{1:.1}" x2="{2}" y2="{1:.1}" stroke="{color}" stroke-width="2"/><text x="{3}" y="{4:.1}">{5} (operating point P {op:.3}, R {orr:.3})</text>"#,
            LEFT + 10.0,
            ly - 4.0,
            LEFT + 30.0,
            LEFT + 36.0,
            ly,
            escape(&c.label)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_counts_every_answer_and_marks_the_threshold() {
        // Four answers, three right; 5 rows with gold.
        let c = curve(
            "t".into(),
            vec![(0.9, true), (0.5, false), (0.7, true), (0.1, true)],
            5,
            0.6,
        );
        assert_eq!(
            c.points,
            [(0.2, 1.0), (0.4, 1.0), (0.4, 2.0 / 3.0), (0.6, 0.75)]
        );
        assert_eq!(c.operating, (0.4, 1.0));
        let doc = svg("a <b>", &[c], (0.96, 0.85));
        assert!(doc.starts_with("<svg") && doc.ends_with("</svg>\n"));
        assert!(doc.contains("a &lt;b&gt;"));
        assert_eq!(doc.matches("<circle").count(), 1);
    }
}
