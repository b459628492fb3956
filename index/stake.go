package index

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/deltaq/deltaq/repo"
)

// Stakes reads pages' stakes in the query workload: how much searchers see
// of each page now, readable from the index without re-downloading it.
// A page's stake is
//
//	stake(p) = Σ_{q ∈ Q′ ∩ terms(p)} f_q · I(R̂(S(p, q), H_q))
//
// the inspection weight (eq. 4.2) its estimated ranks for the single-term
// workload (§4.6.1) hold, scored from its snapshot (the workload terms'
// tf and the analyzed length of its indexed copy) under the collection
// statistics and histograms of the view. It is the impact side of the
// frontier's deltaq policy (frontier/impact.go) and μ(p) of EBR and
// LambdaCrawl: a change to a page searchers see more can move their
// results more.
//
// A view is consistent with itself: histograms, document frequencies and
// collection statistics of one moment. It costs one repository read and
// one histogram lookup per workload term of the page.
type Stakes struct {
	ix         *Index
	wl         *Workload
	hs         *histogramSet
	cs         CorpusStats
	df         []uint64 // df of each workload term, by id
	generation uint64
	watermark  uint64
}

// Stakes returns a view of the pages' stakes as the index is now. Without
// a workload or before the histograms are built it knows no stake (Of
// reports ok false).
func (ix *Index) Stakes() (*Stakes, error) {
	// The writers move df and swap the histograms under apply: holding it
	// makes the view one moment's.
	ix.apply.Lock()
	defer ix.apply.Unlock()
	s := &Stakes{ix: ix, generation: ix.generation, watermark: ix.watermark.Load()}
	wl, hs := ix.workload.Load(), ix.hists.Load()
	if wl.Len() == 0 || hs == nil || hs.workload != wl.Fingerprint() || ix.df.workload != wl.Fingerprint() {
		return s, nil
	}
	bi := ix.bleve()
	if bi == nil {
		return nil, ErrClosed
	}
	r, err := reader(bi)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if s.cs, err = ix.readerStats(r); err != nil {
		return nil, err
	}
	s.wl, s.hs = wl, hs
	s.df = make([]uint64, wl.Len())
	for id := range s.df {
		s.df[id] = ix.df.get(int32(id))
	}
	return s, nil
}

// Watermark is the index watermark the view was taken at.
func (s *Stakes) Watermark() uint64 { return s.watermark }

// Of returns the stake of url. ok is false when the view knows no stake
// for it: no workload or histograms yet, the page is not indexed, or its
// snapshot describes another generation or workload.
func (s *Stakes) Of(url string) (stake float64, ok bool, err error) {
	return s.sum(url, func(h Histogram, score float64) float64 {
		return s.ix.est.inspect(h.Rank(score))
	})
}

// Arrival returns what the page's indexed copy adds to the workload's
// quality against the index without it, in the units of ΔQ_A (§4.6.1):
//
//	Σ_{q ∈ Q′ ∩ terms(p)} f_q · TermDelta(H_q, no copy, S(p, q))
//
// the estimate the index records for a re-download (batch.go), with no
// old copy: the page's own inspected score less what the pages it passes
// lose by falling one rank. It is the value of having fetched a new page,
// comparable with the ΔQ_A of a re-fetch (frontier.Arrival). H_q already
// holds the page when the histograms were rebuilt after it was indexed,
// which places it one rank lower at most. ok is as for Of.
func (s *Stakes) Arrival(url string) (value float64, ok bool, err error) {
	return s.sum(url, func(h Histogram, score float64) float64 {
		return s.ix.est.TermDelta(h, 0, false, score, true)
	})
}

// sum adds f_q·term(H_q, S(p, q)) over the workload terms of url's
// indexed copy.
func (s *Stakes) sum(url string, term func(h Histogram, score float64) float64) (total float64, ok bool, err error) {
	if s.wl == nil {
		return 0, false, nil
	}
	raw, err := s.ix.db.Bucket(snapshotBucket, url)
	if errors.Is(err, repo.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("index: snapshot of %s: %w", url, err)
	}
	snap, err := decodeSnapshot(raw)
	if err != nil {
		return 0, false, fmt.Errorf("index: snapshot of %s: %w", url, err)
	}
	if snap.generation != s.generation || snap.workload != s.wl.Fingerprint() {
		return 0, false, nil
	}
	for _, t := range snap.terms {
		if int(t.id) >= len(s.df) {
			return 0, false, fmt.Errorf("index: snapshot of %s: %w: term id %d, workload of %d terms", url, errSnapshotCorrupt, t.id, len(s.df))
		}
		h := s.hs.get(s.wl.terms[t.id])
		if h.Len() == 0 {
			continue
		}
		score := TermScore(uint64(t.tf), snap.length, s.cs, s.df[t.id])
		total += s.wl.freq[t.id] * term(h, score)
	}
	return total, true, nil
}

// StakeFunc returns url → stake for the frontier's policies
// (frontier.Importance), from a view renewed whenever the index has
// applied a batch since. A page the view knows no stake for weighs 0, as
// a page no query finds; while the index has no workload or histograms
// every page weighs 1, as with no importance at all.
func (ix *Index) StakeFunc(logger *slog.Logger) func(url string) float64 {
	return ix.viewFunc(logger, "stake", (*Stakes).Of, 1)
}

// ArrivalFunc returns url → Stakes.Arrival for the frontier's adaptive
// split (frontier.Arrival), from a view renewed as StakeFunc's. A page
// the view knows nothing of added nothing, and so does every page while
// the index has no workload or histograms (nothing is measured then:
// neither a re-fetch's ΔQ_A).
func (ix *Index) ArrivalFunc(logger *slog.Logger) func(url string) float64 {
	return ix.viewFunc(logger, "arrival value", (*Stakes).Arrival, 0)
}

// viewFunc returns url → of(view, url) on a view renewed whenever the
// index has applied a batch since; blind is the value while the index
// has no workload or histograms, or the view cannot be taken.
func (ix *Index) viewFunc(logger *slog.Logger, what string, of func(*Stakes, string) (float64, bool, error), blind float64) func(url string) float64 {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var mu sync.Mutex
	var view *Stakes
	return func(url string) float64 {
		mu.Lock()
		if view == nil || view.watermark != ix.watermark.Load() || view.wl == nil && ix.hists.Load() != nil {
			v, err := ix.Stakes()
			if err != nil {
				mu.Unlock()
				logger.Warn("page "+what+" unavailable", "url", url, "value", blind, "err", err)
				return blind
			}
			view = v
		}
		v := view
		mu.Unlock()
		if v.wl == nil {
			return blind
		}
		x, _, err := of(v, url)
		if err != nil {
			logger.Warn("page "+what+" unreadable", "url", url, "value", 0, "err", err)
			return 0
		}
		return x
	}
}
