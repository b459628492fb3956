package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltaq/deltaq/ads"
)

// adsAPIPrefix is where the advertiser API is mounted, without stripping
// it.
const adsAPIPrefix = "/api/v1/ads/"

// adsAPI serves the advertiser API over an ads.Store. Every request carries
// "Authorization: Bearer <key>"; an advertiser sees and changes only its
// own ads.
//
//	GET    /api/v1/ads/          list my ads
//	POST   /api/v1/ads/          create an ad {title, text, url, targets: [{phrase, bid}]}
//	GET    /api/v1/ads/{id}      one ad
//	PATCH  /api/v1/ads/{id}      change title, text, url or targets (the whole list); what it leaves out is kept, and text: null removes the text
//	DELETE /api/v1/ads/{id}      revoke
//	GET    /api/v1/ads/account   budget, spend today, next reset
//	PATCH  /api/v1/ads/account   {daily_budget}: 0 removes the budget
//	GET    /api/v1/ads/report    impressions, clicks, CTR and spend per ad and phrase
//
// Amounts are in currency units (bids per click, budgets per day), with
// at most six decimals: ads.Config.BidIn and BudgetIn refuse finer
// amounts rather than round them.
// Answers: 401 without a valid key; 404 naming the id for an ad that does
// not exist or belongs to someone else (never 403, which would confirm
// the id); 400 with {"error": {"code", "field", "value", "limit",
// "message"}} for bad JSON, values out of range, or an id not in the form
// the API writes (a positive decimal number without leading zeros); 405
// with Allow for a method a path does not take; 413 for a body over
// ads.max_request_bytes.
type adsAPI struct {
	store   *ads.Store
	maxBody int64 // ads.max_request_bytes
	logger  *slog.Logger
}

// routes mounts the advertiser API on mux.
func (api *adsAPI) routes(mux *http.ServeMux) {
	// The collection answers with and without the trailing slash: without
	// it, the mux would answer an HTML redirect.
	for _, collection := range []string{adsAPIPrefix + "{$}", strings.TrimSuffix(adsAPIPrefix, "/")} {
		mux.HandleFunc("GET "+collection, api.authed(api.apiList))
		mux.HandleFunc("POST "+collection, api.authed(api.apiCreate))
	}
	// One route per path, each dispatching on the method itself: with
	// method patterns, the mux would take DELETE /account for an ad id
	// ("DELETE .../{id}"), and list every method of both paths in Allow.
	mux.Handle(adsAPIPrefix+"account", byMethod{
		http.MethodGet:   api.authed(api.apiAccount),
		http.MethodPatch: api.authed(api.apiSetBudget),
	})
	mux.Handle(adsAPIPrefix+"report", byMethod{
		http.MethodGet: api.authed(api.apiReport),
	})
	mux.Handle(adsAPIPrefix+"{id}", byMethod{
		http.MethodGet:    api.authed(api.withAdID(api.apiGet)),
		http.MethodPatch:  api.authed(api.withAdID(api.apiUpdate)),
		http.MethodDelete: api.authed(api.withAdID(api.apiRevoke)),
	})
}

// byMethod serves a path by the request's method (HEAD as GET), and any
// other method with 405 and the Allow list, as noRoute answers for
// the mux's method patterns. Its routes take no query parameters, which
// serve checks only for method patterns.
type byMethod map[string]http.HandlerFunc

func (m byMethod) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	if h, ok := m[method]; ok {
		if ie := onlyParams(method+" "+r.Pattern, r, r.URL.Query(), nil); ie != nil {
			writeInputError(w, ie)
			return
		}
		h(w, r)
		return
	}
	allowed := slices.Sorted(maps.Keys(m))
	if m[http.MethodGet] != nil {
		allowed = append(allowed, http.MethodHead)
		slices.Sort(allowed)
	}
	methodNotAllowed(w, r, strings.Join(allowed, ", "))
}

type apiFunc func(w http.ResponseWriter, r *http.Request, adv ads.Advertiser)

type adFunc func(w http.ResponseWriter, r *http.Request, adv ads.Advertiser, id uint64)

// authed resolves the bearer key to an advertiser, or answers 401.
func (api *adsAPI) authed(h apiFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, ok := bearerKey(w, r, "deltaq-ads")
		if !ok {
			return
		}
		adv, ok := api.store.Authenticate(key)
		if !ok {
			refuseKey(w, "deltaq-ads")
			return
		}
		h(w, r, adv)
	}
}

