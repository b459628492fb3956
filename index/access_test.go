//go:build unix

package index

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/nobodytest"
	"github.com/deltaq/deltaq/repo"
)

// accessChildEnv names the index directory a child of
// TestOpenNamesAPermissionProblem opens as a user who does not own it.
const accessChildEnv = "DELTAQ_INDEX_ACCESS_CHILD"

// TestOpenNamesAPermissionProblem: an index whose files this process may
// not write is refused as a permission problem, naming the file, not as
// damaged; and Recreate, which discards a damaged index, leaves it be.
// Root may write any file, so as root the open runs in a child process
// of user nobody.
func TestOpenNamesAPermissionProblem(t *testing.T) {
	if dir := os.Getenv(accessChildEnv); dir != "" {
		_, err := Open(dir, testConfig(ScoringBM25), openRepo(t, t.TempDir()), Options{Recreate: true})
		if err == nil {
			t.Fatal("Open succeeded")
		}
		if errors.Is(err, ErrDamaged) || !errors.Is(err, fs.ErrPermission) {
			t.Errorf("Open = %v, want a permission error, not ErrDamaged", err)
		}
		os.Stdout.WriteString(err.Error() + "\n")
		return
	}

	base := t.TempDir()
	ixDir := filepath.Join(base, "ix")
	ix := openIndex(t, ixDir, testConfig(ScoringBM25), openRepo(t, t.TempDir()), Options{})
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	var out string
	if os.Geteuid() != 0 {
		if err := filepath.WalkDir(ixDir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			return os.Chmod(path, 0o400)
		}); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ixDir, testConfig(ScoringBM25), openRepo(t, t.TempDir()), Options{Recreate: true})
		if err == nil || errors.Is(err, ErrDamaged) || !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("Open = %v, want a permission error, not ErrDamaged", err)
		}
		out = err.Error()
	} else {
		out = nobodytest.Run(t, base, "TestOpenNamesAPermissionProblem", accessChildEnv+"="+ixDir)
	}
	if !strings.Contains(out, "permission denied") || !strings.Contains(out, ixDir) || strings.Contains(out, "rebuild") {
		t.Errorf("Open's error %q: want it to say permission denied, name a file of %s and offer no rebuild", out, ixDir)
	}
	if _, err := os.Stat(filepath.Join(ixDir, "index_meta.json")); err != nil {
		t.Errorf("the index after the refused open: %v, want it left in place", err)
	}
}

// rebuildChildEnv names the data directory a child of
// TestRebuildKeepsTheNewIndexWhenTheOldOneStays rebuilds the index of.
const rebuildChildEnv = "DELTAQ_INDEX_REBUILD_CHILD"

// TestRebuildKeepsTheNewIndexWhenTheOldOneStays: a rebuild whose old index
// directory cannot be removed (it is read-only) succeeds all the same, with
// the new index in place, open and recorded in the repository, rather than
// failing after the swap. Root may remove any file, so as root the rebuild
// runs in a child process of user nobody, who owns the data directory.
func TestRebuildKeepsTheNewIndexWhenTheOldOneStays(t *testing.T) {
	rebuildAsOwner(t, rebuildChildEnv, rebuildReadOnlyIndex)
}

// rebuildAsOwner runs rebuild on a data directory of readOnlyIndexData as
// the user who owns it: in this process, or, as root, who may remove any
// file, in a child process of user nobody running the test t again with
// childEnv naming the directory.
func rebuildAsOwner(t *testing.T, childEnv string, rebuild func(*testing.T, string)) {
	if base := os.Getenv(childEnv); base != "" {
		rebuild(t, base)
		return
	}
	base := readOnlyIndexData(t)
	if os.Geteuid() != 0 {
		rebuild(t, base)
		return
	}
	t.Log(nobodytest.Run(t, filepath.Dir(base), t.Name(), childEnv+"="+base))
}

// readOnlyIndexData makes a data directory, owned by nobody when the test
// runs as root, whose index directory and store are read-only, and
// returns it.
func readOnlyIndexData(t *testing.T) string {
	base := filepath.Join(t.TempDir(), "data")
	db, err := repo.Open(filepath.Join(base, "repo"), repoConfig(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, filepath.Join(base, "ix"), testConfig(ScoringBM25), db, Options{})
	putPages(t, db, t0, smallCorpus...)
	catchUp(t, ix)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(base, "ix", "store"), filepath.Join(base, "ix")} {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { // old indexes stay, read-only: let TempDir remove them
		filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(path, 0o755)
			}
			return nil
		})
	})
	if os.Geteuid() == 0 {
		nobodytest.Own(t, base)
	}
	return base
}

