package repo

import (
	"os"
	"path/filepath"
	"testing"
)

// Inspect tells a finished database from a directory a copy left
// unfinished, and changes neither.
func TestInspectTellsADatabaseFromADirectoryCutShort(t *testing.T) {
	base := t.TempDir()
	complete := filepath.Join(base, "complete")
	db, err := Open(complete, testConfig(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(base, "partial")
	if err := os.MkdirAll(partial, 0o755); err != nil {
		t.Fatal(err)
	}
	// A checkpoint writes its OPTIONS file first and the MANIFEST marker last.
	if err := os.WriteFile(filepath.Join(partial, "OPTIONS-000001"), []byte("[Version]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(base, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		want DirState
	}{{filepath.Join(base, "absent"), DirAbsent}, {empty, DirEmpty}, {partial, DirPartial}, {complete, DirComplete}} {
		if got, err := Inspect(c.dir); err != nil || got != c.want {
			t.Errorf("Inspect(%s) = %v, %v; want %v", filepath.Base(c.dir), got, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(partial); len(entries) != 1 {
		t.Errorf("Inspect changed the directory cut short: %d files", len(entries))
	}
}
