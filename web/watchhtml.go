package web

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/deltaq/deltaq/alert"
	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// The HTML pages of watches and search alerts, over the same operations
// and the same per-key auth as /api/v1/watches:
//
//	GET  /watches                    my watches and the form that adds one (or the key form)
//	POST /watches                    add a watch
//	POST /watches/key                keep a key in this browser; POST /watches/signout forgets it
//	GET  /watches/{id}               a watch, its history and its failed checks
//	GET  /watches/{id}/diff?n=&view= one change, side by side or changes only
//	POST /watches/{id}/delete        remove a watch
//	GET  /watches/alerts             my search alerts and the form that adds one
//	POST /watches/alerts             add an alert; POST /watches/alerts/{id}/delete removes one
//
// The key is entered once and kept in a cookie rather than a form field:
// a field would have to ride in every link, and keys in URLs end up in
// history, logs and Referer headers. The cookie is HttpOnly (no script
// reads it), SameSite=Strict and scoped to Path=/watches, so it is never
// sent to the JSON API (which takes only a bearer key, so a cookie there
// would be a CSRF hole) nor with a request another site starts. It lives
// for the browser session: a key is a credential. State-changing forms
// are POSTs behind http.CrossOriginProtection (Sec-Fetch-Site / Origin),
// and each carries a token, an HMAC of the key, that another site can
// neither read nor compute.

// watchKeyCookie carries the watch API key of the HTML pages.
const watchKeyCookie = "deltaq_watch_key"

// WatchPath is the prefix of the watch pages (the browser's way to
// watches and search alerts) and the cookie's Path.
const WatchPath = "/watches"

var watchTemplates = template.Must(template.New("watch.html").Funcs(template.FuncMap{
	"stamp": stamp,
	"join":  strings.Join,
	"pct":   func(f float64) string { return fmt.Sprintf("%.0f %%", f*100) },
	"inc":   func(i int) int { return i + 1 },
	"date":  func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
}).ParseFS(templateFS, "templates/watch.html"))

// watchForm is what the add-watch form holds, kept to fill it again after
// a refused submission.
type watchForm struct {
	URL, Type, Select, Object, Keywords, Regex, Every, Notify, Until string
}

// watchPage is the data of every watch template.
type watchPage struct {
	Error   *InputError
	Message string // a plain notice (key refused, not found)
	User    string
	CSRF    string
	Types   []watch.Type
	Watches []*watch.Sentinel
	// Checked is when each watch's page was last checked, by watch ID.
	Checked map[string]time.Time
	// Feed is the URL, with the key's feed token, of the user's feed (the
	// lists) or of the watch's (a watch's page), for a feed reader.
	Feed     string
	Form     watchForm
	Sentinel *watch.Sentinel
	History  []watch.Change
	Failures []watch.Failure
	// One change's difference: its number, the view and the rendered HTML
	// (package diff escapes every text).
	N       int
	Change  *watch.Change
	Side    bool
	Diff    template.HTML
	Alerts  []alert.Alert
	Query   string
	AlertTo string
	Alerted bool // alert routes are served
}

func (api *watchAPI) htmlRoutes(mux *http.ServeMux) {
	csrf := http.NewCrossOriginProtection()
	post := func(pattern string, h http.HandlerFunc) { mux.Handle("POST "+pattern, csrf.Handler(h)) }
	mux.HandleFunc("GET "+WatchPath, api.page(api.htmlList))
	post(WatchPath, api.form(api.htmlAdd))
	post(WatchPath+"/key", api.htmlKey)
	post(WatchPath+"/signout", api.htmlSignOut)
	mux.HandleFunc("GET "+WatchPath+"/{id}", api.page(api.htmlOwned(api.htmlShow)))
	mux.HandleFunc("GET "+WatchPath+"/{id}/diff", api.page(api.htmlOwned(api.htmlDiff)))
	post(WatchPath+"/{id}/delete", api.form(api.htmlOwned(api.htmlRemove)))
	if api.alerts != nil {
		mux.HandleFunc("GET "+WatchPath+"/alerts", api.page(api.htmlAlerts))
		post(WatchPath+"/alerts", api.form(api.htmlAddAlert))
		post(WatchPath+"/alerts/{id}/delete", api.form(api.htmlRemoveAlert))
	}
}

