package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

func adsTestConfig() ads.Config {
	return ads.Config{
		Policy: "bmix-e", PerQuery: 2, TimeZone: "UTC", QueryCount: ads.QueryCountTotal,
		MaxAdsPerAdvertiser: 5, MaxPhrasesPerAd: 3, MinBid: 0.01, MaxBid: 10, MaxDailyBudget: 1000,
		Secret: strings.Repeat("k", 32), ClickTTL: time.Hour, RecentClicks: 4,
		FlushInterval: time.Minute, MaxRequestBytes: 4096,
	}
}

// adsEnv is an ads.Store on a real Pebble repository behind the whole
// HTTP front on loopback, with a manual clock and a client that does not
// follow redirects.
type adsEnv struct {
	t      testing.TB
	cfg    ads.Config
	clk    *clock.Manual
	s      *ads.Store
	srv    *httptest.Server
	client *http.Client
}

func newAdsEnv(t testing.TB, cfg ads.Config) *adsEnv {
	t.Helper()
	db, err := repo.Open(t.TempDir(), repo.Config{VersionsKept: 1, FetchLogKept: 2, StatsKept: 1, CacheBytes: 1 << 20}, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &adsEnv{t: t, cfg: cfg, clk: clock.NewManual(time.Date(2026, 3, 10, 10, 0, 0, 0, time.UTC))}
	if e.s, err = ads.Open(t.Context(), db, cfg, ads.Options{Clock: e.clk}); err != nil {
		t.Fatal(err)
	}
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Ads: e.s})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	e.client = e.srv.Client()
	e.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return e
}

func (e *adsEnv) selectAds(phrase string, c int) []ads.Shown {
	e.t.Helper()
	shown, err := e.s.Select(e.t.Context(), phrase, c)
	if err != nil {
		e.t.Fatal(err)
	}
	return shown
}

// get fetches a relative URL without following redirects.
func (e *adsEnv) get(rel string) *http.Response {
	e.t.Helper()
	resp, err := e.client.Get(e.srv.URL + rel)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func decodeJSON(t testing.TB, resp *http.Response, v any) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want JSON", ct)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("decode body: %v", err)
	}
}

// call makes an API request with the advertiser key (none if "") and
// decodes the JSON answer into out (if not nil).
func (e *adsEnv) call(method, path, key, body string, out any) int {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		decodeJSON(e.t, resp, out)
	} else if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode
}

func (e *adsEnv) apiAdvertiser(name string) (ads.Advertiser, string) {
	e.t.Helper()
	a, key, err := e.s.CreateAdvertiser(e.t.Context(), ads.AdvertiserParams{Name: name})
	if err != nil {
		e.t.Fatal(err)
	}
	return a, key
}

const goodAd = `{"title":"Shoes","text":"Cheap shoes","url":"https://shop.example/","targets":[{"phrase":"Shoes","bid":0.5}]}`

func TestAPIAuthentication(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	_, key := e.apiAdvertiser("acme")
	for _, tc := range []struct{ name, header string }{
		{"no Authorization header", ""},
		{"another scheme", "Basic " + key},
		{"an unknown key", "Bearer dqa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"a key without the prefix", "Bearer " + strings.TrimPrefix(key, "dqa_")},
	} {
		t.Run("rejects "+tc.name+" with 401", func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+adsAPIPrefix, nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := e.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body errorBody
			decodeJSON(t, resp, &body)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" || body.Error.Code != CodeUnauthorized || body.Error.Message == "" {
				t.Fatalf("status %d, WWW-Authenticate %q, body %+v", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
			}
		})
	}
	t.Run("accepts the advertiser's key", func(t *testing.T) {
		if code := e.call("GET", adsAPIPrefix, key, "", nil); code != http.StatusOK {
			t.Fatalf("status %d, want 200", code)
		}
	})
}

