package web

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltaq/deltaq/feeds"
)

// FeedStore is what the feed routes read and, on the admin listener,
// change (feeds.Store).
type FeedStore interface {
	SubscriptionsAfter(ctx context.Context, after string, limit int) ([]feeds.Feed, error)
	Subscription(id string) (feeds.Feed, error)
	Items(ctx context.Context, id string, since time.Time) ([]feeds.StoredItem, error)
	River(ctx context.Context, since time.Time, limit int) ([]feeds.StoredItem, error)
	Subscribe(ctx context.Context, rawURL string, o feeds.AddOptions, now time.Time) (f feeds.Feed, isNew bool, err error)
	Remove(ctx context.Context, id string) (feeds.Feed, int, error)
}

// riverLimit bounds the river: the newest items only, fewer when ?limit=
// asks. Items are ordered by when deltaq first saw them, and those of one
// poll by posting time (feeds.Store.River). It bounds ?limit= on a feed's
// items too, which without one are all the feed keeps (feeds.seen_kept),
// as they were before they took a limit.
const riverLimit = 200

// riverPath is where the river's Atom feed is served (feedsRoutes).
const riverPath = "/feeds/river.atom"

// riverID is the river feed's Atom id: a name, as the watch feeds' are
// ("urn:deltaq:feed:" and the feed's name, notify.Outbox.Feed), not its
// URL, which depends on the Host a request names and would change the
// feed's identity with each name the server is reached by (RFC 4287
// §4.2.6: an id never changes).
const riverID = "urn:deltaq:feed:river"

// requestBase is the scheme and host r was sent to, https when it came
// over TLS, as the watch feeds' links are made (watchAPI.feedURLs): the
// server's own name, where it knows none, is the one its client used.
func requestBase(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// feedsPage is the most feeds one answer of GET /api/v1/feeds lists, and
// how many it lists unless ?limit= asks for fewer.
const feedsPage = 1000

// feedsRoutes adds the aggregator's routes:
//
//	GET /api/v1/feeds?limit=&after=                   the subscribed feeds by id, a page at a time: "next" is the after of the next page
//	GET /api/v1/feeds/{id}/items?since=&limit=&format= a feed's items first seen after since (RFC 3339 or Unix seconds), oldest first, the newest limit if given; ?format=atom re-exports them
//	GET /api/v1/river?since=&limit=&format=           every feed's newest items, newest first; ?format=atom re-exports it
//	GET /feeds/river.atom?since=&limit=               the river as Atom, for feed readers
//
// The items and the river take the same parameters, read by itemsQuery.
func (s *Server) feedsRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/feeds", s.handleFeeds)
	mux.HandleFunc("GET /api/v1/feeds/{id}/items", s.handleFeedItems)
	mux.HandleFunc("GET /api/v1/river", s.handleRiver)
	mux.HandleFunc("GET "+riverPath, s.handleRiverAtom)
	// The methods no route takes: a subscription change on the public
	// listener is told where subscriptions change. On the admin listener
	// the change's own route (feedsAdminRoutes), naming its method, is
	// the more specific and takes it.
	mux.HandleFunc("/api/v1/feeds", s.feedsOtherMethod(mux, http.MethodPost, http.MethodGet, http.MethodHead))
	mux.HandleFunc("/api/v1/feeds/{id}", s.feedsOtherMethod(mux, http.MethodDelete))
}

// feedsOtherMethod answers a method that no route of mux takes on a feeds
// path: change (POST, DELETE), on the public listener, 405 saying that
// subscriptions change on the admin listener (server.admin.listen); any
// other, as noRoute does for a path that exists (405 naming the
// methods allowed) or does not (404).
func (s *Server) feedsOtherMethod(mux *http.ServeMux, change string, allowed ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		onAdmin := s.admin != nil && mux == s.admin
		methods := allowed
		if onAdmin {
			methods = append(slices.Clip(allowed), change)
		}
		allow := strings.Join(methods, ", ")
		w.Header().Set("Allow", allow)
		switch {
		case r.Method == change && !onAdmin:
			msg := "subscriptions change on the admin listener (server.admin.listen), not on this one"
			if s.admin == nil {
				msg += "; it is off: set server.admin.listen, or use deltaq feeds add and rm"
			}
			writeError(w, http.StatusMethodNotAllowed, apiError{Code: CodeMethodNotAllowed, Field: "method", Value: r.Method, Limit: allow, Message: msg})
		case allow == "":
			w.Header().Del("Allow")
			noAPIRoute(w, r)
		default:
			methodNotAllowed(w, r, allow)
		}
	}
}

