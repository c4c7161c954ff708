//! The bounded cache of computed definitions, keyed by request and checked for freshness.
//!
//! An entry is the [`Definitions`] value itself, which carries what each tool showed the model:
//! a hit changes no shared state, so concurrent selections never see each other's schemas.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::time::Instant;

use crate::sync::Mutex;

use super::list::{Definitions, DefinitionsRequest};

/// How many selections the definitions cache keeps.
const CAPACITY: usize = 64;

pub(super) struct Entry {
    pub(super) freshness: Freshness,
    pub(super) valid_until: Option<Instant>,
    pub(super) definitions: Definitions,
}

/// What a cached list was computed at; a lookup must match all of it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Freshness {
    pub(super) generation: u64,
    pub(super) config_version: u64,
    pub(super) availability_epoch: u64,
}

/// Hashed with foldhash: a hit hashes the whole selection, and SipHash made that most of the
/// cost of a cached list (the keys are the operator's selections, not an attacker's).
type Entries = (
    HashMap<DefinitionsRequest, Entry, foldhash::fast::RandomState>,
    VecDeque<DefinitionsRequest>,
);

/// The bounded cache of computed definitions.
#[derive(Default)]
pub(crate) struct DefinitionsCache {
    entries: Mutex<Entries>,
}

impl fmt::Debug for DefinitionsCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DefinitionsCache")
            .field("entries", &self.entries.lock().0.len())
            .finish()
    }
}

impl DefinitionsCache {
    pub(super) fn get(
        &self,
        request: &DefinitionsRequest,
        freshness: Freshness,
        now: impl FnOnce() -> Instant,
    ) -> Option<Definitions> {
        let entries = self.entries.lock();
        let entry = entries.0.get(request)?;
        let fresh =
            entry.freshness == freshness && entry.valid_until.is_none_or(|until| now() < until);
        fresh.then(|| entry.definitions.clone())
    }

    pub(super) fn put(&self, request: DefinitionsRequest, entry: Entry) {
        let mut guard = self.entries.lock();
        let (entries, order) = &mut *guard;
        if entries.insert(request.clone(), entry).is_none() {
            order.push_back(request);
            while order.len() > CAPACITY {
                if let Some(oldest) = order.pop_front() {
                    entries.remove(&oldest);
                }
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.lock().0.len()
    }
}
