package web

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/deltaq/deltaq/alert"
	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// watchAPI serves sentinels and search alerts. Every request carries
// "Authorization: Bearer <key>" (keys from `deltaq watch key`); a user sees
// and changes only their own watches and alerts, within the key's limits
// (watches, shortest interval, regex size); a watch or an alert notifies
// at most notify.max_targets targets. A feed route also takes the key's
// feed token as ?token= (watch.Engine.FeedToken), since a feed reader can
// only fetch a URL; there the token wins over any Authorization header
// (feedAuthed). No other route takes it, so a token that leaks from a
// reader's settings reads feeds and nothing else. The listings give each
// feed's URL with the token in it.
//
//	GET    /api/v1/watches                 my watches
//	POST   /api/v1/watches                 install {url, type, select, object, keywords, direction, regex,
//	                                       min_change, every_n, every, mode, period, notify, until}
//	GET    /api/v1/watches/{id}            one watch and its evaluation record
//	DELETE /api/v1/watches/{id}            remove
//	GET    /api/v1/watches/{id}/history    detected changes and failed checks
//	GET    /api/v1/watches/{id}/diff?n=N&view=side|changes&format=html|json
//	GET    /api/v1/watches/{id}/feed       Atom feed of the watch
//	GET    /api/v1/feed                    Atom feed of the user
//	GET    /api/v1/alerts                  my alerts
//	POST   /api/v1/alerts                  {query, notify (at least one target), every_change}
//	DELETE /api/v1/alerts/{id}
//	GET    /api/v1/alerts/{id}/feed        Atom feed of the alert (notify: feed)
type watchAPI struct {
	watches *watch.Engine
	alerts  *alert.Matcher // nil: no alert routes
	feeds   *notify.Outbox
	maxBody int64
	logger  *slog.Logger
	// render writes an HTML page (Server.render).
	render func(w http.ResponseWriter, t *template.Template, code int, data any)
	// creating serializes each user's creations of watches and alerts, so
	// that counting theirs against the key's limit and adding one is
	// atomic: otherwise parallel requests all pass the count.
	creating userLocks
}

// userLocks is a mutex per user, kept only while someone holds or waits
// for it. One user's slow install (a page fetch) holds up no one else's.
type userLocks struct {
	mu    sync.Mutex
	users map[string]*userLock
}

type userLock struct {
	sync.Mutex
	refs int // holders and waiters
}

// lock locks user's mutex and returns its unlock.
func (l *userLocks) lock(user string) (unlock func()) {
	l.mu.Lock()
	if l.users == nil {
		l.users = make(map[string]*userLock)
	}
	u := l.users[user]
	if u == nil {
		u = &userLock{}
		l.users[user] = u
	}
	u.refs++
	l.mu.Unlock()
	u.Lock()
	return func() {
		u.Unlock()
		l.mu.Lock()
		if u.refs--; u.refs == 0 {
			delete(l.users, user)
		}
		l.mu.Unlock()
	}
}

func (api *watchAPI) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/watches", api.authed(api.list))
	mux.HandleFunc("POST /api/v1/watches", api.authed(api.create))
	mux.HandleFunc("GET /api/v1/watches/{id}", api.authed(api.owned(api.show)))
	mux.HandleFunc("DELETE /api/v1/watches/{id}", api.authed(api.owned(api.remove)))
	mux.HandleFunc("GET /api/v1/watches/{id}/history", api.authed(api.owned(api.history)))
	mux.HandleFunc("GET /api/v1/watches/{id}/diff", api.authed(api.owned(api.diff)))
	mux.HandleFunc("GET /api/v1/watches/{id}/feed", api.feedAuthed(api.owned(api.feed)))
	mux.HandleFunc("GET /api/v1/feed", api.feedAuthed(api.userFeed))
	if api.alerts != nil {
		mux.HandleFunc("GET /api/v1/alerts", api.authed(api.listAlerts))
		mux.HandleFunc("POST /api/v1/alerts", api.authed(api.createAlert))
		mux.HandleFunc("DELETE /api/v1/alerts/{id}", api.authed(api.removeAlert))
		mux.HandleFunc("GET /api/v1/alerts/{id}/feed", api.feedAuthed(api.alertFeed))
	}
	api.htmlRoutes(mux)
}

