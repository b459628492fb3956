package web

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/notify"
)

// TestFeedTokenReadsFeedsOnly: the listings give each feed's URL with the
// key's feed token, which a feed reader fetches without a bearer key; the
// token reads its user's feeds and no one else's, is refused by every
// route but the feeds, holds no key, and stops working with its key.
func TestFeedTokenReadsFeedsOnly(t *testing.T) {
	e := newWatchEnv(t)
	ada, bob := e.key("ada", 5), e.key("bob", 5)
	var w struct{ ID string }
	if code, body := e.call("POST", "/api/v1/watches", ada, `{"url":"`+e.pageURL+`","every":"2h","notify":["feed"]}`, &w); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	e.page("<html><body><p>Apply by April 10.</p></body></html>")
	if _, err := e.engine.Check(t.Context(), e.pageURL); err != nil {
		t.Fatal(err)
	}
	var a alertJSON
	if code, body := e.call("POST", "/api/v1/alerts", ada, `{"query":"plain language","notify":["feed"]}`, &a); code != http.StatusCreated {
		t.Fatalf("create alert: %d %s", code, body)
	}
	b := e.db.NewBatch(t.Context())
	if err := e.outbox.Enqueue(b, &notify.Notification{ID: "n1", Source: "alert:" + a.ID, User: "ada", URL: "http://digital.gov/plain", Title: "Plain language",
		Kind: "alert", Change: "new page", At: time.Now(), Targets: []notify.Target{{Kind: notify.Feed}}, Feeds: []string{"alert:" + a.ID, "user:ada"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()

	var list struct {
		Feed    string
		Watches []struct{ ID, Feed string }
	}
	if code, body := e.call("GET", "/api/v1/watches", ada, "", &list); code != 200 || len(list.Watches) != 1 ||
		list.Feed == "" || list.Watches[0].Feed != e.srv.URL+"/api/v1/watches/"+w.ID+"/feed?"+tokenQuery(t, list.Feed) {
		t.Fatalf("GET /api/v1/watches: %d %s; want the user's feed URL and the watch's", code, body)
	}
	var alerts struct{ Alerts []struct{ Feed string } }
	if code, body := e.call("GET", "/api/v1/alerts", ada, "", &alerts); code != 200 || len(alerts.Alerts) != 1 || alerts.Alerts[0].Feed == "" {
		t.Fatalf("GET /api/v1/alerts: %d %s; want the alert's feed URL", code, body)
	}
	token := feedToken(t, list.Feed)
	if strings.Contains(list.Feed, strings.TrimPrefix(ada, "dqw_")) || token == ada {
		t.Errorf("feed URL %s holds the key %s", list.Feed, ada)
	}
	var bobList struct{ Feed string }
	e.call("GET", "/api/v1/watches", bob, "", &bobList)
	bobToken := feedToken(t, bobList.Feed)

	// The right token reads each feed, as a reader would: no header.
	for _, c := range []struct{ url, want string }{
		{list.Watches[0].Feed, "April"}, {list.Feed, "http://digital.gov/plain"}, {alerts.Alerts[0].Feed, "http://digital.gov/plain"},
	} {
		if code, body := e.call("GET", strings.TrimPrefix(c.url, e.srv.URL), "", "", nil); code != 200 || !strings.Contains(body, "<feed") || !strings.Contains(body, c.want) {
			t.Errorf("GET %s: %d %s; want the Atom feed with %s", c.url, code, body, c.want)
		}
	}
	for _, c := range []struct {
		name, method, path string
		code               int
		want               string
	}{
		{"a wrong token", "GET", "/api/v1/feed?token=dqf_0123", 401, `"field":"token","message":"not the feed token of a valid key`},
		{"the key as a token", "GET", "/api/v1/feed?token=" + ada, 401, `"field":"token"`},
		{"an empty token", "GET", "/api/v1/watches/" + w.ID + "/feed?token=", 401, `"field":"token"`},
		{"the token twice", "GET", "/api/v1/feed?token=" + token + "&token=dqf_0123", 400, `"field":"token","value":"` + token + `, dqf_0123","limit":"once"`},
		{"the token on the list", "GET", "/api/v1/watches?token=" + token, 401, "a feed token is taken by the feed routes only"},
		{"the token on the history", "GET", "/api/v1/watches/" + w.ID + "/history?token=" + token, 401, "feed routes only"},
		{"the token on a delete", "DELETE", "/api/v1/watches/" + w.ID + "?token=" + token, 401, "feed routes only"},
		{"the token on the alerts", "GET", "/api/v1/alerts?token=" + token, 401, "feed routes only"},
		{"bob's token on ada's watch", "GET", "/api/v1/watches/" + w.ID + "/feed?token=" + bobToken, 404, "no such watch"},
		{"bob's token on ada's alert", "GET", "/api/v1/alerts/" + a.ID + "/feed?token=" + bobToken, 404, "no such alert"},
	} {
		if code, body := e.call(c.method, c.path, "", "", nil); code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %s; want %d saying %s", c.name, code, body, c.code, c.want)
		}
	}
	if code, body := e.call("GET", "/api/v1/feed?token="+bobToken, "", "", nil); code != 200 || strings.Contains(body, "April") || strings.Contains(body, "digital.gov") {
		t.Errorf("bob's token on his own feed: %d %s; want his, without ada's entries", code, body)
	}
	if code, _ := e.call("GET", "/api/v1/watches/"+w.ID, ada, "", nil); code != 200 {
		t.Errorf("the watch after a DELETE with the token: %d, want it still there", code)
	}

	// The pages give the same URLs.
	for path, want := range map[string]string{"/watches": list.Feed, "/watches/" + w.ID: list.Watches[0].Feed, "/watches/alerts": list.Feed} {
		if resp, body := e.get(path, ada); resp.StatusCode != 200 || !strings.Contains(body, `id="feed" href="`+want+`"`) {
			t.Errorf("%s: %d, want a link to %s\n%s", path, resp.StatusCode, want, body)
		}
	}

	if _, err := e.engine.RevokeKey(t.Context(), ada); err != nil {
		t.Fatal(err)
	}
	if code, body := e.call("GET", strings.TrimPrefix(list.Feed, e.srv.URL), "", "", nil); code != 401 || !strings.Contains(body, `"field":"token"`) {
		t.Errorf("the revoked key's token: %d %s, want 401", code, body)
	}
	if code, _ := e.call("GET", "/api/v1/feed?token="+bobToken, "", "", nil); code != 200 {
		t.Errorf("bob's token after ada's key was revoked: %d, want 200", code)
	}
}

// feedToken is the token in a feed URL.
func feedToken(t *testing.T, feed string) string {
	t.Helper()
	u, err := url.Parse(feed)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("feed URL %q: %v, want one with a token", feed, err)
	}
	return u.Query().Get("token")
}

// tokenQuery is the query of a feed URL, token=TOKEN.
func tokenQuery(t *testing.T, feed string) string {
	return "token=" + url.QueryEscape(feedToken(t, feed))
}

// TestFeedTokenWinsOnFeedRoutes: a feed URL pasted with a trailing space
// or newline still reads the feed, and on a feed route the token is used
// whatever Authorization header a reader or a proxy adds (Basic auth, a
// stale bearer); elsewhere the token is still refused.
func TestFeedTokenWinsOnFeedRoutes(t *testing.T) {
	e := newWatchEnv(t)
	ada := e.key("ada", 5)
	var list struct{ Feed string }
	if code, body := e.call("GET", "/api/v1/watches", ada, "", &list); code != 200 {
		t.Fatalf("GET /api/v1/watches: %d %s", code, body)
	}
	token := url.QueryEscape(feedToken(t, list.Feed))
	get := func(path, auth string) (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := e.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		name, path, auth string
		code             int
		want             string
	}{
		{"a trailing newline", "/api/v1/feed?token=" + token + "%0A", "", 200, "<feed"},
		{"a trailing space", "/api/v1/feed?token=" + token + "%20", "", 200, "<feed"},
		{"a leading space", "/api/v1/feed?token=+" + token, "", 200, "<feed"},
		{"basic auth beside the token", "/api/v1/feed?token=" + token, "Basic YWRhOnB3", 200, "<feed"},
		{"a stale bearer beside the token", "/api/v1/feed?token=" + token, "Bearer dqw_0123", 200, "<feed"},
		{"a wrong token beside the right bearer", "/api/v1/feed?token=dqf_0123", "Bearer " + ada, 401, `"field":"token"`},
		{"the bearer alone", "/api/v1/feed", "Bearer " + ada, 200, "<feed"},
		{"the token with basic auth on the list", "/api/v1/watches?token=" + token, "Basic YWRhOnB3", 401, "missing bearer key"},
		{"the token alone on the list", "/api/v1/watches?token=" + token, "", 401, "feed routes only"},
		{"the token as the bearer key", "/api/v1/watches", "Bearer " + feedToken(t, list.Feed), 401, "a feed token (dqf_…) is not a key"},
		{"the token as the bearer key of a feed", "/api/v1/feed", "Bearer " + feedToken(t, list.Feed), 401, "starts with dqw_"},
	} {
		if code, body := get(c.path, c.auth); code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %s; want %d with %s", c.name, code, body, c.code, c.want)
		}
	}
}