// feedsAdminRoutes adds the subscription changes, served on the admin
// listener only (server.admin.listen): feeds are the whole server's, not a
// user's, so no API key speaks for them.
//
//	POST   /api/v1/feeds       subscribe, or change a subscription's settings: {"url", "weight", "min_interval", "max_interval"}
//	DELETE /api/v1/feeds/{id}  unsubscribe: the feed's state and items go
func (s *Server) feedsAdminRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/v1/feeds", s.handleSubscribe)
	mux.HandleFunc("DELETE /api/v1/feeds/{id}", s.handleUnsubscribe)
}

// maxSubscribeBytes bounds a subscription request's body.
const maxSubscribeBytes = 16 << 10

// subscribeRequest is POST /api/v1/feeds. Fields left out keep the feed's
// own settings, or take the defaults for a new feed (feeds.AddOptions).
type subscribeRequest struct {
	URL         string   `json:"url"`
	Weight      *float64 `json:"weight"`
	MinInterval string   `json:"min_interval"`
	MaxInterval string   `json:"max_interval"`
	// Name and Folders name and file the feed, as `feeds add --name
	// --folder` do: given, they replace a subscribed feed's own ("" and []
	// clear them).
	Name    *string   `json:"name"`
	Folders *[]string `json:"folders"`
}

func (s *Server) handleSubscribe(w http.ResponseWriter, r *http.Request) {
	var q subscribeRequest
	if !decodeJSONBody(w, r, &q, maxSubscribeBytes, "a subscription request") {
		return
	}
	o := feeds.AddOptions{Weight: q.Weight, SetName: q.Name != nil, SetFolders: q.Folders != nil}
	if q.Name != nil {
		o.Name = *q.Name
	}
	if q.Folders != nil {
		o.Folders = *q.Folders
	}
	var bad *InputError
	if o.MinInterval, bad = optionalDuration("min_interval", q.MinInterval); bad == nil {
		o.MaxInterval, bad = optionalDuration("max_interval", q.MaxInterval)
	}
	if bad != nil {
		writeInputError(w, bad)
		return
	}
	f, isNew, err := s.deps.Feeds.Subscribe(r.Context(), q.URL, o, time.Now())
	var se *feeds.SettingError
	if errors.As(err, &se) {
		writeInputError(w, &InputError{Field: se.Setting, Value: se.Value, Limit: se.Limit, Message: se.Setting + " must be " + se.Limit})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if isNew {
		status = http.StatusCreated
	}
	w.Header().Set("Location", "/api/v1/feeds/"+f.ID+"/items")
	writeJSON(w, status, viewOf(f))
}

// optionalDuration parses a request's duration field v; "" is nil, the
// setting left as it is.
func optionalDuration(field, v string) (*time.Duration, *InputError) {
	if v == "" {
		return nil, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return nil, &InputError{Field: field, Value: v, Limit: "a duration, e.g. 15m or 168h", Message: field + " must be a duration"}
	}
	return &d, nil
}

func (s *Server) handleUnsubscribe(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f, items, err := s.deps.Feeds.Remove(r.Context(), id)
	if errors.Is(err, feeds.ErrUnknownFeed) {
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Field: "id", Value: id, Message: "no subscribed feed has this id"})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": f.ID, "url": f.URL, "items_removed": items})
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
	// LastCuts is what the last read of the feed cut (items past
	// feeds.max_items, over-long titles, links and keys), and LastCut the
	// same in words; both absent when nothing was cut.
	LastCuts feeds.Cuts `json:"last_cuts,omitzero"`
	LastCut  string     `json:"last_cut,omitempty"`
	// Name and Folders are the subscriber's name for the feed and the
	// folders it is filed in, outermost first (feeds.Feed.Name, as an
	// OPML import gives them); absent when it has none.
	Name    string   `json:"name,omitempty"`
	Folders []string `json:"folders,omitempty"`
	// MovedFrom is the URL a permanent redirect moved the feed from, and
	// Moved when; both absent for a feed never moved, so that a client
	// holding the old URL can tell why it is not listed.
	MovedFrom string    `json:"moved_from,omitempty"`
	Moved     time.Time `json:"moved,omitzero"`
}

