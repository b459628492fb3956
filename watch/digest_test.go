package watch

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/notify/notifytest"
)

// TestDigestCarriesEveryChangesDiff: a digest of three changes shows all
// three diffs, oldest first and each under its time, in the e-mail, the
// Atom entry and the webhook body, where it used to show the last one's
// only; an eager watch of the same changes still sends one diff each.
func TestDigestCarriesEveryChangesDiff(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	hook := notifytest.Webhooks(t)
	mail := notifytest.SMTP(t)
	ncfg := notifyConfig()
	ncfg.SMTP.Addr = mail.Addr
	ob := notify.NewOutbox(db, ncfg)
	e := newEngine(t, db, ob, clk, Options{})
	u := s.set("/a", htmlPage(`<p id="x">`+words(20, "a")+`</p>`))
	to := func(mailbox string) []notify.Target {
		return []notify.Target{{Kind: notify.Webhook, Addr: hook.URL}, {Kind: notify.Email, Addr: mailbox}, {Kind: notify.Feed}}
	}
	digest, err := e.Install(t.Context(), Spec{URL: u, Type: Any, Selector: "#x", Mode: Digest, Period: 3 * time.Hour, Every: time.Hour, Notify: to("digest@example.org")})
	if err != nil {
		t.Fatal(err)
	}
	eager, err := e.Install(t.Context(), Spec{URL: u, Type: Any, Selector: "#x", Every: time.Hour, Notify: to("eager@example.org")})
	if err != nil {
		t.Fatal(err)
	}
	added := []string{"alpha", "bravo", "charlie"}
	var times []string
	for _, w := range added { // 1h, 2h, 3h: one word replaced each time
		clk.add(time.Hour)
		times = append(times, clk.now().Format(time.RFC3339))
		s.set("/a", htmlPage(`<p id="x">`+words(19, "a")+" "+w+`</p>`))
		if _, err := e.Check(t.Context(), u); err != nil {
			t.Fatal(err)
		}
	}
	clk.add(time.Hour) // 4h: the period from the first change has passed
	if n, err := e.FlushDigests(t.Context()); err != nil || n != 1 {
		t.Fatalf("FlushDigests = %d, %v", n, err)
	}
	svc := notify.NewService(ob, notify.Options{Client: loopbackClient()})
	if st, err := svc.Drain(t.Context()); err != nil || st.Delivered != 8 {
		t.Fatalf("Drain = %+v, %v; want 8 deliveries (the digest and 3 eager notifications, to a webhook and an address each)", st, err)
	}

	// inOrder reports whether every want occurs in s, each after the last.
	inOrder := func(s string, want []string) bool {
		for _, w := range want {
			i := strings.Index(s, w)
			if i < 0 {
				return false
			}
			s = s[i+len(w):]
		}
		return true
	}
	var wantMail, wantHTML []string
	for i, w := range added {
		wantMail = append(wantMail, fmt.Sprintf("Change %d of 3, %s: update", i+1, times[i]), "+ "+w)
		wantHTML = append(wantHTML, fmt.Sprintf("<h4>Change %d of 3, %s: update", i+1, times[i]), "<ins>"+w+"</ins>")
	}

	t.Run("the e-mail shows each diff under its time", func(t *testing.T) {
		var eagerBodies []string
		for _, m := range mail.Messages() {
			switch m.To {
			case "digest@example.org":
				if !inOrder(m.Body, wantMail) {
					t.Errorf("digest body lacks %q in order:\n%s", wantMail, m.Body)
				}
			case "eager@example.org":
				eagerBodies = append(eagerBodies, m.Body)
			}
		}
		if len(eagerBodies) != 3 {
			t.Fatalf("%d eager messages, want 3", len(eagerBodies))
		}
		for i, b := range eagerBodies {
			if strings.Contains(b, "Change 1 of") || !strings.Contains(b, "+ "+added[i]) {
				t.Errorf("eager message %d has a digest heading or lacks %q:\n%s", i, "+ "+added[i], b)
			}
		}
	})

	t.Run("the Atom entry shows each diff under its time", func(t *testing.T) {
		raw, _, err := ob.Feed(t.Context(), "watch:"+digest.ID, "http://localhost/feed", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		entries := notifytest.Entries(t, raw)
		if len(entries) != 1 || !inOrder(entries[0].Content, wantHTML) {
			t.Errorf("want one entry with %q in order; feed:\n%s", wantHTML, raw)
		}
	})

	t.Run("the webhook body carries each diff with its time", func(t *testing.T) {
		var got *notify.Notification
		for _, h := range hook.Hooks() {
			switch h.Notification.Source {
			case "watch:" + digest.ID:
				got = &h.Notification
			case "watch:" + eager.ID:
				if h.Notification.Changes != nil || h.Notification.Diff == nil || strings.Contains(string(h.Body), `"changes"`) {
					t.Errorf("an eager webhook body is not as before: %s", h.Body)
				}
			}
		}
		if got == nil || len(got.Changes) != 3 {
			t.Fatalf("digest webhook = %+v, want 3 changes", got)
		}
		for i, c := range got.Changes {
			if c.At.Format(time.RFC3339) != times[i] || c.Diff == nil || !slices.Equal(c.Diff.Added(), added[i:i+1]) || !strings.HasPrefix(c.Summary, "update") {
				t.Errorf("change %d = %+v, want at %s, adding %q", i, c, times[i], added[i])
			}
		}
		if got.Diff == nil || !slices.Equal(got.Diff.Added(), []string{"charlie"}) {
			t.Errorf("diff = %+v, want the last change's for receivers that read only it", got.Diff)
		}
	})
}

// TestDigestPastDigestKeptSaysSo: a digest keeps the last
// watch.digest_kept changes with their diffs, counts those it left out and
// names the bound, so a long period does not make an unbounded
// notification; the next period counts afresh.
func TestDigestPastDigestKeptSaysSo(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	ob := notify.NewOutbox(db, notifyConfig())
	e := newEngine(t, db, ob, clk, Options{})
	kept := testConfig().DigestKept
	u := s.set("/a", htmlPage(`<p id="x">`+words(20, "a")+`</p>`))
	sn, err := e.Install(t.Context(), Spec{URL: u, Type: Any, Selector: "#x", Mode: Digest, Period: 24 * time.Hour, Every: time.Hour, Notify: []notify.Target{{Kind: notify.Feed}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range kept + 2 {
		clk.add(time.Hour)
		s.set("/a", htmlPage(`<p id="x">`+words(19, "a")+fmt.Sprintf(" w%d", i)+`</p>`))
		if _, err := e.Check(t.Context(), u); err != nil {
			t.Fatal(err)
		}
	}
	clk.add(24 * time.Hour)
	if n, err := e.FlushDigests(t.Context()); err != nil || n != 1 {
		t.Fatalf("FlushDigests = %d, %v", n, err)
	}
	es, err := ob.FeedEntries(t.Context(), "watch:"+sn.ID)
	if err != nil || len(es) != 1 {
		t.Fatalf("feed entries = %d, %v; want 1", len(es), err)
	}
	n := es[0]
	if len(n.Changes) != kept || !slices.Equal(n.Changes[0].Diff.Added(), []string{"w2"}) {
		t.Errorf("%d changes, the first adding %q; want the last %d, from w2", len(n.Changes), n.Changes[0].Diff.Added(), kept)
	}
	if want := fmt.Sprintf("earlier changes of the period left out: 2; only the last %d are kept, watch.digest_kept", kept); !strings.Contains(n.Summary, want) || n.ChangesDropped != 2 {
		t.Errorf("summary does not count the 2 changes left out and name the bound (%q), changes_dropped %d:\n%s", want, n.ChangesDropped, n.Summary)
	}
	// The next period starts its count afresh: a digest that kept all its
	// changes says none was left out.
	for i := range kept {
		clk.add(time.Hour)
		s.set("/a", htmlPage(`<p id="x">`+words(19, "a")+fmt.Sprintf(" v%d", i)+`</p>`))
		if _, err := e.Check(t.Context(), u); err != nil {
			t.Fatal(err)
		}
	}
	clk.add(24 * time.Hour)
	if n, err := e.FlushDigests(t.Context()); err != nil || n != 1 {
		t.Fatalf("second FlushDigests = %d, %v", n, err)
	}
	es, err = ob.FeedEntries(t.Context(), "watch:"+sn.ID)
	if err != nil || len(es) != 2 {
		t.Fatalf("feed entries = %d, %v; want 2", len(es), err)
	}
	for _, n := range es {
		if len(n.Changes) == kept && n.Changes[0].Diff != nil && slices.Equal(n.Changes[0].Diff.Added(), []string{"v0"}) {
			if strings.Contains(n.Summary, "left out") || n.ChangesDropped != 0 {
				t.Errorf("a digest of all its period's %d changes says some were left out (%d):\n%s", kept, n.ChangesDropped, n.Summary)
			}
			return
		}
	}
	t.Errorf("no second digest of the changes v0…v%d", kept-1)
}
