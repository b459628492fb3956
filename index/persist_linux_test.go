package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/internal/killtest"
	"github.com/deltaq/deltaq/repo"
)

// noRoomEnv names the index directory the child of
// TestBatchThatCannotReachTheDiskFails indexes into.
const noRoomEnv = "DELTAQ_TEST_INDEX_NO_ROOM_DIR"

// TestBatchThatCannotReachTheDiskFails: when Bleve cannot write a batch
// (here files may not grow past 64 KiB, RLIMIT_FSIZE, as on a full disk),
// indexing returns Bleve's error within seconds, where it waited for
// ever for a write Bleve retries without end.
func TestBatchThatCannotReachTheDiskFails(t *testing.T) {
	if dir := os.Getenv(noRoomEnv); dir != "" {
		db, err := repo.Open("", repoConfig(), repo.Options{FS: vfs.NewMem()})
		if err != nil {
			t.Fatal(err)
		}
		ix := openIndex(t, dir, testConfig(ScoringBM25), db, Options{})
		text := strings.Repeat("federal budget appropriations committee report ", 200)
		var pages []page
		for i := range 100 {
			pages = append(pages, page{URL: fmt.Sprintf("http://a.test/%d", i), Title: "Budget", Text: text + fmt.Sprint(i)})
		}
		putPages(t, db, t0, pages...)
		signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails with EFBIG instead
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		_, err = ix.CatchUp(ctx)
		fmt.Printf("catch-up: %v\n", err)
		return // the index closes (t.Cleanup), with nothing more written
	}

	child := killtest.Child(t.Name(), noRoomEnv, filepath.Join(t.TempDir(), "ix"))
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	if err := child.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	got := out.String()
	if !strings.Contains(got, "catch-up: ") || !strings.Contains(got, "cannot write the index to disk") || !strings.Contains(got, "file too large") {
		t.Fatalf("child's output:\n%s\nwant the catch-up to fail on Bleve's error (file too large)", got)
	}
}
