package synthweb_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/deltaq/deltaq/eval/synthweb"
	"golang.org/x/text/encoding/japanese"
)

func adversarialConfig() synthweb.Config {
	cfg := testConfig()
	cfg.Adversarial = true
	return cfg
}

var hrefs = regexp.MustCompile(`href="([^"]*)"`)

func TestTrapsAreLinkedFromTheTrapHome(t *testing.T) {
	e := newEnv(t, adversarialConfig())
	traps := e.web.AdversarialPaths()
	if len(traps) < 25 {
		t.Fatalf("AdversarialPaths lists %d traps", len(traps))
	}
	linked := map[string]bool{}
	for _, m := range hrefs.FindAllStringSubmatch(e.get(t, "http://trap.synth.test/").body, -1) {
		u := m[1]
		if strings.HasPrefix(u, "/") {
			u = "http://trap.synth.test" + u
		}
		linked[u] = true
	}
	for _, tr := range traps {
		if !linked[tr.URL] {
			t.Errorf("trap %s (%s) is not linked from the trap home", tr.Name, tr.URL)
		}
		if tr.Expect == "" {
			t.Errorf("trap %s says nothing about what to expect", tr.Name)
		}
	}
	t.Run("site0 links the trap home", func(t *testing.T) {
		if !strings.Contains(e.get(t, "http://site0.synth.test/").body, `href="http://trap.synth.test/"`) {
			t.Errorf("site0's home page does not link trap.synth.test")
		}
	})
	t.Run("there are no traps without adversarial mode", func(t *testing.T) {
		if tr := newEnv(t, testConfig()).web.AdversarialPaths(); tr != nil {
			t.Errorf("AdversarialPaths = %d traps with Adversarial off", len(tr))
		}
	})
}

func TestRedirectAndInfiniteSpaceTraps(t *testing.T) {
	e := newEnv(t, adversarialConfig())
	const trap = "http://trap.synth.test"
	tests := []struct {
		name   string
		path   string
		status int
		want   []string // Location, or hrefs in the body
	}{
		{"the loop goes from A to B", "/loop/a", 302, []string{"/loop/b"}},
		{"the loop goes back from B to A", "/loop/b", 307, []string{"/loop/a"}},
		{"the chain goes on", "/r/41", 302, []string{"/r/42"}},
		{"a month links its neighbours and days", "/calendar/2024/01/", 200,
			[]string{"/calendar/2023/12/", "/calendar/2024/02/", "/calendar/2024/01/31/"}},
		{"a day links the next across a year", "/calendar/2024/12/31/", 200, []string{"/calendar/2025/01/01/"}},
		{"the calendar goes past year 9999", "/calendar/9999/12/", 200, []string{"/calendar/10000/01/"}},
		{"a month that does not exist is 404", "/calendar/2024/13/", 404, nil},
		{"deep paths link deeper", "/deep/a/b/", 200, []string{"/deep/a/b/a/", "/deep/a/b/b/"}},
		{"deep paths accept only a and b", "/deep/a/c/", 404, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(t, trap+tt.path)
			if r.status != tt.status {
				t.Fatalf("GET %s = %d, want %d", tt.path, r.status, tt.status)
			}
			for _, w := range tt.want {
				if loc := r.header.Get("Location"); loc != w && !strings.Contains(r.body, `href="`+w+`"`) {
					t.Errorf("GET %s: neither Location (%q) nor a link is %s", tt.path, loc, w)
				}
			}
		})
	}
	t.Run("a client following redirects gives up", func(t *testing.T) {
		c := &http.Client{Transport: e.client.Transport}
		for _, p := range []string{"/loop/a", "/r/1"} {
			resp, err := c.Get(trap + p)
			if err == nil {
				resp.Body.Close()
				t.Errorf("GET %s followed redirects to an end", p)
			}
		}
	})
}

func TestStreamingTrapsStopWhenTheClientGoes(t *testing.T) {
	tests := []struct {
		name string
		url  string
		hdr  []string
	}{
		{"the slow drip", "http://trap.synth.test/drip", nil},
		{"the huge body", "http://trap.synth.test/huge", nil},
		{"the gzip bomb", "http://trap.synth.test/bomb", []string{"Accept-Encoding", "gzip"}},
		{"the page of many links", "http://trap.synth.test/links/many", nil},
		{"the deep nesting", "http://trap.synth.test/malformed/deep", nil},
		{"the giant attribute", "http://trap.synth.test/malformed/attr", nil},
		{"the huge robots.txt", "http://trap-robots-huge.synth.test/robots.txt", nil},
	}
	baseline := runtime.NumGoroutine()
	for _, tt := range tests {
		t.Run(tt.name+" stops when the client cancels", func(t *testing.T) {
			done := make(chan struct{})
			e := newWrappedEnv(t, adversarialConfig(), func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					h.ServeHTTP(rw, r)
					close(done)
				})
			})
			ctx, cancel := context.WithCancel(t.Context())
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i+1 < len(tt.hdr); i += 2 {
				req.Header.Set(tt.hdr[i], tt.hdr[i+1])
			}
			resp, err := e.client.Do(req)
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			if _, err := io.ReadFull(resp.Body, make([]byte, 32)); err != nil {
				t.Fatalf("first bytes: %v", err)
			}
			cancel()
			resp.Body.Close()
			select {
			case <-done:
			case <-time.After(30 * time.Second): // a deadline for failing, not a timing assertion
				t.Fatalf("handler still running 30s after the client cancelled")
			}
			e.srv.Close()
		})
	}
	// Every server is closed; what the traps started must be gone too.
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for n := runtime.NumGoroutine(); n > baseline; n = runtime.NumGoroutine() {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before the traps ran:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
		}
		<-tick.C
	}
}

