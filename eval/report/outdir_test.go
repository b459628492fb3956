package report

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOutDirRemovesOnlyTheEmptyDirectoriesItCreated(t *testing.T) {
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	t.Run("a new directory left empty is removed with the parents it needed", func(t *testing.T) {
		root := t.TempDir()
		out := filepath.Join(root, "out", "feeds")
		tidy, err := OutDir(out)
		if err != nil || !exists(out) {
			t.Fatalf("OutDir: %v, exists %v", err, exists(out))
		}
		tidy()
		if exists(filepath.Join(root, "out")) || !exists(root) {
			t.Errorf("after tidy: out exists %v, the user's root exists %v", exists(filepath.Join(root, "out")), exists(root))
		}
	})
	t.Run("a directory the user had is kept even when empty", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		tidy, err := OutDir(out)
		if err != nil {
			t.Fatal(err)
		}
		tidy()
		if !exists(out) {
			t.Error("tidy removed a directory OutDir did not create")
		}
	})
	t.Run("a new directory with a report in it is kept, and so are its parents", func(t *testing.T) {
		root := t.TempDir()
		out := filepath.Join(root, "out", "sync")
		tidy, err := OutDir(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, "report.md"), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		tidy()
		if !exists(filepath.Join(out, "report.md")) {
			t.Error("tidy removed a directory holding a report")
		}
	})
}
