package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/ads"
)

// TestAPIAdIDsAreCanonicalAndNamed: an ad id that is not a positive
// decimal number without leading zeros is refused with 400 naming id, the
// value and the form expected, whatever the method: /01 is not ad 1, and
// neither PATCH nor DELETE on it touches ad 1. A well-formed id of no ad
// of the advertiser's is 404 naming the id.
func TestAPIAdIDsAreCanonicalAndNamed(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	_, alice := e.apiAdvertiser("alice")
	_, bob := e.apiAdvertiser("bob")
	var ad adJSON
	if code := e.call("POST", adsAPIPrefix, alice, goodAd, &ad); code != http.StatusCreated || ad.ID != 1 {
		t.Fatalf("create: %d %+v, want ad 1", code, ad)
	}
	const form = "a positive decimal number without leading zeros, at most 18446744073709551615"
	for _, tc := range []struct{ path, value string }{
		{"abc", "abc"},
		{"-1", "-1"},
		{"18446744073709551616", "18446744073709551616"},
		{"%00", "\x00"},
		{"01", "01"},
		{"0", "0"},
		{"+1", "+1"},
		{"1%20", "1 "},
		{"0x1", "0x1"},
	} {
		for _, m := range []struct{ method, body string }{{"GET", ""}, {"PATCH", `{"title":"changed"}`}, {"DELETE", ""}} {
			t.Run(m.method+" "+tc.path+" is 400 naming id", func(t *testing.T) {
				var out errorBody
				code := e.call(m.method, adsAPIPrefix+tc.path, alice, m.body, &out)
				if code != http.StatusBadRequest || out.Error.Code != CodeBadParameter || out.Error.Field != "id" || out.Error.Value != tc.value || out.Error.Limit != form || out.Error.Message == "" {
					t.Fatalf("%d %+v, want 400 on id = %q: %s", code, out.Error, tc.value, form)
				}
			})
		}
	}
	var got adJSON
	if code := e.call("GET", adsAPIPrefix+"1", alice, "", &got); code != http.StatusOK || got.Title != "Shoes" || got.Status != ads.StatusActive {
		t.Fatalf("ad 1 after requests on 01: %d %+v, want it unchanged and active", code, got)
	}
	for _, tc := range []struct {
		name, path, key string
	}{
		{"an id no ad has", "424242", alice},
		{"the largest id", "18446744073709551615", alice},
		{"another advertiser's ad", "1", bob},
	} {
		for _, m := range []struct{ method, body string }{{"GET", ""}, {"PATCH", `{"title":"changed"}`}, {"DELETE", ""}} {
			t.Run(m.method+" "+tc.name+" is 404 naming the id", func(t *testing.T) {
				var out errorBody
				code := e.call(m.method, adsAPIPrefix+tc.path, tc.key, m.body, &out)
				if code != http.StatusNotFound || out.Error.Code != CodeNotFound || out.Error.Field != "id" || out.Error.Value != tc.path || !strings.Contains(out.Error.Message, "id") {
					t.Fatalf("%d %+v, want 404 on id = %s", code, out.Error, tc.path)
				}
			})
		}
	}
}

// TestAPIAllowListsAgreeWithTheAnswers: on every path of the advertiser
// API, a method is answered 405 exactly when the Allow list leaves it
// out; account takes GET and PATCH, the report GET, an ad GET, PATCH and
// DELETE.
func TestAPIAllowListsAgreeWithTheAnswers(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	_, key := e.apiAdvertiser("acme")
	var ad adJSON
	if code := e.call("POST", adsAPIPrefix, key, goodAd, &ad); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	// A body each allowed method takes; the others' bodies do not matter.
	body := func(method, path string) string {
		switch {
		case method == "POST":
			return goodAd
		case method == "PATCH" && path == adsAPIPrefix+"account":
			return `{"daily_budget":0}`
		case method == "PATCH":
			return `{"title":"Shoes"}`
		}
		return ""
	}
	for _, tc := range []struct{ path, allow string }{
		{adsAPIPrefix + "account", "GET, HEAD, PATCH"},
		{adsAPIPrefix + "report", "GET, HEAD"},
		{adsAPIPrefix + itoa(ad.ID), "DELETE, GET, HEAD, PATCH"},
		{adsAPIPrefix, "GET, HEAD, POST"},
	} {
		for _, method := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} {
			t.Run(method+" "+tc.path, func(t *testing.T) {
				req, err := http.NewRequestWithContext(t.Context(), method, e.srv.URL+tc.path, strings.NewReader(body(method, tc.path)))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := e.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				allowed := strings.Contains(", "+tc.allow+", ", ", "+method+", ")
				if allowed {
					if resp.StatusCode >= 400 {
						t.Fatalf("status %d, want %s answered (Allow: %s)", resp.StatusCode, method, tc.allow)
					}
					return
				}
				var out errorBody
				decodeJSON(t, resp, &out)
				if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != tc.allow || out.Error.Code != CodeMethodNotAllowed || out.Error.Limit != tc.allow {
					t.Fatalf("status %d, Allow %q, %+v; want 405 with Allow %q", resp.StatusCode, resp.Header.Get("Allow"), out.Error, tc.allow)
				}
			})
		}
	}
}

// TestAPIRefusesPhrasesNoSearchCanMatch: a target phrase is refused for
// what a title is refused for and for holding no word a search finds,
// naming targets[i].phrase, on POST and PATCH; nothing else is stored.
func TestAPIRefusesPhrasesNoSearchCanMatch(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	_, key := e.apiAdvertiser("acme")
	var ad adJSON
	if code := e.call("POST", adsAPIPrefix, key, goodAd, &ad); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	for _, tc := range []struct {
		name, phrase, value, limit string
	}{
		{"a NUL", `\ufffd\u0000`, "U+0000 at byte 3", "must not contain control characters"},
		{"query syntax alone", `+-:^~*?\\/()[]{}`, `"+-:^~*?\\/()[]{}"`, "must contain a letter, a digit or _"},
	} {
		targets := `[{"phrase":"boots","bid":1},{"phrase":"` + tc.phrase + `","bid":1}]`
		for _, m := range []struct{ method, path, body string }{
			{"POST", adsAPIPrefix, `{"title":"t","url":"https://a.example/","targets":` + targets + `}`},
			{"PATCH", adsAPIPrefix + itoa(ad.ID), `{"targets":` + targets + `}`},
		} {
			t.Run(m.method+" refuses "+tc.name, func(t *testing.T) {
				var out errorBody
				code := e.call(m.method, m.path, key, m.body, &out)
				if code != http.StatusBadRequest || out.Error.Field != "targets[1].phrase" || out.Error.Value != tc.value || !strings.HasPrefix(out.Error.Limit, tc.limit) {
					t.Fatalf("%d %+v, want 400 on targets[1].phrase = %s: %s", code, out.Error, tc.value, tc.limit)
				}
			})
		}
	}
	var list struct{ Ads []adJSON }
	if e.call("GET", adsAPIPrefix, key, "", &list); len(list.Ads) != 1 || len(list.Ads[0].Targets) != 1 || list.Ads[0].Targets[0].Phrase != "shoes" {
		t.Fatalf("ads after the refusals: %+v, want the one ad with its one phrase", list.Ads)
	}
}
