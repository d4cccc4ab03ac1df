//! A small in-process cache of decoded blocks, so repeated probes near each other (a query
//! and its moves, a game of `play`, a sampled `verify`) decompress each block once.
//!
//! Least recently used blocks go first once the decoded bytes exceed the budget. The cache
//! holds at most a few dozen blocks, so a linear scan for the oldest is cheaper than keeping
//! an ordered structure up to date on every hit.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use super::format::Block;
use bawo_games::game::Tier;

/// Decoded bytes the cache keeps by default (32 blocks of the default size).
pub const DEFAULT_BUDGET: usize = 32 << 20;

struct Slot {
    block: Arc<Block>,
    last_used: u64,
}

struct Inner {
    slots: HashMap<(Tier, u32), Slot>,
    /// Blocks probed once without being decoded whole ([`BlockCache::first_touch`]).
    touched: HashSet<(Tier, u32)>,
    bytes: usize,
    clock: u64,
}

/// A cache of decoded blocks, bounded in bytes.
pub struct BlockCache {
    budget: usize,
    inner: Mutex<Inner>,
}

impl BlockCache {
    /// An empty cache holding at most `budget` bytes.
    pub fn new(budget: usize) -> BlockCache {
        BlockCache {
            budget,
            inner: Mutex::new(Inner {
                slots: HashMap::new(),
                touched: HashSet::new(),
                bytes: 0,
                clock: 0,
            }),
        }
    }

    /// Records a probe of a block the cache does not hold; true the first time. A block
    /// probed once is read only as far as the probe needs (a cold query reads about half of
    /// each block); one probed again is decoded whole and kept.
    pub fn first_touch(&self, tier: Tier, block: u32) -> bool {
        let mut g = self.inner.lock().expect("cache lock");
        g.touched.insert((tier, block))
    }

    /// The cached block, if any, marked as just used.
    pub fn get(&self, tier: Tier, block: u32) -> Option<Arc<Block>> {
        let mut g = self.inner.lock().expect("cache lock");
        g.clock += 1;
        let now = g.clock;
        g.slots.get_mut(&(tier, block)).map(|s| {
            s.last_used = now;
            s.block.clone()
        })
    }

    /// Adds a decoded block, evicting the least recently used ones beyond the budget (the
    /// newest block always stays, even if alone it exceeds the budget).
    pub fn insert(&self, tier: Tier, block: u32, b: Arc<Block>) {
        let mut g = self.inner.lock().expect("cache lock");
        g.clock += 1;
        let now = g.clock;
        let size = b.heap_bytes();
        if let Some(old) = g.slots.insert(
            (tier, block),
            Slot {
                block: b,
                last_used: now,
            },
        ) {
            g.bytes -= old.block.heap_bytes();
        }
        g.bytes += size;
        while g.bytes > self.budget && g.slots.len() > 1 {
            let oldest = *g
                .slots
                .iter()
                .min_by_key(|(_, s)| s.last_used)
                .map(|(k, _)| k)
                .expect("non-empty");
            let s = g.slots.remove(&oldest).expect("present");
            g.bytes -= s.block.heap_bytes();
        }
    }

    /// Drops every block (the bench's cold probes).
    pub fn clear(&self) {
        let mut g = self.inner.lock().expect("cache lock");
        g.slots.clear();
        g.touched.clear();
        g.bytes = 0;
    }

    /// Blocks held now.
    pub fn len(&self) -> usize {
        self.inner.lock().expect("cache lock").slots.len()
    }

    /// Whether the cache holds no blocks.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