// rebuildAgainChildEnv names the data directory a child of
// TestRebuildMovesAsideTheOldIndexAnEarlierOneLeft rebuilds the index of.
const rebuildAgainChildEnv = "DELTAQ_INDEX_REBUILD_AGAIN_CHILD"

// TestRebuildMovesAsideTheOldIndexAnEarlierOneLeft: the read-only old
// index a rebuild left (ix.old) stops no later rebuild, which used to fail
// at the swap, after the whole build, on removing it: the leftover is
// moved aside, kept whole, and the new index is in place and in use.
func TestRebuildMovesAsideTheOldIndexAnEarlierOneLeft(t *testing.T) {
	rebuildAsOwner(t, rebuildAgainChildEnv, rebuildTwice)
}

// rebuildTwice rebuilds the read-only index under base, which leaves it
// as ix.old, then rebuilds again, and checks the leftover was moved aside.
func rebuildTwice(t *testing.T, base string) {
	// Each in a subtest of its own, which closes its repository.
	for _, name := range []string{"first", "again"} {
		t.Run(name, func(t *testing.T) { rebuildReadOnlyIndex(t, base) })
	}
	if _, err := os.Stat(filepath.Join(base, "ix.old.1", "index_meta.json")); err != nil {
		t.Errorf("the leftover old index: %v, want it moved aside to ix.old.1, whole", err)
	}
}

// rebuildReadOnlyIndex rebuilds the index under base, whose directory is
// read-only, and checks the rebuilt index is the one in use.
func rebuildReadOnlyIndex(t *testing.T, base string) {
	db := openRepo(t, filepath.Join(base, "repo"))
	ix := openIndex(t, filepath.Join(base, "ix"), testConfig(ScoringBM25), db, Options{})
	st, err := ix.Rebuild(t.Context())
	if err != nil {
		t.Fatalf("Rebuild = %v, want the new index kept", err)
	}
	if st.Indexed != len(smallCorpus) || ix.Watermark() != db.LastChangeSeq() {
		t.Fatalf("stats %+v, watermark %d, want %d", st, ix.Watermark(), db.LastChangeSeq())
	}
	agree(t, ix, db)
}

// TestOpenCallsASymlinkLoopNoPermissionProblem: an index path that is a
// symbolic link loop is no matter of owner or mode, so Open does not say
// it is one; and it leaves the link be.
func TestOpenCallsASymlinkLoopNoPermissionProblem(t *testing.T) {
	base := t.TempDir()
	ixDir := filepath.Join(base, "ix")
	if err := os.Symlink("ix", ixDir); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ixDir, testConfig(ScoringBM25), openRepo(t, filepath.Join(base, "repo")), Options{Recreate: true})
	if err == nil {
		t.Fatal("Open succeeded")
	}
	if errors.Is(err, fs.ErrPermission) || strings.Contains(err.Error(), "user who owns") {
		t.Errorf("Open = %v, want no permission problem named", err)
	}
	if _, err := os.Lstat(ixDir); err != nil {
		t.Errorf("the link after the refused open: %v, want it left in place", err)
	}
}

// TestOpenOfAFileCallsItNoDirectory: an index path that is a plain file
// is refused as a file, not called an index cut short, with the way out;
// and Recreate leaves the file be, for it is no index of ours.
func TestOpenOfAFileCallsItNoDirectory(t *testing.T) {
	base := t.TempDir()
	ixPath := filepath.Join(base, "ix")
	if err := os.WriteFile(ixPath, []byte("someone's notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ixPath, testConfig(ScoringBM25), openRepo(t, filepath.Join(base, "repo")), Options{Recreate: true})
	if err == nil {
		t.Fatal("Open succeeded")
	}
	t.Log(err)
	for _, want := range []string{"index: open " + ixPath + ": ", "is a file, not a directory", "move it away", "deltaq index rebuild"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open = %v, want it to say %q", err, want)
		}
	}
	if b, err := os.ReadFile(ixPath); err != nil || string(b) != "someone's notes" {
		t.Errorf("the file after the refused open: %q, %v; want it left as it was", b, err)
	}
}
