package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/deltaq/deltaq/feeds"
)

// FeedStore is what the feed routes read (feeds.Store).
type FeedStore interface {
	List(ctx context.Context) ([]feeds.Feed, error)
	Get(id string) (feeds.Feed, error)
	Items(ctx context.Context, id string, since time.Time) ([]feeds.StoredItem, error)
	River(ctx context.Context, since time.Time, limit int) ([]feeds.StoredItem, error)
}

// riverLimit bounds the river: the newest items only.
const riverLimit = 200

// feedsRoutes adds the aggregator's routes:
//
//	GET /api/v1/feeds                    every subscribed feed
//	GET /api/v1/feeds/{id}/items?since=  a feed's items first seen after since (RFC 3339)
//	GET /api/v1/river?since=             every feed's items, newest first; ?format=atom re-exports it
//	GET /feeds/river.atom                the river as Atom, for feed readers
func (s *Server) feedsRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/feeds", s.handleFeeds)
	mux.HandleFunc("GET /api/v1/feeds/{id}/items", s.handleFeedItems)
	mux.HandleFunc("GET /api/v1/river", s.handleRiver)
	mux.HandleFunc("GET /feeds/river.atom", func(w http.ResponseWriter, r *http.Request) { s.river(w, r, true) })
}

// feedView is a feed as the API shows it: its state without the bounded
// key and history lists.
type feedView struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Title       string    `json:"title,omitempty"`
	Weight      float64   `json:"weight"`
	MinInterval string    `json:"min_interval"`
	MaxInterval string    `json:"max_interval"`
	LastFetch   time.Time `json:"last_fetch,omitzero"`
	LastStatus  int       `json:"last_status,omitempty"`
	LastError   string    `json:"last_error,omitempty"`
	Fetches     int       `json:"fetches"`
	NotModified int       `json:"not_modified"`
	Postings    int       `json:"postings_known"`
}

func (s *Server) handleFeeds(w http.ResponseWriter, r *http.Request) {
	list, err := s.deps.Feeds.List(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]feedView, 0, len(list))
	for _, f := range list {
		out = append(out, feedView{ID: f.ID, URL: f.URL, Title: f.Title, Weight: f.Weight,
			MinInterval: f.MinInterval.String(), MaxInterval: f.MaxInterval.String(), LastFetch: f.LastFetch,
			LastStatus: f.LastStatus, LastError: f.LastError, Fetches: f.Fetches, NotModified: f.NotModified, Postings: len(f.History)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"feeds": out})
}

func (s *Server) handleFeedItems(w http.ResponseWriter, r *http.Request) {
	since, ok := sinceParam(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if _, err := s.deps.Feeds.Get(id); errors.Is(err, feeds.ErrUnknownFeed) {
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Field: "id", Value: id, Message: "no subscribed feed has this id"})
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	items, err := s.deps.Feeds.Items(r.Context(), id, since)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": orEmpty(items)})
}

func (s *Server) handleRiver(w http.ResponseWriter, r *http.Request) {
	switch f := r.URL.Query().Get("format"); f {
	case "", "json":
		s.river(w, r, false)
	case "atom":
		s.river(w, r, true)
	default:
		writeInputError(w, &InputError{Field: "format", Value: f, Limit: "json or atom", Message: "unknown format"})
	}
}

func (s *Server) river(w http.ResponseWriter, r *http.Request, atom bool) {
	since, ok := sinceParam(w, r)
	if !ok {
		return
	}
	items, err := s.deps.Feeds.River(r.Context(), since, riverLimit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !atom {
		writeJSON(w, http.StatusOK, map[string]any{"items": orEmpty(items)})
		return
	}
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	self := "http://" + r.Host + "/feeds/river.atom"
	if err := feeds.WriteAtom(w, "deltaq river", self, items); err != nil {
		s.logger.Debug("river", "err", err)
	}
}

// sinceParam reads ?since= (RFC 3339; absent means from the start).
func sinceParam(w http.ResponseWriter, r *http.Request) (time.Time, bool) {
	v := r.URL.Query().Get("since")
	if v == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		if n, nerr := strconv.ParseInt(v, 10, 64); nerr == nil {
			return time.Unix(n, 0), true
		}
		writeInputError(w, &InputError{Field: "since", Value: v, Limit: "RFC 3339 time or Unix seconds", Message: "not a time"})
		return time.Time{}, false
	}
	return t, true
}

func orEmpty(items []feeds.StoredItem) []feeds.StoredItem {
	if items == nil {
		return []feeds.StoredItem{}
	}
	return items
}
