package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRoutesRefuseParametersTheyDoNotTake: a misspelt or foreign query
// parameter is refused, naming it and the route's own, once the request
// is authenticated; feed readers' own parameters are let through.
func TestRoutesRefuseParametersTheyDoNotTake(t *testing.T) {
	e := newWatchEnv(t)
	ada := e.key("ada", 5)
	var w struct{ ID string }
	if code, body := e.call("POST", "/api/v1/watches", ada, `{"url":"`+e.pageURL+`","every":"2h","notify":["feed"]}`, &w); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := e.call("GET", "/api/v1/watches/"+w.ID+"/diff?view=side&view=changes", ada, "", nil); code != 400 ||
		!strings.Contains(body, `"field":"view","value":"side, changes","limit":"once"`) {
		t.Fatalf("a diff's view given twice: %d %s, want 400 naming view", code, body)
	}
	var list struct{ Feed string }
	if code, body := e.call("GET", "/api/v1/watches", ada, "", &list); code != 200 {
		t.Fatalf("list: %d %s", code, body)
	}
	token := feedToken(t, list.Feed)
	for _, c := range []struct {
		name, method, path, key string
		code                    int
		field, value, limit     string
	}{
		{"a foreign parameter on the list", "GET", "/api/v1/watches?limit=5", ada, 400, "limit", "5", "none"},
		{"a misspelt view of a diff", "GET", "/api/v1/watches/" + w.ID + "/diff?views=side", ada, 400, "views", "side", "n, view, format"},
		{"a parameter on a create", "POST", "/api/v1/watches?every=1h", ada, 400, "every", "1h", "none"},
		// Beside a bearer key, a feed token is one more parameter; alone,
		// it is the credential problem authed answers.
		{"a feed token beside the key", "GET", "/api/v1/watches?token=" + token, ada, 400, "token", token, "none"},
		{"a feed token alone", "GET", "/api/v1/watches?token=" + token, "", 401, "", "", ""},
		// What a route takes is public: it is checked before the key.
		{"a foreign parameter without a key", "GET", "/api/v1/watches/" + w.ID + "/history?x=1", "", 400, "x", "1", "none"},
		{"a reader's own parameter on a feed", "GET", "/api/v1/feed?token=" + token + "&_=1733480000", "", 200, "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.call(c.method, c.path, c.key, "", nil)
			if code != c.code {
				t.Fatalf("%d %s, want %d", code, body, c.code)
			}
			if c.field == "" {
				return
			}
			var got errorBody
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("not JSON: %s", body)
			}
			route := c.method + " " + strings.Replace(strings.SplitN(c.path, "?", 2)[0], w.ID, "{id}", 1)
			want := "not a parameter of " + route + ", which takes " + c.limit
			if g := got.Error; g.Code != CodeBadParameter || g.Field != c.field || g.Value != c.value || g.Limit != c.limit || g.Message != want {
				t.Fatalf("error %+v, want field %q, value %q, limit %q, message %q", g, c.field, c.value, c.limit, want)
			}
		})
	}
}

func TestAdvertiserRoutesTakeNoParameters(t *testing.T) {
	e := newAdsEnv(t, adsTestConfig())
	_, key := e.apiAdvertiser("acme")
	var out errorBody
	if code := e.call("GET", adsAPIPrefix+"account?budget=5", key, "", &out); code != 400 || out.Error.Field != "budget" ||
		out.Error.Message != "not a parameter of GET /api/v1/ads/account, which takes none" {
		t.Fatalf("account with ?budget=5: %d %+v, want 400 naming budget", code, out.Error)
	}
	// An advertiser's key is a bearer key only: a ?token= is a parameter
	// the route does not take, with a key or without.
	for _, k := range []string{key, ""} {
		out = errorBody{}
		if code := e.call("GET", adsAPIPrefix+"account?token=x", k, "", &out); code != 400 || out.Error.Field != "token" {
			t.Fatalf("account with ?token=x, key %q: %d %+v, want 400 naming token", k, code, out.Error)
		}
	}
	if code := e.call("GET", adsAPIPrefix+"account", key, "", nil); code != 200 {
		t.Fatalf("account: %d, want 200", code)
	}
}

// TestRoutesTakeEachParameterOnce: an API route's parameter given twice is
// refused naming it and both values, whichever route, where the handler
// would read one of them.
func TestRoutesTakeEachParameterOnce(t *testing.T) {
	db, st := newFeedStore(t)
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Feeds: st})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, c := range []struct{ path, field, value string }{
		{"/api/v1/feeds?after=a&after=b", "after", "a, b"},
		{"/api/v1/feeds?limit=2&after=a&limit=3", "limit", "2, 3"},
		{"/api/v1/river?since=1&since=2", "since", "1, 2"},
		{"/api/v1/page?url=http://a.test/&url=http://b.test/", "url", "http://a.test/, http://b.test/"},
	} {
		code, body := send(t, srv, "GET", c.path, "")
		var got errorBody
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("%s: not JSON: %s", c.path, body)
		}
		if g := got.Error; code != http.StatusBadRequest || g.Code != CodeBadParameter || g.Field != c.field || g.Value != c.value || g.Limit != "once" {
			t.Errorf("%s: %d %+v, want 400 on %s = %q, limit once", c.path, code, g, c.field, c.value)
		}
	}
}
