package notify_test

import (
	"bufio"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/notify/notifytest"
	"github.com/deltaq/deltaq/repo"
)

func openRepo(t *testing.T) *repo.DB {
	t.Helper()
	db, err := repo.Open("", repo.Config{VersionsKept: 2, FetchLogKept: 2, StatsKept: 2, CacheBytes: 1 << 20}, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func testConfig() notify.Config {
	return notify.Config{MaxAttempts: 4, BackoffBase: time.Minute, BackoffMax: 10 * time.Minute, WebhookTimeout: 5 * time.Second,
		Batch: 16, FeedEntries: 3, MaxTargets: 2, Poll: time.Hour, SMTP: notify.SMTPConfig{From: "deltaq@localhost", Timeout: 5 * time.Second}}
}

func enqueue(t *testing.T, db *repo.DB, ob *notify.Outbox, n *notify.Notification) {
	t.Helper()
	b := db.NewBatch(t.Context())
	defer b.Close()
	if err := ob.Enqueue(b, n); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

func sample(id string, at time.Time, targets ...notify.Target) *notify.Notification {
	d := diff.Text("deadline March 3", "deadline April 10", diff.Options{})
	return &notify.Notification{ID: id, Source: "watch:w1", URL: "https://example.gov/a", Title: "changed: example.gov/a",
		Kind: "any", Change: "update", At: at, Summary: "2 words added", Diff: &d, Targets: targets}
}

// noKeepAlive keeps synctest's clock moving: an idle keep-alive connection
// would leave a goroutine blocked on the network.
func noKeepAlive() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
}

func TestWebhookRetriesWithBackoffThenDelivers(t *testing.T) {
	rcv := notifytest.Webhooks(t)
	synctest.Test(t, func(t *testing.T) {
		db := openRepo(t) // in the bubble, with its goroutines (Pebble's WaitGroups cannot span it)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		ob := notify.NewOutbox(db, testConfig())
		svc := notify.NewService(ob, notify.Options{Client: noKeepAlive()})
		secret, err := svc.Secret(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rcv.SetSecret(secret)
		rcv.FailNext(2)
		start := time.Now()
		enqueue(t, db, ob, sample("n1", start, notify.Target{Kind: notify.Webhook, Addr: rcv.URL}))
		done := make(chan error)
		go func() { done <- svc.Run(ctx) }()

		// Attempt 1 fails at once, attempt 2 a minute later, attempt 3 two
		// minutes after that succeeds.
		time.Sleep(2*time.Minute + 59*time.Second)
		synctest.Wait()
		if n := len(rcv.Hooks()); n != 0 {
			t.Fatalf("delivered before the second back-off ended: %d", n)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		hooks := rcv.Hooks()
		if len(hooks) != 1 || hooks[0].Key != "n1" || hooks[0].Notification.Diff == nil {
			t.Fatalf("hooks = %+v, want one with key n1 and its diff", hooks)
		}
		if got := strings.Join(hooks[0].Notification.Diff.Added(), " "); got != "April 10" {
			t.Errorf("delivered diff adds %q, want %q", got, "April 10")
		}
		if p, _ := ob.Pending(ctx); p != 0 {
			t.Errorf("pending after delivery = %d", p)
		}
		if rcv.BadSignatures() != 0 {
			t.Errorf("%d requests had a bad signature", rcv.BadSignatures())
		}
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	})
}

func TestDeadLetterAfterMaxAttemptsAndRetry(t *testing.T) {
	rcv := notifytest.Webhooks(t)
	synctest.Test(t, func(t *testing.T) {
		db := openRepo(t) // in the bubble, with its goroutines (Pebble's WaitGroups cannot span it)
		ctx := t.Context()
		ob := notify.NewOutbox(db, testConfig())
		svc := notify.NewService(ob, notify.Options{Client: noKeepAlive()})
		rcv.FailNext(1000)
		enqueue(t, db, ob, sample("n2", time.Now(), notify.Target{Kind: notify.Webhook, Addr: rcv.URL}))
		var st notify.Stats
		for range 4 { // backoffs 1, 2, 4 minutes, then the 4th failure
			s, err := svc.Drain(ctx)
			if err != nil {
				t.Fatal(err)
			}
			st.Failed += s.Failed
			st.Dead += s.Dead
			time.Sleep(10 * time.Minute)
		}
		if st.Failed != 4 || st.Dead != 1 {
			t.Fatalf("failed %d, dead %d; want 4 and 1", st.Failed, st.Dead)
		}
		dls, err := ob.DeadLetters(ctx)
		if err != nil || len(dls) != 1 || dls[0].ID != "n2" || dls[0].Attempts != 4 || !strings.Contains(dls[0].LastErr, "503") {
			t.Fatalf("dead letters = %+v, %v", dls, err)
		}
		rcv.FailNext(0)
		if n, err := ob.Retry(ctx, time.Now()); err != nil || n != 1 {
			t.Fatalf("Retry = %d, %v", n, err)
		}
		if s, err := svc.Drain(ctx); err != nil || s.Delivered != 1 {
			t.Fatalf("Drain after Retry = %+v, %v", s, err)
		}
		if n, _ := ob.Dead(ctx); n != 0 {
			t.Errorf("dead after retry = %d", n)
		}
	})
}

func TestWebhookRedirectIsAFailedAttempt(t *testing.T) {
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			var reached atomic.Int32
			mux := http.NewServeMux()
			mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/moved", code) })
			mux.HandleFunc("/moved", func(http.ResponseWriter, *http.Request) { reached.Add(1) })
			srv := httptest.NewServer(mux)
			defer srv.Close()
			db := openRepo(t)
			ob := notify.NewOutbox(db, testConfig())
			svc := notify.NewService(ob, notify.Options{Client: srv.Client()})
			enqueue(t, db, ob, sample("n1", time.Now(), notify.Target{Kind: notify.Webhook, Addr: srv.URL + "/hook"}))
			st, err := svc.Once(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if st.Delivered != 0 || st.Failed != 1 || reached.Load() != 0 {
				t.Fatalf("stats %+v, redirect target reached %d times; want one failed attempt and the target not reached", st, reached.Load())
			}
			if p, _ := ob.Pending(t.Context()); p != 1 {
				t.Errorf("pending = %d, want the delivery kept for its retry", p)
			}
		})
	}
}

func TestEmailThroughRealSMTPServer(t *testing.T) {
	db := openRepo(t)
	mb := notifytest.SMTP(t)
	cfg := testConfig()
	cfg.SMTP.Addr = mb.Addr
	ob := notify.NewOutbox(db, cfg)
	svc := notify.NewService(ob, notify.Options{})
	enqueue(t, db, ob, sample("n3", time.Now(), notify.Target{Kind: notify.Email, Addr: "ada@example.org"}))
	if st, err := svc.Drain(t.Context()); err != nil || st.Delivered != 1 {
		t.Fatalf("Drain = %+v, %v", st, err)
	}
	msgs := mb.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.To != "ada@example.org" || m.Header.Get("Message-Id") != "<n3@deltaq>" || m.Header.Get(notify.HeaderIdempotency) != "n3" {
		t.Errorf("message to %q with Message-ID %q", m.To, m.Header.Get("Message-Id"))
	}
	for _, want := range []string{"https://example.gov/a", "+ April 10", "- March 3"} {
		if !strings.Contains(m.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, m.Body)
		}
	}
}

// TestEmailToAHungRelayStopsWithItsContext: a relay that takes the message
// and never answers holds a stopping service no longer than the stop
// itself, not notify.smtp.timeout, and the delivery stays for the next run.
func TestEmailToAHungRelayStopsWithItsContext(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan struct{})
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		fmt.Fprint(c, "220 localhost ESMTP\r\n")
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch cmd := strings.ToUpper(strings.TrimSpace(line)); {
			case cmd == "DATA":
				fmt.Fprint(c, "354 go ahead\r\n")
			case cmd == ".":
				close(got) // the message is in; no answer ever comes
				io.Copy(io.Discard, r)
				return
			case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"), strings.HasPrefix(cmd, "MAIL"), strings.HasPrefix(cmd, "RCPT"):
				fmt.Fprint(c, "250 ok\r\n")
			}
		}
	}()
	db := openRepo(t)
	cfg := testConfig()
	cfg.SMTP.Addr, cfg.SMTP.Timeout = l.Addr().String(), time.Hour
	ob := notify.NewOutbox(db, cfg)
	enqueue(t, db, ob, sample("n1", time.Now(), notify.Target{Kind: notify.Email, Addr: "ada@example.org"}))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- notify.NewService(ob, notify.Options{}).Run(ctx) }()
	<-got
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run still waiting for the relay a minute after its context was cancelled")
	}
	if p, _ := ob.Pending(t.Context()); p != 1 {
		t.Errorf("pending = %d, want the delivery kept for the next run", p)
	}
}

