package index

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// TestScrubFindsDamageNoSearchRead: Scrub finds a sound index sound, and
// segment files overwritten under the open index damaged, with no search
// failing first.
func TestScrubFindsDamageNoSearchRead(t *testing.T) {
	ix, ixDir := reopenedSmallIndex(t)
	if err := ix.Scrub(); err != nil || ix.Damaged() != nil {
		t.Fatalf("Scrub of a sound index = %v, Damaged = %v; want neither", err, ix.Damaged())
	}
	segdamage.Overwrite(t, ixDir)
	err := ix.Scrub()
	if !errors.Is(err, ErrDamaged) || ix.Damaged() != err {
		t.Fatalf("Scrub after the damage = %v, Damaged = %v; want ErrDamaged, both", err, ix.Damaged())
	}
}

// TestRunScrubsEveryScrubEvery: a serving index whose segment files are
// overwritten after it built the text field of its snapshot, so that no
// search or refresh reads them again, is found damaged by Run once
// index.scrub_every has passed on its clock, and not before.
func TestRunScrubsEveryScrubEvery(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ixDir := tempDir(t, "ix")
	var now atomic.Int64
	now.Store(t0.UnixNano())
	cfg := testConfig(ScoringBM25)
	cfg.ScrubEvery = time.Hour
	ix := openIndex(t, ixDir, cfg, db, Options{Clock: func() time.Time { return time.Unix(0, now.Load()) }})
	notify, warmed, stop := serveSmallCorpus(t, ix, db)
	defer stop()
	segdamage.Overwrite(t, ixDir)
	pass := func() { // one more pass of Run, and the scrub check after it
		notify <- struct{}{}
		<-warmed
		notify <- struct{}{}
		<-warmed
	}
	pass()
	if d := ix.Damaged(); d != nil {
		t.Fatalf("within index.scrub_every of the start: Damaged = %v, want none yet", d)
	}
	now.Add(int64(time.Hour))
	pass()
	if d := ix.Damaged(); !errors.Is(d, ErrDamaged) {
		t.Fatalf("index.scrub_every after the start: Damaged = %v, want ErrDamaged", d)
	}
}