func TestAPIAdLifecycle(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	_, key := e.apiAdvertiser("acme")
	var created adJSON
	if code := e.call("POST", adsAPIPrefix, key, goodAd, &created); code != http.StatusCreated {
		t.Fatalf("create: status %d", code)
	}
	if created.Status != ads.StatusActive || len(created.Targets) != 1 || created.Targets[0].Phrase != "shoes" || created.Targets[0].Bid != 0.5 {
		t.Fatalf("created %+v", created)
	}
	path := adsAPIPrefix + itoa(created.ID)

	for _, collection := range []string{adsAPIPrefix, strings.TrimSuffix(adsAPIPrefix, "/")} {
		var list struct{ Ads []adJSON }
		if code := e.call("GET", collection, key, "", &list); code != 200 || len(list.Ads) != 1 || list.Ads[0].ID != created.ID {
			t.Fatalf("list at %s: %d %+v", collection, code, list)
		}
	}
	var got adJSON
	if code := e.call("GET", path, key, "", &got); code != 200 || got.Title != "Shoes" {
		t.Fatalf("get: %d %+v", code, got)
	}
	var updated adJSON
	if code := e.call("PATCH", path, key, `{"targets":[{"phrase":"shoes","bid":0.75},{"phrase":"boots","bid":0.2}]}`, &updated); code != 200 ||
		len(updated.Targets) != 2 || updated.Targets[0].Bid != 0.75 || updated.Title != "Shoes" {
		t.Fatalf("update: %d %+v", code, updated)
	}
	if shown := e.selectAds("boots", 1); len(shown) != 1 {
		t.Fatal("updated phrase not served")
	}
	// null removes what a merge patch removes: the text may go; an ad
	// without a title, a URL or targets is refused, not kept as it was.
	for _, field := range []string{"title", "url", "targets"} {
		var out errorBody
		if code := e.call("PATCH", path, key, `{"`+field+`":null}`, &out); code != 400 || out.Error.Field != field || out.Error.Value != "null" {
			t.Errorf("PATCH %s null: %d %+v; want 400 on %s = null", field, code, out.Error, field)
		}
	}
	for body, field := range map[string]string{
		`{"title":7}`: "title",
		`{"targets":[{"phrase":"a","bid":1},{"phrase":"b","bid":"x"}]}`: "targets[1].bid",
		`{"Title":null}`:   "Title",
		`{"colour":"red"}`: "colour",
	} {
		var typed errorBody
		if code := e.call("PATCH", path, key, body, &typed); code != 400 || !strings.EqualFold(typed.Error.Field, field) {
			t.Errorf("PATCH %s: %d %+v; want 400 naming %s", body, code, typed.Error, field)
		}
	}
	var cleared adJSON
	if code := e.call("PATCH", path, key, `{"text":null}`, &cleared); code != 200 || cleared.Text != "" || cleared.Title != "Shoes" || len(cleared.Targets) != 2 {
		t.Fatalf("PATCH text null: %d %+v; want the text removed, the rest kept", code, cleared)
	}
	var revoked adJSON
	if code := e.call("DELETE", path, key, "", &revoked); code != 200 || revoked.Status != ads.StatusRevoked || revoked.Revoked == nil {
		t.Fatalf("revoke: %d %+v", code, revoked)
	}
	if shown := e.selectAds("shoes", 1); len(shown) != 0 {
		t.Fatal("revoked ad served")
	}
	var e400 errorBody
	if code := e.call("PATCH", path, key, `{"title":"New"}`, &e400); code != 400 || e400.Error.Field != "status" {
		t.Fatalf("update of a revoked ad: %d %+v, want 400 on status", code, e400)
	}
}

