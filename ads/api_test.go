package ads

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

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
func (e *env) call(method, path, key, body string, out any) int {
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

func (e *env) apiAdvertiser(name string) (Advertiser, string) {
	e.t.Helper()
	a, key, err := e.s.CreateAdvertiser(e.t.Context(), AdvertiserParams{Name: name})
	if err != nil {
		e.t.Fatal(err)
	}
	return a, key
}

const goodAd = `{"title":"Shoes","text":"Cheap shoes","url":"https://shop.example/","targets":[{"phrase":"Shoes","bid":0.5}]}`

func TestAPIAuthentication(t *testing.T) {
	e := newEnv(t, testConfig())
	_, key := e.apiAdvertiser("acme")
	for _, tc := range []struct{ name, header string }{
		{"no Authorization header", ""},
		{"another scheme", "Basic " + key},
		{"an unknown key", "Bearer dqa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"a key without the prefix", "Bearer " + strings.TrimPrefix(key, keyPrefix)},
	} {
		t.Run("rejects "+tc.name+" with 401", func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+APIPrefix, nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := e.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body apiError
			decodeJSON(t, resp, &body)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" || body.Error == "" {
				t.Fatalf("status %d, WWW-Authenticate %q, body %+v", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
			}
		})
	}
	t.Run("accepts the advertiser's key", func(t *testing.T) {
		if code := e.call("GET", APIPrefix, key, "", nil); code != http.StatusOK {
			t.Fatalf("status %d, want 200", code)
		}
	})
}

func TestAPIAdLifecycle(t *testing.T) {
	e := newEnv(t, testConfig())
	_, key := e.apiAdvertiser("acme")
	var created adJSON
	if code := e.call("POST", APIPrefix, key, goodAd, &created); code != http.StatusCreated {
		t.Fatalf("create: status %d", code)
	}
	if created.Status != StatusActive || len(created.Targets) != 1 || created.Targets[0].Phrase != "shoes" || created.Targets[0].Bid != 0.5 {
		t.Fatalf("created %+v", created)
	}
	path := APIPrefix + itoa(created.ID)

	var list struct{ Ads []adJSON }
	if code := e.call("GET", APIPrefix, key, "", &list); code != 200 || len(list.Ads) != 1 || list.Ads[0].ID != created.ID {
		t.Fatalf("list: %d %+v", code, list)
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
	var revoked adJSON
	if code := e.call("DELETE", path, key, "", &revoked); code != 200 || revoked.Status != StatusRevoked || revoked.Revoked == nil {
		t.Fatalf("revoke: %d %+v", code, revoked)
	}
	if shown := e.selectAds("shoes", 1); len(shown) != 0 {
		t.Fatal("revoked ad served")
	}
	var e400 apiError
	if code := e.call("PATCH", path, key, `{"title":"New"}`, &e400); code != 400 || e400.Field != "status" {
		t.Fatalf("update of a revoked ad: %d %+v, want 400 on status", code, e400)
	}
}

func TestAPIHidesOtherAdvertisersAds(t *testing.T) {
	e := newEnv(t, testConfig())
	_, alice := e.apiAdvertiser("alice")
	_, bob := e.apiAdvertiser("bob")
	var ad adJSON
	if code := e.call("POST", APIPrefix, alice, goodAd, &ad); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	path := APIPrefix + itoa(ad.ID)
	for _, tc := range []struct{ method, body string }{
		{"GET", ""},
		{"PATCH", `{"title":"mine now"}`},
		{"PATCH", `{not json`}, // ownership is checked before the body
		{"DELETE", ""},
	} {
		t.Run(tc.method+" answers 404 to another advertiser", func(t *testing.T) {
			var body apiError
			if code := e.call(tc.method, path, bob, tc.body, &body); code != http.StatusNotFound {
				t.Fatalf("status %d, want 404", code)
			}
		})
	}
	t.Run("a missing id is 404 too", func(t *testing.T) {
		if code := e.call("GET", APIPrefix+"424242", bob, "", &apiError{}); code != http.StatusNotFound {
			t.Fatalf("status %d, want 404", code)
		}
		if code := e.call("GET", APIPrefix+"abc", bob, "", &apiError{}); code != http.StatusNotFound {
			t.Fatalf("non-numeric id: status %d, want 404", code)
		}
	})
	var list struct{ Ads []adJSON }
	if e.call("GET", APIPrefix, bob, "", &list); len(list.Ads) != 0 {
		t.Fatalf("bob lists %d ads, want 0", len(list.Ads))
	}
	var got adJSON
	if e.call("GET", path, alice, "", &got); got.Title != "Shoes" || got.Status != StatusActive {
		t.Fatalf("alice's ad changed: %+v", got)
	}
}

func TestAPIRejectsBadInputNamingTheField(t *testing.T) {
	cfg := testConfig()
	cfg.MaxRequestBytes = 2048
	e := newEnv(t, cfg)
	_, key := e.apiAdvertiser("acme")
	long := strings.Repeat("x", 81)
	for _, tc := range []struct {
		name, body, field string
	}{
		{"malformed JSON", `{"title":`, "body"},
		{"two objects", goodAd + goodAd, "body"},
		{"an unknown field, e.g. a self-made prior", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":1}],"prior":{"alpha":1}}`, "prior"},
		{"a bid that is a string", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":"1"}]}`, "targets.bid"},
		{"no title", `{"url":"https://a.example/","targets":[{"phrase":"p","bid":1}]}`, "title"},
		{"a blank title", `{"title":"  ","url":"https://a.example/","targets":[{"phrase":"p","bid":1}]}`, "title"},
		{"a title over 80 characters", `{"title":"` + long + `","url":"https://a.example/","targets":[{"phrase":"p","bid":1}]}`, "title"},
		{"a URL that is not http(s)", `{"title":"t","url":"javascript:alert(1)","targets":[{"phrase":"p","bid":1}]}`, "url"},
		{"no targets", `{"title":"t","url":"https://a.example/","targets":[]}`, "targets"},
		{"more phrases than ads.max_phrases_per_ad", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"a","bid":1},{"phrase":"b","bid":1},{"phrase":"c","bid":1},{"phrase":"d","bid":1}]}`, "targets"},
		{"an empty phrase", `{"title":"t","url":"https://a.example/","targets":[{"phrase":" ","bid":1}]}`, "targets[0].phrase"},
		{"phrases equal after normalization", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"Shoes","bid":1},{"phrase":" shoes","bid":1}]}`, "targets[1].phrase"},
		{"a bid above ads.max_bid", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":11}]}`, "targets[0].bid"},
		{"a bid below ads.min_bid", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":0.001}]}`, "targets[0].bid"},
		{"a negative bid", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p","bid":-1}]}`, "targets[0].bid"},
		{"a missing bid", `{"title":"t","url":"https://a.example/","targets":[{"phrase":"p"}]}`, "targets[0].bid"},
	} {
		t.Run("rejects "+tc.name, func(t *testing.T) {
			var body apiError
			if code := e.call("POST", APIPrefix, key, tc.body, &body); code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", code)
			}
			if body.Field != tc.field || body.Error == "" || body.Limit == "" {
				t.Fatalf("error %+v, want field %q with a limit", body, tc.field)
			}
		})
	}
	t.Run("rejects a body over ads.max_request_bytes with 413", func(t *testing.T) {
		body := `{"title":"t","text":"` + strings.Repeat("y", 3000) + `"}`
		var out apiError
		if code := e.call("POST", APIPrefix, key, body, &out); code != http.StatusRequestEntityTooLarge || out.Field != "body" {
			t.Fatalf("status %d %+v, want 413 on body", code, out)
		}
	})
	t.Run("rejects more ads than ads.max_ads_per_advertiser", func(t *testing.T) {
		for i := range cfg.MaxAdsPerAdvertiser {
			if code := e.call("POST", APIPrefix, key, goodAd, &adJSON{}); code != http.StatusCreated {
				t.Fatalf("ad %d: status %d", i, code)
			}
		}
		var out apiError
		if code := e.call("POST", APIPrefix, key, goodAd, &out); code != 400 || out.Field != "ads" || !strings.Contains(out.Limit, "5") {
			t.Fatalf("status %d %+v, want 400 on ads naming the limit 5", code, out)
		}
	})
}

func TestAPIAccountAndReport(t *testing.T) {
	e := newEnv(t, testConfig())
	adv, key := e.apiAdvertiser("acme")
	var acct accountJSON
	if code := e.call("GET", APIPrefix+"account", key, "", &acct); code != 200 || acct.DailyBudget != nil || acct.ID != adv.ID {
		t.Fatalf("account: %d %+v, want no budget", code, acct)
	}
	if code := e.call("PATCH", APIPrefix+"account", key, `{"daily_budget":20}`, &acct); code != 200 || acct.DailyBudget == nil || *acct.DailyBudget != 20 {
		t.Fatalf("set budget: %d %+v", code, acct)
	}
	for _, bad := range []string{`{"daily_budget":-1}`, `{"daily_budget":1e12}`, `{}`} {
		var out apiError
		if code := e.call("PATCH", APIPrefix+"account", key, bad, &out); code != 400 || out.Field != "daily_budget" {
			t.Fatalf("budget %s: %d %+v, want 400 on daily_budget", bad, code, out)
		}
	}
	var ad adJSON
	e.call("POST", APIPrefix, key, goodAd, &ad)
	for range 4 {
		e.selectAds("shoes", 1)
	}
	e.click(e.selectAds("shoes", 1)[0].ClickURL)
	var rep reportJSON
	if code := e.call("GET", APIPrefix+"report", key, "", &rep); code != 200 {
		t.Fatalf("report: %d", code)
	}
	if rep.Account.SpentToday != 0.5 || rep.Account.RemainingToday == nil || *rep.Account.RemainingToday != 19.5 {
		t.Fatalf("account in report %+v", rep.Account)
	}
	p := rep.Ads[0].Phrases[0]
	if p.Phrase != "shoes" || p.Impressions != 5 || p.Clicks != 1 || p.CTR != 0.2 || p.Spend != 0.5 {
		t.Fatalf("phrase stats %+v, want 5 impressions, 1 click, CTR 0.2, spend 0.5", p)
	}
	if code := e.call("DELETE", APIPrefix+itoa(ad.ID), key, "", &adJSON{}); code != 200 {
		t.Fatal("revoke failed")
	}
	if e.call("GET", APIPrefix+"report", key, "", &rep); rep.Ads[0].Status != StatusRevoked || rep.Ads[0].Phrases[0].Clicks != 1 {
		t.Fatalf("report of a revoked ad %+v, want its history", rep.Ads[0])
	}
}

func itoa(v uint64) string {
	b, _ := json.Marshal(v)
	return string(b)
}