// withAdID parses the {id} path segment (parseAdID); an id that does not
// parse is answered 400 naming it.
func (api *adsAPI) withAdID(h adFunc) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, adv ads.Advertiser) {
		id, ie := parseAdID(r.PathValue("id"))
		if ie != nil {
			writeInputError(w, ie)
			return
		}
		h(w, r, adv, id)
	}
}

// adIDForm is what an ad id in a path must be.
var adIDForm = "a positive decimal number without leading zeros, at most " + strconv.FormatUint(math.MaxUint64, 10)

// parseAdID reads an ad id in the one form the API writes it (adOut,
// Location): digits without a sign, spaces or leading zeros, so that one
// ad has one path and /01 is not ad 1.
func parseAdID(v string) (uint64, *InputError) {
	bad := &InputError{Field: "id", Value: v, Limit: adIDForm, Message: "id must be an ad id: " + adIDForm}
	if v == "" || v[0] < '1' || v[0] > '9' {
		return 0, bad
	}
	for i := 1; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, bad
		}
	}
	id, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, bad
	}
	return id, nil
}

// Wire formats.

type targetJSON struct {
	Phrase string   `json:"phrase"`
	Bid    *float64 `json:"bid"`
}

// adRequest is the body of an ad's submission (POST) or change (PATCH).
type adRequest struct {
	Title   *string       `json:"title"`
	Text    *string       `json:"text"`
	URL     *string       `json:"url"`
	Targets *[]targetJSON `json:"targets"`
}

// adPatch is the body of an ad's change: what it leaves out is kept, and
// what it gives as null is removed, as in a JSON merge patch (RFC 7396),
// which encoding/json does not tell apart (both leave a pointer nil).
type adPatch struct {
	adRequest
	null map[string]bool // "title", "text", "url", "targets"
}

// UnmarshalJSON reads the whole body, so that a type error's offset,
// which names the member (jsonPathAt), is the body's.
func (p *adPatch) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p.adRequest); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	p.null = map[string]bool{}
	for k, v := range members {
		if string(v) == "null" {
			// encoding/json matches member names to fields in any case.
			p.null[strings.ToLower(k)] = true
		}
	}
	return nil
}

type targetOut struct {
	Phrase string  `json:"phrase"`
	Bid    float64 `json:"bid"`
}

type adJSON struct {
	ID      uint64      `json:"id"`
	Title   string      `json:"title"`
	Text    string      `json:"text"`
	URL     string      `json:"url"`
	Targets []targetOut `json:"targets"`
	Status  ads.Status  `json:"status"`
	Created time.Time   `json:"created"`
	Revoked *time.Time  `json:"revoked,omitempty"`
}

func adOut(a ads.Ad) adJSON {
	out := adJSON{ID: a.ID, Title: a.Title, Text: a.Text, URL: a.URL, Status: a.Status, Created: a.Created, Targets: []targetOut{}}
	for _, t := range a.Targets {
		out.Targets = append(out.Targets, targetOut{Phrase: t.Phrase, Bid: t.Bid.Units()})
	}
	if !a.Revoked.IsZero() {
		r := a.Revoked
		out.Revoked = &r
	}
	return out
}

type accountJSON struct {
	ID             uint64   `json:"id"`
	Name           string   `json:"name"`
	DailyBudget    *float64 `json:"daily_budget"` // null: no budget
	TimeZone       string   `json:"time_zone"`
	SpentToday     float64  `json:"spent_today"`
	RemainingToday *float64 `json:"remaining_today"` // null: no budget
	ResetsAt       string   `json:"resets_at"`
}

type phraseJSON struct {
	Phrase      string  `json:"phrase"`
	Bid         float64 `json:"bid"`
	Impressions int64   `json:"impressions"`
	Clicks      int64   `json:"clicks"`
	CTR         float64 `json:"ctr"`
	Spend       float64 `json:"spend"`
	// Removed marks a phrase the ad no longer targets, kept for what it
	// was shown and charged; bid is 0.
	Removed bool `json:"removed,omitempty"`
}

