//! [`IndexWriter`]: one transaction of changes to an index, safe beside
//! other writers and crashes.
//!
//! For an index saved in a folder, the writer takes the folder's
//! [`WriteLock`] and moves to the latest saved state (another writer may
//! have committed since the index was loaded). It queues additions and
//! deletions; [`IndexWriter::commit`] applies them to the latest saved state,
//! saves the result crash-safely ([`store::save_locked`]) and releases the
//! lock. An index never saved commits in memory, without a lock. Readers
//! are never blocked: every state a writer starts from or commits is an
//! [`Index`] snapshot of its own.

use std::path::Path;
use std::sync::Arc;

use crate::document::Doc;
use crate::error::{Error, Result};
use crate::index::{Duplicates, Index};
use crate::store::{self, WriteLock};

/// Changes to an index, applied together by [`IndexWriter::commit`].
#[derive(Debug)]
pub struct IndexWriter {
    /// The snapshot the changes apply to.
    base: Arc<Index>,
    /// The folder's lock, once taken (never for an index in memory).
    lock: Option<WriteLock>,
    adds: Vec<Doc>,
    /// The policy the queued additions were given (one per commit).
    duplicates: Duplicates,
    deletes: Vec<String>,
    /// Whether added documents are stored.
    store: bool,
    /// The origin recorded in `meta.json` by the writer's saves.
    source: Option<String>,
}

impl IndexWriter {
    /// A writer on `index`. For an index saved in a folder, takes the
    /// folder's lock ([`Error::Locked`] if another writer holds it) and moves
    /// to the latest saved state. Added documents are stored if `index`
    /// stores its documents; saves record no `source`.
    pub fn new(index: Arc<Index>) -> Result<Self> {
        let mut writer = IndexWriter {
            store: index.has_store(),
            base: index,
            lock: None,
            adds: Vec::new(),
            duplicates: Duplicates::default(),
            deletes: Vec::new(),
            source: None,
        };
        writer.lock()?;
        Ok(writer)
    }

    /// Sets whether added documents are stored.
    pub fn with_store(mut self, store: bool) -> Self {
        self.store = store;
        self
    }

    /// Sets the origin that saves record in `meta.json`.
    pub fn with_source(mut self, source: Option<String>) -> Self {
        self.source = source;
        self
    }

    /// The snapshot the queued changes apply to; after a commit, the
    /// committed one.
    pub fn base(&self) -> &Arc<Index> {
        &self.base
    }

    /// Whether the writer holds a folder's lock.
    pub fn is_locked(&self) -> bool {
        self.lock.is_some()
    }

    /// Whether additions or deletions are queued.
    pub fn has_changes(&self) -> bool {
        !self.adds.is_empty() || !self.deletes.is_empty()
    }

    /// Takes the folder's lock if the base lives in a folder and the lock is
    /// not held yet, then moves to the latest saved state, since another
    /// writer may have committed after the base was loaded. A lock inherited
    /// through `fork()` is refused ([`Error::ForeignLock`]), not used.
    fn lock(&mut self) -> Result<()> {
        if let Some(lock) = &self.lock {
            lock.check()?;
        }
        if self.lock.is_none()
            && let Some(dir) = self.base.dir()
        {
            let lock = store::lock(dir)?;
            if let Some(latest) = store::latest(&self.base, true)? {
                self.base = Arc::new(latest);
            }
            self.lock = Some(lock);
        }
        Ok(())
    }

    /// Queues `docs` to add at the next commit under the `duplicates`
    /// policy; one commit's additions share one policy ([`Error::Query`]
    /// otherwise). Docids are checked at commit.
    pub fn add(&mut self, docs: Vec<Doc>, duplicates: Duplicates) -> Result<()> {
        if !self.adds.is_empty() && self.duplicates != duplicates {
            return Err(Error::Query(format!(
                "the queued documents were added with duplicates={:?}: commit() them before adding with duplicates={:?}",
                self.duplicates.name(),
                duplicates.name()
            )));
        }
        self.lock()?;
        self.adds.extend(docs);
        self.duplicates = duplicates;
        Ok(())
    }