type keyFunc func(http.ResponseWriter, *http.Request, watch.Key)
type sentinelFunc func(http.ResponseWriter, *http.Request, watch.Key, *watch.Sentinel)

func (api *watchAPI) authed(h keyFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" && r.URL.Query().Has("token") {
			w.Header().Set("WWW-Authenticate", `Bearer realm="deltaq-watch"`)
			writeError(w, http.StatusUnauthorized, apiError{Code: CodeUnauthorized, Field: "token",
				Message: "a feed token is taken by the feed routes only (/api/v1/feed, /api/v1/watches/{id}/feed, /api/v1/alerts/{id}/feed); send Authorization: Bearer KEY"})
			return
		}
		secret, ok := bearerKey(w, r, "deltaq-watch")
		if !ok {
			return
		}
		if strings.HasPrefix(secret, watch.FeedTokenPrefix) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="deltaq-watch", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, apiError{Code: CodeUnauthorized,
				Message: "a feed token (" + watch.FeedTokenPrefix + "…) is not a key: it goes in a feed URL as ?token=; send the API key, which starts with " + watch.KeyPrefix + ", as Authorization: Bearer KEY"})
			return
		}
		k, ok, err := api.watches.Authenticate(secret)
		if err != nil {
			api.internal(w, err)
			return
		}
		if !ok {
			refuseKey(w, "deltaq-watch")
			return
		}
		h(w, r, k)
	}
}

// feedAuthed is authed for a feed route: given ?token=, the key is the one
// whose feed token it is, whatever Authorization header came along, since
// readers and proxies add Basic auth or a stale bearer to a URL that was
// given with its token; without one, the bearer key. The token is trimmed
// as a bearer key is: a copy and paste leaves a space or a newline.
func (api *watchAPI) feedAuthed(h keyFunc) http.HandlerFunc {
	bearer := api.authed(h)
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if !q.Has("token") {
			bearer(w, r)
			return
		}
		if ie := givenOnce(q, "token"); ie != nil {
			writeInputError(w, ie)
			return
		}
		k, ok, err := api.watches.AuthenticateFeed(strings.TrimSpace(q.Get("token")))
		if err != nil {
			api.internal(w, err)
			return
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="deltaq-watch", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, apiError{Code: CodeUnauthorized, Field: "token",
				Message: "not the feed token of a valid key (deltaq watch feed-url KEY, or the feed URLs GET /api/v1/watches lists, give it; a revoked key's token is refused)"})
			return
		}
		h(w, r, k)
	}
}

// FeedURLs makes the URLs of a key's feeds, with its feed token in them,
// on the server at Base (scheme and host, no trailing slash): the API's
// listings and `deltaq watch feed-url` give the same URLs.
type FeedURLs struct {
	Base, Token string
}

// feedURLs is k's FeedURLs on the host r was sent to.
func (api *watchAPI) feedURLs(r *http.Request, k watch.Key) (FeedURLs, error) {
	token, err := api.watches.FeedToken(r.Context(), k)
	if err != nil {
		return FeedURLs{}, err
	}
	base := "http://" + r.Host
	if r.TLS != nil {
		base = "https://" + r.Host
	}
	return FeedURLs{Base: base, Token: token}, nil
}

// User is the URL of the feed of every watch and alert of the key's user.
func (f FeedURLs) User() string { return f.of(userFeedPath) }

// Watch is the URL of watch id's feed.
func (f FeedURLs) Watch(id string) string { return f.of(watchFeedPath(id)) }

