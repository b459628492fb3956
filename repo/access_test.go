//go:build unix

package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/nobodytest"
)

// accessChildEnv names the repository directory a child of
// TestOpenRefusesADirectoryItMayNotWrite opens as a user who may not
// write it.
const accessChildEnv = "DELTAQ_REPO_ACCESS_CHILD"

// TestOpenRefusesADirectoryItMayNotWrite: a repository whose directory this
// process may not write, with pages still in its log (as every closed
// repository has), is refused at once as a permission problem naming the
// directory; Pebble would retry flushing the log there without end. Root
// may write any directory, so as root the open runs in a child process of
// user nobody.
func TestOpenRefusesADirectoryItMayNotWrite(t *testing.T) {
	if dir := os.Getenv(accessChildEnv); dir != "" {
		os.Stdout.WriteString(openWithin(t, dir, 20*time.Second) + "\n")
		return
	}
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	db, err := Open(dir, testConfig(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(t.Context())
	if err := b.PutPage(&Page{URL: "http://a.test/", State: StateLive}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })

	var out string
	if os.Geteuid() != 0 {
		out = openWithin(t, dir, 20*time.Second)
	} else {
		nobodytest.Own(t, dir)
		out = nobodytest.Run(t, base, "TestOpenRefusesADirectoryItMayNotWrite", accessChildEnv+"="+dir)
	}
	if !strings.Contains(out, "permission denied") || !strings.Contains(out, dir) {
		t.Errorf("Open's error %q: want it to say permission denied and name %s", out, dir)
	}
}

// openWithin opens the repository in dir, which must fail with a
// permission error within limit, and returns the error's text.
func openWithin(t *testing.T, dir string, limit time.Duration) string {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		db, err := Open(dir, testConfig(), Options{})
		if err == nil {
			db.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("Open = %v, want a permission error", err)
		}
		return err.Error()
	case <-time.After(limit):
		t.Fatalf("Open of a directory it may not write still running after %v", limit)
		return ""
	}
}
