package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

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

// pageReport is the JSON of /api/v1/page.
type pageReport struct {
	URL          string        `json:"url"`
	State        string        `json:"state"`
	LastOutcome  string        `json:"last_outcome"`
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
	Recrawl      any           `json:"recrawl,omitempty"`
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

func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	raw := r.URL.Query().Get("url")
	if raw == "" {
		writeInputError(w, &InputError{Code: CodeMissingParameter, Field: "url", Message: "missing: give the page URL"})
		return
	}
	u, err := urlnorm.Normalize(raw)
	if err != nil {
		writeInputError(w, &InputError{Field: "url", Value: raw, Limit: fmt.Sprintf("an http(s) URL of <= %d bytes", urlnorm.MaxLength), Message: err.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.SearchTimeout)
	defer cancel()
	rep, err := s.report(ctx, u)
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

func (s *Server) report(ctx context.Context, u string) (*pageReport, error) {
	p, err := s.deps.Pages.Page(u)
	if err != nil {
		return nil, err
	}
	rep := &pageReport{URL: p.URL, State: p.State.String(), LastOutcome: p.LastOutcome.String(),
		HTTPStatus: p.HTTPStatus, Depth: p.Depth, Source: p.Source, FirstSeen: p.FirstSeen,
		Fetches: p.Fetches, Changes: p.Changes, Title: p.Title, ContentType: p.ContentType,
		ETag: p.ETag, LastModified: p.LastModified, NoIndex: p.NoIndex, RedirectTo: p.RedirectTo,
		History: []fetchJSON{}, Versions: []versionJSON{}, LinksOut: []linkJSON{}, LinksIn: []string{}, DeltaQ: []deltaQJSON{}}
	if !p.LastFetch.IsZero() {
		rep.LastFetch = &p.LastFetch
	}
	if !p.LastChange.IsZero() {
		rep.LastChange = &p.LastChange
	}
	log, err := s.deps.Pages.FetchLog(ctx, u)
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
	vs, err := s.deps.Pages.Versions(ctx, u, false)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		rep.Versions = append(rep.Versions, versionJSON{FetchedAt: v.FetchedAt, ContentType: v.ContentType, Title: v.Title})
	}
	out, err := s.deps.Pages.OutLinks(ctx, u)
	if err != nil {
		return nil, err
	}
	for _, l := range out {
		rep.LinksOut = append(rep.LinksOut, linkJSON{URL: l.URL, Kind: linkKinds[l.Kind]})
	}
	if rep.LinksIn, err = s.deps.Pages.InLinks(ctx, u); err != nil {
		return nil, err
	}
	if rep.LinksIn == nil {
		rep.LinksIn = []string{}
	}
	ms, err := s.deps.Pages.DeltaQs(ctx, u)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		rep.DeltaQ = append(rep.DeltaQ, deltaQJSON{At: m.At, LastFetch: m.LastFetch, Value: m.Value, Terms: m.Terms})
	}
	if s.deps.Explain != nil {
		if rep.Recrawl, err = s.deps.Explain(ctx, u); err != nil {
			return nil, err
		}
	}
	return rep, nil
}