func viewOf(f feeds.Feed) feedView {
	return feedView{ID: f.ID, URL: f.URL, Title: f.Title, Name: f.Name, Folders: f.Folders, Weight: f.Weight,
		MinInterval: f.MinInterval.String(), MaxInterval: f.MaxInterval.String(), LastFetch: f.LastFetch,
		LastStatus: f.LastStatus, LastError: f.LastError, Fetches: f.Fetches, NotModified: f.NotModified, Postings: f.Postings,
		LastCuts: f.LastCuts, LastCut: f.LastCuts.String(), MovedFrom: f.MovedFrom, Moved: f.Moved}
}

func (s *Server) handleFeeds(w http.ResponseWriter, r *http.Request) {
	limit, ok := limitParam(w, r, feedsPage, "")
	if !ok {
		return
	}
	// One more than the page: whether a next page exists, so that "next"
	// never leads to an empty one.
	list, err := s.deps.Feeds.SubscriptionsAfter(r.Context(), r.URL.Query().Get("after"), limit+1)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	answer := map[string]any{}
	if len(list) > limit {
		list = list[:limit]
		answer["next"] = list[limit-1].ID
	}
	out := make([]feedView, 0, len(list))
	for _, f := range list {
		out = append(out, viewOf(f))
	}
	answer["feeds"] = out
	writeJSON(w, http.StatusOK, answer)
}

// handleFeedItems answers a feed's items first seen after since, oldest
// first: every one the feed keeps, or the newest limit, as the river
// holds the newest.
func (s *Server) handleFeedItems(w http.ResponseWriter, r *http.Request) {
	q, ok := itemsQuery(w, r, 0, "json", "atom")
	if !ok {
		return
	}
	id := r.PathValue("id")
	f, err := s.deps.Feeds.Subscription(id)
	if errors.Is(err, feeds.ErrUnknownFeed) {
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Field: "id", Value: id, Message: "no subscribed feed has this id"})
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	items, err := s.deps.Feeds.Items(r.Context(), id, q.since)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if q.limit > 0 {
		items = items[max(len(items)-q.limit, 0):]
	}
	title := cmp.Or(f.Name, f.Title, f.URL)
	s.writeItems(w, r, q, items, riverID+":"+f.ID, title, requestBase(r)+"/api/v1/feeds/"+f.ID+"/items?format=atom")
}

func (s *Server) handleRiver(w http.ResponseWriter, r *http.Request) {
	if q, ok := itemsQuery(w, r, riverLimit, "json", "atom"); ok {
		s.river(w, r, q)
	}
}

// handleRiverAtom serves the river at riverPath: Atom, which a format
// parameter, if given, must ask for.
func (s *Server) handleRiverAtom(w http.ResponseWriter, r *http.Request) {
	if q, ok := itemsQuery(w, r, riverLimit, "atom"); ok {
		s.river(w, r, q)
	}
}