    /// Queues `docids` to delete at the next commit; a docid queued for
    /// adding leaves the queue instead. Under [`Duplicates::Keep`], every
    /// copy goes, queued or indexed, as Lucene's delete-by-term. Fails,
    /// queuing nothing, on a docid neither indexed nor queued
    /// ([`Error::UnknownDocid`]).
    pub fn delete(&mut self, docids: Vec<String>) -> Result<()> {
        self.lock()?;
        for docid in &docids {
            if !self.adds.iter().any(|d| &d.docid == docid) {
                self.base.doc(docid)?;
            }
        }
        for docid in docids {
            if self.duplicates == Duplicates::Keep {
                self.adds.retain(|d| d.docid != docid);
                if self.base.doc(&docid).is_ok() {
                    self.deletes.push(docid);
                }
                continue;
            }
            match self.adds.iter().position(|d| d.docid == docid) {
                Some(at) => {
                    self.adds.remove(at);
                }
                None => self.deletes.push(docid),
            }
        }
        Ok(())
    }

    /// Applies the queued changes (deletions, then additions as a new
    /// segment, then the merge policy) to the latest saved state, saves the
    /// result crash-safely if the index lives in a folder, and releases the
    /// lock. Returns the new snapshot: the latest saved state if nothing was
    /// queued.
    ///
    /// Once the lock is held, a failed commit discards the queued changes;
    /// if the lock cannot be taken ([`Error::Locked`]), they stay queued.
    pub fn commit(&mut self) -> Result<Arc<Index>> {
        if self.has_changes() {
            // Changes queued before the index was saved need the lock now.
            self.lock()?;
        }
        let adds = std::mem::take(&mut self.adds);
        let deletes = std::mem::take(&mut self.deletes);
        let duplicates = std::mem::take(&mut self.duplicates);
        // Released when this returns, whatever the outcome.
        let lock = self.lock.take();
        let next = self.apply(adds, deletes, duplicates, lock.as_ref())?;
        self.base = Arc::clone(&next);
        Ok(next)
    }

    /// [`IndexWriter::commit`]'s work once the changes are taken out of the
    /// queue, under `lock` (the folder's, for an index saved in one).
    fn apply(
        &self,
        adds: Vec<Doc>,
        deletes: Vec<String>,
        duplicates: Duplicates,
        lock: Option<&WriteLock>,
    ) -> Result<Arc<Index>> {
        let latest = store::latest(&self.base, true)?;
        if adds.is_empty() && deletes.is_empty() {
            return Ok(latest.map_or_else(|| Arc::clone(&self.base), Arc::new));
        }
        let base = latest.as_ref().unwrap_or(&self.base);
        // Documents another writer deleted meanwhile need no deleting.
        let deletes: Vec<String> = deletes
            .into_iter()
            .filter(|d| base.doc(d).is_ok())
            .collect();
        let next = base.with_changes_as(adds, &deletes, self.store, duplicates)?;
        self.publish(base, next, lock)
    }

    /// Saves `next`, the successor of `base`, into `base`'s folder under
    /// `lock`; an index in memory stays there.
    fn publish(&self, base: &Index, next: Index, lock: Option<&WriteLock>) -> Result<Arc<Index>> {
        Ok(Arc::new(match (base.dir(), lock) {
            (Some(dir), Some(lock)) => store::save_locked(&next, dir, self.source.clone(), lock)?,
            _ => next,
        }))
    }

    /// Discards the queued changes and releases the lock.
    pub fn rollback(self) {}

    /// Merges all segments of the latest saved state into one, dropping
    /// deleted documents, and saves it; queued changes stay queued (and the
    /// lock held for them). Returns the merged snapshot.
    pub fn optimize(&mut self) -> Result<Arc<Index>> {
        self.lock()?;
        let merged = self.merge_latest();
        if !self.has_changes() {
            self.lock = None;
        }
        self.base = merged?;
        Ok(Arc::clone(&self.base))
    }

    /// The latest saved state merged into one segment, and saved.
    fn merge_latest(&self) -> Result<Arc<Index>> {
        let latest = store::latest(&self.base, true)?;
        let base = latest.as_ref().unwrap_or(&self.base);
        let merged = base.merged()?;
        self.publish(base, merged, self.lock.as_ref())
    }

    /// Saves the base (not the queued changes) into `dir` as [`store::save`]
    /// does, and moves there: the next commit takes `dir`'s lock and saves
    /// into it. Refused while the writer holds a folder's lock.
    pub fn save(&mut self, dir: &Path) -> Result<Arc<Index>> {
        if self.lock.is_some() {
            return Err(Error::Query(
                "this index has queued changes for its folder: commit() or rollback() them before save()"
                    .into(),
            ));
        }
        self.base = Arc::new(store::save(&self.base, dir, self.source.clone())?);
        Ok(Arc::clone(&self.base))
    }
}

#[cfg(test)]
mod tests;
