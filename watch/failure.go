package watch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/deltaq/deltaq/repo"
)

// Failure kinds: why a check found no copy of the page to compare, or
// could not compare a table on it.
const (
	FailFetch   = "fetch"    // no answer, or a body over watch.max_body_bytes
	FailStatus  = "status"   // an answer other than 200 (StatusError)
	FailNotPage = "not_page" // a copy that is not a page of text (ErrNotPage)
	FailParse   = "parse"    // a copy that could not be parsed
	FailTextCut = "text_cut" // the page text is over watch.extract.max_text_bytes (TextCutError)
)

// Failure is a run of failed checks of a sentinel's page, kept in its
// history beside its changes so that its user sees that checks have been
// failing and why. Consecutive failures of one kind with the same error
// are one entry with their count and first and last times: a page down
// for weeks is one entry, not weeks of them. A failure is no change: it
// fires no trigger and sends no notification.
type Failure struct {
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	Count int       `json:"count"`
	Kind  string    `json:"kind"`
	// Error is the last failure's error, cut at maxFailureText bytes.
	Error string `json:"error"`
}

// maxFailureText bounds a kept error: a fetch error repeats the URL, and
// a kept entry must stay small whatever a page's answer said.
const maxFailureText = 1024

// StatusError is an answer other than 200: no copy of the page.
type StatusError struct {
	URL    string
	Status int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("watch: fetch %s: status %d", e.URL, e.Status)
}

// failureKind names err's kind; fallback when err says nothing more.
func failureKind(err error, fallback string) string {
	var cut *TextCutError
	var st *StatusError
	switch {
	case errors.As(err, &cut):
		return FailTextCut
	case errors.Is(err, ErrNotPage):
		return FailNotPage
	case errors.As(err, &st):
		return FailStatus
	}
	return fallback
}

// failureText is err's message cut at maxFailureText bytes, on a rune.
func failureText(err error) string {
	s := err.Error()
	if len(s) <= maxFailureText {
		return s
	}
	cut := maxFailureText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut-- // not inside a rune
	}
	return s[:cut] + "…"
}

// failureLog is a sentinel's failure runs, oldest first, at most
// watch.history_kept of them. It is kept apart from the changes (h/) and
// bounded on its own, so that failures never push a change out of the
// history.
type failureLog struct {
	Runs []Failure
}

// add records a failure at now: it extends the last run when that run
// is of the same kind and error (a cut text's size may differ) and
// nothing came between — no change of the sentinel since (lastChange) and
// no successful check of its page (lastOK, zero when it does not count).
func (l *failureLog) add(f Failure, lastChange, lastOK time.Time, kept int) {
	if n := len(l.Runs); n > 0 {
		last := &l.Runs[n-1]
		if last.Kind == f.Kind && (last.Error == f.Error || f.Kind == FailTextCut) &&
			!lastChange.After(last.Last) && !lastOK.After(last.Last) {
			last.Count++
			last.Last, last.Error = f.Last, f.Error
			return
		}
	}
	l.Runs = append(l.Runs, f)
	if over := len(l.Runs) - kept; over > 0 {
		l.Runs = append(l.Runs[:0], l.Runs[over:]...)
	}
}

// failed records a check of group key that failed with err before its
// copy was read (no answer, an error status, not a page), for every active
// member, and returns err. A cancelled check is not the page's failure
// and is not recorded; a repository error recording it is returned with
// err.
func (e *Engine) failed(ctx context.Context, key string, err error) error {
	if ctx.Err() != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failedLocked(ctx, key, failureKind(err, FailFetch), err)
}

// FetchFailed records that a fetch of group key's page made elsewhere
// (the crawler's, under deltaq run) brought no copy to check, err saying
// why, as a failed check of each of the group's sentinels, as a failed
// fetch of the engine's own is. It returns err, joined with any error
// recording it.
func (e *Engine) FetchFailed(ctx context.Context, key string, err error) error {
	return e.failed(ctx, key, err)
}

// failedLocked is failed with e.mu held and the kind named.
func (e *Engine) failedLocked(ctx context.Context, key, kind string, err error) error {
	r := &reader{db: e.db}
	lastOK, rerr := e.groupChecked(r, key)
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	b := e.db.NewBatch(ctx)
	defer b.Close()
	now := e.now()
	n, rerr := e.putFailures(ctx, b, r, key, nil, Failure{First: now, Last: now, Count: 1, Kind: kind, Error: failureText(err)}, lastOK)
	if rerr == nil && n > 0 {
		rerr = b.Commit()
	}
	if rerr != nil {
		return errors.Join(err, fmt.Errorf("watch: record the failed check of %s: %w", key, rerr))
	}
	return err
}

// putFailures writes f into the failure log of each active member of
// group key, or only of the tables in only (nil: all), into b; it returns
// how many it wrote. lastOK is when the page was last checked
// successfully (failureLog.add).
func (e *Engine) putFailures(ctx context.Context, b *repo.Batch, r *reader, key string, only map[string]bool, f Failure, lastOK time.Time) (int, error) {
	prefix := memberPrefix + key + "\x00"
	n := 0
	for kv, err := range r.db.BucketScan(ctx, bucket, prefix) {
		if err != nil {
			return n, err
		}
		tid, _, _ := strings.Cut(string(kv[0][len(prefix):]), "\x00")
		if only != nil && !only[tid] {
			continue
		}
		var m member
		if err := decodeValue(string(kv[0]), kv[1], &m); err != nil {
			return n, err
		}
		var s Sentinel
		ok, err := r.get(sentinelPrefix+m.ID, &s)
		if err != nil {
			return n, err
		}
		if !ok || !s.active(f.Last) {
			continue
		}
		var log failureLog
		if _, err := r.get(failurePrefix+m.ID, &log); err != nil {
			return n, err
		}
		log.add(f, s.LastChange, lastOK, e.cfg.HistoryKept)
		if err := e.putRecord(b, failurePrefix+m.ID, &log); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Failures returns a sentinel's kept failure runs, oldest first.
func (e *Engine) Failures(ctx context.Context, id string) ([]Failure, error) {
	if _, err := e.sentinel(id); err != nil {
		return nil, err
	}
	var log failureLog
	if _, err := (&reader{db: e.db}).get(failurePrefix+id, &log); err != nil {
		return nil, err
	}
	return log.Runs, nil
}
