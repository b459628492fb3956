package index

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/blevesearch/bleve/v2"
)

// Backup writes a copy of the repository and of the index that agree,
// while both stay open: between two batches, a Pebble checkpoint of the
// repository to repoDir, then Bleve's online copy of the index to
// indexDir. Neither directory may exist. The checkpoint's watermark is the
// copied index's, so the pair opens as a data directory and catches up
// from there. Batches wait while the index is copied; searches and the
// crawler's writes go on.
func (ix *Index) Backup(ctx context.Context, repoDir, indexDir string) error {
	for _, dir := range []string{repoDir, indexDir} {
		if _, err := os.Stat(dir); err == nil {
			return fmt.Errorf("index: backup to %s: already exists", dir)
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("index: backup: %w", err)
		}
	}
	ix.apply.Lock()
	defer ix.apply.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	bi := ix.bleve()
	if bi == nil {
		return ErrClosed
	}
	copyable, ok := bi.(bleve.IndexCopyable)
	if !ok {
		return fmt.Errorf("index: backup: a %T cannot be copied online", bi)
	}
	if err := ix.db.Checkpoint(repoDir); err != nil {
		return err
	}
	if err := copyable.CopyTo(bleve.FileSystemDirectory(indexDir)); err != nil {
		return fmt.Errorf("index: backup to %s: %w", indexDir, err)
	}
	return nil
}