// TestEmailOfALongRunOfWords: a diff's run of words is one line however
// long, and a relay refuses a line over its limit (RFC 5322: 998 bytes;
// go-smtp's 2,000); the e-mail still goes, and reads as the whole run.
func TestEmailOfALongRunOfWords(t *testing.T) {
	db := openRepo(t)
	mb := notifytest.SMTP(t)
	cfg := testConfig()
	cfg.SMTP.Addr = mb.Addr
	ob := notify.NewOutbox(db, cfg)
	words := make([]string, 1000)
	for i := range words {
		words[i] = "wörd" + strconv.Itoa(i) + "=x"
	}
	long := strings.Join(words, " ")
	n := sample("n1", time.Now(), notify.Target{Kind: notify.Email, Addr: "ada@example.org"})
	d := diff.Text("deadline March 3", "deadline "+long, diff.Options{})
	n.Diff = &d
	enqueue(t, db, ob, n)
	var log strings.Builder
	st, err := notify.NewService(ob, notify.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}).Drain(t.Context())
	if err != nil || st.Delivered != 1 {
		t.Fatalf("Drain = %+v, %v\n%s", st, err, log.String())
	}
	msgs := mb.Messages()
	if len(msgs) != 1 || !strings.Contains(msgs[0].Body, "+ "+long+"\r\n") {
		t.Fatalf("messages %+v, want one whose body has the added run whole", msgs)
	}
}

