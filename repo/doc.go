// Package repo is deltaq's repository: one Pebble database holding
// everything that must survive a crash.
//
// It owns the key layout (keys.go is the only code that builds keys; see
// FORMAT.md for one row per prefix) and the encoding of every record. Pages,
// versions, the fetch log and the link graph are written by the crawler; the
// frontier writes its queue; the index writes ΔQ measurements and its
// watermark; ads and ranking keep their state in named buckets. Each prefix
// has exactly one writing package, named in FORMAT.md.
//
// Durability: every write goes through a Batch that commits atomically and
// is synced to the write-ahead log before Commit returns, so after kill -9
// reopening loses nothing that was committed (thesis §2.1: the incremental
// crawler updates its repository in place, page by page).
//
// Derived data: the Bleve index follows the change feed (prefix 'c') and
// stores how far it got; it can always be rebuilt from here. Removing a
// page (Batch.RemovePage, remove.go) deletes every per-URL prefix and
// appends a delete to the feed in the same batch, so the index follows.
// Checkpoint writes a consistent copy (`deltaq backup`).
//
// Memory: Pebble's block cache (repo.cache_bytes) and one zstd encoder and
// decoder; nothing grows with the number of pages.
//
//	db, err := repo.Open(dir, cfg.Repo, repo.Options{Logger: logger})
//	b := db.NewBatch(ctx)
//	b.PutPage(&repo.Page{URL: u, State: repo.StateQueued})
//	err = b.Commit() // atomic and synced
//	p, err := db.Page(u)
package repo
