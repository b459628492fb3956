package crawler

import (
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// rawDeflate compresses b as bare RFC 1951 data.
func rawDeflate(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// testFetchers are a page and a robots.txt fetcher with small limits.
func testFetchers(t *testing.T) (page, robots *fetcher) {
	t.Helper()
	cfg := Config{UserAgent: "deltaq-test", AllowPrivate: true, ContentTypes: []string{"text/html"},
		Politeness: PolitenessConfig{PerHost: 1, Global: 1}, Limits: LimitsConfig{MaxBodyBytes: 4 << 10},
		Robots:   RobotsConfig{MaxBytes: 2 << 10},
		Timeouts: TimeoutsConfig{Request: 10 * time.Second, Connect: 5 * time.Second, ResponseHeader: 5 * time.Second}}
	d, err := newDialer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTransport(cfg, d)
	t.Cleanup(tr.(*http.Transport).CloseIdleConnections)
	return newFetcher(cfg, tr, clock.Real{}, false), newFetcher(cfg, tr, clock.Real{}, true)
}

// TestEncodingErrorsNameValueAndLimit: a body the fetcher cannot decode
// fails with an error naming its Content-Encoding; one over the limit,
// decoded or as sent, names the setting and its value; a connection that
// drops inside a coded body is a network error, not the coding's.
func TestEncodingErrorsNameValueAndLimit(t *testing.T) {
	bomb := rawDeflate(t, bytes.Repeat([]byte("a"), 1<<20))
	empty := bytes.Repeat([]byte{0, 0, 0, 0xff, 0xff}, 4<<10) // stored blocks of nothing, 20 KiB of them
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/br":
			w.Header().Set("Content-Encoding", "br")
			w.Write([]byte("\x1b\x00"))
		case "/deep":
			w.Header().Set("Content-Encoding", "gzip,gzip,gzip,gzip,gzip")
		case "/corrupt", "/robots.txt-corrupt":
			w.Header().Set("Content-Encoding", "deflate")
			w.Write([]byte("\xff\xff\xff\xff not deflate"))
		case "/bomb", "/robots.txt":
			w.Header().Set("Content-Encoding", "deflate")
			w.Write(bomb)
		case "/empty-blocks":
			w.Header().Set("Content-Encoding", "deflate")
			w.Write(empty)
		case "/plain-large":
			w.Write(bytes.Repeat([]byte("a"), 5<<10))
		case "/empty":
			w.Header().Set("Content-Encoding", "gzip, deflate")
		}
	}))
	defer srv.Close()
	page, robots := testFetchers(t)
	ctx := context.Background()
	for _, tc := range []struct {
		path    string
		outcome repo.Outcome
		err     string // "" for none
	}{
		{"/br", repo.OutcomeBadEncoding, `Content-Encoding "br": coding "br" is none the crawler decodes (gzip, x-gzip, deflate, identity)`},
		{"/deep", repo.OutcomeBadEncoding, `Content-Encoding "gzip,gzip,gzip,gzip,gzip": 5 codings stacked, more than 4`},
		{"/corrupt", repo.OutcomeBadEncoding, `Content-Encoding "deflate": flate: corrupt input before offset`},
		{"/bomb", repo.OutcomeTooLarge, `body decoded from Content-Encoding "deflate" over crawler.limits.max_body_bytes (4096 bytes)`},
		{"/empty-blocks", repo.OutcomeTooLarge, `body as sent with Content-Encoding "deflate" over crawler.limits.max_body_bytes (4096 bytes)`},
		{"/plain-large", repo.OutcomeTooLarge, `body over crawler.limits.max_body_bytes (4096 bytes)`},
		{"/empty", repo.OutcomeOK, ""},
	} {
		res := page.fetch(ctx, srv.URL+tc.path, nil)
		got := fmt.Sprint(res.err)
		if res.outcome != tc.outcome || tc.err == "" && res.err != nil || tc.err != "" && !strings.HasPrefix(got, tc.err) || len(res.body) != 0 {
			t.Errorf("%s: outcome %s, error %q, %d bytes; want %s, error %q, no body", tc.path, res.outcome, got, len(res.body), tc.outcome, tc.err)
		}
	}

	// robots.txt is cut to its limit, decoded, as RFC 9309 §2.5 asks.
	res := robots.fetch(ctx, srv.URL+"/robots.txt", nil)
	if res.outcome != repo.OutcomeOK || res.err != nil || string(res.body) != strings.Repeat("a", 2<<10) {
		t.Errorf("robots.txt bomb: outcome %s, error %v, %d bytes; want ok, the first 2048 bytes decoded", res.outcome, res.err, len(res.body))
	}
	// One that does not decode has no rules to give: an error, for the
	// worker to take as unreachable.
	if res := robots.fetch(ctx, srv.URL+"/robots.txt-corrupt", nil); res.outcome != repo.OutcomeBadEncoding || res.err == nil {
		t.Errorf("robots.txt not deflate: outcome %s, error %v; want bad_encoding and an error", res.outcome, res.err)
	}
}

// TestEncodedBodyCutShortIsTheConnections: a coded body whose connection
// drops before its declared length is a network error, as a plain one is.
func TestEncodedBodyCutShortIsTheConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	body := rawDeflate(t, []byte("<html><title>cut</title></html>"))
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			c.Read(buf)
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: deflate\r\nContent-Length: %d\r\n\r\n", len(body)+100)
			c.Write(body[:len(body)/2])
			c.Close()
		}
	}()
	page, _ := testFetchers(t)
	res := page.fetch(context.Background(), "http://"+ln.Addr().String()+"/", nil)
	if res.outcome != repo.OutcomeNetworkError || res.err == nil || strings.Contains(res.err.Error(), "Content-Encoding") {
		t.Errorf("deflate body cut short: outcome %s, error %v; want network_error, not the coding's", res.outcome, res.err)
	}
}