func TestEmailHeadersCannotBeInjected(t *testing.T) {
	db := openRepo(t)
	mb := notifytest.SMTP(t)
	cfg := testConfig()
	cfg.SMTP.Addr = mb.Addr
	ob := notify.NewOutbox(db, cfg)
	n := sample("n5", time.Now(), notify.Target{Kind: notify.Email, Addr: "ada@example.org"})
	n.Title = "changed\r\nBcc: eve@example.org"
	enqueue(t, db, ob, n)
	if st, err := notify.NewService(ob, notify.Options{}).Drain(t.Context()); err != nil || st.Delivered != 1 {
		t.Fatalf("Drain = %+v, %v", st, err)
	}
	m := mb.Messages()[0]
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.Get("Bcc") != "" || !strings.Contains(subject, "Bcc: eve@example.org") {
		t.Errorf("a title with a line break made headers: Bcc %q, Subject %q", m.Header.Get("Bcc"), subject)
	}
}

func TestEmailWithoutRelayIsDeadLettered(t *testing.T) {
	db := openRepo(t)
	cfg := testConfig()
	cfg.MaxAttempts = 1
	ob := notify.NewOutbox(db, cfg)
	enqueue(t, db, ob, sample("n4", time.Now(), notify.Target{Kind: notify.Email, Addr: "ada@example.org"}))
	st, err := notify.NewService(ob, notify.Options{}).Drain(t.Context())
	if err != nil || st.Dead != 1 {
		t.Fatalf("Drain = %+v, %v; want one dead letter", st, err)
	}
	dls, _ := ob.DeadLetters(t.Context())
	if len(dls) != 1 || !strings.Contains(dls[0].LastErr, "notify.smtp.addr") {
		t.Errorf("dead letters = %+v, want the error to name notify.smtp.addr", dls)
	}
}

