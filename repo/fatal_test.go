package repo

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/deltaq/deltaq/internal/killtest"
)

// fullDiskEnv names the repository directory the child of
// TestOpenOnAFullDiskEndsWithOneLineAndLosesNothing opens on a disk where
// the MANIFEST cannot be written.
const fullDiskEnv = "DELTAQ_TEST_FULL_DISK_DIR"

// A repository opened on a full disk, where Pebble cannot write its
// MANIFEST (from a background flush) and calls Fatalf, ends the process
// with status 1 and one line naming the directory and the cause, not a
// panic; once the disk has room it opens with everything stored before.
func TestOpenOnAFullDiskEndsWithOneLineAndLosesNothing(t *testing.T) {
	if dir := os.Getenv(fullDiskEnv); dir != "" {
		// The child: the MANIFEST is created, then cannot be filled.
		full := errorfs.InjectorFunc(func(op errorfs.Op) error {
			if strings.Contains(op.Path, "MANIFEST") && (op.Kind == errorfs.OpFileWrite || op.Kind == errorfs.OpFileSync) {
				return syscall.ENOSPC
			}
			return nil
		})
		db, err := Open(dir, testConfig(), Options{FS: errorfs.Wrap(vfs.Default, full)})
		if err == nil {
			db.Close()
		}
		t.Fatalf("Open on a full disk returned: %v", err)
	}

	dir := filepath.Join(t.TempDir(), "db")
	db, err := Open(dir, testConfig(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, db, func(b *Batch) error { b.AppendChange("http://a.test/", ChangeUpsert, t0); return nil })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	child := killtest.Child(t.Name(), fullDiskEnv, dir)
	var stderr bytes.Buffer
	child.Stderr = &stderr
	err = child.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("the child ended with %v, want exit status 1\n%s", err, stderr.String())
	}
	want := "repo: " + dir + ": MANIFEST flush failed: no space left on device;"
	if out := stderr.String(); !strings.Contains(out, want) || strings.Contains(out, "goroutine") {
		t.Errorf("the child said:\n%s\nwant one line with %q and no stack trace", out, want)
	}

	db, err = Open(dir, testConfig(), Options{})
	if err != nil {
		t.Fatalf("Open once the disk has room: %v", err)
	}
	defer db.Close()
	if got := db.LastChangeSeq(); got != 1 {
		t.Errorf("LastChangeSeq after the failed open = %d, want the 1 stored before", got)
	}
}
