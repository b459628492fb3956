package sentineleval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/eval/archive"
	tracker "github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/watch"
)

// counts is a confusion matrix of detections against the truth.
type counts struct{ TP, FP, FN, TN int }

func (c *counts) add(detected, truth bool) {
	switch {
	case detected && truth:
		c.TP++
	case detected:
		c.FP++
	case truth:
		c.FN++
	default:
		c.TN++
	}
}

// ratio is a/b, or "n/a" when b is 0 (no change to find, or none claimed).
func ratio(a, b int) any {
	if b == 0 {
		return "n/a"
	}
	return float64(a) / float64(b)
}

// accuracyRow is one archive and sentinel type over every transition.
type accuracyRow struct {
	Archive   string
	Type      watch.Type
	Sentinels int
	counts
	// MustFail counts the phrase transitions where the box changed next
	// to the object (WebCQ Fig. 5 cases 8–10): the paper says the box must
	// fail there, and the sentinel is not scored after it.
	MustFail         int
	MustFailReported int // of them, transitions where the sentinel reported a change ("lost")
	Gone             int // sentinels whose page disappeared
}

// tracked is one sentinel of the accuracy run and its truth.
type tracked struct {
	id      string
	spec    watch.Spec
	page    *pageInfo
	changes int
	gone    bool
	// Phrases: the object's span in the current copy's words, tracked by
	// aligning each copy with the next (the oracle, independent of the box).
	start, end int
	failed     bool
}

// runAccuracy installs one sentinel of each type on cfg.AccuracyPages
// pages of week 0, then replays every week, checking every group once per
// week, and scores each sentinel's detections against the truth of the
// transition: for any change, the archive's body hash; for phrases, the
// word alignment of the two copies; for the other types, the object
// extracted from each week's copy in the archive directly. prog counts
// the pages installed and the weeks replayed.
func runAccuracy(ctx context.Context, s *served, cfg Config, queries [][]string, tmp string, prog *tracker.Tracker) (out []accuracyRow, err error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	week0 := s.a.Week(0)
	rng.Shuffle(len(week0), func(i, j int) { week0[i], week0[j] = week0[j], week0[i] })
	if err := s.rs.SetWeek(0); err != nil {
		return nil, err
	}
	db, done, err := tempRepo(tmp)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := done(); err == nil {
			err = cerr
		}
	}()
	r := &accuracyRun{s: s, wcfg: watchConfig(), prog: prog}
	r.e, err = watch.New(db, r.wcfg, nil, watch.Options{Fetcher: s.fetcher()})
	if err != nil {
		return nil, err
	}
	defer r.e.Close()
	if err := r.install(ctx, week0[:min(cfg.AccuracyPages, len(week0))], queries, rng); err != nil {
		return nil, err
	}
	r.newRows()
	if err := r.replay(ctx); err != nil {
		return nil, err
	}
	for _, t := range watch.Types {
		out = append(out, *r.rows[t])
	}
	return out, nil
}

// accuracyRun is the state runAccuracy's steps share: the served archive,
// the engine holding the sentinels, the sentinels tracked and their rows.
type accuracyRun struct {
	s    *served
	e    *watch.Engine
	wcfg watch.Config
	prog *tracker.Tracker
	ts   []*tracked
	rows map[watch.Type]*accuracyRow
}

// install puts one sentinel of each type on each of the pages, its object
// picked by specFor, and tracks it; a type whose object the page lacks is
// skipped.
func (r *accuracyRun) install(ctx context.Context, pages []archive.Page, queries [][]string, rng *rand.Rand) error {
	r.prog.Stage(fmt.Sprintf("sentinels: accuracy %s, install", r.s.a.Name()), len(pages), 1, "page")
	for _, pg := range pages {
		p, err := newPageInfo(r.s.host, pg.URL, pg.Body, extractLimits)
		if err != nil {
			return err
		}
		for _, t := range watch.Types {
			spec, ok := specFor(t, p, queries, rng)
			if !ok {
				continue
			}
			sn, err := r.e.Install(ctx, spec)
			if err != nil {
				if ctx.Err() != nil {
					return interrupted(ctx, err)
				}
				continue // an object the generator picked but the page lacks
			}
			tr := &tracked{id: sn.ID, spec: spec, page: p}
			if t == watch.Phrase {
				tr.start = index(p.words, strings.Fields(spec.Object))
				tr.end = tr.start + len(strings.Fields(spec.Object))
			}
			r.ts = append(r.ts, tr)
		}
		r.prog.Step()
		r.prog.RunDone()
	}
	return nil
}

// newRows starts a row for every type, counting the sentinels installed.
func (r *accuracyRun) newRows() {
	r.rows = map[watch.Type]*accuracyRow{}
	for _, t := range watch.Types {
		r.rows[t] = &accuracyRow{Archive: r.s.a.Name(), Type: t}
	}
	for _, tr := range r.ts {
		r.rows[tr.spec.Type].Sentinels++
	}
}

