package watch

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestCreateKeyNamesEveryBadLimit: each limit out of range is named with
// its value, where the error used to list every field at once.
func TestCreateKeyNamesEveryBadLimit(t *testing.T) {
	e := newEngine(t, openRepo(t), nil, newClock(t0), Options{})
	_, err := e.CreateKey(t.Context(), Key{User: "ada", MaxWatches: -1, MinEvery: 0, MaxRegexBytes: 10})
	if err == nil {
		t.Fatal("a key with max_watches -1 was created")
	}
	for _, want := range []string{`key for "ada"`, "max_watches = -1: must be > 0", "min_every = 0s: must be > 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "max_regex_bytes") {
		t.Errorf("error %q names max_regex_bytes, which is fine", err)
	}
	if _, err := e.CreateKey(t.Context(), Key{User: "ada", MaxWatches: 1, MinEvery: 1, MaxRegexBytes: 1}); err != nil {
		t.Fatal(err)
	}
}

// TestFeedTokenSurvivesAReopenAndDiesWithItsKey: a key's feed token is
// the same after the engine is reopened and is accepted then; it is not
// the key and does not hold it; another key's token is another; a revoked
// key takes its token with it.
func TestFeedTokenSurvivesAReopenAndDiesWithItsKey(t *testing.T) {
	db := openRepo(t)
	e := newEngine(t, db, nil, newClock(t0), Options{})
	lim := Key{MaxWatches: 1, MinEvery: time.Hour, MaxRegexBytes: 1}
	secret := func(user string) string {
		k := lim
		k.User = user
		s, err := e.CreateKey(t.Context(), k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	adaKey, bobKey := secret("ada"), secret("bob")
	token := func(e *Engine, secret string) string {
		t.Helper()
		k, ok, err := e.Authenticate(secret)
		if err != nil || !ok {
			t.Fatalf("Authenticate = %v, %v", ok, err)
		}
		tok, err := e.FeedToken(t.Context(), k)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	ada, bob := token(e, adaKey), token(e, bobKey)
	if !strings.HasPrefix(ada, FeedTokenPrefix) || ada == bob || strings.Contains(ada, strings.TrimPrefix(adaKey, "dqw_")) {
		t.Fatalf("tokens %q and %q of keys %q and %q; want dqf_ tokens, apart, holding no key", ada, bob, adaKey, bobKey)
	}
	if _, err := e.FeedToken(t.Context(), Key{User: "ada"}); err == nil {
		t.Error("FeedToken of a key not authenticated succeeded")
	}
	e2, err := New(db, testConfig(), nil, Options{Fetcher: fetcher(1 << 20)})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if again := token(e2, adaKey); again != ada {
		t.Errorf("token after a reopen = %q, want %q", again, ada)
	}
	for tok, want := range map[string]string{ada: "ada", bob: "bob", adaKey: "", FeedTokenPrefix + "00": "", "": ""} {
		k, ok, err := e2.AuthenticateFeed(tok)
		if err != nil || ok != (want != "") || k.User != want {
			t.Errorf("AuthenticateFeed(%q) = %q, %v, %v; want user %q", tok, k.User, ok, err, want)
		}
	}
	if k, err := e2.RevokeKey(t.Context(), adaKey); err != nil || k.User != "ada" {
		t.Fatalf("RevokeKey = %+v, %v", k, err)
	}
	if _, ok, err := e2.AuthenticateFeed(ada); ok || err != nil {
		t.Errorf("the revoked key's token: accepted %v, %v", ok, err)
	}
	if _, ok, err := e2.Authenticate(adaKey); ok || err != nil {
		t.Errorf("the revoked key: accepted %v, %v", ok, err)
	}
	if _, ok, _ := e2.AuthenticateFeed(bob); !ok {
		t.Error("bob's token stopped working when ada's key was revoked")
	}
	if _, err := e2.RevokeKey(t.Context(), adaKey); !errors.Is(err, ErrNoSuchKey) {
		t.Errorf("revoking it again: %v, want ErrNoSuchKey", err)
	}
}

// TestCreateKeyChecksTheUserName: a key is made for a user name of at
// most MaxUserBytes letters, digits and . _ - @, the names in use; a name
// with a space, markup, a control character or 5,000 bytes is refused,
// naming the field, the value (cut) and the limit.
func TestCreateKeyChecksTheUserName(t *testing.T) {
	e := newEngine(t, openRepo(t), nil, newClock(t0), Options{})
	lim := Key{MaxWatches: 1, MinEvery: time.Hour, MaxRegexBytes: 1}
	for _, user := range []string{"ada", "demo", "carol", "ops@example.org", "a.b_c-D9", strings.Repeat("x", MaxUserBytes)} {
		k := lim
		k.User = user
		if _, err := e.CreateKey(t.Context(), k); err != nil {
			t.Errorf("CreateKey(%q): %v", user, err)
		}
	}
	long := strings.Repeat("y", 5000)
	for _, c := range []struct{ user, want string }{
		{"", `user = "": must be 1 to 64 bytes of ASCII letters, digits`},
		{"ada lovelace", `user = "ada lovelace": must be 1 to 64 bytes`},
		{"<a&b>", `user = "<a&b>"`},
		{"ada\n", `user = "ada\n"`},
		{"zoë", `user = "zoë"`},
		{strings.Repeat("x", MaxUserBytes+1), `(65 bytes): must be 1 to 64 bytes`},
		{long, `user = "` + long[:40] + `"… (5000 bytes): must be`},
	} {
		k := lim
		k.User = c.user
		_, err := e.CreateKey(t.Context(), k)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "user" || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 300 {
			t.Errorf("CreateKey(%.50q): %v; want a user FieldError saying %s", c.user, err, c.want)
		}
	}
}
