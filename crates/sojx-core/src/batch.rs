//! Batches: work on many inputs in parallel on all cores, results delivered in input order.
//!
//! Scoped worker threads take the next input from a shared atomic index; the calling thread
//! receives results as they finish and hands each to `sink` as soon as every earlier one has
//! been handed over, so output order is argument order and the first envelope is printed as soon
//! as it is ready. A failing `sink` (a closed stdout) stops the workers after their current input.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

/// Whether `sources` may be read in parallel: standard input named twice (`sojx extract - -`)
/// must be read in order, the first reading it all, as a sequential run does.
pub fn parallel_ok<S: crate::input::Source>(sources: &[S]) -> bool {
    sources.iter().filter(|s| s.is_stdin()).count() <= 1
}

/// Worker threads for `n` inputs: one per core, at most `n`.
fn workers(n: usize) -> usize {
    // One input needs no count of cores.
    if n <= 1 {
        return n;
    }
    cores().min(n)
}

/// The cores this process may run on (as its CPU affinity and cgroup allow). Reading them costs
/// file reads: ask only when there is work to spread.
pub(crate) fn cores() -> usize {
    thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Run `work` on every item, in parallel when `parallel`, and pass the results to `sink` in item
/// order.
pub fn for_each<T, R, W, S>(items: &[T], parallel: bool, work: W, mut sink: S) -> io::Result<()>
where
    T: Sync,
    R: Send,
    W: Fn(&T) -> R + Sync,
    S: FnMut(R) -> io::Result<()>,
{
    let threads = if parallel { workers(items.len()) } else { 1 };
    if threads <= 1 {
        return items.iter().try_for_each(|it| sink(work(it)));
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (work, next, stop) = (&work, &next, &stop);
    thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, R)>();
        let mut started = 0;
        for _ in 0..threads {
            let tx = tx.clone();
            let spawned = thread::Builder::new().spawn_scoped(scope, move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if tx.send((i, work(item))).is_err() {
                        break;
                    }
                }
            });
            started += usize::from(spawned.is_ok());
        }
        drop(tx);
        if started == 0 {
            // No thread could start: do the work here, as for one input.
            return items.iter().try_for_each(|it| sink(work(it)));
        }
        let mut ready = BTreeMap::new();
        let mut want = 0;
        for (i, r) in rx {
            ready.insert(i, r);
            while let Some(r) = ready.remove(&want) {
                want += 1;
                if let Err(e) = sink(r) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_item_order() {
        let items: Vec<u64> = (0..200).collect();
        let mut seen = Vec::new();
        for_each(
            &items,
            true,
            |&i| {
                // Later items finish first.
                thread::sleep(std::time::Duration::from_micros((200 - i) * 20));
                i * 2
            },
            |r| {
                seen.push(r);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, (0..200).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn a_failing_sink_stops_early() {
        let items: Vec<u32> = (0..10_000).collect();
        let mut n = 0;
        let r = for_each(
            &items,
            true,
            |&i| i,
            |_| {
                n += 1;
                if n == 3 {
                    Err(io::Error::from(io::ErrorKind::BrokenPipe))
                } else {
                    Ok(())
                }
            },
        );
        assert!(r.is_err());
        assert_eq!(n, 3);
    }
}
