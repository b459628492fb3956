package web

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/alert"
)

// form posts values to path with the browser's key cookie (none if key
// is ""), as a same-origin browser form would, unless headers say
// otherwise. It does not follow redirects.
func (e *watchEnv) form(path, key string, v url.Values, headers map[string]string) (*http.Response, string) {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), "POST", e.srv.URL+path, strings.NewReader(v.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, h := range headers {
		req.Header.Set(k, h)
	}
	return e.browse(req, key)
}

// page gets path with the key cookie.
func (e *watchEnv) get(path, key string) (*http.Response, string) {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), "GET", e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.browse(req, key)
}

func (e *watchEnv) browse(req *http.Request, key string) (*http.Response, string) {
	if key != "" {
		req.AddCookie(&http.Cookie{Name: watchKeyCookie, Value: key})
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func (e *watchEnv) alerts(user string) []alert.Alert { return e.matcher.List(user) }

func TestWatchPagesKeepTheKeyInAStrictCookie(t *testing.T) {
	e := newWatchEnv(t)
	ada := e.key("ada", 5)
	if resp, body := e.get("/watches", ""); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `id="key-form"`) {
		t.Errorf("no key: %d, want 401 and the key form\n%s", resp.StatusCode, body)
	}
	if resp, body := e.form("/watches/key", "", url.Values{"key": {"dqw_wrong"}}, nil); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not known") {
		t.Errorf("wrong key: %d %s", resp.StatusCode, body)
	}
	// A feed token pasted for the key is named as one.
	if resp, body := e.form("/watches/key", "", url.Values{"key": {" dqf_0123\n"}}, nil); resp.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(body, "That is a feed token (dqf_…)") || !strings.Contains(body, "starts with dqw_") || len(resp.Cookies()) != 0 {
		t.Errorf("a feed token in the key form: %d %s; want 401 saying it is a feed token, not a key", resp.StatusCode, body)
	}
	if resp, _ := e.form("/watches/key", "", url.Values{"key": {ada}}, map[string]string{"Sec-Fetch-Site": "cross-site"}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("key posted from another site: %d, want 403", resp.StatusCode)
	}
	resp, _ := e.form("/watches/key", "", url.Values{"key": {ada}}, nil)
	cs := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || len(cs) != 1 || cs[0].Value != ada {
		t.Fatalf("good key: %d, cookies %v", resp.StatusCode, cs)
	}
	if c := cs[0]; !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/watches" {
		t.Errorf("key cookie %+v: want HttpOnly, SameSite=Strict, Path=/watches", c)
	}
	if resp, body := e.get("/watches", ada); resp.StatusCode != http.StatusOK || !strings.Contains(body, `<b id="user">ada</b>`) || !strings.Contains(body, `id="no-watches"`) {
		t.Errorf("signed in: %d\n%s", resp.StatusCode, body)
	}
	// The JSON API never takes the cookie: a cross-site request cannot
	// ride on it there.
	if resp, _ := e.get("/api/v1/watches", ada); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("JSON API with only the cookie: %d, want 401", resp.StatusCode)
	}
}

