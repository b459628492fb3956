package synceval

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// forecastPage is one page of fig. 4.3: δQ_A(p) estimated over the first
// half of the re-downloads and over the second (§4.7.2), under the
// scenario in which every page is re-fetched every week.
type forecastPage struct {
	URL           string
	First, Second float64 // δQ_A, ΔQ_A per week
}

// forecast reads δQ_A per page over weeks 1..W/2−1 and W/2..W−1 (for
// the 48-week archives: 1–23 and 24–47, the thesis's 1–24 and 25–48
// counted from 0) from a run's fetch logs and ΔQ_A measurements, with
// frontier.EstimateOf, the estimate the deltaq policy uses (averaged over
// every re-download of the half). Pages not re-downloaded in both halves
// are left out.
func (h *harness) forecast(pages map[string]pageHistory) []forecastPage {
	half := h.c.weeks() / 2
	lastFirst, firstSecond := h.c.dates[half-1], h.c.dates[half]
	before := func(t time.Time) bool { return !t.After(lastFirst) }
	var out []forecastPage
	for url, ph := range pages {
		// The second half's first interval starts at the last fetch of
		// the first half.
		log1 := slices.DeleteFunc(slices.Clone(ph.log), func(r repo.FetchRecord) bool { return !before(r.At) })
		log2 := slices.DeleteFunc(slices.Clone(ph.log), func(r repo.FetchRecord) bool { return r.At.Before(lastFirst) })
		ms1 := slices.DeleteFunc(slices.Clone(ph.ms), func(m repo.DeltaQ) bool { return !before(m.At) })
		ms2 := slices.DeleteFunc(slices.Clone(ph.ms), func(m repo.DeltaQ) bool { return m.At.Before(firstSecond) })
		e1, ok1 := frontier.EstimateOf(log1, ms1, math.MaxInt, week)
		e2, ok2 := frontier.EstimateOf(log2, ms2, math.MaxInt, week)
		if ok1 && ok2 {
			out = append(out, forecastPage{URL: url, First: e1.Rate, Second: e2.Rate})
		}
	}
	// In URL order, so that the summary's sums do not depend on the
	// map's.
	slices.SortFunc(out, func(a, b forecastPage) int { return strings.Compare(a.URL, b.URL) })
	return out
}