type adReportJSON struct {
	ID      uint64       `json:"id"`
	Title   string       `json:"title"`
	Status  ads.Status   `json:"status"`
	Phrases []phraseJSON `json:"phrases"`
}

type reportJSON struct {
	Account accountJSON    `json:"account"`
	Ads     []adReportJSON `json:"ads"`
}

func accountOut(r ads.Report) accountJSON {
	out := accountJSON{
		ID: r.Advertiser.ID, Name: r.Advertiser.Name, TimeZone: r.Advertiser.TimeZone,
		SpentToday: r.SpentToday.Units(), ResetsAt: r.ResetsAt.Format(time.RFC3339),
	}
	if r.Advertiser.DailyBudget > 0 {
		b, rem := r.Advertiser.DailyBudget.Units(), r.RemainingToday.Units()
		out.DailyBudget, out.RemainingToday = &b, &rem
	}
	return out
}

// Handlers.

func (api *adsAPI) apiList(w http.ResponseWriter, r *http.Request, adv ads.Advertiser) {
	list, err := api.store.Ads(r.Context(), adv.ID)
	if err != nil {
		api.apiFail(w, err)
		return
	}
	out := make([]adJSON, 0, len(list))
	for _, a := range list {
		out = append(out, adOut(a))
	}
	writeJSON(w, http.StatusOK, map[string]any{"ads": out})
}

func (api *adsAPI) apiCreate(w http.ResponseWriter, r *http.Request, adv ads.Advertiser) {
	var req adRequest
	if !api.decodeBody(w, r, &req) {
		return
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"title", req.Title != nil}, {"url", req.URL != nil}, {"targets", req.Targets != nil}} {
		if !f.set {
			api.apiFail(w, &ads.FieldError{Field: f.name, Limit: "must be set"})
			return
		}
	}
	spec := ads.AdSpec{Title: *req.Title, URL: *req.URL}
	if req.Text != nil {
		spec.Text = *req.Text
	}
	targets, err := targetsIn(api.store.Config(), *req.Targets)
	if err != nil {
		api.apiFail(w, err)
		return
	}
	spec.Targets = targets
	a, err := api.store.SubmitAd(r.Context(), adv.ID, spec)
	if err == nil {
		w.Header().Set("Location", adsAPIPrefix+strconv.FormatUint(a.ID, 10))
	}
	api.answerAd(w, http.StatusCreated, a, err)
}

func (api *adsAPI) apiGet(w http.ResponseWriter, r *http.Request, adv ads.Advertiser, id uint64) {
	a, err := api.store.Ad(adv.ID, id)
	api.answerAdID(w, id, a, err)
}

func (api *adsAPI) apiUpdate(w http.ResponseWriter, r *http.Request, adv ads.Advertiser, id uint64) {
	// Ownership first: another advertiser's id is 404 whatever the body.
	if _, err := api.store.Ad(adv.ID, id); err != nil {
		api.adFail(w, id, err)
		return
	}
	var req adPatch
	if !api.decodeBody(w, r, &req) {
		return
	}
	// An ad cannot be without its title, its URL or its targets: null for
	// one of them is refused, not taken as "keep". Its text may go.
	for _, f := range []string{"title", "url", "targets"} {
		if req.null[f] {
			api.apiFail(w, &ads.FieldError{Field: f, Value: "null", Limit: "an ad must have one; leave " + f + " out to keep it"})
			return
		}
	}
	u := ads.AdUpdate{Title: req.Title, Text: req.Text, URL: req.URL}
	if req.null["text"] {
		u.Text = new(string)
	}
	if req.Targets != nil {
		targets, err := targetsIn(api.store.Config(), *req.Targets)
		if err != nil {
			api.apiFail(w, err)
			return
		}
		u.Targets = &targets
	}
	a, err := api.store.UpdateAd(r.Context(), adv.ID, id, u)
	api.answerAdID(w, id, a, err)
}

func (api *adsAPI) apiRevoke(w http.ResponseWriter, r *http.Request, adv ads.Advertiser, id uint64) {
	a, err := api.store.RevokeAd(r.Context(), adv.ID, id)
	api.answerAdID(w, id, a, err)
}

func (api *adsAPI) apiAccount(w http.ResponseWriter, r *http.Request, adv ads.Advertiser) {
	rep, err := api.store.Account(adv.ID)
	if err != nil {
		api.apiFail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, accountOut(rep))
}