func TestAtomFeedKeepsNewestEntries(t *testing.T) {
	db := openRepo(t)
	ob := notify.NewOutbox(db, testConfig())
	t0 := time.Date(2023, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		n := sample("e"+string(rune('0'+i)), t0.Add(time.Duration(i)*time.Hour))
		n.Feeds = []string{"watch:w1", "user:ada"}
		enqueue(t, db, ob, n)
	}
	svc := notify.NewService(ob, notify.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // one pass: trims, then sees the cancel
	if err := svc.Run(ctx); err != context.Canceled {
		t.Fatalf("Run = %v", err)
	}
	raw, _, err := ob.Feed(t.Context(), "watch:w1", "http://localhost/feeds/watch/w1", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	entries := notifytest.Entries(t, raw)
	var ids []string
	for _, e := range entries {
		ids = append(ids, strings.TrimPrefix(e.ID, "urn:deltaq:notification:"))
	}
	if got := strings.Join(ids, ","); got != "e4,e3,e2" {
		t.Errorf("entries %s, want the newest three, newest first", got)
	}
	if !strings.Contains(entries[0].Content, "<ins>April 10</ins>") {
		t.Errorf("entry content lacks the diff: %s", entries[0].Content)
	}
	if es, _ := ob.FeedEntries(t.Context(), "user:ada"); len(es) != 3 {
		t.Errorf("user feed has %d entries, want 3", len(es))
	}
}

func TestBadInput(t *testing.T) {
	for _, s := range []string{"webhook:ftp://x", "email:not an address", "feed:x", "sms:123", "webhook:/relative", "email:" + strings.Repeat("a", 243) + "@example.org"} {
		if _, err := notify.ParseTarget(s); err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("ParseTarget(%q) = %v, want an error quoting it", s, err)
		}
	}
	db := openRepo(t)
	b := db.NewBatch(t.Context())
	defer b.Close()
	if err := notify.NewOutbox(db, testConfig()).Enqueue(b, &notify.Notification{ID: "a/b"}); err == nil {
		t.Error("Enqueue accepted an id with '/'")
	}
	bad := testConfig()
	bad.MaxAttempts, bad.BackoffMax, bad.MaxTargets = 0, time.Second, 0
	err := bad.Validate()
	if err == nil || !strings.Contains(err.Error(), "notify.max_attempts = 0") || !strings.Contains(err.Error(), "notify.backoff_max = 1s") ||
		!strings.Contains(err.Error(), "notify.max_targets = 0: must be > 0") {
		t.Errorf("Validate = %v", err)
	}
}

// TestParseTargetsBoundsTheirNumber: up to max targets are read as
// ParseTarget reads each; one more is refused with the count and the
// limit, and a bad one names itself.
func TestParseTargetsBoundsTheirNumber(t *testing.T) {
	got, err := notify.ParseTargets([]string{"feed", "webhook:https://a.example/h"}, 2)
	if err != nil || len(got) != 2 || got[1] != (notify.Target{Kind: notify.Webhook, Addr: "https://a.example/h"}) {
		t.Fatalf("two targets of two: %v, %v", got, err)
	}
	var te *notify.TargetError
	_, err = notify.ParseTargets([]string{"feed", "feed", "feed"}, 2)
	if !errors.As(err, &te) || te.Value != "(3 targets)" || te.Limit != "at most 2 (notify.max_targets)" {
		t.Errorf("three targets of two: %v, want the count and the limit", err)
	}
	_, err = notify.ParseTargets([]string{"feed", "sms:1"}, 2)
	if !errors.As(err, &te) || te.Value != "sms:1" || !strings.Contains(err.Error(), `notify "sms:1"`) {
		t.Errorf("a bad target: %v, want it named", err)
	}
}

// TestNotificationStoredBeforeChangesStillRenders: a delivery and a feed
// entry written before notifications carried a digest's changes (JSON
// without "changes", keys as repo/FORMAT.md gives them) still load, and
// render the summary and the one diff as they did.
func TestNotificationStoredBeforeChangesStillRenders(t *testing.T) {
	db := openRepo(t)
	mb := notifytest.SMTP(t)
	rcv := notifytest.Webhooks(t)
	cfg := testConfig()
	cfg.SMTP.Addr = mb.Addr
	ob := notify.NewOutbox(db, cfg)
	at := time.Date(2023, 3, 1, 0, 0, 0, 0, time.UTC)
	summary := `2023-02-28T10:00:00Z update: 1 runs added, 1 removed\n2023-02-28T22:00:00Z update: 1 runs added, 1 removed`
	n := `{"id":"dw1-1","source":"watch:w1","url":"https://example.gov/a","title":"changed: example.gov/a","kind":"any",` +
		`"change":"update","at":"2023-03-01T00:00:00Z","summary":"` + summary + `",` +
		`"diff":{"words":[{"kind":"delete","text":"March 3","n":2},{"kind":"insert","text":"April 10","n":2}],"links":{},"fraction":0.5}}`
	stamp := fmt.Sprintf("%016x", at.UnixNano())
	b := db.NewBatch(t.Context())
	defer b.Close()
	for i, target := range []string{`{"kind":"webhook","addr":"` + rcv.URL + `"}`, `{"kind":"email","addr":"ada@example.org"}`} {
		v := `{"n":` + n + `,"target":` + target + `,"index":` + strconv.Itoa(i) + `,"attempts":0,"due":"2023-03-01T00:00:00Z"}`
		if err := b.PutBucket("notify", "o"+stamp+"/dw1-1/"+strconv.Itoa(i), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.PutBucket("notify", "fwatch:w1\x00"+stamp+"/dw1-1", []byte(n)); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := notify.NewService(ob, notify.Options{Client: noKeepAlive()}).Drain(t.Context()); err != nil || st.Delivered != 2 {
		t.Fatalf("Drain = %+v, %v; want both old deliveries sent", st, err)
	}

	msgs := mb.Messages()
	want := "https://example.gov/a\n" + strings.ReplaceAll(summary, `\n`, "\n") + "\n\n- March 3\n+ April 10\n"
	if len(msgs) != 1 || strings.ReplaceAll(msgs[0].Body, "\r\n", "\n") != want {
		t.Errorf("messages %+v, want one with the body\n%s", msgs, want)
	}
	hooks := rcv.Hooks()
	if len(hooks) != 1 || hooks[0].Notification.Diff == nil || hooks[0].Notification.Changes != nil || strings.Contains(string(hooks[0].Body), `"changes"`) {
		t.Errorf("hooks %+v, want one with the diff and no changes", hooks)
	}
	raw, _, err := ob.Feed(t.Context(), "watch:w1", "http://localhost/feeds/watch/w1", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	entries := notifytest.Entries(t, raw)
	if len(entries) != 1 || !strings.Contains(entries[0].Content, "<del>March 3</del>") || !strings.Contains(entries[0].Content, "<ins>April 10</ins>") ||
		strings.Contains(entries[0].Content, "<h4>") {
		t.Errorf("entries %+v, want one with the diff and no change headings", entries)
	}
}

// TestFeedIsValidAtom: a feed has the author RFC 4287 §4.1.1 asks of it,
// its absolute self link as given, ids that are URIs whatever the user's
// name, and <updated> from its newest entry, or from when it began while
// it has none, not 1970.
func TestFeedIsValidAtom(t *testing.T) {
	db := openRepo(t)
	ob := notify.NewOutbox(db, testConfig())
	began := time.Date(2023, 2, 1, 9, 0, 0, 0, time.UTC)
	const self = "https://dq.example/api/v1/feed?token=dqf_1"
	type feed struct {
		ID      string `xml:"id"`
		Updated string `xml:"updated"`
		Author  string `xml:"author>name"`
		Link    struct {
			Href string `xml:"href,attr"`
			Rel  string `xml:"rel,attr"`
		} `xml:"link"`
		Entries []struct {
			ID      string `xml:"id"`
			Updated string `xml:"updated"`
		} `xml:"entry"`
	}
	read := func(name string) (feed, time.Time) {
		t.Helper()
		raw, updated, err := ob.Feed(t.Context(), name, self, began)
		if err != nil {
			t.Fatal(err)
		}
		var f feed
		if err := xml.Unmarshal(raw, &f); err != nil {
			t.Fatalf("feed is not XML: %v\n%s", err, raw)
		}
		return f, updated
	}
	f, updated := read("user:a b<&")
	if f.Author != "deltaq" || f.Link.Href != self || f.Link.Rel != "self" || f.ID != "urn:deltaq:feed:user:a%20b%3C&" ||
		f.Updated != "2023-02-01T09:00:00Z" || !updated.Equal(began) || len(f.Entries) != 0 {
		t.Errorf("empty feed %+v, updated %v; want author deltaq, the self link, an escaped id and updated when it began", f, updated)
	}
	if f, _ := read("user:ada"); f.ID != "urn:deltaq:feed:user:ada" {
		t.Errorf("id %s, want urn:deltaq:feed:user:ada as it always was", f.ID)
	}
	at := time.Date(2023, 3, 1, 10, 0, 0, 0, time.UTC)
	n := sample("w1-1 x", at)
	n.Feeds = []string{"user:ada"}
	enqueue(t, db, ob, n)
	f, updated = read("user:ada")
	if f.Updated != "2023-03-01T10:00:00Z" || !updated.Equal(at) || len(f.Entries) != 1 || f.Entries[0].ID != "urn:deltaq:notification:w1-1%20x" {
		t.Errorf("feed %+v, updated %v; want the entry's time and an escaped entry id", f, updated)
	}
}

// TestEmailOfALongTitle: a title carries the watched URL, which may be
// thousands of bytes, and a relay refuses a header line over its limit
// (RFC 5322: 998 bytes; go-smtp's 2,000). The e-mail still goes, no line
// of it over 998 bytes, its Subject the title's start and its body the
// whole URL.
func TestEmailOfALongTitle(t *testing.T) {
	long := "https://example.gov/" + strings.Repeat("a", 2100)
	for name, title := range map[string]string{
		"ascii":     "any sentinel w1: " + long + " changed",
		"non-ascii": strings.Repeat("é", 400),
		"spaced":    strings.Repeat("word ", 500),
	} {
		t.Run(name, func(t *testing.T) {
			db := openRepo(t)
			mb := notifytest.SMTP(t)
			cfg := testConfig()
			cfg.SMTP.Addr = mb.Addr
			ob := notify.NewOutbox(db, cfg)
			n := sample("n1", time.Now(), notify.Target{Kind: notify.Email, Addr: "ada@example.org"})
			n.URL, n.Title = long, title
			enqueue(t, db, ob, n)
			var log strings.Builder
			st, err := notify.NewService(ob, notify.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}).Drain(t.Context())
			if err != nil || st.Delivered != 1 {
				t.Fatalf("Drain = %+v, %v\n%s", st, err, log.String())
			}
			m := mb.Messages()[0]
			for i, line := range strings.Split(string(m.Raw), "\r\n") {
				if len(line) > 998 {
					t.Errorf("line %d is %d bytes: %.80s…", i+1, len(line), line)
				}
			}
			subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
			if err != nil {
				t.Fatal(err)
			}
			if r := []rune(subject); len(r) < 100 || !strings.HasPrefix(title, string(r[:len(r)-1])) || r[len(r)-1] != '…' {
				t.Errorf("Subject %q, want the title's start and an ellipsis", subject)
			}
			if !strings.HasPrefix(m.Body, long+"\r\n") {
				t.Errorf("body does not begin with the whole URL: %.100s", m.Body)
			}
		})
	}
}