func (s *Server) river(w http.ResponseWriter, r *http.Request, q itemQuery) {
	items, err := s.deps.Feeds.River(r.Context(), q.since, q.limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writeItems(w, r, q, items, riverID, "deltaq river", requestBase(r)+riverPath)
}

// writeItems answers items in the format q asks: JSON, or an Atom feed
// with id, title and self (feeds.WriteAtom), served conditionally
// (serveAtom).
func (s *Server) writeItems(w http.ResponseWriter, r *http.Request, q itemQuery, items []feeds.StoredItem, id, title, self string) {
	if q.format != "atom" {
		writeJSON(w, http.StatusOK, map[string]any{"items": orEmpty(items)})
		return
	}
	var b bytes.Buffer
	if err := feeds.WriteAtom(&b, id, title, self, items); err != nil {
		s.fail(w, r, err)
		return
	}
	serveAtom(w, r, b.Bytes(), feeds.AtomUpdated(items))
}

// serveAtom answers the Atom document b, last updated at updated. A
// reader's own If-None-Match (the ETag is the body's hash) or
// If-Modified-Since gets 304, so that a poll of an unchanged feed does
// not fetch it whole.
func serveAtom(w http.ResponseWriter, r *http.Request, b []byte, updated time.Time) {
	// ServeContent reads the first If-None-Match line only; a list split
	// over several lines is one list (RFC 9110 §5.3).
	if tags := r.Header.Values("If-None-Match"); len(tags) > 1 {
		r = r.Clone(r.Context())
		r.Header.Set("If-None-Match", strings.Join(tags, ", "))
	}
	sum := sha256.Sum256(b)
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:16])+`"`)
	http.ServeContent(w, r, "", updated, bytes.NewReader(b))
}

// itemQuery is what a request for items (a feed's, the river) asks.
type itemQuery struct {
	since  time.Time // items first seen after it; zero for all
	limit  int       // the newest this many, in [1, riverLimit]; 0 for all
	format string    // one of the route's formats
}

// itemsQuery reads the parameters of a request for items, each given
// once: since (sinceValue), limit (in [1, riverLimit], def when absent)
// and format, one of formats, the first when absent; a bad one answers
// 400 naming it.
func itemsQuery(w http.ResponseWriter, r *http.Request, def int, formats ...string) (itemQuery, bool) {
	q, ie := queryValues(r)
	if ie == nil {
		ie = givenOnce(q, "format", "limit", "since")
	}
	iq := itemQuery{format: cmp.Or(q.Get("format"), formats[0])}
	if ie == nil && !slices.Contains(formats, iq.format) {
		ie = &InputError{Field: "format", Value: iq.format, Limit: strings.Join(formats, " or "), Message: "unknown format"}
	}
	if ie == nil {
		iq.limit, ie = wholeParam(q, "limit", def, 1, riverLimit, "")
	}
	if ie == nil {
		iq.since, ie = sinceValue(q.Get("since"))
	}
	if ie != nil {
		writeInputError(w, ie)
		return itemQuery{}, false
	}
	return iq, true
}

// sinceMin and sinceMax bound the times an RFC 3339 since can write,
// years 0000 to 9999. Unix seconds are held to the same range: time.Unix
// takes any int64, but far enough out its times overflow when compared,
// and a huge since then came before every item instead of after.
var (
	sinceMin = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	sinceMax = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// limitParam reads ?limit=, in [1, most], default most; a bad one
// answers 400 naming it, its range, and the setting most comes from, if
// any.
func limitParam(w http.ResponseWriter, r *http.Request, most int, setting string) (int, bool) {
	q := r.URL.Query()
	var n int
	ie := givenOnce(q, "limit")
	if ie == nil {
		n, ie = wholeParam(q, "limit", most, 1, most, setting)
	}
	if ie != nil {
		writeInputError(w, ie)
		return 0, false
	}
	return n, true
}

// sinceValue reads since, an RFC 3339 time or Unix seconds; "" means
// from the start.
func sinceValue(v string) (time.Time, *InputError) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err == nil {
		return t, nil
	}
	lo, hi := sinceMin.Unix(), sinceMax.Unix()
	msg := "not a time"
	if n, nerr := strconv.ParseInt(v, 10, 64); nerr == nil || errors.Is(nerr, strconv.ErrRange) {
		if nerr == nil && n >= lo && n <= hi {
			return time.Unix(n, 0), nil
		}
		msg = "out of range"
	}
	return time.Time{}, &InputError{Field: "since", Value: v,
		Limit: fmt.Sprintf("an RFC 3339 time or Unix seconds in [%d, %d] (years 0000 to 9999)", lo, hi), Message: msg}
}

func orEmpty(items []feeds.StoredItem) []feeds.StoredItem {
	if items == nil {
		return []feeds.StoredItem{}
	}
	return items
}