// Alert is the URL of alert id's feed.
func (f FeedURLs) Alert(id string) string { return f.of(alertFeedPath(id)) }

func (f FeedURLs) of(path string) string { return f.Base + path + "?token=" + url.QueryEscape(f.Token) }

// The feed routes' paths, as routes() serves them.
const userFeedPath = "/api/v1/feed"

func watchFeedPath(id string) string { return "/api/v1/watches/" + id + "/feed" }
func alertFeedPath(id string) string { return "/api/v1/alerts/" + id + "/feed" }

// owned loads the {id} watch; another user's watch is answered as missing.
func (api *watchAPI) owned(h sentinelFunc) keyFunc {
	return func(w http.ResponseWriter, r *http.Request, k watch.Key) {
		s, err := api.watches.Get(r.Context(), r.PathValue("id"))
		if errors.Is(err, repo.ErrNotFound) || err == nil && s.User != k.User {
			writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Value: r.PathValue("id"), Message: "no such watch"})
			return
		}
		if err != nil {
			api.internal(w, err)
			return
		}
		h(w, r, k, s)
	}
}

func (api *watchAPI) internal(w http.ResponseWriter, err error) {
	api.logger.Error("watch API", "err", err)
	writeError(w, http.StatusInternalServerError, apiError{Code: CodeInternal, Message: "internal error"})
}

func (api *watchAPI) list(w http.ResponseWriter, r *http.Request, k watch.Key) {
	ss, err := api.watches.List(r.Context(), k.User)
	if err != nil {
		api.internal(w, err)
		return
	}
	checked, err := api.watches.LastChecked(ss...)
	if err != nil {
		api.internal(w, err)
		return
	}
	feeds, err := api.feedURLs(r, k)
	if err != nil {
		api.internal(w, err)
		return
	}
	out := make([]watchJSON, len(ss))
	for i, sn := range ss {
		out[i] = watchOut(sn, checked[sn.ID])
		out[i].Feed = feeds.Watch(sn.ID)
	}
	// feed is the user's feed: every watch and alert that notifies one.
	writeJSON(w, http.StatusOK, map[string]any{"watches": out, "feed": feeds.User()})
}

// watchRequest is the body of POST /api/v1/watches; durations are Go
// duration strings ("1h30m"), until is a date (YYYY-MM-DD, midnight UTC)
// or an RFC 3339 time (watch.Spec.ParseTimes). Only url is required: type
// defaults to any (the whole page), every to the key's default
// (watch.Key.Every).
type watchRequest struct {
	URL       string   `json:"url"`
	Type      string   `json:"type"`
	Select    string   `json:"select"`
	Object    string   `json:"object"`
	Keywords  []string `json:"keywords"`
	Direction string   `json:"direction"`
	Regex     string   `json:"regex"`
	MinChange float64  `json:"min_change"`
	EveryN    int      `json:"every_n"`
	Every     string   `json:"every"`
	Mode      string   `json:"mode"`
	Period    string   `json:"period"`
	Notify    []string `json:"notify"`
	Until     string   `json:"until"`
}

// watchJSON is a watch as the API answers it: the fields of its request,
// named and written as a request writes them (durations as "1h0m0s",
// notify targets as "webhook:URL", until as an RFC 3339 time), so that a
// client reads back what it wrote; and then its evaluation record.
type watchJSON struct {
	ID   string `json:"id"`
	User string `json:"user"`
	watchRequest
	Start time.Time `json:"start"`
	watch.Record
	// LastCheck is when the page was last checked, whatever the check
	// found; LastEval, when a change on it was last evaluated.
	LastCheck time.Time `json:"last_check,omitzero"`
	// Pending are the triggered changes waiting for the next digest.
	Pending    int       `json:"pending"`
	NextDigest time.Time `json:"next_digest,omitzero"`
	// Feed is the URL of the watch's Atom feed with the key's feed token,
	// for a feed reader; only the API's answers to the key's holder have it.
	Feed string `json:"feed,omitempty"`
}