func TestAPIHidesOtherAdvertisersAds(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	_, alice := e.apiAdvertiser("alice")
	_, bob := e.apiAdvertiser("bob")
	var ad adJSON
	if code := e.call("POST", adsAPIPrefix, alice, goodAd, &ad); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	path := adsAPIPrefix + itoa(ad.ID)
	for _, tc := range []struct{ method, body string }{
		{"GET", ""},
		{"PATCH", `{"title":"mine now"}`},
		{"PATCH", `{not json`}, // ownership is checked before the body
		{"DELETE", ""},
	} {
		t.Run(tc.method+" answers 404 to another advertiser", func(t *testing.T) {
			var body errorBody
			if code := e.call(tc.method, path, bob, tc.body, &body); code != http.StatusNotFound {
				t.Fatalf("status %d, want 404", code)
			}
		})
	}
	t.Run("a missing id is 404 too, a malformed one 400", func(t *testing.T) {
		if code := e.call("GET", adsAPIPrefix+"424242", bob, "", &errorBody{}); code != http.StatusNotFound {
			t.Fatalf("status %d, want 404", code)
		}
		if code := e.call("GET", adsAPIPrefix+"abc", bob, "", &errorBody{}); code != http.StatusBadRequest {
			t.Fatalf("non-numeric id: status %d, want 400", code)
		}
	})
	var list struct{ Ads []adJSON }
	if e.call("GET", adsAPIPrefix, bob, "", &list); len(list.Ads) != 0 {
		t.Fatalf("bob lists %d ads, want 0", len(list.Ads))
	}
	var got adJSON
	if e.call("GET", path, alice, "", &got); got.Title != "Shoes" || got.Status != ads.StatusActive {
		t.Fatalf("alice's ad changed: %+v", got)
	}
}