func (api *adsAPI) apiSetBudget(w http.ResponseWriter, r *http.Request, adv ads.Advertiser) {
	var req struct {
		DailyBudget *float64 `json:"daily_budget"`
	}
	if !api.decodeBody(w, r, &req) {
		return
	}
	if req.DailyBudget == nil {
		api.apiFail(w, &ads.FieldError{Field: "daily_budget", Limit: "must be set (0 removes the budget)"})
		return
	}
	m, err := api.store.Config().BudgetIn("daily_budget", *req.DailyBudget)
	if err != nil {
		api.apiFail(w, err)
		return
	}
	if _, err := api.store.SetDailyBudget(r.Context(), adv.ID, m); err != nil {
		api.apiFail(w, err)
		return
	}
	api.apiAccount(w, r, adv)
}

func (api *adsAPI) apiReport(w http.ResponseWriter, r *http.Request, adv ads.Advertiser) {
	rep, err := api.store.Report(r.Context(), adv.ID)
	if err != nil {
		api.apiFail(w, err)
		return
	}
	out := reportJSON{Account: accountOut(rep), Ads: []adReportJSON{}}
	for _, a := range rep.Ads {
		ar := adReportJSON{ID: a.Ad.ID, Title: a.Ad.Title, Status: a.Ad.Status, Phrases: []phraseJSON{}}
		for _, p := range a.Phrases {
			ar.Phrases = append(ar.Phrases, phraseJSON{Phrase: p.Phrase, Bid: p.Bid.Units(),
				Impressions: p.Impressions, Clicks: p.Clicks, CTR: p.CTR(), Spend: p.Spend.Units(), Removed: p.Removed})
		}
		out.Ads = append(out.Ads, ar)
	}
	writeJSON(w, http.StatusOK, out)
}

// Helpers.

// answerAd answers with a, or with err if there is one.
func (api *adsAPI) answerAd(w http.ResponseWriter, code int, a ads.Ad, err error) {
	if err != nil {
		api.apiFail(w, err)
		return
	}
	writeJSON(w, code, adOut(a))
}

// answerAdID answers a request on ad id with a (200), or with err if
// there is one (adFail).
func (api *adsAPI) answerAdID(w http.ResponseWriter, id uint64, a ads.Ad, err error) {
	if err != nil {
		api.adFail(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, adOut(a))
}

// adFail answers err for a request on ad id: an ad that does not exist,
// or is another advertiser's, is 404 naming the id, in the same words
// for both so that the answer does not confirm someone else's ad.
func (api *adsAPI) adFail(w http.ResponseWriter, id uint64, err error) {
	if errors.Is(err, ads.ErrNotFound) {
		v := strconv.FormatUint(id, 10)
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Field: "id", Value: v, Message: "none of your ads has id " + v})
		return
	}
	api.apiFail(w, err)
}

// decodeBody reads one JSON object of at most ads.max_request_bytes into
// v, rejecting unknown fields, and answers the error itself.
func (api *adsAPI) decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	return decodeJSONBody(w, r, v, api.maxBody, "ads.max_request_bytes")
}

// targetsIn converts wire targets, checking that every bid is set and in
// the configured range.
func targetsIn(cfg ads.Config, in []targetJSON) ([]ads.Target, error) {
	out := make([]ads.Target, len(in))
	for i, t := range in {
		field := fmt.Sprintf("targets[%d].bid", i)
		if t.Bid == nil {
			return nil, &ads.FieldError{Field: field, Limit: "must be set"}
		}
		m, err := cfg.BidIn(field, *t.Bid)
		if err != nil {
			return nil, err
		}
		out[i] = ads.Target{Phrase: t.Phrase, Bid: m}
	}
	return out, nil
}

// apiFail maps an error to its answer.
func (api *adsAPI) apiFail(w http.ResponseWriter, err error) {
	var fe *ads.FieldError
	switch {
	case errors.As(err, &fe):
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: fe.Field, Value: fe.Value, Limit: fe.Limit, Message: fe.Error()})
	case errors.Is(err, ads.ErrNotFound):
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Message: "not found"})
	default:
		api.logger.Error("ads api", "err", err)
		writeError(w, http.StatusInternalServerError, apiError{Code: CodeInternal, Message: "internal error"})
	}
}
