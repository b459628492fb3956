package index

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/segdamage"
)

// TestCheckFailureMarksADamagedIndex: a search failure is checked against
// the segments' CRC-32s: while they are sound it is not damage (nor is a
// refused query or a search given up); once a segment file is
// overwritten under the open index, it is, for good, named with the
// directory and the rebuild.
func TestCheckFailureMarksADamagedIndex(t *testing.T) {
	ix, ixDir := reopenedSmallIndex(t)

	failed := errors.New("a search failed")
	for _, err := range []error{nil, &QueryError{Msg: "unclosed quote"}, context.DeadlineExceeded, ErrClosed, failed} {
		if d := ix.CheckFailure(err); d != nil {
			t.Fatalf("CheckFailure(%v) of a sound index = %v", err, d)
		}
	}
	if d := ix.Damaged(); d != nil {
		t.Fatalf("Damaged of a sound index = %v", d)
	}

	segment := segdamage.Stray(t, ixDir)
	// The check ran a moment ago and found the segments sound: within
	// recheckEvery a failure is not checked again.
	if d := ix.CheckFailure(failed); d != nil {
		t.Fatalf("CheckFailure within recheckEvery of a sound check = %v", d)
	}
	ix.health.checked = ix.health.checked.Add(-recheckEvery)
	d := ix.CheckFailure(failed)
	if !errors.Is(d, ErrDamaged) {
		t.Fatalf("CheckFailure after the damage = %v, want ErrDamaged", d)
	}
	for _, want := range []string{ixDir, filepath.Base(segment), "deltaq index rebuild"} {
		if !strings.Contains(d.Error(), want) {
			t.Errorf("%q lacks %q", d, want)
		}
	}
	if got := ix.Damaged(); got != d {
		t.Errorf("Damaged = %v, want %v", got, d)
	}
	if got := ix.CheckFailure(context.Canceled); got != d {
		t.Errorf("CheckFailure of any failure once damaged = %v, want %v", got, d)
	}
}

// TestTheRefreshMarksADamagedIndex: the index's own refresh, building the
// text of a snapshot whose segment files were overwritten after the index
// opened, marks the damage, so /healthz says so before a search fails.
func TestTheRefreshMarksADamagedIndex(t *testing.T) {
	ix, ixDir := reopenedSmallIndex(t) // nothing read into memory yet

	segdamage.Overwrite(t, ixDir)
	ix.warm(t.Context())
	if d := ix.Damaged(); !errors.Is(d, ErrDamaged) {
		t.Fatalf("after the refresh read the damaged segments: Damaged = %v, want ErrDamaged", d)
	}
}

// reopenedSmallIndex is smallCorpus indexed, closed and opened again (Open
// checked its segments), and the index's directory.
func reopenedSmallIndex(t *testing.T) (*Index, string) {
	t.Helper()
	dir := t.TempDir()
	db := openRepo(t, filepath.Join(dir, "repo"))
	ixDir := filepath.Join(dir, "ix")
	ix := openIndex(t, ixDir, testConfig(ScoringBM25), db, Options{})
	putPages(t, db, t0, smallCorpus...)
	catchUp(t, ix)
	ix.Close()
	return openIndex(t, ixDir, testConfig(ScoringBM25), db, Options{}), ixDir
}