// TestFeedAnswerIsSelfContainedAndNotCached: a feed's self link is its
// absolute URL with the key's token, as the listings give it, whatever
// query or header the request had; the answer is not for caches to keep
// (its URL holds a token), and a reader's If-None-Match or
// If-Modified-Since gets 304 until the feed changes.
func TestFeedAnswerIsSelfContainedAndNotCached(t *testing.T) {
	e := newWatchEnv(t)
	ada := e.key("ada", 5)
	var w struct{ ID string }
	if code, body := e.call("POST", "/api/v1/watches", ada, `{"url":"`+e.pageURL+`","every":"2h","notify":["feed"]}`, &w); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	var list struct {
		Feed    string
		Watches []struct{ Feed string }
	}
	e.call("GET", "/api/v1/watches", ada, "", &list)
	get := func(path string, header map[string]string) (*http.Response, string) {
		req, err := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := e.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for _, c := range []struct{ name, path, auth, self string }{
		{"the user's feed with an extra query", "/api/v1/feed?" + tokenQuery(t, list.Feed) + "&token2=x&utm=1", "", list.Feed},
		{"the watch's feed by the bearer key", "/api/v1/watches/" + w.ID + "/feed?utm=1", "Bearer " + ada, list.Watches[0].Feed},
	} {
		resp, body := get(c.path, map[string]string{"Authorization": c.auth})
		var f struct {
			Updated string `xml:"updated"`
			Author  string `xml:"author>name"`
			Link    struct {
				Href string `xml:"href,attr"`
			} `xml:"link"`
		}
		if err := xml.Unmarshal([]byte(body), &f); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v\n%s", c.name, resp.StatusCode, err, body)
		}
		if f.Link.Href != c.self || f.Author != "deltaq" || strings.HasPrefix(f.Updated, "1970") {
			t.Errorf("%s: self %s, author %q, updated %s; want self %s, author deltaq, updated when it began", c.name, f.Link.Href, f.Author, f.Updated, c.self)
		}
		if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
			t.Errorf("%s: Cache-Control %q, want no-store", c.name, cc)
		}
	}

	path := strings.TrimPrefix(list.Watches[0].Feed, e.srv.URL)
	first, _ := get(path, nil)
	etag, modified := first.Header.Get("ETag"), first.Header.Get("Last-Modified")
	if etag == "" || modified == "" {
		t.Fatalf("feed answer: ETag %q, Last-Modified %q; want both", etag, modified)
	}
	for name, h := range map[string]map[string]string{"If-None-Match": {"If-None-Match": etag}, "If-Modified-Since": {"If-Modified-Since": modified}} {
		if resp, body := get(path, h); resp.StatusCode != http.StatusNotModified || body != "" {
			t.Errorf("%s of the unchanged feed: %d %q, want 304 and no body", name, resp.StatusCode, body)
		}
	}
	e.page("<html><body><p>Apply by April 10.</p></body></html>")
	if _, err := e.engine.Check(t.Context(), e.pageURL); err != nil {
		t.Fatal(err)
	}
	if resp, body := get(path, map[string]string{"If-None-Match": etag}); resp.StatusCode != 200 || !strings.Contains(body, "April") {
		t.Errorf("If-None-Match once the feed changed: %d, want 200 with the new entry\n%s", resp.StatusCode, body)
	}
}
