package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
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
// (watches, shortest interval, regex size).
//
//	GET    /api/v1/watches                 my watches
//	POST   /api/v1/watches                 install {url, type, select, object, keywords, direction, regex,
//	                                       min_change, every_n, every, mode, period, notify, until}
//	GET    /api/v1/watches/{id}            one watch and its evaluation record
//	DELETE /api/v1/watches/{id}            remove
//	GET    /api/v1/watches/{id}/history    detected changes
//	GET    /api/v1/watches/{id}/diff?n=N&view=side|changes&format=html|json
//	GET    /api/v1/watches/{id}/feed       Atom feed of the watch
//	GET    /api/v1/feed                    Atom feed of the user
//	GET    /api/v1/alerts                  my alerts
//	POST   /api/v1/alerts                  {query, notify}
//	DELETE /api/v1/alerts/{id}
type watchAPI struct {
	watches *watch.Engine
	alerts  *alert.Matcher // nil: no alert routes
	feeds   *notify.Outbox
	maxBody int64
	logger  *slog.Logger
}

func (api *watchAPI) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/watches", api.authed(api.list))
	mux.HandleFunc("POST /api/v1/watches", api.authed(api.create))
	mux.HandleFunc("GET /api/v1/watches/{id}", api.authed(api.owned(api.show)))
	mux.HandleFunc("DELETE /api/v1/watches/{id}", api.authed(api.owned(api.remove)))
	mux.HandleFunc("GET /api/v1/watches/{id}/history", api.authed(api.owned(api.history)))
	mux.HandleFunc("GET /api/v1/watches/{id}/diff", api.authed(api.owned(api.diff)))
	mux.HandleFunc("GET /api/v1/watches/{id}/feed", api.authed(api.owned(api.feed)))
	mux.HandleFunc("GET /api/v1/feed", api.authed(api.userFeed))
	if api.alerts != nil {
		mux.HandleFunc("GET /api/v1/alerts", api.authed(api.listAlerts))
		mux.HandleFunc("POST /api/v1/alerts", api.authed(api.createAlert))
		mux.HandleFunc("DELETE /api/v1/alerts/{id}", api.authed(api.removeAlert))
	}
}

type keyFunc func(http.ResponseWriter, *http.Request, watch.Key)
type sentinelFunc func(http.ResponseWriter, *http.Request, watch.Key, *watch.Sentinel)

func (api *watchAPI) authed(h keyFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		secret, ok := bearerKey(w, r, "deltaq-watch")
		if !ok {
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
	writeJSON(w, http.StatusOK, map[string]any{"watches": ss})
}

// watchRequest is the body of POST /api/v1/watches; durations are Go
// duration strings ("1h30m"), until is RFC 3339.
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

// Spec turns a request into a spec; errors name the field.
func (q *watchRequest) spec(user string) (watch.Spec, error) {
	s := watch.Spec{User: user, URL: q.URL, Type: watch.Type(q.Type), Selector: q.Select, Object: q.Object,
		Keywords: q.Keywords, Direction: watch.Direction(q.Direction), Regex: q.Regex, MinChange: q.MinChange,
		EveryN: q.EveryN, Mode: watch.Mode(q.Mode)}
	var err error
	for _, d := range []struct {
		field, v string
		to       *time.Duration
	}{{"every", q.Every, &s.Every}, {"period", q.Period, &s.Period}} {
		if d.v == "" {
			continue
		}
		if *d.to, err = time.ParseDuration(d.v); err != nil {
			return s, &InputError{Field: d.field, Value: d.v, Limit: "a duration such as 1h or 30m", Message: "not a duration"}
		}
	}
	if q.Until != "" {
		if s.Stop, err = time.Parse(time.RFC3339, q.Until); err != nil {
			return s, &InputError{Field: "until", Value: q.Until, Limit: "an RFC 3339 time", Message: "not a time"}
		}
	}
	for _, n := range q.Notify {
		t, err := notify.ParseTarget(n)
		if err != nil {
			return s, &InputError{Field: "notify", Value: n, Limit: "webhook:URL, email:ADDR or feed", Message: err.Error()}
		}
		s.Notify = append(s.Notify, t)
	}
	return s, nil
}

func (api *watchAPI) create(w http.ResponseWriter, r *http.Request, k watch.Key) {
	var q watchRequest
	if !decodeJSONBody(w, r, &q, api.maxBody, "watch.max_request_bytes") {
		return
	}
	spec, err := q.spec(k.User)
	if err != nil {
		api.fail(w, err)
		return
	}
	mine, err := api.watches.List(r.Context(), k.User)
	if err != nil {
		api.internal(w, err)
		return
	}
	if err := k.Allows(spec, len(mine)); err != nil {
		api.fail(w, err)
		return
	}
	s, err := api.watches.Install(r.Context(), spec)
	if err != nil {
		api.fail(w, err)
		return
	}
	w.Header().Set("Location", "/api/v1/watches/"+s.ID)
	writeJSON(w, http.StatusCreated, s)
}

// fail answers bad input with 400 naming the field, anything else with 500.
func (api *watchAPI) fail(w http.ResponseWriter, err error) {
	var ie *InputError
	var le *watch.LimitError
	var qe *index.QueryError
	switch {
	case errors.As(err, &ie):
		writeInputError(w, ie)
	case errors.As(err, &le):
		writeInputError(w, &InputError{Field: le.Field, Value: le.Value, Limit: le.Limit, Message: "over this key's limit"})
	case errors.As(err, &qe):
		writeInputError(w, &InputError{Code: CodeBadQuery, Field: "query", Message: qe.Msg})
	case errors.Is(err, watch.ErrObjectNotFound), errors.Is(err, watch.ErrInvalid):
		writeInputError(w, &InputError{Field: "spec", Message: err.Error()})
	default:
		api.internal(w, err)
	}
}

func (api *watchAPI) show(w http.ResponseWriter, _ *http.Request, _ watch.Key, s *watch.Sentinel) {
	writeJSON(w, http.StatusOK, s)
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
	writeJSON(w, http.StatusOK, map[string]any{"changes": h})
}

// diff shows the n-th kept change (default the latest) side by side or
// changes only, as HTML or JSON.
func (api *watchAPI) diff(w http.ResponseWriter, r *http.Request, _ watch.Key, s *watch.Sentinel) {
	h, err := api.watches.History(r.Context(), s.ID)
	if err != nil {
		api.internal(w, err)
		return
	}
	n := len(h)
	if v := r.URL.Query().Get("n"); v != "" {
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > len(h) {
			writeInputError(w, &InputError{Field: "n", Value: v, Limit: fmt.Sprintf("1 to %d", len(h)), Message: "no such change"})
			return
		}
	}
	if n == 0 || h[n-1].Diff == nil {
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Message: "no difference recorded"})
		return
	}
	view := diff.ChangesOnly
	switch v := r.URL.Query().Get("view"); v {
	case "", "changes":
	case "side":
		view = diff.SideBySide
	default:
		writeInputError(w, &InputError{Field: "view", Value: v, Limit: "side or changes", Message: "unknown view"})
		return
	}
	d := *h[n-1].Diff
	switch f := r.URL.Query().Get("format"); f {
	case "", "json":
		if view == diff.ChangesOnly {
			d = d.ChangesOnly()
		}
		writeJSON(w, http.StatusOK, d)
	case "html":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := d.WriteHTML(w, view); err != nil {
			api.logger.Debug("write diff", "err", err)
		}
	default:
		writeInputError(w, &InputError{Field: "format", Value: f, Limit: "json or html", Message: "unknown format"})
	}
}