// htmlFunc serves a signed-in user; p carries the user and the form token.
type htmlFunc func(w http.ResponseWriter, r *http.Request, k watch.Key, p *watchPage)

// page authenticates the cookie's key, or shows the key form.
func (api *watchAPI) page(h htmlFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(watchKeyCookie)
		if err != nil {
			api.keyForm(w, "")
			return
		}
		k, ok := api.keyOf(w, c.Value, "This browser's key is not valid any more; enter another.")
		if !ok {
			return
		}
		h(w, r, k, &watchPage{User: k.User, CSRF: formToken(c.Value), Types: watch.Types, Alerted: api.alerts != nil})
	}
}

// keyOf authenticates secret; otherwise it answers, with the key form
// saying refused, or with 500, and ok is false.
func (api *watchAPI) keyOf(w http.ResponseWriter, secret, refused string) (watch.Key, bool) {
	k, ok, err := api.watches.Authenticate(secret)
	if err != nil {
		api.htmlInternal(w, err)
		return k, false
	}
	if !ok {
		api.keyForm(w, refused)
	}
	return k, ok
}

// keyForm shows the form that takes a key (401), with a notice.
func (api *watchAPI) keyForm(w http.ResponseWriter, notice string) {
	api.renderPage(w, "key", http.StatusUnauthorized, &watchPage{Alerted: api.alerts != nil, Message: notice})
}

// form is page for a POST: it reads the form (within
// watch.max_request_bytes) and checks its token.
func (api *watchAPI) form(h htmlFunc) http.HandlerFunc {
	return api.page(func(w http.ResponseWriter, r *http.Request, k watch.Key, p *watchPage) {
		r.Body = http.MaxBytesReader(w, r.Body, api.maxBody)
		if err := r.ParseForm(); err != nil {
			p.Error = &InputError{Field: "form", Limit: "a URL-encoded form", Message: err.Error()}
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				p.Error.Limit = fmt.Sprintf("at most %d bytes (watch.max_request_bytes)", tooBig.Limit)
				p.Error.Message = fmt.Sprintf("the form is over %d bytes", tooBig.Limit)
			}
			api.renderPage(w, "message", http.StatusBadRequest, p)
			return
		}
		if !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(p.CSRF)) {
			p.Error = &InputError{Field: "csrf", Message: "the form's token does not match this browser's key; reload the page and submit again"}
			api.renderPage(w, "message", http.StatusForbidden, p)
			return
		}
		h(w, r, k, p)
	})
}

// formToken is the token of a key's forms: an HMAC of a constant under
// the key, so it needs no server state and only the key's holder knows it.
func formToken(secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("deltaq watch form"))
	return hex.EncodeToString(m.Sum(nil))
}

func (api *watchAPI) renderPage(w http.ResponseWriter, name string, code int, p *watchPage) {
	api.render(w, watchTemplates.Lookup(name), code, p)
}

func (api *watchAPI) htmlInternal(w http.ResponseWriter, err error) {
	api.logger.Error("watch pages", "err", err)
	api.renderPage(w, "message", http.StatusInternalServerError, &watchPage{Message: "Something failed on our side; please try again."})
}

// htmlFail shows the user's mistake on the page it came from (400), or
// answers 500.
func (api *watchAPI) htmlFail(w http.ResponseWriter, name string, p *watchPage, err error) {
	if p.Error = userError(err); p.Error == nil {
		api.htmlInternal(w, err)
		return
	}
	code := http.StatusBadRequest
	if p.Error.Code == CodeNotFound {
		code = http.StatusNotFound
	}
	api.renderPage(w, name, code, p)
}

