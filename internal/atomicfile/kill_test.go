package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/killtest"
)

// killChildEnv names the file the child of TestAKilledWritersTemporaryIsRemovedByTheNext
// writes, and makes the test play the child.
const killChildEnv = "ATOMICFILE_KILL_CHILD"

// TestAKilledWritersTemporaryIsRemovedByTheNext kills (SIGKILL) a process
// in the middle of a Write: its temporary file stays, as no process can
// clean up after kill -9. The next Write to the same path removes it, and
// keeps the temporary of a process that still runs and of another path.
// Killed writers' temporaries used to pile up beside the file for good.
func TestAKilledWritersTemporaryIsRemovedByTheNext(t *testing.T) {
	if p := os.Getenv(killChildEnv); p != "" {
		Write(p, func(w io.Writer) error {
			io.WriteString(w, "partial")
			fmt.Println("written 1")
			select {} // until killed
		})
		return
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "out.warc")
	if n := killtest.KillAfter(t, killtest.Child(t.Name(), killChildEnv, p), false, killtest.Prefixed("written "), 1); n != 1 {
		t.Fatalf("the child reported %d writes before it was killed, want 1", n)
	}
	stale := temporaries(t, dir)
	if len(stale) != 1 || !strings.HasPrefix(stale[0], ".out.warc.tmp-") {
		t.Fatalf("after the kill %s holds %q, want the killed writer's temporary", dir, stale)
	}
	live := ".out.warc.tmp-" + strconv.Itoa(os.Getpid()) + "-x" // a writer that still runs: this one
	other := ".other.tmp-" + strings.TrimPrefix(stale[0], ".out.warc.tmp-")
	for _, name := range []string{live, other} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	if err := WriteBytes(p, []byte("whole")); err != nil {
		t.Fatal(err)
	}
	if got := temporaries(t, dir); strings.Join(got, " ") != strings.Join([]string{other, live}, " ") {
		t.Errorf("after the next write %s holds temporaries %q, want only %q and %q", dir, got, other, live)
	}
	if b, _ := os.ReadFile(p); string(b) != "whole" {
		t.Errorf("%s holds %q, want the whole content", p, b)
	}
}

// temporaries lists the hidden files in dir, sorted.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}
