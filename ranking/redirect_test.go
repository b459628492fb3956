package ranking

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func newSigner(t testing.TB) *Signer {
	t.Helper()
	s, err := NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var validClick = Click{Target: "https://a.test/page?x=1", Query: "go pebble", Rank: 3, User: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}

func rawQuery(link string) string {
	_, q, _ := strings.Cut(link, "?")
	return q
}

func TestSignedLinkVerifies(t *testing.T) {
	s := newSigner(t)
	link := s.Link(validClick)
	if !strings.HasPrefix(link, RedirectPath+"?") {
		t.Fatalf("link %q is not under %s", link, RedirectPath)
	}
	got, err := s.Verify(rawQuery(link))
	if err != nil || got != validClick {
		t.Fatalf("Verify = %+v, %v; want %+v", got, err, validClick)
	}
}

func TestTamperedLinksFail(t *testing.T) {
	s := newSigner(t)
	other, err := NewSigner([]byte("another secret, also 32 bytes long!"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := url.ParseQuery(rawQuery(s.Link(validClick)))
	if err != nil {
		t.Fatal(err)
	}
	with := func(k, v string) string {
		q := url.Values{}
		for kk, vv := range good {
			q[kk] = append([]string(nil), vv...)
		}
		q.Set(k, v)
		return q.Encode()
	}
	for _, c := range []struct {
		name string
		raw  string
		want error
	}{
		{"a changed target", with("u", "https://evil.test/"), ErrBadSignature},
		{"a changed query", with("q", "go bleve"), ErrBadSignature},
		{"a changed rank", with("n", "1"), ErrBadSignature},
		{"a changed user", with("id", "ZYXWVUTSRQPONMLKJIHGFEDCBA"), ErrBadSignature},
		{"a changed signature", with("s", "AAAA"), ErrBadSignature},
		{"a link signed with another secret", rawQuery(other.Link(validClick)), ErrBadSignature},
		{"a foreign parameter", good.Encode() + "&next=https://evil.test/", ErrBadLink},
		{"a repeated parameter", good.Encode() + "&u=https://evil.test/", ErrBadLink},
		{"a missing signature", func() string { q := with("s", ""); v, _ := url.ParseQuery(q); v.Del("s"); return v.Encode() }(), ErrBadLink},
		{"a non-numeric rank", with("n", "x"), ErrBadLink},
		{"a javascript target", with("u", "javascript:alert(1)"), ErrBadLink},
		{"a relative target", with("u", "//evil.test/"), ErrBadLink},
		{"a malformed query string", "u=%zz", ErrBadLink},
	} {
		t.Run(c.name+" is rejected", func(t *testing.T) {
			if _, err := s.Verify(c.raw); !errors.Is(err, c.want) {
				t.Fatalf("Verify = %v, want %v", err, c.want)
			}
		})
	}
}

type recorded struct{ url, user string }

type clickLog struct{ clicks []recorded }

func (c *clickLog) RecordClick(_ context.Context, url, user string) (bool, error) {
	c.clicks = append(c.clicks, recorded{url, user})
	return true, nil
}

func TestRedirectHandler(t *testing.T) {
	s := newSigner(t)
	link := s.Link(validClick)
	serve := func(target string, cookie string) (*httptest.ResponseRecorder, *clickLog) {
		log := &clickLog{}
		req := httptest.NewRequest(http.MethodGet, target, nil)
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: UserCookie, Value: cookie})
		}
		rec := httptest.NewRecorder()
		NewRedirectHandler(s, log, nil).ServeHTTP(rec, req)
		return rec, log
	}
	t.Run("a valid link redirects and records the click", func(t *testing.T) {
		rec, log := serve(link, validClick.User)
		if rec.Code != http.StatusFound || rec.Header().Get("Location") != validClick.Target {
			t.Fatalf("got %d to %q", rec.Code, rec.Header().Get("Location"))
		}
		if len(log.clicks) != 1 || log.clicks[0] != (recorded{validClick.Target, validClick.User}) {
			t.Fatalf("recorded %+v", log.clicks)
		}
		if rec.Header().Get("Referrer-Policy") != "no-referrer" {
			t.Fatal("the query would leak to the target as Referer")
		}
	})
	t.Run("another user's link redirects without recording", func(t *testing.T) {
		rec, log := serve(link, "ZYXWVUTSRQPONMLKJIHGFEDCBA")
		if rec.Code != http.StatusFound || len(log.clicks) != 0 {
			t.Fatalf("got %d, recorded %+v", rec.Code, log.clicks)
		}
	})
	t.Run("a bad signature answers 400 with a JSON error", func(t *testing.T) {
		rec, log := serve(strings.Replace(link, "go+pebble", "go+bleve", 1), validClick.User)
		if rec.Code != http.StatusBadRequest || len(log.clicks) != 0 {
			t.Fatalf("got %d, recorded %+v", rec.Code, log.clicks)
		}
		var body struct{ Error string }
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || !strings.Contains(body.Error, "signature") {
			t.Fatalf("body %q (%v)", rec.Body.String(), err)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("Content-Type %q", ct)
		}
	})
}

func TestRedirectRecordsIntoTheStore(t *testing.T) {
	_, store := openStore(t, testConfig(), nil)
	s := newSigner(t)
	srv := httptest.NewServer(NewRedirectHandler(s, store, nil))
	defer srv.Close()
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+s.Link(validClick), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: UserCookie, Value: validClick.User})
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("status %d", resp.StatusCode)
	}
	st, err := store.Lookup(t.Context(), []string{validClick.Target})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Clicks != 1 || st[0].Aware != 1 {
		t.Fatalf("stats after the click: %+v", st[0])
	}
}

func TestUserIDCookie(t *testing.T) {
	rec := httptest.NewRecorder()
	id := UserID(rec, httptest.NewRequest(http.MethodGet, "/search", nil))
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies set: %v", cookies)
	}
	c := cookies[0]
	if c.Name != UserCookie || c.Value != id || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.MaxAge <= 0 {
		t.Fatalf("cookie %+v", c)
	}
	if !validUserID(id) {
		t.Fatalf("generated id %q is not well formed", id)
	}
	t.Run("an existing id is kept", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/search", nil)
		req.AddCookie(c)
		rec := httptest.NewRecorder()
		if got := UserID(rec, req); got != id || len(rec.Result().Cookies()) != 0 {
			t.Fatalf("got %q and %d new cookies", got, len(rec.Result().Cookies()))
		}
	})
	t.Run("a malformed id is replaced", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/search", nil)
		req.AddCookie(&http.Cookie{Name: UserCookie, Value: "../../etc"})
		if got := UserID(httptest.NewRecorder(), req); got == "../../etc" || !validUserID(got) {
			t.Fatalf("got %q", got)
		}
	})
}

func FuzzVerify(f *testing.F) {
	s, err := NewSigner(testSecret)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(rawQuery(s.Link(validClick)))
	f.Add("u=https://a.test/&q=x&n=1&id=u&s=")
	f.Add("%")
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := s.Verify(raw)
		if err != nil {
			return
		}
		// Whatever verifies must be exactly what the signer would produce.
		if again, err := s.Verify(rawQuery(s.Link(c))); err != nil || again != c {
			t.Fatalf("verified %+v does not round-trip: %v", c, err)
		}
	})
}