// WatchJSON is s as GET /api/v1/watches/{id} answers it, for the command
// line to show a watch alike; checked is when its page was last checked
// (watch.Engine.LastChecked).
func WatchJSON(s *watch.Sentinel, checked time.Time) any { return watchOut(s, checked) }

// watchOut is s, whose page was last checked at checked, as the API
// answers it.
func watchOut(s *watch.Sentinel, checked time.Time) watchJSON {
	q := watchRequest{URL: s.URL, Type: string(s.Type), Select: s.Selector, Object: s.Object, Keywords: append([]string{}, s.Keywords...),
		Direction: string(s.Direction), Regex: s.Regex, MinChange: s.MinChange, EveryN: s.EveryN,
		Every: s.Every.String(), Mode: string(s.Mode), Notify: []string{}, Until: s.Stop.UTC().Format(time.RFC3339Nano)}
	if s.Period > 0 {
		q.Period = s.Period.String()
	}
	for _, t := range s.Notify {
		q.Notify = append(q.Notify, t.String())
	}
	return watchJSON{ID: s.ID, User: s.User, watchRequest: q, Start: s.Start, Record: s.Record, LastCheck: checked,
		Pending: len(s.Pending), NextDigest: s.NextDigest}
}

// Spec turns a request into a spec, with at most maxTargets notify
// targets; errors name the field.
func (q *watchRequest) spec(user string, maxTargets int) (watch.Spec, error) {
	s := watch.Spec{User: user, URL: q.URL, Type: watch.Type(q.Type), Selector: q.Select, Object: q.Object,
		Keywords: q.Keywords, Direction: watch.Direction(q.Direction), Regex: q.Regex, MinChange: q.MinChange,
		EveryN: q.EveryN, Mode: watch.Mode(q.Mode)}
	if err := s.ParseTimes(q.Every, q.Period, q.Until); err != nil {
		return s, err
	}
	var err error
	s.Notify, err = notify.ParseTargets(q.Notify, maxTargets)
	return s, err
}

func (api *watchAPI) create(w http.ResponseWriter, r *http.Request, k watch.Key) {
	var q watchRequest
	if !decodeJSONBody(w, r, &q, api.maxBody, "watch.max_request_bytes") {
		return
	}
	s, err := api.install(r.Context(), k, &q)
	if err != nil {
		api.fail(w, err)
		return
	}
	checked, err := api.watches.LastChecked(s)
	if err != nil {
		api.internal(w, err)
		return
	}
	w.Header().Set("Location", "/api/v1/watches/"+s.ID)
	writeJSON(w, http.StatusCreated, watchOut(s, checked[s.ID]))
}

// install installs q for k's user within k's limits; the JSON API and the
// HTML form both come through here.
func (api *watchAPI) install(ctx context.Context, k watch.Key, q *watchRequest) (*watch.Sentinel, error) {
	spec, err := q.spec(k.User, api.feeds.Config().MaxTargets)
	if err != nil {
		return nil, err
	}
	defer api.creating.lock(k.User)()
	mine, err := api.watches.List(ctx, k.User)
	if err != nil {
		return nil, err
	}
	if err := k.Admit(&spec, len(mine)); err != nil {
		return nil, err
	}
	return api.watches.Install(ctx, spec)
}

// fail answers bad input with 400 naming the field, anything else with 500.
func (api *watchAPI) fail(w http.ResponseWriter, err error) {
	if ie := userError(err); ie != nil {
		writeInputError(w, ie)
		return
	}
	api.internal(w, err)
}