func TestAPIRejectsBadInputNamingTheField(t *testing.T) {
	cfg := adsTestConfig()
	cfg.MaxRequestBytes = 2048
	e := newAdsEnv(t, cfg)
	_, key := e.apiAdvertiser("acme")
	long := strings.Repeat("x", 81)
	for _, tc := range []struct {
		name, body, field string
	}{
		{"malformed JSON", `{"title":`, "body"},
		{"two objects", goodAd + goodAd, "body"},
		{"an unknown field, e.g. a self-made prior", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":1}],"prior":{"alpha":1}}`, "prior"},
		{"a bid that is a string", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":"1"}]}`, "targets[0].bid"},
		{"a bid past a float64's range", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":1e400}]}`, "targets[0].bid"},
		{"a second bid that is a string", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":1},{"phrase":"q","bid":"1"}]}`, "targets[1].bid"},
		{"no title", `{"url":"https://a.example/","targets":[{"phrase":"p","bid":1}]}`, "title"},
		{"a blank title", `{"title":"  ","url":"https://a.example/","targets":[{"phrase":"p","bid":1}]}`, "title"},
		{"a title over 80 characters", `{"title":"` + long + `","url":"https://a.example/","targets":[{"phrase":"p","bid":1}]}`, "title"},
		{"a URL that is not http(s)", `{"title":"t","url":"javascript:alert(1)","targets":[{"phrase":"p","bid":1}]}`, "url"},
		{"a URL with spaces, quotes and angle brackets", `{"title":"t","url":"https://a.example/ spaced <tag>\"","targets":[{"phrase":"p","bid":1}]}`, "url"},
		{"a title with a bell and a right-to-left override", `{"title":"x\u0000y\u202e\u0007","url":"https://a.example/","targets":[{"phrase":"p","bid":1}]}`, "title"},
		{"a text with a newline", `{"title":"t","text":"line1\nline2","url":"https://a.example/","targets":[{"phrase":"p","bid":1}]}`, "text"},
		{"no targets", `{"title":"t","url":"https://a.example/","targets":[]}`, "targets"},
		{"more phrases than ads.max_phrases_per_ad", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"a","bid":1},{"phrase":"b","bid":1},{"phrase":"c","bid":1},{"phrase":"d","bid":1}]}`, "targets"},
		{"an empty phrase", `{"title":"t","url":"https://a.example/","targets":[{"phrase":" ","bid":1}]}`, "targets[0].phrase"},
		{"phrases equal after normalization", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"Shoes","bid":1},{"phrase":" shoes","bid":1}]}`, "targets[1].phrase"},
		{"a bid above ads.max_bid", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":11}]}`, "targets[0].bid"},
		{"a bid below ads.min_bid", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":0.001}]}`, "targets[0].bid"},
		{"a negative bid", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":-1}]}`, "targets[0].bid"},
		{"a missing bid", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p"}]}`, "targets[0].bid"},
		{"a bid finer than one micro", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":1.0000001}]}`, "targets[0].bid"},
	} {
		t.Run("rejects "+tc.name, func(t *testing.T) {
			var body errorBody
			if code := e.call("POST", adsAPIPrefix, key, tc.body, &body); code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", code)
			}
			if body.Error.Field != tc.field || body.Error.Message == "" || body.Error.Limit == "" {
				t.Fatalf("error %+v, want field %q with a limit", body, tc.field)
			}
		})
	}
	t.Run("rejects a body over ads.max_request_bytes with 413", func(t *testing.T) {
		body := `{"title":"t","text":"` + strings.Repeat("y", 3000) + `"}`
		var out errorBody
		if code := e.call("POST", adsAPIPrefix, key, body, &out); code != http.StatusRequestEntityTooLarge || out.Error.Field != "body" {
			t.Fatalf("status %d %+v, want 413 on body", code, out)
		}
	})
	t.Run("rejects more ads than ads.max_ads_per_advertiser", func(t *testing.T) {
		for i := range cfg.MaxAdsPerAdvertiser {
			if code := e.call("POST", adsAPIPrefix, key, goodAd, &adJSON{}); code != http.StatusCreated {
				t.Fatalf("ad %d: status %d", i, code)
			}
		}
		var out errorBody
		if code := e.call("POST", adsAPIPrefix, key, goodAd, &out); code != 400 || out.Error.Field != "ads" || !strings.Contains(out.Error.Limit, "5") {
			t.Fatalf("status %d %+v, want 400 on ads naming the limit 5", code, out)
		}
	})
}

func TestAPIAccountAndReport(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	adv, key := e.apiAdvertiser("acme")
	var acct accountJSON
	if code := e.call("GET", adsAPIPrefix+"account", key, "", &acct); code != 200 || acct.DailyBudget != nil || acct.ID != adv.ID {
		t.Fatalf("account: %d %+v, want no budget", code, acct)
	}
	if code := e.call("PATCH", adsAPIPrefix+"account", key, `{"daily_budget":20}`, &acct); code != 200 || acct.DailyBudget == nil || *acct.DailyBudget != 20 {
		t.Fatalf("set budget: %d %+v", code, acct)
	}
	// 0.0000001 would round to 0 micros, which is no budget: refused, and
	// the budget of 20 stays.
	for _, bad := range []string{`{"daily_budget":-1}`, `{"daily_budget":1e12}`, `{}`, `{"daily_budget":0.0000001}`, `{"daily_budget":5.0000001}`} {
		var out errorBody
		if code := e.call("PATCH", adsAPIPrefix+"account", key, bad, &out); code != 400 || out.Error.Field != "daily_budget" {
			t.Fatalf("budget %s: %d %+v, want 400 on daily_budget", bad, code, out)
		}
	}
	if code := e.call("GET", adsAPIPrefix+"account", key, "", &acct); code != 200 || acct.DailyBudget == nil || *acct.DailyBudget != 20 {
		t.Fatalf("account after refused budgets: %d %+v, want the budget of 20 kept", code, acct)
	}
	var ad adJSON
	e.call("POST", adsAPIPrefix, key, goodAd, &ad)
	for range 4 {
		e.selectAds("shoes", 1)
	}
	if resp := e.get(e.selectAds("shoes", 1)[0].ClickURL); resp.StatusCode != http.StatusFound {
		t.Fatalf("click: %d, want 302", resp.StatusCode)
	}
	var rep reportJSON
	if code := e.call("GET", adsAPIPrefix+"report", key, "", &rep); code != 200 {
		t.Fatalf("report: %d", code)
	}
	if rep.Account.SpentToday != 0.5 || rep.Account.RemainingToday == nil || *rep.Account.RemainingToday != 19.5 {
		t.Fatalf("account in report %+v", rep.Account)
	}
	p := rep.Ads[0].Phrases[0]
	if p.Phrase != "shoes" || p.Impressions != 5 || p.Clicks != 1 || p.CTR != 0.2 || p.Spend != 0.5 {
		t.Fatalf("phrase stats %+v, want 5 impressions, 1 click, CTR 0.2, spend 0.5", p)
	}
	// The phrase dropped, its statistics stay, in its own row marked
	// removed, after the live phrases; one of those may be spelled like
	// the label the removed phrases once shared.
	if code := e.call("PATCH", adsAPIPrefix+itoa(ad.ID), key, `{"targets":[{"phrase":"boots","bid":0.5},{"phrase":"(removed phrases)","bid":0.5}]}`, &adJSON{}); code != 200 {
		t.Fatalf("retarget: %d", code)
	}
	rep = reportJSON{}
	e.call("GET", adsAPIPrefix+"report", key, "", &rep)
	want := []phraseJSON{
		{Phrase: "boots", Bid: 0.5},
		{Phrase: "(removed phrases)", Bid: 0.5},
		{Phrase: "shoes", Impressions: 5, Clicks: 1, CTR: 0.2, Spend: 0.5, Removed: true},
	}
	if ps := rep.Ads[0].Phrases; !slices.Equal(ps, want) {
		t.Fatalf("report after dropping shoes %+v, want %+v", ps, want)
	}
	if code := e.call("DELETE", adsAPIPrefix+itoa(ad.ID), key, "", &adJSON{}); code != 200 {
		t.Fatal("revoke failed")
	}
	if e.call("GET", adsAPIPrefix+"report", key, "", &rep); rep.Ads[0].Status != ads.StatusRevoked || rep.Ads[0].Phrases[2].Clicks != 1 {
		t.Fatalf("report of a revoked ad %+v, want its history", rep.Ads[0])
	}
}

func itoa(v uint64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestAdClickRedirectsChargesAndRejectsForgeries(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	adv, _, err := e.s.CreateAdvertiser(t.Context(), ads.AdvertiserParams{Name: "acme", DailyBudget: ads.MoneyFromUnits(5)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.SubmitAd(t.Context(), adv.ID, ads.AdSpec{Title: "Shoes", URL: "https://shop.example/p?x=1",
		Targets: []ads.Target{{Phrase: "shoes", Bid: ads.MoneyFromUnits(0.25)}}}); err != nil {
		t.Fatal(err)
	}
	good := e.selectAds("shoes", 1)[0].ClickURL
	t.Run("a signed click answers 302 to the ad and is charged", func(t *testing.T) {
		resp := e.get(good)
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "https://shop.example/p?x=1" {
			t.Fatalf("click = %d → %q, want 302 to the ad's URL", resp.StatusCode, resp.Header.Get("Location"))
		}
		if rep, err := e.s.Account(adv.ID); err != nil || rep.SpentToday != ads.MoneyFromUnits(0.25) {
			t.Fatalf("spent %v (%v), want the bid 0.25", rep.SpentToday, err)
		}
	})
	for _, tc := range []struct{ name, url string }{
		{"a raised bid", strings.Replace(good, "b=", "b=9", 1)},
		{"no parameters", ads.ClickPath},
		{"garbage", ads.ClickPath + "?%zz"},
	} {
		t.Run("a click with "+tc.name+" answers 400 with a JSON error", func(t *testing.T) {
			resp := e.get(tc.url)
			var body errorBody
			decodeJSON(t, resp, &body)
			if resp.StatusCode != http.StatusBadRequest || body.Error.Message == "" {
				t.Fatalf("status %d body %+v, want 400 with a JSON error", resp.StatusCode, body)
			}
		})
	}
	t.Run("a click with a method other than GET answers 405", func(t *testing.T) {
		resp, err := e.client.Post(e.srv.URL+good, "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Fatalf("POST: status %d, want 405", resp.StatusCode)
		}
	})
}

// TestAPIMoneyErrorsStateTheConfiguredRange: a bid or a budget out of
// range, even one no amount could hold, is refused with the configured
// range and the settings that set it.
func TestAPIMoneyErrorsStateTheConfiguredRange(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	_, key := e.apiAdvertiser("acme")
	const bidLimit = "must be in [0.01, 10] (ads.min_bid, ads.max_bid)"
	const budgetLimit = "must be 0 (no budget) or in (0, 1000] (ads.max_daily_budget)"
	for _, tc := range []struct {
		method, path, body, field, value, limit string
	}{
		{"POST", adsAPIPrefix, `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":-1}]}`, "targets[0].bid", "-1", bidLimit},
		{"POST", adsAPIPrefix, `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":1e300}]}`, "targets[0].bid", "1e+300", bidLimit},
		{"POST", adsAPIPrefix, `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":11}]}`, "targets[0].bid", "11", bidLimit},
		{"PATCH", adsAPIPrefix + "account", `{"daily_budget":-1}`, "daily_budget", "-1", budgetLimit},
		{"PATCH", adsAPIPrefix + "account", `{"daily_budget":1e12}`, "daily_budget", "1e+12", budgetLimit},
	} {
		var out errorBody
		if code := e.call(tc.method, tc.path, key, tc.body, &out); code != 400 || out.Error.Field != tc.field || out.Error.Value != tc.value || out.Error.Limit != tc.limit {
			t.Errorf("%s %s: %d %+v, want 400 on %s = %s: %s", tc.method, tc.body, code, out.Error, tc.field, tc.value, tc.limit)
		}
	}
}

// TestAdClickErrorsNameTheParameterAndTheLimit: a click URL refused says
// which parameter is wrong, what it held and what it must be, like every
// other error of the API.
func TestAdClickErrorsNameTheParameterAndTheLimit(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	adv, _ := e.apiAdvertiser("acme")
	if _, err := e.s.SubmitAd(t.Context(), adv.ID, ads.AdSpec{Title: "t", URL: "https://a.example/", Targets: []ads.Target{{Phrase: "shoes", Bid: ads.Unit}}}); err != nil {
		t.Fatal(err)
	}
	good := e.selectAds("shoes", 1)[0].ClickURL
	for _, tc := range []struct {
		name, url           string
		field, value, limit string
	}{
		{"a query of 2000 bytes", ads.ClickPath + "?" + strings.Repeat("a", 2000), "query", "(2000 bytes)", "must have at most 1056 bytes"},
		{"no parameters", ads.ClickPath, "i, a, b, t, p, s", "", "must each appear exactly once"},
		{"a bid that is not a number", strings.Replace(good, "b=", "b=x", 1), "b", `"x1000000"`, "must be a bid in micros (a whole number > 0)"},
		{"a raised bid", strings.Replace(good, "b=", "b=9", 1), "s", "", "must be this server's signature of the other parameters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.get(tc.url)
			var body errorBody
			decodeJSON(t, resp, &body)
			got := body.Error
			if resp.StatusCode != http.StatusBadRequest || got.Code != CodeBadLink || got.Field != tc.field || got.Value != tc.value || got.Limit != tc.limit || got.Message == "" {
				t.Fatalf("status %d %+v, want 400 bad_link on %s = %s: %s", resp.StatusCode, got, tc.field, tc.value, tc.limit)
			}
		})
	}
}