func TestWatchPagesAddShowDiffAndRemove(t *testing.T) {
	e := newWatchEnv(t)
	ada, bob := e.key("ada", 5), e.key("bob", 5)
	add := url.Values{"csrf": {formToken(ada)}, "url": {e.pageURL}, "type": {"words"}, "every": {"2h"}, "notify": {"feed"}, "until": {"2099-01-01"}}

	for _, c := range []struct {
		name    string
		key     string
		v       url.Values
		headers map[string]string
		code    int
	}{
		{"without the form token", ada, url.Values{"url": {e.pageURL}, "type": {"words"}, "every": {"2h"}}, nil, http.StatusForbidden},
		{"with another key's token", bob, add, nil, http.StatusForbidden},
		{"from another site", ada, add, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"from another origin", ada, add, map[string]string{"Sec-Fetch-Site": "", "Origin": "https://evil.example"}, http.StatusForbidden},
	} {
		if resp, body := e.form("/watches", c.key, c.v, c.headers); resp.StatusCode != c.code {
			t.Errorf("add %s: %d, want %d\n%s", c.name, resp.StatusCode, c.code, body)
		}
	}
	if ss, _ := e.engine.List(t.Context(), ""); len(ss) != 0 {
		t.Fatalf("refused forms installed %d watches", len(ss))
	}

	bad := url.Values{"csrf": {formToken(ada)}, "url": {e.pageURL}, "type": {"words"}, "every": {"10m"}, "notify": {"feed"}}
	if resp, body := e.form("/watches", ada, bad, nil); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, `id="error">every = 10m0s: this API key allows at least 1h0m0s<`) || !strings.Contains(body, `value="`+e.pageURL+`"`) {
		t.Errorf("interval under the key's limit: %d, want 400 naming every and keeping the form\n%s", resp.StatusCode, body)
	}
	// A form that cannot be read is refused naming what it must be.
	for body, want := range map[string]string{
		"csrf=%zz&url=%":                   `form: invalid URL escape &#34;%zz&#34; (limit: a URL-encoded form)`,
		"url=" + strings.Repeat("a", 5000): `form: the form is over 4096 bytes (limit: at most 4096 bytes (watch.max_request_bytes))`,
	} {
		req, err := http.NewRequestWithContext(t.Context(), "POST", e.srv.URL+"/watches", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if resp, page := e.browse(req, ada); resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, want) {
			t.Errorf("a form of %.20q…: %d, want 400 saying %s\n%s", body, resp.StatusCode, want, page)
		}
	}
	// A spec's own refusal reads once, as the command line prints it.
	bad = url.Values{"csrf": {formToken(ada)}, "url": {"ftp://x/"}, "type": {"words"}, "every": {"2h"}, "notify": {"feed"}}
	if resp, body := e.form("/watches", ada, bad, nil); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, `id="error">url = ftp://x/: must be an absolute http(s) URL</p>`) {
		t.Errorf("an ftp URL: %d, want 400 saying url = ftp://x/: must be an absolute http(s) URL, once\n%s", resp.StatusCode, body)
	}
	resp, body := e.form("/watches", ada, add, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/watches/w1" {
		t.Fatalf("add: %d %s %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if resp, body := e.get("/watches/w1", ada); resp.StatusCode != http.StatusOK || !strings.Contains(body, "2099-01-01") || !strings.Contains(body, `id="no-history"`) {
		t.Errorf("watch page: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := e.get("/watches/w1", bob); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob opens ada's watch: %d, want 404", resp.StatusCode)
	}

	e.page("<html><body><p>Apply by April 10.</p></body></html>")
	if _, err := e.engine.Check(t.Context(), e.pageURL); err != nil {
		t.Fatal(err)
	}
	if _, body := e.get("/watches/w1", ada); !strings.Contains(body, `href="/watches/w1/diff?n=1&amp;view=side"`) {
		t.Errorf("history does not link the change's diff\n%s", body)
	}
	for _, c := range []struct {
		query string
		code  int
		want  []string
	}{
		{"?n=1&view=side", 200, []string{`<table class="diff side-by-side">`, "<del>march</del>", "<ins>april</ins>", `id="to-changes"`}},
		{"?n=1&view=changes", 200, []string{`<div class="diff changes-only">`, "<del>march</del>", "<ins>april</ins>", `id="to-side"`}},
		{"?n=2", 400, []string{`id="error">n = 2: no such change (limit: 1 to 1)`}},
		{"?view=wide", 400, []string{`id="error">view = wide: unknown view`}},
		{"?n=1&n=2", 400, []string{`id="error">n = 1, 2: given 2 times`}},
		{"?n=%zz", 400, []string{`id="error">query string = n=%zz:`}},
	} {
		resp, body := e.get("/watches/w1/diff"+c.query, ada)
		if resp.StatusCode != c.code {
			t.Errorf("diff%s: %d, want %d\n%s", c.query, resp.StatusCode, c.code, body)
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("diff%s lacks %s\n%s", c.query, w, body)
			}
		}
	}

	if resp, _ := e.form("/watches/w1/delete", bob, url.Values{"csrf": {formToken(bob)}}, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob removes ada's watch: %d, want 404", resp.StatusCode)
	}
	if resp, _ := e.form("/watches/w1/delete", ada, url.Values{"csrf": {formToken(ada)}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("remove: %d", resp.StatusCode)
	}
	if _, body := e.get("/watches", ada); !strings.Contains(body, `id="no-watches"`) {
		t.Errorf("after remove the list still shows a watch\n%s", body)
	}
}

