package synceval

import (
	"context"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// pageHistory is what the policies estimate a page's parameters from: its
// fetch log (change rate λ for SBR and LambdaCrawl, d(p) for EBR) and its
// ΔQ_A measurements (δQ_A for deltaq).
type pageHistory struct {
	log []repo.FetchRecord
	ms  []repo.DeltaQ
}

// history reads every archive page's fetch log and ΔQ_A measurements from
// the run that re-downloaded every page every week.
func (h *harness) history(ctx context.Context, e *env) (map[string]pageHistory, error) {
	out := map[string]pageHistory{}
	for p, err := range e.db.Pages(ctx) {
		if err != nil {
			return nil, err
		}
		if _, ok := h.c.byURL[p.URL]; !ok {
			continue
		}
		log, err := e.db.FetchLog(ctx, p.URL)
		if err != nil {
			return nil, err
		}
		ms, err := e.db.DeltaQs(ctx, p.URL)
		if err != nil {
			return nil, err
		}
		out[p.URL] = pageHistory{log: log, ms: ms}
	}
	return out, nil
}

// wholeHistory makes a policy estimate its per-page parameters from the
// whole archive, as thesis §4.7.2 does for every policy ("for all three
// policies we used the entire 48-week data set to estimate the necessary
// parameter for each page"): its Pages answer FetchLog and DeltaQs from
// the run that re-downloaded every page every week, while the candidates
// and their last fetch times, which the schedule depends on, stay the
// run's own.
type wholeHistory struct {
	frontier.Policy
	pages map[string]pageHistory
}

// Select implements frontier.Policy.
func (w wholeHistory) Select(ctx context.Context, plan frontier.Plan, pages frontier.Pages) ([]string, error) {
	return w.Policy.Select(ctx, plan, historyPages{Pages: pages, h: w.pages})
}

type historyPages struct {
	frontier.Pages
	h map[string]pageHistory
}

func (p historyPages) FetchLog(ctx context.Context, url string) ([]repo.FetchRecord, error) {
	if ph, ok := p.h[url]; ok {
		return ph.log, nil
	}
	return p.Pages.FetchLog(ctx, url)
}

func (p historyPages) DeltaQs(ctx context.Context, url string) ([]repo.DeltaQ, error) {
	if ph, ok := p.h[url]; ok {
		return ph.ms, nil
	}
	return p.Pages.DeltaQs(ctx, url)
}