func (api *watchAPI) feed(w http.ResponseWriter, r *http.Request, _ watch.Key, s *watch.Sentinel) {
	api.writeFeed(w, r, "watch:"+s.ID)
}

func (api *watchAPI) userFeed(w http.ResponseWriter, r *http.Request, k watch.Key) {
	api.writeFeed(w, r, "user:"+k.User)
}

func (api *watchAPI) writeFeed(w http.ResponseWriter, r *http.Request, name string) {
	b, err := api.feeds.Feed(r.Context(), name, r.URL.String())
	if err != nil {
		api.internal(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	w.Write(b)
}

func (api *watchAPI) listAlerts(w http.ResponseWriter, _ *http.Request, k watch.Key) {
	writeJSON(w, http.StatusOK, map[string]any{"alerts": api.alerts.List(k.User)})
}

type alertRequest struct {
	Query  string   `json:"query"`
	Notify []string `json:"notify"`
}

func (api *watchAPI) createAlert(w http.ResponseWriter, r *http.Request, k watch.Key) {
	var q alertRequest
	if !decodeJSONBody(w, r, &q, api.maxBody, "watch.max_request_bytes") {
		return
	}
	a := alert.Alert{User: k.User, Query: q.Query}
	for _, n := range q.Notify {
		t, err := notify.ParseTarget(n)
		if err != nil {
			writeInputError(w, &InputError{Field: "notify", Value: n, Limit: "webhook:URL, email:ADDR or feed", Message: err.Error()})
			return
		}
		a.Notify = append(a.Notify, t)
	}
	if n := len(api.alerts.List(k.User)); n >= k.MaxWatches {
		writeInputError(w, &InputError{Field: "alerts", Value: strconv.Itoa(n + 1), Limit: fmt.Sprintf("at most %d", k.MaxWatches), Message: "over this key's limit"})
		return
	}
	out, err := api.alerts.Add(r.Context(), a)
	if err != nil {
		api.fail(w, err)
		return
	}
	w.Header().Set("Location", "/api/v1/alerts/"+out.ID)
	writeJSON(w, http.StatusCreated, out)
}

func (api *watchAPI) removeAlert(w http.ResponseWriter, r *http.Request, k watch.Key) {
	id := r.PathValue("id")
	mine := false
	for _, a := range api.alerts.List(k.User) {
		mine = mine || a.ID == id
	}
	if !mine {
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Value: id, Message: "no such alert"})
		return
	}
	if err := api.alerts.Remove(r.Context(), id); err != nil {
		api.internal(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
