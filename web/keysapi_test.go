package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestKeysAreMadeAndRevokedOnTheAdminListener: the admin listener makes a
// key that the public API takes at once, with the limits asked for or the
// defaults; revoking it refuses the key and its feed token from the next
// request on; the public listener offers neither route; bad requests name
// the field.
func TestKeysAreMadeAndRevokedOnTheAdminListener(t *testing.T) {
	e := newWatchEnv(t)
	public, admin := withAdmin(t, Deps{Pages: e.db, Watches: e.engine, Alerts: e.matcher, Outbox: e.outbox})

	if code, _ := send(t, public, "POST", "/api/v1/keys", `{"user":"ada"}`); code != http.StatusNotFound && code != http.StatusMethodNotAllowed {
		t.Fatalf("POST /api/v1/keys on the public listener: %d; want it not served there", code)
	}
	code, body := send(t, admin, "POST", "/api/v1/keys", `{"user":"ada","max_watches":1,"min_every":"30m"}`)
	var made MadeKey
	if code != http.StatusCreated || json.Unmarshal([]byte(body), &made) != nil {
		t.Fatalf("POST /api/v1/keys: %d %s", code, body)
	}
	if !strings.HasPrefix(made.Key, "dqw_") || made.User != "ada" || made.MaxWatches != 1 || made.MinEvery != "30m0s" || made.MaxRegexBytes != 256 || made.Created.IsZero() {
		t.Errorf("made %+v; want ada's key, 1 watch, 30m, the default 256 regex bytes", made)
	}
	watches := func(key string) int {
		req, _ := http.NewRequest("GET", public.URL+"/api/v1/watches", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := watches(made.Key); got != http.StatusOK {
		t.Fatalf("GET /api/v1/watches with the key made: %d", got)
	}
	req, _ := http.NewRequest("POST", public.URL+"/api/v1/watches", strings.NewReader(`{"url":"`+e.pageURL+`","every":"10m"}`))
	req.Header.Set("Authorization", "Bearer "+made.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("a watch every 10m under a key of 30m: %d; want 400", res.StatusCode)
	}
	var list struct{ Feed string }
	if code, body := e.call("GET", "/api/v1/watches", made.Key, "", &list); code != http.StatusOK || list.Feed == "" {
		t.Fatalf("listing: %d %s", code, body)
	}
	feed := "/api/v1/feed?" + tokenQuery(t, list.Feed)
	if code, body := send(t, public, "GET", feed, ""); code != http.StatusOK {
		t.Fatalf("feed with the key's token: %d %s", code, body)
	}

	for _, c := range []struct{ body, field string }{
		{`{"user":"a b"}`, `"field":"user"`},
		{`{"user":"ada","max_watches":0}`, `"field":"max_watches"`},
		{`{"user":"ada","min_every":"soon"}`, `"field":"min_every"`},
		{`{"user":"ada","min_every":"-1h"}`, `"field":"min_every"`},
		{`{"user":"ada","max_regex_bytes":-1}`, `"field":"max_regex_bytes"`},
		{`{"user":"ada","admin":true}`, `"admin"`},
	} {
		if code, body := send(t, admin, "POST", "/api/v1/keys", c.body); code != http.StatusBadRequest || !strings.Contains(body, c.field) {
			t.Errorf("POST /api/v1/keys %s: %d %s; want 400 naming %s", c.body, code, body, c.field)
		}
	}

	token := feedToken(t, list.Feed)
	if code, body := send(t, admin, "POST", "/api/v1/keys/revoke", `{"key":"`+token+`"}`); code != http.StatusBadRequest || !strings.Contains(body, "feed token") {
		t.Errorf("revoking by feed token: %d %s; want 400 asking for the key", code, body)
	}
	if code, body := send(t, admin, "POST", "/api/v1/keys/revoke", `{"key":" `+made.Key+`\n"}`); code != http.StatusOK || !strings.Contains(body, `"user":"ada"`) {
		t.Fatalf("revoke: %d %s", code, body)
	}
	if got := watches(made.Key); got != http.StatusUnauthorized {
		t.Errorf("GET /api/v1/watches with the revoked key: %d; want 401", got)
	}
	if code, _ := send(t, public, "GET", feed, ""); code != http.StatusUnauthorized {
		t.Errorf("feed with the revoked key's token: %d; want 401", code)
	}
	if code, body := send(t, admin, "POST", "/api/v1/keys/revoke", `{"key":"`+made.Key+`"}`); code != http.StatusNotFound || !strings.Contains(body, "no such key") {
		t.Errorf("revoking again: %d %s; want 404", code, body)
	}
	if code, body := send(t, admin, "POST", "/api/v1/keys/revoke", `{}`); code != http.StatusBadRequest || !strings.Contains(body, `"field":"key"`) {
		t.Errorf("revoking no key: %d %s; want 400 naming key", code, body)
	}
}
