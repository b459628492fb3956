package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// Pages is what the page report reads from the repository.
type Pages interface {
	Page(url string) (repo.Page, error)
	FetchLog(ctx context.Context, url string) ([]repo.FetchRecord, error)
	Versions(ctx context.Context, url string, withContent bool) ([]repo.Version, error)
	OutLinks(ctx context.Context, url string) ([]repo.Link, error)
	InLinks(ctx context.Context, url string) ([]string, error)
	DeltaQs(ctx context.Context, url string) ([]repo.DeltaQ, error)
}

// PageReport is what the repository knows of one page and what the recrawl
// policy thinks of it: the JSON of /api/v1/page, the HTML explain view and
// the text of `deltaq page explain`. Enums are names, times RFC 3339,
// durations milliseconds or Go duration text.
type PageReport struct {
	URL   string `json:"url"`
	State string `json:"state"`
	// LastOutcome is how the last fetch attempt ended; empty (and left out
	// of the JSON) for a page never attempted.
	LastOutcome  string        `json:"last_outcome,omitempty"`
	HTTPStatus   int           `json:"http_status,omitempty"`
	Depth        int           `json:"depth"`
	Source       string        `json:"source,omitempty"`
	FirstSeen    time.Time     `json:"first_seen"`
	LastFetch    *time.Time    `json:"last_fetch,omitempty"`
	LastChange   *time.Time    `json:"last_change,omitempty"`
	Fetches      int           `json:"fetches"`
	Changes      int           `json:"changes"`
	Title        string        `json:"title,omitempty"`
	ContentType  string        `json:"content_type,omitempty"`
	ETag         string        `json:"etag,omitempty"`
	LastModified string        `json:"last_modified,omitempty"`
	NoIndex      bool          `json:"noindex,omitempty"`
	RedirectTo   string        `json:"redirect_to,omitempty"`
	History      []fetchJSON   `json:"fetch_history"`
	Versions     []versionJSON `json:"versions"`
	LinksOut     []linkJSON    `json:"links_out"`
	LinksIn      []string      `json:"links_in"`
	DeltaQ       []deltaQJSON  `json:"deltaq_measurements"`
	Recrawl      *recrawlJSON  `json:"recrawl,omitempty"`
}

type fetchJSON struct {
	At         time.Time `json:"at"`
	Reason     string    `json:"reason"`
	Outcome    string    `json:"outcome"`
	HTTPStatus int       `json:"http_status,omitempty"`
	Bytes      int       `json:"bytes"`
	TookMS     float64   `json:"took_ms"`
	Changed    bool      `json:"changed"`
	Difference *float64  `json:"shingle_difference,omitempty"`
}

type versionJSON struct {
	FetchedAt   time.Time `json:"fetched_at"`
	ContentType string    `json:"content_type"`
	Title       string    `json:"title"`
}

type linkJSON struct {
	URL  string `json:"url"`
	Kind string `json:"kind"`
}

type deltaQJSON struct {
	At        time.Time `json:"at"`
	LastFetch time.Time `json:"last_fetch"`
	Value     float64   `json:"value"`
	Terms     int       `json:"terms"`
}

var linkKinds = map[repo.LinkKind]string{
	repo.LinkAnchor: "anchor", repo.LinkCanonical: "canonical", repo.LinkFeed: "feed",
	repo.LinkRefresh: "refresh", repo.LinkRedirect: "redirect", repo.LinkSitemap: "sitemap",
}

// ExplainFunc explains a page's recrawl priority (frontier.ExplainPage).
type ExplainFunc func(ctx context.Context, url string) (frontier.Explanation, error)

// recrawlJSON is the recrawl section of a PageReport (thesis §4.7.1).
type recrawlJSON struct {
	Policy string `json:"policy"`
	// PolicySource is "repository" (recorded by the last crawl) or
	// "configuration" (no crawl recorded one).
	PolicySource string     `json:"policy_source"`
	Period       string     `json:"period"` // the budget period δQ_A is a rate per
	Window       int        `json:"window"`
	Measured     bool       `json:"measured"`
	DeltaQRate   float64    `json:"delta_q_rate"` // δQ_A per period
	Samples      int        `json:"re_downloads_averaged"`
	LastFetch    *time.Time `json:"last_fetch,omitempty"`
	Priority     *float64   `json:"priority,omitempty"` // δQ_A·(t − LR), when measured
	// Posterior is what the deltaq policy ranks the page by, under deltaq.
	Posterior *posteriorJSON `json:"posterior,omitempty"`
	Why       string         `json:"why"`
}

// posteriorJSON is frontier.Posterior.
type posteriorJSON struct {
	ChangeRate   float64 `json:"change_rate"` // E[λ], changes per period
	OpenPeriods  float64 `json:"open_periods"`
	KnownChange  bool    `json:"known_change"`
	Changes      float64 `json:"changes"` // E[N] (accumulate) or P(N ≥ 1) (overwrite)
	Stake        float64 `json:"stake"`
	Impact       float64 `json:"impact"` // E[ΔQ_A of one change]
	ExpectedGain float64 `json:"expected_delta_q"`
	Priority     float64 `json:"priority"` // expected_delta_q × open_periods: what the plan ranks by
	Overdue      bool    `json:"overdue"`
}

