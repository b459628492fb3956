//go:build unix

package repo

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// holderEnv, set in the environment of the test binary, makes
// TestOpenNamesAnotherProcessHoldingTheRepository the process that holds
// the repository in the directory it names, until its stdin closes.
const holderEnv = "DELTAQ_REPO_HOLDER"

// TestOpenNamesAnotherProcessHoldingTheRepository opens a repository that
// another process (this test binary again) has open: Open fails with
// ErrInUse naming the directory, as a second deltaq command on a served
// data directory does, and once the holder is gone the repository opens
// with what it stored.
func TestOpenNamesAnotherProcessHoldingTheRepository(t *testing.T) {
	if dir := os.Getenv(holderEnv); dir != "" {
		db, err := Open(dir, testConfig(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		os.Stdout.WriteString("holding\n")
		bufio.NewReader(os.Stdin).ReadString('\n')
		return
	}
	dir := t.TempDir()
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

	release := startHolder(t, "TestOpenNamesAnotherProcessHoldingTheRepository", holderEnv, dir)

	_, err = Open(dir, testConfig(), Options{})
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "another process") {
		t.Fatalf("open while another process holds it: %v, want ErrInUse naming %s", err, dir)
	}

	release()
	db, err = Open(dir, testConfig(), Options{})
	if err != nil {
		t.Fatalf("open after the holder ended: %v", err)
	}
	defer db.Close()
	if _, err := db.Page("http://a.test/"); err != nil {
		t.Fatalf("the page stored before: %v", err)
	}
}

// lockHolderEnv, set in the environment of the test binary, makes
// TestInspectNamesAProcessMakingTheRepository the process that holds the
// lock of the directory it names, as Pebble does from before it writes a
// new database's MANIFEST, until its stdin closes.
const lockHolderEnv = "DELTAQ_REPO_LOCK_HOLDER"

// TestInspectNamesAProcessMakingTheRepository: a repository directory
// with Pebble's LOCK and no MANIFEST yet, locked by another process, is a
// repository being made (a second crawl started beside the first), not a
// copy cut short: Inspect says it is in use, where it said DirPartial and
// the commands told the user to remove the directory.
func TestInspectNamesAProcessMakingTheRepository(t *testing.T) {
	if dir := os.Getenv(lockHolderEnv); dir != "" {
		l, err := vfs.Default.Lock(filepath.Join(dir, "LOCK"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		os.Stdout.WriteString("holding\n")
		bufio.NewReader(os.Stdin).ReadString('\n')
		return
	}
	dir := t.TempDir()
	release := startHolder(t, "TestInspectNamesAProcessMakingTheRepository", lockHolderEnv, dir)
	st, err := Inspect(dir)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Inspect of a directory being made by another process: %v, %v; want ErrInUse naming %s", st, err, dir)
	}
	release()
	// Once the holder is gone, what it left is a directory cut short.
	if st, err := Inspect(dir); err != nil || st != DirPartial {
		t.Fatalf("Inspect after the holder ended: %v, %v; want DirPartial", st, err)
	}
}

// startHolder runs test again in a child process, with env set to dir,
// and returns once the child says it is holding dir. release ends the
// child (it holds until its stdin closes) and waits for it; it runs at
// the end of the test too, if the test did not call it.
func startHolder(t *testing.T, test, env, dir string) (release func()) {
	t.Helper()
	holder := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	holder.Env = append(os.Environ(), env+"="+dir)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if released {
			return
		}
		released = true
		stdin.Close()
		if err := holder.Wait(); err != nil {
			t.Errorf("holder: %v", err)
		}
	}
	t.Cleanup(release)
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "holding\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}
	return release
}
