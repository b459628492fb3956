package repo

import (
	"errors"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestCommitRefusedUnderMinFreeBytes: with less free space on its disk
// than repo.min_free_bytes, a commit is refused with a *SpaceError naming
// the free space and the setting, writes nothing, and leaves what was
// stored readable; with the setting under the free space, commits go on.
func TestCommitRefusedUnderMinFreeBytes(t *testing.T) {
	dir := t.TempDir()
	u, err := vfs.Default.GetDiskUsage(dir)
	if err != nil {
		t.Fatalf("free space of %s: %v", dir, err)
	}
	cfg := testConfig()
	cfg.MinFreeBytes = int64(u.AvailBytes / 2)
	db, err := Open(dir, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, db, func(b *Batch) error { return b.PutBucket("test", "before", []byte("kept")) })
	db.Close()

	cfg.MinFreeBytes = int64(u.AvailBytes + 1<<30)
	if db, err = Open(dir, cfg, Options{}); err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(t.Context())
	if err := b.PutBucket("test", "after", []byte("refused")); err != nil {
		t.Fatal(err)
	}
	err = b.Commit()
	var se *SpaceError
	if !errors.As(err, &se) || se.Min != uint64(cfg.MinFreeBytes) || se.Free >= se.Min || se.Dir != dir {
		t.Fatalf("commit with %d bytes free under min_free_bytes %d: %v, want a *SpaceError naming both", u.AvailBytes, cfg.MinFreeBytes, err)
	}
	if v, err := db.Bucket("test", "before"); err != nil || string(v) != "kept" {
		t.Errorf("stored before: %q, %v; want kept", v, err)
	}
	if _, err := db.Bucket("test", "after"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the refused commit's write: %v, want ErrNotFound", err)
	}
	db.Close()
}