func TestAlertPages(t *testing.T) {
	e := newWatchEnv(t)
	ada, bob := e.key("ada", 5), e.key("bob", 5)
	if resp, body := e.form("/watches/alerts", ada, url.Values{"csrf": {formToken(ada)}, "query": {`"unclosed`}, "notify": {"feed"}}, nil); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, `id="error">query = &#34;unclosed: unclosed quote at byte 1`) || !strings.Contains(body, `value="&#34;unclosed"`) {
		t.Errorf("bad query: %d, want 400 naming the query and keeping it\n%s", resp.StatusCode, body)
	}
	if resp, body := e.form("/watches/alerts", ada, url.Values{"csrf": {formToken(ada)}, "query": {"plain language"}, "notify": {"sms:1"}}, nil); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, `id="error">notify = sms:1`) {
		t.Errorf("bad target: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := e.form("/watches/alerts", ada, url.Values{"csrf": {formToken(ada)}, "query": {"plain language"}, "notify": {"feed"}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add alert: %d", resp.StatusCode)
	}
	if resp, _ := e.form("/watches/alerts", ada, url.Values{"csrf": {formToken(ada)}, "query": {"accessibility"}, "notify": {"feed"}, "every_change": {"1"}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add alert on every change: %d", resp.StatusCode)
	}
	as := e.alerts("ada")
	if len(as) != 2 || as[0].Query != "plain language" || as[0].EveryChange || !as[1].EveryChange {
		t.Fatalf("ada's alerts: %+v, want plain language once per page, then accessibility at every change", as)
	}
	if _, body := e.get("/watches/alerts", ada); !strings.Contains(body, `<td class="query">plain language</td><td>feed </td><td>once</td>`) ||
		!strings.Contains(body, `<td class="query">accessibility</td><td>feed </td><td>at every change</td>`) {
		t.Errorf("alert list lacks the alerts, or how often they send a page\n%s", body)
	}
	if resp, _ := e.form("/watches/alerts/"+as[1].ID+"/delete", ada, url.Values{"csrf": {formToken(ada)}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove the alert on every change: %d", resp.StatusCode)
	}
	as = e.alerts("ada")
	if _, body := e.get("/watches/alerts", bob); !strings.Contains(body, `id="no-alerts"`) {
		t.Errorf("bob sees ada's alerts\n%s", body)
	}
	if resp, _ := e.form("/watches/alerts/"+as[0].ID+"/delete", bob, url.Values{"csrf": {formToken(bob)}}, nil); resp.StatusCode != http.StatusNotFound || len(e.alerts("ada")) != 1 {
		t.Errorf("bob removes ada's alert: %d, %d left", resp.StatusCode, len(e.alerts("ada")))
	}
	if resp, _ := e.form("/watches/alerts/"+as[0].ID+"/delete", ada, url.Values{"csrf": {formToken(ada)}}, nil); resp.StatusCode != http.StatusSeeOther || len(e.alerts("ada")) != 0 {
		t.Errorf("remove: %d, %d left", resp.StatusCode, len(e.alerts("ada")))
	}
}
