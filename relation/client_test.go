package relation

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// shop is a small search site: /search?q=&page= lists items whose name
// holds the query, /item/<id> shows one, /robots.txt disallows /private.
type shop struct {
	items map[string][2]string // id → name, price
	mu    sync.Mutex
	// answer, when set, replaces the normal handling of one path prefix.
	answer map[string]http.HandlerFunc
}

func newShop() *shop {
	return &shop{items: map[string][2]string{
		"a1": {"red apple", "1.50"}, "a2": {"green apple", "1.20"}, "p1": {"pear", "2.00"},
	}, answer: map[string]http.HandlerFunc{}}
}

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	for prefix, h := range s.answer {
		if strings.HasPrefix(r.URL.Path, prefix) {
			s.mu.Unlock()
			h(w, r)
			return
		}
	}
	defer s.mu.Unlock()
	switch {
	case r.URL.Path == "/robots.txt":
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
	case r.URL.Path == "/search":
		q := r.URL.Query().Get("q")
		w.Header().Set("Content-Type", "text/html")
		var hits []string
		for _, id := range []string{"a1", "a2", "p1"} {
			if strings.Contains(s.items[id][0], q) {
				hits = append(hits, fmt.Sprintf(`<li class="hit" data-id="%s"><b class="name">%s</b> <i class="price">%s</i></li>`, id, s.items[id][0], s.items[id][1]))
			}
		}
		fmt.Fprintf(w, `<html><body><p class="total" data-total="%d"></p><ol>%s</ol></body></html>`, len(hits), strings.Join(hits, ""))
	case strings.HasPrefix(r.URL.Path, "/item/"):
		it, ok := s.items[strings.TrimPrefix(r.URL.Path, "/item/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><body><h1>%s</h1><span id="price">%s</span></body></html>`, it[0], it[1])
	default:
		http.NotFound(w, r)
	}
}

func (s *shop) set(prefix string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer[prefix] = h
}

func shopSource(base string) Source {
	return Source{
		Search: base + "/search?q={q}&page={page}", Item: base + "/item/{id}", PageSize: 10, MaxResults: 10,
		Hit: "li.hit", ID: "css:@data-id", Total: "css:.total@data-total",
		Fields:   []string{"name=css:.name|css:h1", "price=css:.price|css:#price"},
		Keywords: []string{"name"},
	}
}

func newShopClient(t *testing.T, opts ClientOptions) (*shop, *httptest.Server, *Client) {
	t.Helper()
	s := newShop()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	if opts.MaxBytes == 0 {
		opts.MaxBytes = 1 << 20
	}
	cl, err := NewClient(shopSource(ts.URL), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, ts, cl
}

func TestClientSearchAndItem(t *testing.T) {
	_, _, cl := newShopClient(t, ClientOptions{})
	res, err := cl.Search(t.Context(), []string{"apple"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || len(res.Hits) != 2 || res.Hits[0].Fields["price"] != "1.50" || res.Hits[1].ID != "a2" {
		t.Fatalf("search apple: %+v", res)
	}
	if res.Requests != 2 {
		t.Errorf("first search cost %d requests, want 2 (robots.txt and the page)", res.Requests)
	}
	rec, n, err := cl.Item(t.Context(), "a1")
	if err != nil || n != 1 {
		t.Fatalf("item a1: %v, %d requests", err, n)
	}
	if rec.Version() != res.Hits[0].Version() {
		t.Errorf("the hit %v and the item page %v give different versions of one record", res.Hits[0].Fields, rec.Fields)
	}
	if _, _, err := cl.Item(t.Context(), "zz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing item: %v, want ErrNotFound", err)
	}
}

// A result page without the count at --total is read all the same: its
// hits count, and the missing count is said, not taken for garbage.
func TestClientReadsAResultPageWithoutItsTotal(t *testing.T) {
	s, _, cl := newShopClient(t, ClientOptions{})
	s.set("/search", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><li class="hit" data-id="a1"><b class="name">red apple</b></li></body></html>`)
	})
	res, err := cl.Search(t.Context(), []string{"apple"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != -1 || len(res.Hits) != 1 || res.NoTotal == nil || !strings.Contains(res.NoTotal.Error(), "no count at --total css:.total@data-total") {
		t.Errorf("search without a total: total %d, %d hits, NoTotal %v; want -1, the hit, and why", res.Total, len(res.Hits), res.NoTotal)
	}
}

func TestClientRefusesBadAnswers(t *testing.T) {
	for _, c := range []struct {
		name string
		h    http.HandlerFunc
		want error
		msg  string
	}{
		{"not HTML", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte{0, 1, 2})
		}, ErrGarbage, `Content-Type "application/octet-stream"`},
		{"hit without id", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<p class="total" data-total="1"></p><li class="hit"></li>`)
		}, ErrGarbage, "hit 1 has no id"},
		{"more hits than a page", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<p class="total" data-total="11"></p>%s`, strings.Repeat(`<li class="hit" data-id="x"></li>`, 11))
		}, ErrGarbage, "11 hits on one page"},
		{"too large", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, strings.Repeat("x", 5000))
		}, ErrGarbage, "exceeds the limit of 4096 bytes"},
		{"always 429", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		}, ErrThrottled, "after 2 retries"},
		{"server error", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
		}, nil, "status 502"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _, cl := newShopClient(t, ClientOptions{MaxBytes: 4096, Retries: 2})
			s.set("/search", c.h)
			_, err := cl.Search(t.Context(), []string{"apple"}, 1)
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %v, want %v naming %q", err, c.want, c.msg)
			}
		})
	}
}

func TestClientBacksOffOn429(t *testing.T) {
	clk := &recordingClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s, _, cl := newShopClient(t, ClientOptions{Retries: 3, Backoff: time.Second, Clock: clk})
	var calls atomic.Int32
	s.set("/search", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			w.WriteHeader(http.StatusTooManyRequests) // no Retry-After: 1 s, then 2 s
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<p class="total" data-total="0"></p>`)
	})
	res, err := cl.Search(t.Context(), []string{"apple"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 4 {
		t.Errorf("%d requests, want robots + two 429s + the answer = 4", res.Requests)
	}
	if got := clk.waits(); len(got) != 2 || got[0] != time.Second || got[1] != 2*time.Second {
		t.Errorf("waits %v, want [1s 2s] (doubling back-off)", got)
	}
}

func TestClientQuotaAndRobots(t *testing.T) {
	clk := &recordingClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := newShop()
	ts := httptest.NewServer(s)
	defer ts.Close()
	src := shopSource(ts.URL)
	src.Quota, src.QuotaPeriod = 2, time.Minute
	cl, err := NewClient(src, ClientOptions{MaxBytes: 1 << 20, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := cl.Search(t.Context(), []string{"pear"}, 1); err != nil {
			t.Fatal(err)
		}
	}
	// robots.txt, search, search: each 30 s after the one before.
	if got := clk.waits(); len(got) != 2 || got[0] != 30*time.Second || got[1] != 30*time.Second {
		t.Errorf("quota waits %v, want [30s 30s] for 2 requests a minute", got)
	}
	bad := shopSource(ts.URL)
	bad.Item = ts.URL + "/private/{id}"
	cl2, err := NewClient(bad, ClientOptions{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl2.Item(t.Context(), "a1"); !errors.Is(err, ErrDisallowed) {
		t.Errorf("item under a disallowed path: %v, want ErrDisallowed", err)
	}
}

func TestClientTimeout(t *testing.T) {
	s, _, cl := newShopClient(t, ClientOptions{Timeout: 50 * time.Millisecond})
	s.set("/search", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	_, err := cl.Search(t.Context(), []string{"apple"}, 1)
	if err == nil || !strings.Contains(err.Error(), "/search?q=apple") {
		t.Errorf("a source that never answers: %v, want an error naming the URL", err)
	}
}

func TestSourceValidateNamesTheFlag(t *testing.T) {
	src := Source{Search: "ftp://x/{q}", Item: "http://x/", PageSize: 10, MaxResults: 5, Hit: "", ID: "header:X", Fields: []string{"price"}, Keywords: []string{"name"}, Quota: 3}
	err := src.Validate()
	for _, want := range []string{`--search "ftp://x/{q}"`, "--item", "--max-results 5", "--hit", "--id", `--extract "price"`, "--keywords name", "--quota 3/0s"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
}

// recordingClock returns at once from every wait and records how long
// each would have been, moving its time forward as a real wait would.
type recordingClock struct {
	mu  sync.Mutex
	now time.Time
	w   []time.Duration
}

func (c *recordingClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *recordingClock) WaitUntil(ctx context.Context, t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := t.Sub(c.now); d > 0 {
		c.w = append(c.w, d)
		c.now = t
	}
	return ctx.Err()
}

func (c *recordingClock) waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.w...)
}