// userError is err as the user's mistake, naming the field; nil when err
// is the server's own failure.
func userError(err error) *InputError {
	var ie *InputError
	var le *watch.LimitError
	var te *notify.TargetError
	var fe *watch.FieldError
	var full *alert.FullError
	switch {
	case errors.As(err, &ie):
		return ie
	case errors.As(err, &te):
		return &InputError{Field: "notify", Value: te.Value, Limit: te.Limit, Message: te.Error()}
	case errors.As(err, &le):
		return &InputError{Field: le.Field, Value: le.Value, Limit: le.Limit, Message: le.Error(), Whole: true}
	case errors.As(err, &fe):
		return &InputError{Field: fe.Field, Value: fe.Value, Limit: fe.Limit, Message: fe.Error(), Whole: true}
	case errors.As(err, &full):
		return &InputError{Field: "alerts", Value: strconv.Itoa(full.Alerts), Limit: fmt.Sprintf("at most %d on this server (alert.max_alerts)", full.Max),
			Message: "the server holds all the alerts it can; remove some first"}
	case errors.Is(err, watch.ErrObjectNotFound), errors.Is(err, watch.ErrInvalid):
		return &InputError{Field: "spec", Message: err.Error()}
	case errors.Is(err, errNoSuchAlert):
		return &InputError{Code: CodeNotFound, Field: "id", Message: err.Error()}
	}
	return nil
}

func (api *watchAPI) show(w http.ResponseWriter, r *http.Request, k watch.Key, s *watch.Sentinel) {
	checked, err := api.watches.LastChecked(s)
	if err != nil {
		api.internal(w, err)
		return
	}
	feeds, err := api.feedURLs(r, k)
	if err != nil {
		api.internal(w, err)
		return
	}
	out := watchOut(s, checked[s.ID])
	out.Feed = feeds.Watch(s.ID)
	writeJSON(w, http.StatusOK, out)
}

func (api *watchAPI) remove(w http.ResponseWriter, r *http.Request, _ watch.Key, s *watch.Sentinel) {
	if err := api.watches.Remove(r.Context(), s.ID); err != nil {
		api.internal(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (api *watchAPI) history(w http.ResponseWriter, r *http.Request, _ watch.Key, s *watch.Sentinel) {
	h, err := api.watches.History(r.Context(), s.ID)
	if err != nil {
		api.internal(w, err)
		return
	}
	if h == nil {
		h = []watch.Change{} // no changes yet is [], not null
	}
	// Failed checks are kept apart from the changes, so that ?n= of the
	// diff still counts changes.
	fs, err := api.watches.Failures(r.Context(), s.ID)
	if err != nil {
		api.internal(w, err)
		return
	}
	if fs == nil {
		fs = []watch.Failure{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"changes": h, "failures": fs})
}

// diff shows the n-th kept change (default the latest) side by side or
// changes only, as HTML or JSON. serve has checked that no parameter is
// repeated (apiParams).
func (api *watchAPI) diff(w http.ResponseWriter, r *http.Request, _ watch.Key, s *watch.Sentinel) {
	q, ie := queryValues(r)
	if ie != nil {
		writeInputError(w, ie)
		return
	}
	// The format is checked first: a bad one is the request's mistake
	// whether or not a change is recorded.
	format := q.Get("format")
	if format != "" && format != "json" && format != "html" {
		writeInputError(w, &InputError{Field: "format", Value: format, Limit: "json or html", Message: "unknown format"})
		return
	}
	h, err := api.watches.History(r.Context(), s.ID)
	if err != nil {
		api.internal(w, err)
		return
	}
	d, _, view, ie := pickDiff(h, q)
	if ie != nil {
		if ie.Code == CodeNotFound {
			writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Message: ie.Message})
		} else {
			writeInputError(w, ie)
		}
		return
	}
	if format == "html" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := d.WriteHTML(w, view); err != nil {
			api.logger.Debug("write diff", "err", err)
		}
		return
	}
	if view == diff.ChangesOnly {
		*d = d.ChangesOnly()
	}
	writeJSON(w, http.StatusOK, d)
}