func TestGzipBombIsSmallOnTheWire(t *testing.T) {
	e := newEnv(t, adversarialConfig())
	r := e.get(t, "http://trap.synth.test/bomb", "Accept-Encoding", "gzip")
	if r.header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("headers %v", r.header)
	}
	wire := []byte(r.body)
	if len(wire) > 8<<20 || strconv.Itoa(len(wire)) != r.header.Get("Content-Length") {
		t.Fatalf("%d bytes on the wire, Content-Length %s; want ≤ 8 MiB and equal", len(wire), r.header.Get("Content-Length"))
	}
	// Inflate the first member only, then check the rest repeats it.
	br := bytes.NewReader(wire)
	zr, err := gzip.NewReader(br)
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	n, err := io.Copy(io.Discard, zr)
	if err != nil {
		t.Fatal(err)
	}
	member := wire[:len(wire)-br.Len()]
	members := len(wire) / len(member)
	if !bytes.Equal(wire, bytes.Repeat(member, members)) {
		t.Fatalf("the body is not %d copies of one member", members)
	}
	if total := n * int64(members); total < 4<<30 {
		t.Errorf("inflates to %d bytes, want ≥ 4 GiB", total)
	} else {
		t.Logf("%d bytes inflate to %d (ratio %d)", len(wire), total, total/int64(len(wire)))
	}
}

func TestRetryAfter(t *testing.T) {
	e := newEnv(t, adversarialConfig())
	now := e.at(time.Hour)
	for _, tt := range []struct {
		path   string
		status int
		date   bool
	}{
		{"/limit/429/seconds", 429, false},
		{"/limit/429/date", 429, true},
		{"/limit/503/seconds", 503, false},
		{"/limit/503/date", 503, true},
	} {
		t.Run(tt.path+" says when to come back", func(t *testing.T) {
			r := e.get(t, "http://trap.synth.test"+tt.path)
			ra := r.header.Get("Retry-After")
			if r.status != tt.status {
				t.Fatalf("status %d, want %d", r.status, tt.status)
			}
			if tt.date {
				when, err := http.ParseTime(ra)
				if err != nil || !when.Equal(now.Add(120*time.Second)) {
					t.Errorf("Retry-After %q (%v), want the HTTP-date of now+120s", ra, err)
				}
			} else if ra != "120" {
				t.Errorf("Retry-After %q, want 120", ra)
			}
		})
	}
	t.Run("a burst of requests gets 429 with Retry-After", func(t *testing.T) {
		var codes []int
		for range 8 {
			r := e.get(t, "http://trap.synth.test/burst/1")
			codes = append(codes, r.status)
			if r.status == 429 && r.header.Get("Retry-After") != "1" {
				t.Errorf("429 without Retry-After: 1")
			}
		}
		if codes[3] != 200 || codes[4] != 429 || codes[7] != 429 {
			t.Errorf("statuses %v, want 4 × 200 then 429", codes)
		}
		e.clock.Set(now.Add(time.Second))
		if r := e.get(t, "http://trap.synth.test/burst/1"); r.status != 200 {
			t.Errorf("a second later: %d, want 200", r.status)
		}
	})
}