func recrawlOf(e frontier.Explanation) *recrawlJSON {
	r := &recrawlJSON{Policy: e.Policy, PolicySource: "configuration", Period: e.Period.String(), Window: e.Window,
		Measured: e.Measured, DeltaQRate: e.Rate, Samples: e.Samples, Why: e.Why}
	if e.PolicyFromRepository {
		r.PolicySource = "repository"
	}
	if !e.LastFetch.IsZero() {
		t := e.LastFetch
		r.LastFetch = &t
	}
	if e.Measured {
		p := e.Priority
		r.Priority = &p
	}
	if p := e.Posterior; p != nil {
		r.Posterior = &posteriorJSON{ChangeRate: p.Rate, OpenPeriods: p.Open, KnownChange: p.KnownChange, Changes: p.Changes,
			Stake: p.Stake, Impact: p.Impact, ExpectedGain: p.Score, Priority: p.Priority, Overdue: p.Overdue}
	}
	return r
}

// pageURL reads and normalizes the url parameter, or answers 400.
func pageURL(w http.ResponseWriter, r *http.Request) (string, bool) {
	u, ie := readPageURL(r)
	if ie != nil {
		writeInputError(w, ie)
		return "", false
	}
	return u, true
}

// readPageURL reads the url parameter of a page report (JSON or HTML):
// given once, well escaped, an http(s) URL without control characters
// (urlnorm.NormalizeGiven), which it returns normalized.
func readPageURL(r *http.Request) (string, *InputError) {
	q, ie := queryValues(r)
	if ie == nil {
		ie = givenOnce(q, "url")
	}
	if ie != nil {
		return "", ie
	}
	raw := q.Get("url")
	if raw == "" {
		return "", &InputError{Code: CodeMissingParameter, Field: "url", Message: "missing: give the page URL"}
	}
	u, err := urlnorm.NormalizeGiven(raw)
	if err != nil {
		return "", &InputError{Field: "url", Value: raw, Limit: fmt.Sprintf("an http(s) URL of <= %d bytes with %s", urlnorm.MaxLength, urlnorm.GivenRule), Message: err.Error()}
	}
	return u, nil
}

func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	u, ok := pageURL(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.SearchTimeout)
	defer cancel()
	rep, err := BuildPageReport(ctx, s.deps.Pages, s.deps.Explain, u)
	if errors.Is(err, repo.ErrNotFound) {
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Field: "url", Value: u, Message: "the repository does not know " + u})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// BuildPageReport reads what pages knows of the normalized URL u and, with
// explain (nil leaves it out), the recrawl section. An unknown page is
// repo.ErrNotFound.
func BuildPageReport(ctx context.Context, pages Pages, explain ExplainFunc, u string) (*PageReport, error) {
	p, err := pages.Page(u)
	if err != nil {
		return nil, err
	}
	rep := &PageReport{URL: p.URL, State: p.State.String(),
		HTTPStatus: p.HTTPStatus, Depth: p.Depth, Source: p.Source, FirstSeen: p.FirstSeen,
		Fetches: p.Fetches, Changes: p.Changes, Title: p.Title, ContentType: p.ContentType,
		ETag: p.ETag, LastModified: p.LastModified, NoIndex: p.NoIndex, RedirectTo: p.RedirectTo,
		History: []fetchJSON{}, Versions: []versionJSON{}, LinksOut: []linkJSON{}, LinksIn: []string{}, DeltaQ: []deltaQJSON{}}
	if p.Attempted() {
		rep.LastOutcome = p.LastOutcome.String()
	}
	if !p.LastFetch.IsZero() {
		rep.LastFetch = &p.LastFetch
	}
	if !p.LastChange.IsZero() {
		rep.LastChange = &p.LastChange
	}
	log, err := pages.FetchLog(ctx, u)
	if err != nil {
		return nil, err
	}
	for _, f := range log {
		fj := fetchJSON{At: f.At, Reason: f.Reason.String(), Outcome: f.Outcome.String(), HTTPStatus: f.HTTPStatus,
			Bytes: f.Bytes, TookMS: float64(f.Took.Microseconds()) / 1000, Changed: f.Changed}
		if f.Difference >= 0 {
			d := f.Difference
			fj.Difference = &d
		}
		rep.History = append(rep.History, fj)
	}
	vs, err := pages.Versions(ctx, u, false)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		rep.Versions = append(rep.Versions, versionJSON{FetchedAt: v.FetchedAt, ContentType: v.ContentType, Title: v.Title})
	}
	out, err := pages.OutLinks(ctx, u)
	if err != nil {
		return nil, err
	}
	for _, l := range out {
		rep.LinksOut = append(rep.LinksOut, linkJSON{URL: l.URL, Kind: linkKinds[l.Kind]})
	}
	if rep.LinksIn, err = pages.InLinks(ctx, u); err != nil {
		return nil, err
	}
	if rep.LinksIn == nil {
		rep.LinksIn = []string{}
	}
	ms, err := pages.DeltaQs(ctx, u)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		rep.DeltaQ = append(rep.DeltaQ, deltaQJSON{At: m.At, LastFetch: m.LastFetch, Value: m.Value, Terms: m.Terms})
	}
	if explain != nil {
		e, err := explain(ctx, u)
		if err != nil {
			return nil, err
		}
		rep.Recrawl = recrawlOf(e)
	}
	return rep, nil
}