// pickDiff reads ?n= (default the latest change) and ?view= (side or
// changes, default changes) of q, the request's parsed query string
// (queryValues), each given once, and returns a copy of that change's
// difference and its number; a change without one is CodeNotFound. The
// watch page's diff reads it too, which serve's check of API parameters
// does not see.
func pickDiff(h []watch.Change, q url.Values) (*diff.Result, int, diff.View, *InputError) {
	if ie := givenOnce(q, "n", "view"); ie != nil {
		return nil, 0, 0, ie
	}
	n := len(h)
	if v := q.Get("n"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > len(h) {
			limit := fmt.Sprintf("1 to %d", len(h))
			if len(h) == 0 {
				limit = "none: no changes recorded yet" // not "1 to 0"
			}
			return nil, 0, 0, &InputError{Field: "n", Value: v, Limit: limit, Message: "no such change"}
		}
	}
	view := diff.ChangesOnly
	switch v := q.Get("view"); v {
	case "", "changes":
	case "side":
		view = diff.SideBySide
	default:
		return nil, 0, 0, &InputError{Field: "view", Value: v, Limit: "side or changes", Message: "unknown view"}
	}
	if n == 0 || h[n-1].Diff == nil {
		return nil, 0, 0, &InputError{Code: CodeNotFound, Field: "n", Message: "no difference recorded"}
	}
	d := *h[n-1].Diff
	return &d, n, view, nil
}

func (api *watchAPI) feed(w http.ResponseWriter, r *http.Request, k watch.Key, s *watch.Sentinel) {
	api.writeFeed(w, r, k, "watch:"+s.ID, watchFeedPath(s.ID), s.Installed)
}

func (api *watchAPI) userFeed(w http.ResponseWriter, r *http.Request, k watch.Key) {
	api.writeFeed(w, r, k, "user:"+k.User, userFeedPath, k.Created)
}

// writeFeed answers the Atom feed name, served at path and begun at since
// (its <updated> while it has no entries). Its self link is the feed's
// URL as the listings give it, with k's token, not the request's URL,
// which may be relative to a proxy or carry a reader's extra query.
// The answer is not to be stored by caches (its URL holds a token), but a
// reader's own If-None-Match (the ETag is the body's hash) or
// If-Modified-Since (the feed's <updated>) gets 304, so that a poll of an
// unchanged feed does not fetch it whole.
func (api *watchAPI) writeFeed(w http.ResponseWriter, r *http.Request, k watch.Key, name, path string, since time.Time) {
	feeds, err := api.feedURLs(r, k)
	if err != nil {
		api.internal(w, err)
		return
	}
	b, updated, err := api.feeds.Feed(r.Context(), name, feeds.of(path), since)
	if err != nil {
		api.internal(w, err)
		return
	}
	w.Header().Set("Cache-Control", "private, no-store")
	serveAtom(w, r, b, updated)
}

func (api *watchAPI) listAlerts(w http.ResponseWriter, r *http.Request, k watch.Key) {
	feeds, err := api.feedURLs(r, k)
	if err != nil {
		api.internal(w, err)
		return
	}
	list := api.alerts.List(k.User)
	out := make([]alertJSON, len(list))
	for i := range list {
		out[i] = alertOut(&list[i])
		out[i].Feed = feeds.Alert(list[i].ID)
	}
	writeJSON(w, http.StatusOK, map[string]any{"alerts": out, "feed": feeds.User()})
}

type alertRequest struct {
	Query  string   `json:"query"`
	Notify []string `json:"notify"`
	// EveryChange notifies every change of a matching page, not only its
	// first match (alert.Alert.EveryChange).
	EveryChange bool `json:"every_change"`
}

// alertJSON is an alert as the API answers it: its request's fields as a
// request writes them (notify targets as "webhook:URL"), as watchJSON is.
type alertJSON struct {
	ID   string `json:"id"`
	User string `json:"user"`
	alertRequest
	Created time.Time `json:"created"`
	// Feed is the URL of the alert's Atom feed with the key's feed token.
	Feed string `json:"feed,omitempty"`
}

