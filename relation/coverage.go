package relation

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/deltaq/deltaq/internal/postings"
)

// Method is how a probe's result pages are read (§5.1).
type Method int

const (
	// AllPages is Method 1: scan every result page, up to the interface's
	// result cap, so N(q) = ⌈min(|R_S(q)|, K)/p⌉ requests.
	AllPages Method = 1
	// FirstPage is Method 2: read the first page only, N(q) = 1, with
	// expected coverage p·|R_L(q)|/|R_S(q)|.
	FirstPage Method = 2
)

func (m Method) String() string {
	switch m {
	case AllPages:
		return "method 1 (all pages)"
	case FirstPage:
		return "method 2 (first page)"
	}
	return fmt.Sprintf("method %d", int(m))
}

// ParseMethod reads "1", "2", "all" or "first".
func ParseMethod(s string) (Method, error) {
	switch strings.ToLower(s) {
	case "1", "all", "all-pages":
		return AllPages, nil
	case "2", "first", "first-page":
		return FirstPage, nil
	}
	return 0, fmt.Errorf("relation: method %q: must be 1 (all pages) or 2 (first page)", s)
}

// Interface is what a keyword-search interface returns per query: at most
// MaxResults (K) results, PageSize (p) per page.
type Interface struct {
	PageSize   int // p
	MaxResults int // K
}

// Validate names the field, the value and the limit.
func (f Interface) Validate() error {
	if f.PageSize < 1 {
		return fmt.Errorf("relation: page size = %d: must be >= 1", f.PageSize)
	}
	if f.MaxResults < f.PageSize {
		return fmt.Errorf("relation: max results = %d: must be >= the page size %d", f.MaxResults, f.PageSize)
	}
	return nil
}

// retrievable is how many of a query's server hits a method can read.
func (f Interface) retrievable(m Method, server float64) float64 {
	reach := float64(f.MaxResults)
	if m == FirstPage {
		reach = float64(f.PageSize)
	}
	return math.Min(server, reach)
}

// Requests is N(q) of §5.1 for a query with server coverage |R_S(q)|:
// 1 under Method 2; under Method 1 one request per result page, counting
// only the pages the result cap K lets through. A query with no server
// hits still costs its one request.
func (f Interface) Requests(m Method, server float64) int {
	if m == FirstPage || server <= float64(f.PageSize) {
		return 1
	}
	return int(math.Ceil(f.retrievable(m, server) / float64(f.PageSize)))
}

// ExpectedCoverage is E_coverage(q) of §5.1: the expected number of the
// query's local tuples the method reads, |R_L(q)| scaled by the fraction
// of the |R_S(q)| hits it reaches (p/|R_S(q)| for Method 2 as the paper
// writes it; K/|R_S(q)| when Method 1 hits the result cap).
func (f Interface) ExpectedCoverage(m Method, local int, server float64) float64 {
	return float64(local) * f.reachFraction(m, server, local)
}

func (f Interface) reachFraction(m Method, server float64, local int) float64 {
	server = math.Max(server, float64(local)) // the server holds at least the local matches
	if server <= 0 {
		return 1
	}
	return math.Min(1, f.retrievable(m, server)/server)
}

// ServerCoverage estimates |R_S(q)|, the number of server tuples a keyword
// query matches (§4.1, "Estimating Server Coverage").
type ServerCoverage interface {
	// Hits returns the estimate for the conjunction of keywords; ok is
	// false when it has none (the probe is then not considered).
	Hits(keywords []string) (hits float64, ok bool)
}

// ReportedHits is a ServerCoverage read from the hit counts the search
// interface itself reports ("about N results"), collected by probing; the
// paper's first option, which costs one request per query counted.
type ReportedHits map[string]float64

// Hits implements ServerCoverage.
func (r ReportedHits) Hits(keywords []string) (float64, bool) {
	h, ok := r[QueryKey(keywords)]
	return h, ok
}

// QueryKey is the canonical form of a keyword conjunction: sorted, joined
// by a space.
func QueryKey(keywords []string) string {
	k := slices.Clone(keywords)
	slices.Sort(k)
	return strings.Join(k, " ")
}

// ScaledSample is the paper's "similar downloadable source" estimate:
// |R_S(q)| ≈ c·|R_sample(q)|, where the sample is a collection whose
// documents are keyword sets (DBLP for Google Scholar in §4.1; an older
// snapshot of the same site in deltaq's evaluation) and c the ratio of the
// two collections' sizes, calibrated from a few reported hit counts.
type ScaledSample struct {
	postings postings.Index
	scale    float64 // c
}

// NewScaledSample indexes docs (each a set of keywords) and scales counts
// by c.
func NewScaledSample(docs [][]string, c float64) *ScaledSample {
	s := &ScaledSample{postings: postings.Index{}, scale: c}
	for i, d := range docs {
		s.postings.Add(int32(i), d)
	}
	return s
}

// NewScaledSampleFrom shares s's index under a new scale c.
func NewScaledSampleFrom(s *ScaledSample, c float64) *ScaledSample {
	return &ScaledSample{postings: s.postings, scale: c}
}

// Scale returns c.
func (s *ScaledSample) Scale() float64 { return s.scale }

// Count returns |R_sample(q)|, the sample documents holding every keyword.
func (s *ScaledSample) Count(keywords []string) int { return len(s.postings.All(keywords)) }

// Hits implements ServerCoverage: c·|R_sample(q)|. A query absent from the
// sample has no estimate.
func (s *ScaledSample) Hits(keywords []string) (float64, bool) {
	n := s.Count(keywords)
	if n == 0 {
		return 0, false
	}
	return s.scale * float64(n), true
}

// CalibrateScale estimates c from queries whose real hit count is known:
// the ratio of the totals, Σ reported / Σ sample (§4.1: "c can be
// estimated by comparing the results number of several queries").
func (s *ScaledSample) CalibrateScale(reported ReportedHits) (float64, error) {
	var num, den float64
	for key, hits := range reported {
		n := s.Count(strings.Fields(key))
		if n == 0 {
			continue
		}
		num += hits
		den += float64(n)
	}
	if den == 0 {
		return 0, fmt.Errorf("relation: calibrate c: none of the %d reported queries occurs in the sample", len(reported))
	}
	return num / den, nil
}
