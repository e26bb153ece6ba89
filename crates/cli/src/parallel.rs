//! The build's one way to use every core: `map` over a slice on scoped
//! threads, results in the slice's order. Compressing pieces (zstd 19) is
//! most of a build's time and each piece is independent, so two cores
//! halve it; `bulk` (registry match) has its own chunked threads, which
//! stream their output.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Threads to use: the machine's parallelism (1 if unknown).
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `f` of each item, on [`threads`] threads taking the next item as they
/// finish one (pieces differ in size by 1,000×), in `items`' order.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let mut parts: Vec<Vec<(usize, R)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads().min(items.len()).max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut all: Vec<(usize, R)> = parts.iter_mut().flat_map(std::mem::take).collect();
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

/// Items taken by [`each`] at a time: enough to keep every core busy
/// past the largest piece, few enough that their outputs (compressed
/// pieces, up to 24 MiB together) are not held for the whole build.
const BATCH: usize = 512;

/// `f` of each item on every core, each result handed to `sink` in
/// `items`' order as its batch completes; the first error stops. Unlike
/// [`map`], the results are never all held at once: at 143,960 records
/// the E2 files alone are ~400 MB compressed.
pub fn each<T: Sync, R: Send, E: Send>(
    items: &[T],
    f: impl Fn(&T) -> Result<R, E> + Sync,
    sink: &mut dyn FnMut(&T, R) -> Result<(), E>,
) -> Result<(), E> {
    for batch in items.chunks(BATCH) {
        for (item, r) in batch.iter().zip(map(batch, &f)) {
            sink(item, r?)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_in_the_items_order() {
        let items: Vec<u64> = (0..1000).collect();
        let out = super::map(&items, |&i| {
            if i % 7 == 0 {
                std::thread::yield_now();
            }
            i * i
        });
        assert_eq!(out, items.iter().map(|i| i * i).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u8], |_| 1).is_empty());
    }

    #[test]
    fn each_hands_results_over_in_order_and_stops_at_the_first_error() {
        let items: Vec<u32> = (0..1500).collect();
        let mut seen = Vec::new();
        let done = super::each(&items, |&i| Ok::<_, String>(i + 1), &mut |&i, r| {
            assert_eq!(r, i + 1);
            seen.push(i);
            Ok(())
        });
        assert!(done.is_ok());
        assert_eq!(seen, items);
        let mut sunk = 0;
        let failed = super::each(
            &items,
            |&i| {
                if i == 700 {
                    Err(format!("item {i}"))
                } else {
                    Ok(i)
                }
            },
            &mut |_, _| {
                sunk += 1;
                Ok(())
            },
        );
        assert_eq!(failed, Err("item 700".to_string()));
        assert_eq!(
            sunk, 700,
            "the items before the failing one are handed over, no later one"
        );
    }
}