func TestTrapContents(t *testing.T) {
	e := newEnv(t, adversarialConfig())
	const trap = "http://trap.synth.test"
	tests := []struct {
		name  string
		url   string
		check func(t *testing.T, r response)
	}{
		{"many links has 100,000 links", trap + "/links/many", func(t *testing.T, r response) {
			if n := strings.Count(r.body, `<a href="/links/many/`); n != 100_000 {
				t.Errorf("%d links", n)
			}
		}},
		{"deep nesting has 100,000 open divs and a link below", trap + "/malformed/deep", func(t *testing.T, r response) {
			if n := strings.Count(r.body, "<div>"); n != 100_000 || strings.Contains(r.body, "</div>") || !strings.Contains(r.body, `<a href="/">`) {
				t.Errorf("%d divs", n)
			}
		}},
		{"the giant attribute is 8 MiB", trap + "/malformed/attr", func(t *testing.T, r response) {
			if !strings.Contains(r.body, strings.Repeat("x", 8<<20)+`"`) {
				t.Errorf("no 8 MiB attribute in %d bytes", len(r.body))
			}
		}},
		{"NUL bytes are in the page", trap + "/malformed/nul", func(t *testing.T, r response) {
			if strings.Count(r.body, "\x00") < 5 {
				t.Errorf("too few NULs")
			}
		}},
		{"unclosed tags are never closed", trap + "/malformed/unclosed", func(t *testing.T, r response) {
			if strings.Contains(r.body, "</body>") || !strings.Contains(r.body, "<!-- a comment that never ends") {
				t.Errorf("body %q", r.body)
			}
		}},
		{"Latin-1 bytes under a UTF-8 header and a Shift_JIS meta", trap + "/charset/latin1", func(t *testing.T, r response) {
			if !strings.Contains(r.header.Get("Content-Type"), "utf-8") || utf8.ValidString(r.body) ||
				!strings.Contains(r.body, `charset="shift_jis"`) || !strings.Contains(r.body, "Caf\xe9") {
				t.Errorf("header %q, valid UTF-8 %v", r.header.Get("Content-Type"), utf8.ValidString(r.body))
			}
		}},
		{"Shift_JIS bytes under a UTF-8 header and a Latin-1 meta", trap + "/charset/sjis", func(t *testing.T, r response) {
			want, err := japanese.ShiftJIS.NewEncoder().String("東京は晴れ")
			if err != nil {
				t.Fatal(err)
			}
			if utf8.ValidString(r.body) || !strings.Contains(r.body, want) || !strings.Contains(r.body, "charset=iso-8859-1") {
				t.Errorf("valid UTF-8 %v, has Shift_JIS text %v", utf8.ValidString(r.body), strings.Contains(r.body, want))
			}
		}},
		{"binary bytes are labelled text/html", trap + "/binary", func(t *testing.T, r response) {
			if !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !strings.HasPrefix(r.body, "\x89PNG") || len(r.body) != 64<<10 {
				t.Errorf("type %q, %d bytes", r.header.Get("Content-Type"), len(r.body))
			}
		}},
		{"unsafe links point at private addresses and other schemes", trap + "/links/unsafe", func(t *testing.T, r response) {
			for _, u := range []string{"http://127.0.0.1:1/", "http://10.0.0.1/", "http://169.254.169.254/", "file:///etc/passwd", "javascript:", "mailto:"} {
				if !strings.Contains(r.body, `href="`+u) {
					t.Errorf("no link to %s", u)
				}
			}
		}},
		{"the long URL is 10 KiB and answers", trap + "/", func(t *testing.T, r response) {
			for _, m := range hrefs.FindAllStringSubmatch(r.body, -1) {
				if len(m[1]) >= 10<<10 {
					if got := e.get(t, trap+m[1]); got.status != 200 {
						t.Errorf("GET the long URL = %d", got.status)
					}
					return
				}
			}
			t.Errorf("no 10 KiB link on the trap home")
		}},
		{"wrong-length/long sends only the claimed 16 bytes", trap + "/wrong-length/long", func(t *testing.T, r response) {
			if len(r.body) != 16 {
				t.Errorf("%d bytes read", len(r.body))
			}
		}},
		{"the huge robots.txt starts with a valid group", "http://trap-robots-huge.synth.test/robots.txt", func(t *testing.T, r response) {
			if !strings.HasPrefix(r.body, "User-agent: *\nDisallow: /private/\n") || len(r.body) < 32<<20 {
				t.Errorf("%d bytes starting %q", len(r.body), r.body[:min(40, len(r.body))])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, e.get(t, tt.url))
		})
	}
	t.Run("wrong-length/short ends early", func(t *testing.T) {
		resp, err := e.client.Get(trap + "/wrong-length/short")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if !errors.Is(err, io.ErrUnexpectedEOF) || len(b) != 100 || resp.ContentLength != 10_000 {
			t.Errorf("read %d of %d bytes, err %v; want 100 and unexpected EOF", len(b), resp.ContentLength, err)
		}
	})
	t.Run("a robots.txt that fails makes the host off limits", func(t *testing.T) {
		if r := e.get(t, "http://trap-robots-error.synth.test/robots.txt"); r.status != 500 {
			t.Errorf("robots.txt = %d, want 500", r.status)
		}
		before := e.web.DisallowedFetches()
		e.get(t, "http://trap-robots-error.synth.test/page/1")
		if e.web.DisallowedFetches() != before+1 {
			t.Errorf("a page fetch on trap-robots-error was not counted as disallowed")
		}
	})
}