func (api *watchAPI) htmlKey(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, api.maxBody)
	secret := strings.TrimSpace(r.PostFormValue("key"))
	if strings.HasPrefix(secret, watch.FeedTokenPrefix) {
		api.keyForm(w, "That is a feed token ("+watch.FeedTokenPrefix+"…), which goes in a feed reader's URL and only reads feeds; enter the API key, which starts with "+watch.KeyPrefix+" (keys come from `deltaq watch key USER`).")
		return
	}
	if _, ok := api.keyOf(w, secret, "That key is not known here (keys come from `deltaq watch key USER`)."); !ok {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: watchKeyCookie, Value: secret, Path: WatchPath,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, WatchPath, http.StatusSeeOther)
}

func (api *watchAPI) htmlSignOut(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: watchKeyCookie, Path: WatchPath, MaxAge: -1,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, WatchPath, http.StatusSeeOther)
}

func (api *watchAPI) htmlList(w http.ResponseWriter, r *http.Request, k watch.Key, p *watchPage) {
	api.showList(w, r, k, p, http.StatusOK)
}

func (api *watchAPI) showList(w http.ResponseWriter, r *http.Request, k watch.Key, p *watchPage, code int) {
	var err error
	if p.Watches, err = api.watches.List(r.Context(), k.User); err != nil {
		api.htmlInternal(w, err)
		return
	}
	if p.Checked, err = api.watches.LastChecked(p.Watches...); err != nil {
		api.htmlInternal(w, err)
		return
	}
	feeds, err := api.feedURLs(r, k)
	if err != nil {
		api.htmlInternal(w, err)
		return
	}
	p.Feed = feeds.User()
	if p.Form.Type == "" {
		// The form offers the key's shortest interval, in sight and
		// editable (the demo's key allows a minute, so its watches show
		// changes while one looks).
		p.Form = watchForm{Type: string(watch.Any), Every: k.MinEvery.String(), Notify: "feed"}
	}
	api.renderPage(w, "watches", code, p)
}

func (api *watchAPI) htmlAdd(w http.ResponseWriter, r *http.Request, k watch.Key, p *watchPage) {
	f := watchForm{URL: r.PostFormValue("url"), Type: r.PostFormValue("type"), Select: r.PostFormValue("select"),
		Object: r.PostFormValue("object"), Keywords: r.PostFormValue("keywords"), Regex: r.PostFormValue("regex"),
		Every: r.PostFormValue("every"), Notify: r.PostFormValue("notify"), Until: r.PostFormValue("until")}
	q := watchRequest{URL: strings.TrimSpace(f.URL), Type: f.Type, Select: strings.TrimSpace(f.Select), Object: f.Object,
		Regex: f.Regex, Every: strings.TrimSpace(f.Every), Notify: strings.Fields(f.Notify), Until: strings.TrimSpace(f.Until)}
	for _, kw := range strings.Split(f.Keywords, ",") {
		if kw = strings.TrimSpace(kw); kw != "" {
			q.Keywords = append(q.Keywords, kw)
		}
	}
	s, err := api.install(r.Context(), k, &q)
	if err != nil {
		p.Form = f
		if p.Error = userError(err); p.Error == nil {
			api.htmlInternal(w, err)
			return
		}
		api.showList(w, r, k, p, http.StatusBadRequest)
		return
	}
	http.Redirect(w, r, WatchPath+"/"+s.ID, http.StatusSeeOther)
}

type sentinelPage func(w http.ResponseWriter, r *http.Request, k watch.Key, s *watch.Sentinel, p *watchPage)

// htmlOwned loads the {id} watch; another user's is shown as missing.
func (api *watchAPI) htmlOwned(h sentinelPage) htmlFunc {
	return func(w http.ResponseWriter, r *http.Request, k watch.Key, p *watchPage) {
		s, err := api.watches.Get(r.Context(), r.PathValue("id"))
		if errors.Is(err, repo.ErrNotFound) || err == nil && s.User != k.User {
			p.Message = "There is no watch " + r.PathValue("id") + " among yours."
			api.renderPage(w, "message", http.StatusNotFound, p)
			return
		}
		if err != nil {
			api.htmlInternal(w, err)
			return
		}
		h(w, r, k, s, p)
	}
}