// replay serves every week after week 0 in turn, checks the groups on it
// and scores the sentinels on the transition into it.
func (r *accuracyRun) replay(ctx context.Context) error {
	gs, err := r.e.Groups(ctx)
	if err != nil {
		return err
	}
	a := r.s.a
	r.prog.Stage(fmt.Sprintf("sentinels: accuracy %s", a.Name()), a.Weeks()-1, 1, "week")
	for w := 1; w < a.Weeks(); w++ {
		if err := r.s.rs.SetWeek(w); err != nil {
			return err
		}
		if err := r.check(ctx, gs, w); err != nil {
			return err
		}
		if err := r.score(ctx, w); err != nil {
			return err
		}
		r.prog.Step()
		r.prog.RunDone()
	}
	return nil
}

// check checks every group once on week w, skipping those whose page is
// gone that week.
func (r *accuracyRun) check(ctx context.Context, gs []watch.Group, w int) error {
	for _, g := range gs {
		if _, ok := r.s.a.Lookup(strings.TrimPrefix(g.URL, r.s.host), w); !ok {
			continue // the page is gone this week
		}
		if _, err := r.e.Check(ctx, g.Key); err != nil {
			return interrupted(ctx, fmt.Errorf("sentinels: week %d: %w", w, err))
		}
	}
	return nil
}

// score scores the sentinels still followed on the transition from week
// w−1 to w. A sentinel whose page is gone counts in Gone, and a phrase
// the box must fail counts in MustFail; neither is scored after that.
func (r *accuracyRun) score(ctx context.Context, w int) error {
	a := r.s.a
	for _, tr := range r.ts {
		if tr.gone || tr.failed {
			continue
		}
		prev, ok1 := a.Lookup(tr.page.path, w-1)
		cur, ok2 := a.Lookup(tr.page.path, w)
		if !ok1 || !ok2 {
			tr.gone = true
			r.rows[tr.spec.Type].Gone++
			continue
		}
		sn, err := r.e.Get(ctx, tr.id)
		if err != nil {
			return err
		}
		detected := sn.Changes > tr.changes
		tr.changes = sn.Changes
		row := r.rows[tr.spec.Type]
		truth, mustFail, err := tr.truth(r.wcfg, prev.Body, cur.Body, prev.Hash != cur.Hash)
		if err != nil {
			return err
		}
		if mustFail {
			row.MustFail++
			if detected {
				row.MustFailReported++
			}
			tr.failed = true
			continue
		}
		row.add(detected, truth)
	}
	return nil
}

// truth says whether the sentinel's object changed between two copies,
// and for phrases whether the transition is one the box must fail.
func (tr *tracked) truth(cfg watch.Config, prev, cur []byte, hashChanged bool) (changed, mustFail bool, err error) {
	switch tr.spec.Type {
	case watch.Any:
		return hashChanged, false, nil
	case watch.Phrase:
		return tr.alignPhrase(prev, cur)
	}
	a, err := watch.Extract(cfg, tr.spec, prev, "text/html; charset=utf-8")
	if err != nil {
		return false, false, err
	}
	b, err := watch.Extract(cfg, tr.spec, cur, "text/html; charset=utf-8")
	if err != nil {
		return false, false, err
	}
	return !a.Equal(&b, tr.spec.Type), false, nil
}

// alignPhrase follows the phrase's span through the word alignment of the
// two copies. The object changed if a word inside it was deleted or a
// word inserted between its first and last word. The box must fail (Fig.
// 5 cases 8–10) if the word just before or just after the object changed.
func (tr *tracked) alignPhrase(prevBody, curBody []byte) (changed, mustFail bool, err error) {
	prev, err := newPageInfo(tr.page.url[:len(tr.page.url)-len(tr.page.path)], tr.page.path, prevBody, extractLimits)
	if err != nil {
		return false, false, err
	}
	cur, err := newPageInfo(tr.page.url[:len(tr.page.url)-len(tr.page.path)], tr.page.path, curBody, extractLimits)
	if err != nil {
		return false, false, err
	}
	if tr.start < 0 || tr.end > len(prev.words) {
		return false, true, nil // the oracle lost the object: score no further
	}
	ops := diff.Tokens(prev.words, cur.words, " ", diff.Options{})
	oi, ni := 0, 0 // positions in the old and new words
	newStart, newEnd := -1, -1
	for _, op := range ops {
		switch op.Kind {
		case diff.Equal:
			for k := 0; k < op.N; k++ {
				if oi == tr.start {
					newStart = ni
				}
				if oi == tr.end-1 {
					newEnd = ni + 1
				}
				oi++
				ni++
			}
		case diff.Delete:
			lo, hi := oi, oi+op.N
			if lo < tr.end && hi > tr.start {
				changed = true
			}
			if (lo <= tr.start-1 && tr.start-1 < hi) || (lo <= tr.end && tr.end < hi) {
				mustFail = true
			}
			if lo <= tr.start && tr.start < hi && newStart < 0 {
				newStart = ni
			}
			if lo <= tr.end-1 && tr.end-1 < hi {
				newEnd = ni
			}
			oi = hi
		case diff.Insert:
			if oi >= tr.start && oi <= tr.end { // between B and E: part of the object as the box sees it
				changed = true
			}
			ni += op.N
		}
	}
	if newStart < 0 || newEnd < newStart {
		return true, true, nil // the object is gone
	}
	tr.start, tr.end = newStart, newEnd
	return changed, mustFail, nil
}

// index is the first position of seq in words, or -1.
func index(words, seq []string) int {
	for i := 0; i+len(seq) <= len(words); i++ {
		match := true
		for j := range seq {
			if words[i+j] != seq[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}
