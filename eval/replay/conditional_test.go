package replay

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestConditionalRequestsOverHTTP(t *testing.T) {
	a := realArchive(t, "tldr-en")
	web := newTestWeb(t, Options{}, a)
	web.setWeek(t, 30)
	p, ok := a.Lookup("/common/tar.html", 30)
	if !ok {
		t.Fatal("/common/tar.html is not in week 30")
	}
	etag := `"` + p.Hash + `"`
	lastMod := a.Date(p.First)
	lm := lastMod.Format(http.TimeFormat)
	other := `"0000000000000000"`

	cases := []struct {
		name   string
		method string
		header []string
		want   int
	}{
		{"no validators get the page", "GET", nil, 200},
		{"a matching If-None-Match gets 304", "GET", []string{"If-None-Match", etag}, 304},
		{"a weak form of the ETag matches (weak comparison)", "GET", []string{"If-None-Match", "W/" + etag}, 304},
		{"the ETag inside a list matches", "GET", []string{"If-None-Match", other + ", W/\"x\",  " + etag}, 304},
		{"the ETag in a second field line matches", "GET", []string{"If-None-Match", other, "If-None-Match", etag}, 304},
		{"* matches an existing page", "GET", []string{"If-None-Match", "*"}, 304},
		{"another ETag gets the page", "GET", []string{"If-None-Match", other}, 200},
		{"an unquoted ETag does not match", "GET", []string{"If-None-Match", p.Hash}, 200},
		{"If-Modified-Since equal to Last-Modified gets 304", "GET", []string{"If-Modified-Since", lm}, 304},
		{"If-Modified-Since after Last-Modified gets 304", "GET", []string{"If-Modified-Since", lastMod.Add(time.Hour).Format(http.TimeFormat)}, 304},
		{"If-Modified-Since before Last-Modified gets the page", "GET", []string{"If-Modified-Since", lastMod.Add(-time.Second).Format(http.TimeFormat)}, 200},
		{"an RFC 850 date is understood", "GET", []string{"If-Modified-Since", lastMod.Format(time.RFC850)}, 304},
		{"an invalid If-Modified-Since is ignored", "GET", []string{"If-Modified-Since", "yesterday"}, 200},
		{"If-None-Match takes precedence over a matching If-Modified-Since", "GET", []string{"If-None-Match", other, "If-Modified-Since", lm}, 200},
		{"a matching If-None-Match wins over a stale If-Modified-Since", "GET", []string{"If-None-Match", etag, "If-Modified-Since", lastMod.Add(-time.Hour).Format(http.TimeFormat)}, 304},
		{"HEAD honours If-None-Match", "HEAD", []string{"If-None-Match", etag}, 304},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := web.do(t, tc.method, p.URL, tc.header...)
			if r.status != tc.want {
				t.Fatalf("status %d, want %d", r.status, tc.want)
			}
			if r.header.Get("ETag") != etag {
				t.Errorf("ETag %q, want %q", r.header.Get("ETag"), etag)
			}
			if r.status == 200 && r.header.Get("Last-Modified") != lm {
				t.Errorf("Last-Modified %q, want %q", r.header.Get("Last-Modified"), lm)
			}
			if r.status == 304 && (len(r.body) != 0 || r.header.Get("Last-Modified") != "" || r.header.Get("Content-Type") != "") {
				t.Errorf("304 with %d body bytes, Last-Modified %q, Content-Type %q; want none (RFC 9110 §15.4.5)",
					len(r.body), r.header.Get("Last-Modified"), r.header.Get("Content-Type"))
			}
		})
	}

	t.Run("* does not make a missing page 304", func(t *testing.T) {
		if r := web.get(t, "/no/such/page.html", "If-None-Match", "*"); r.status != 404 {
			t.Fatalf("status %d, want 404", r.status)
		}
	})

	t.Run("the ETag of week 0 no longer matches once the page changed", func(t *testing.T) {
		url := a.Changed(1)[0]
		p0, _ := a.Lookup(url, 0)
		web.setWeek(t, 1)
		if r := web.get(t, url, "If-None-Match", `"`+p0.Hash+`"`); r.status != 200 {
			t.Fatalf("status %d, want 200 with the new body", r.status)
		}
	})
}

func TestNotModified(t *testing.T) {
	const etag = `"abc"`
	lastMod := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	lm := lastMod.Format(http.TimeFormat)
	cases := []struct {
		name   string
		header http.Header
		want   bool
	}{
		{"an empty If-None-Match counts as absent", http.Header{"If-None-Match": {"  "}, "If-Modified-Since": {lm}}, true},
		{"two If-Modified-Since lines are ignored", http.Header{"If-Modified-Since": {lm, lm}}, false},
		{"a malformed list member stops parsing", http.Header{"If-None-Match": {`"x" junk, "abc"`}}, false},
		{"an unterminated tag does not match", http.Header{"If-None-Match": {`"abc`}}, false},
		{"a tag with a space inside does not match", http.Header{"If-None-Match": {`"a c"`}}, false},
		{"leading commas and tabs are skipped", http.Header{"If-None-Match": {",\t, \"abc\""}}, true},
		{"a strong tag matches a weak one", http.Header{"If-None-Match": {`W/"abc"`}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := notModified(tc.header, etag, lastMod, lm); got != tc.want {
				t.Fatalf("notModified = %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzETagList(f *testing.F) {
	for _, s := range []string{`"abc"`, `W/"abc", "d"`, `*`, `,,"`, `W/`, `"abc`, "\"\x80\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		// A match can only come from the tag itself or from "*".
		if etagListMatches([]string{v}, `"abc"`) && !strings.Contains(v, `"abc"`) && !strings.Contains(v, "*") {
			t.Fatalf("%q matches \"abc\"", v)
		}
		if tag, rest, ok := scanETag(v); ok && (len(tag) < 2 || tag[len(tag)-1] != '"' || tag+rest != v) {
			t.Fatalf("scanETag(%q) = %q, %q", v, tag, rest)
		}
	})
}