func alertOut(a *alert.Alert) alertJSON {
	q := alertRequest{Query: a.Query, Notify: []string{}, EveryChange: a.EveryChange}
	for _, t := range a.Notify {
		q.Notify = append(q.Notify, t.String())
	}
	return alertJSON{ID: a.ID, User: a.User, alertRequest: q, Created: a.Created}
}

func (api *watchAPI) createAlert(w http.ResponseWriter, r *http.Request, k watch.Key) {
	var q alertRequest
	if !decodeJSONBody(w, r, &q, api.maxBody, "watch.max_request_bytes") {
		return
	}
	out, err := api.addAlert(r.Context(), k, q)
	if err != nil {
		api.fail(w, err)
		return
	}
	w.Header().Set("Location", "/api/v1/alerts/"+out.ID)
	writeJSON(w, http.StatusCreated, alertOut(out))
}

// addAlert adds q for k's user within k's limits (the JSON API and the
// HTML form).
func (api *watchAPI) addAlert(ctx context.Context, k watch.Key, q alertRequest) (*alert.Alert, error) {
	targets, err := notify.ParseTargets(q.Notify, api.feeds.Config().MaxTargets)
	if err != nil {
		return nil, err
	}
	a := alert.Alert{User: k.User, Query: q.Query, Notify: targets, EveryChange: q.EveryChange}
	defer api.creating.lock(k.User)()
	if n := api.alerts.Count(k.User); n >= k.MaxWatches {
		return nil, &watch.LimitError{Field: "alerts", Value: strconv.Itoa(n + 1), Limit: fmt.Sprintf("at most %d", k.MaxWatches)}
	}
	out, err := api.alerts.Add(ctx, a)
	// The query's refusal names the request's field and repeats its value,
	// as a search's does for q.
	var qe *index.QueryError
	if errors.As(err, &qe) {
		return nil, &InputError{Code: CodeBadQuery, Field: "query", Value: q.Query, Limit: qe.Limit, Message: qe.Msg}
	}
	return out, err
}

// errNoSuchAlert answers an alert id that is not the user's (another
// user's alert is answered as missing).
var errNoSuchAlert = errors.New("no such alert")

func (api *watchAPI) removeAlert(w http.ResponseWriter, r *http.Request, k watch.Key) {
	err := api.removeAlertOf(r.Context(), k, r.PathValue("id"))
	if errors.Is(err, errNoSuchAlert) {
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Value: r.PathValue("id"), Message: "no such alert"})
		return
	}
	if err != nil {
		api.internal(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// removeAlertOf removes k's user's alert id; errNoSuchAlert if they have
// none by that id.
func (api *watchAPI) removeAlertOf(ctx context.Context, k watch.Key, id string) error {
	if !api.ownsAlert(k, id) {
		return errNoSuchAlert
	}
	return api.alerts.Remove(ctx, id)
}

// ownsAlert reports whether k's user has an alert id.
func (api *watchAPI) ownsAlert(k watch.Key, id string) bool {
	return slices.ContainsFunc(api.alerts.List(k.User), func(a alert.Alert) bool { return a.ID == id })
}

// alertFeed serves the Atom feed of one of the user's alerts: its matches
// notified to the feed target.
func (api *watchAPI) alertFeed(w http.ResponseWriter, r *http.Request, k watch.Key) {
	id := r.PathValue("id")
	mine := api.alerts.List(k.User)
	i := slices.IndexFunc(mine, func(a alert.Alert) bool { return a.ID == id })
	if i < 0 {
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Value: id, Message: "no such alert"})
		return
	}
	api.writeFeed(w, r, k, "alert:"+id, alertFeedPath(id), mine[i].Created)
}
