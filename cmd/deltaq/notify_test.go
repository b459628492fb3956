package main

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/notify"
)

// The owner reads the webhook signing key and the dead letters, and sends
// them again: the key printed verifies what a receiver got, a delivery
// that failed for good is listed with its target and error, and retry puts
// it back so that the next delivery pass sends it.
func TestNotifySecretDeadAndRetry(t *testing.T) {
	var mu sync.Mutex
	failing := true
	var got struct {
		ts, sig string
		body    []byte
	}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		got.body, _ = io.ReadAll(r.Body)
		got.ts, got.sig = r.Header.Get(notify.HeaderTimestamp), r.Header.Get(notify.HeaderSignature)
	}))
	defer hook.Close()

	data := t.TempDir()
	cfg, db := openData(t, data)
	cfg.Notify.MaxAttempts = 1
	ob := notify.NewOutbox(db, cfg.Notify)
	b := db.NewBatch(t.Context())
	n := &notify.Notification{ID: "n1", Source: "watch:w1", URL: "http://a.test/", Kind: "words", Change: "update", At: time.Now(),
		Targets: []notify.Target{{Kind: notify.Webhook, Addr: hook.URL}}}
	if err := ob.Enqueue(b, n); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	deliver := func() notify.Stats {
		st, err := notify.NewService(ob, notify.Options{}).Drain(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := deliver(); st.Dead != 1 {
		t.Fatalf("delivery to a failing webhook: %+v, want it dead-lettered", st)
	}
	db.Close()

	out, _, err := run(t, "notify", "dead", "--data", data)
	if err != nil || !strings.Contains(out, "n1") || !strings.Contains(out, hook.URL) || !strings.Contains(out, "500") || !strings.Contains(out, "1 dead letters") {
		t.Fatalf("notify dead: %v\n%s", err, out)
	}
	secret, _, err := run(t, "notify", "secret", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(secret))
	if err != nil || len(key) == 0 {
		t.Fatalf("notify secret printed %q: %v, want a key in hex", secret, err)
	}
	if out, _, err := run(t, "notify", "retry", "--data", data); err != nil || !strings.Contains(out, "1 dead letters back in the outbox") {
		t.Fatalf("notify retry: %v\n%s", err, out)
	}
	if out, _, err := run(t, "notify", "dead", "--data", data); err != nil || !strings.Contains(out, "no dead letters") {
		t.Errorf("notify dead after retry: %v\n%s", err, out)
	}

	mu.Lock()
	failing = false
	mu.Unlock()
	_, db = openData(t, data)
	defer db.Close()
	ob = notify.NewOutbox(db, cfg.Notify)
	if st := deliver(); st.Delivered != 1 {
		t.Fatalf("delivery after retry: %+v, want the notification delivered", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if !notify.Verify(key, got.ts, got.body, got.sig) {
		t.Errorf("the key notify secret printed does not verify the webhook's signature %q", got.sig)
	}
}