func (api *watchAPI) htmlShow(w http.ResponseWriter, r *http.Request, k watch.Key, s *watch.Sentinel, p *watchPage) {
	h, err := api.watches.History(r.Context(), s.ID)
	if err != nil {
		api.htmlInternal(w, err)
		return
	}
	p.Sentinel, p.History = s, h
	if p.Failures, err = api.watches.Failures(r.Context(), s.ID); err != nil {
		api.htmlInternal(w, err)
		return
	}
	if p.Checked, err = api.watches.LastChecked(s); err != nil {
		api.htmlInternal(w, err)
		return
	}
	feeds, err := api.feedURLs(r, k)
	if err != nil {
		api.htmlInternal(w, err)
		return
	}
	p.Feed = feeds.Watch(s.ID)
	api.renderPage(w, "watch", http.StatusOK, p)
}

func (api *watchAPI) htmlDiff(w http.ResponseWriter, r *http.Request, _ watch.Key, s *watch.Sentinel, p *watchPage) {
	h, err := api.watches.History(r.Context(), s.ID)
	if err != nil {
		api.htmlInternal(w, err)
		return
	}
	p.Sentinel = s
	q, ie := queryValues(r)
	if ie != nil {
		api.htmlFail(w, "diff", p, ie)
		return
	}
	d, n, view, ie := pickDiff(h, q)
	if ie != nil {
		api.htmlFail(w, "diff", p, ie)
		return
	}
	var b bytes.Buffer
	if err := d.WriteHTML(&b, view); err != nil {
		api.htmlInternal(w, err)
		return
	}
	p.N, p.Change, p.Side, p.Diff = n, &h[n-1], view == diff.SideBySide, template.HTML(b.String())
	api.renderPage(w, "diff", http.StatusOK, p)
}

func (api *watchAPI) htmlRemove(w http.ResponseWriter, r *http.Request, _ watch.Key, s *watch.Sentinel, _ *watchPage) {
	if err := api.watches.Remove(r.Context(), s.ID); err != nil {
		api.htmlInternal(w, err)
		return
	}
	http.Redirect(w, r, WatchPath, http.StatusSeeOther)
}

func (api *watchAPI) htmlAlerts(w http.ResponseWriter, r *http.Request, k watch.Key, p *watchPage) {
	feeds, err := api.feedURLs(r, k)
	if err != nil {
		api.htmlInternal(w, err)
		return
	}
	p.Feed = feeds.User()
	p.Alerts, p.AlertTo = api.alerts.List(k.User), "feed"
	api.renderPage(w, "alerts", http.StatusOK, p)
}

func (api *watchAPI) htmlAddAlert(w http.ResponseWriter, r *http.Request, k watch.Key, p *watchPage) {
	q := alertRequest{Query: r.PostFormValue("query"), Notify: strings.Fields(r.PostFormValue("notify")), EveryChange: r.PostFormValue("every_change") != ""}
	if _, err := api.addAlert(r.Context(), k, q); err != nil {
		p.Alerts, p.Query, p.AlertTo = api.alerts.List(k.User), q.Query, r.PostFormValue("notify")
		api.htmlFail(w, "alerts", p, err)
		return
	}
	http.Redirect(w, r, WatchPath+"/alerts", http.StatusSeeOther)
}

func (api *watchAPI) htmlRemoveAlert(w http.ResponseWriter, r *http.Request, k watch.Key, p *watchPage) {
	if err := api.removeAlertOf(r.Context(), k, r.PathValue("id")); err != nil {
		p.Alerts = api.alerts.List(k.User)
		api.htmlFail(w, "alerts", p, err)
		return
	}
	http.Redirect(w, r, WatchPath+"/alerts", http.StatusSeeOther)
}
