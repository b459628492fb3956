package index

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// DamageError is the error of an index whose segments were found damaged
// while it served: Open checks every segment's CRC-32 (verify.go), but a
// segment file overwritten afterwards is read through its memory mapping
// as it now is, and the searches that read it fail. It names the index
// directory and the way out, and is ErrDamaged.
type DamageError struct {
	Dir string
	Err error // what the check found: the segment and its checksums
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("index %s is damaged (%v): searches that read it fail; the index is derived from the repository: stop the server and rebuild it with deltaq index rebuild", e.Dir, e.Err)
}

// Unwrap makes a DamageError ErrDamaged, and what the check found.
func (e *DamageError) Unwrap() []error { return []error{ErrDamaged, e.Err} }

// recheckEvery bounds how often CheckFailure reads the segments: once a
// check found them sound, failures within this time are not checked
// again, so a failing search that is not damage (a bug, say) cannot make
// every request read the whole index.
const recheckEvery = 30 * time.Second

// health is what an Index knows of damage found while it serves.
type health struct {
	// damaged is set once a check found the segments damaged; the
	// handle is the Bleve index it found so, for a Rebuild swaps it.
	damaged atomic.Pointer[damage]
	// check serializes the checks; checked is when the last one ran.
	check   sync.Mutex
	checked time.Time
}

type damage struct {
	bi  bleve.Index
	err *DamageError
}

// Damaged returns the DamageError a search's failure led to (CheckFailure),
// nil while none did. It reads an atomic: cheap enough for every health
// probe.
func (ix *Index) Damaged() error {
	d := ix.health.damaged.Load()
	if d == nil {
		return nil
	}
	ix.mu.RLock()
	same := ix.mu.bi == d.bi
	ix.mu.RUnlock()
	if !same { // rebuilt since
		return nil
	}
	return d.err
}

// CheckFailure is told of a search of ix that failed with err, and
// returns the DamageError if the failure is the index's damage, nil if
// it is not (or cannot be told yet). A query refused, a search given up
// (its context ended) and a closed index are not damage. Any other
// failure may be a segment that no longer reads as it was written: the
// segments of the current snapshot are checked against their CRC-32s
// (what Open checks), at most once per recheckEvery and one check at a
// time, and a mismatch marks the index damaged for good (Damaged), so
// later failures answer at once. The check reads the whole index, but
// only after a failure and rarely: a healthy index is never read for it.
func (ix *Index) CheckFailure(err error) error {
	if err == nil {
		return nil
	}
	if d := ix.Damaged(); d != nil {
		return d
	}
	var qe *QueryError
	if errors.As(err, &qe) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrClosed) {
		return nil
	}
	return ix.verify(err, false)
}

// MinScrubEvery is the shortest index.scrub_every: a scrub reads the
// whole index.
const MinScrubEvery = time.Minute

// Scrub checks the segments of the current snapshot against their
// CRC-32s now, as CheckFailure does after a failed search, and returns
// the DamageError if one does not match, marking the index damaged; nil
// if all match. Run scrubs every index.scrub_every: the snapshot held in
// memory answers most searches without reading every segment, so damage
// can otherwise go unseen until a search happens to read it.
func (ix *Index) Scrub() error { return ix.verify(nil, true) }

// verify is CheckFailure's and Scrub's check, one at a time; a check
// after a failed search (searchErr) is skipped within recheckEvery of the
// last, a scrub (always) never.
func (ix *Index) verify(searchErr error, always bool) error {
	h := &ix.health
	h.check.Lock()
	defer h.check.Unlock()
	if d := ix.Damaged(); d != nil { // found by the check waited for
		return d
	}
	if !always && !h.checked.IsZero() && time.Since(h.checked) < recheckEvery {
		return nil
	}
	h.checked = time.Now()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	bi := ix.mu.bi
	if bi == nil {
		return nil
	}
	verr := verifySegments(bi)
	if verr == nil {
		return nil
	}
	d := &damage{bi: bi, err: &DamageError{Dir: ix.dir, Err: verr}}
	ix.health.damaged.Store(d)
	if searchErr != nil {
		ix.logger.Error("index damaged: a search failed and a segment's checksum does not match", "dir", ix.dir, "search_err", searchErr, "err", verr)
	} else {
		ix.logger.Error("index damaged: a scrub found a segment's checksum does not match", "dir", ix.dir, "err", verr)
	}
	return d.err
}
