package watch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/notify/notifytest"
)

// TestAHugeChangeCarriesABoundedDiff: a page of hundreds of kilobytes of
// words rewritten whole made a diff of twice that in each of its views,
// sent whole in the webhook body and kept whole in the feed and the
// history. Each view now carries at most watch.diff.max_bytes of text and
// ends by counting the changed words it left out; the links added and
// removed carry at most as many bytes of URLs, and count the others.
func TestAHugeChangeCarriesABoundedDiff(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	hook := notifytest.Webhooks(t)
	ob := notify.NewOutbox(db, notifyConfig())
	e := newEngine(t, db, ob, clk, Options{})
	page := func(prefix string) string {
		ws := make([]string, 40000) // about 300 KB of text
		for i := range ws {
			ws[i] = prefix + strconv.Itoa(i)
		}
		var links strings.Builder
		for i := range 3000 { // about 150 KB of URLs
			fmt.Fprintf(&links, `<a href="/%s-pages/section/item-%d"></a>`, prefix, i)
		}
		return htmlPage("<p>" + strings.Join(ws, " ") + "</p>" + links.String())
	}
	u := s.set("/a", page("old"))
	w, err := e.Install(t.Context(), Spec{URL: u, Type: Any, Every: time.Hour, Notify: []notify.Target{{Kind: notify.Webhook, Addr: hook.URL}, {Kind: notify.Feed}}})
	if err != nil {
		t.Fatal(err)
	}
	clk.add(time.Hour)
	s.set("/a", page("new"))
	if _, err := e.Check(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	if st, err := notify.NewService(ob, notify.Options{Client: loopbackClient()}).Drain(t.Context()); err != nil || st.Delivered != 1 {
		t.Fatalf("Drain = %+v, %v", st, err)
	}
	max := testConfig().Diff.MaxBytes
	// bounded reports whether each view of d carries at most max bytes of
	// text and ends by counting what it left out.
	bounded := func(d *diff.Result) bool {
		for _, ops := range [][]diff.Op{d.Words, d.Lines} {
			n := 0
			for _, op := range ops {
				n += len(op.Text)
			}
			last := ops[len(ops)-1]
			if n > max+100 || last.Kind != diff.Omitted || last.N < 1 {
				return false
			}
		}
		n := 0
		for _, l := range slices.Concat(d.Links.Added, d.Links.Removed) {
			n += len(l)
		}
		return n <= max && len(d.Links.Added) > 0 && len(d.Links.Added)+d.Links.AddedOmitted == 3000 && d.Links.RemovedOmitted == 3000
	}
	// The words, the lines and the links: three views of at most max
	// bytes each, and their markup (the feed's HTML shows a link's URL
	// twice, as its target and its text).
	bodyMax, entryMax := 4*max, 5*max
	hooks := hook.Hooks()
	if len(hooks) != 1 || len(hooks[0].Body) > bodyMax || hooks[0].Notification.Diff == nil || !bounded(hooks[0].Notification.Diff) {
		t.Fatalf("webhook bodies %d, first %d bytes; want one of at most %d, its diff bounded", len(hooks), len(hooks[0].Body), bodyMax)
	}
	if !strings.Contains(hooks[0].Notification.Diff.Words[len(hooks[0].Notification.Diff.Words)-1].Text, "more words changed") {
		t.Errorf("the diff does not say how many words it left out: %+v", hooks[0].Notification.Diff.Words[len(hooks[0].Notification.Diff.Words)-1])
	}
	h, err := e.History(t.Context(), w.ID)
	if err != nil || len(h) != 1 || !bounded(h[0].Diff) {
		t.Fatalf("history = %d entries, %v; want one with its diff bounded", len(h), err)
	}
	raw, _, err := ob.Feed(t.Context(), "watch:"+w.ID, "http://localhost/feed", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	entries := notifytest.Entries(t, raw)
	if len(entries) != 1 || len(entries[0].Content) > entryMax || !strings.Contains(entries[0].Content, "more words changed") || !strings.Contains(entries[0].Content, "more links added or removed") {
		t.Errorf("feed of %d bytes, %d entries; want one of at most %d bytes saying how many words and links it left out", len(raw), len(entries), entryMax)
	}
}
