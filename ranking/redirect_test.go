package ranking

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func newSigner(t testing.TB) *Signer {
	t.Helper()
	s, err := NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var validClick = Click{Target: "https://a.test/page?x=1", Query: "go pebble", Rank: 3, User: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}

func rawQuery(link string) string {
	_, q, _ := strings.Cut(link, "?")
	return q
}

func TestSignedLinkVerifies(t *testing.T) {
	s := newSigner(t)
	link := s.Link(validClick)
	if !strings.HasPrefix(link, RedirectPath+"?") {
		t.Fatalf("link %q is not under %s", link, RedirectPath)
	}
	got, err := s.Verify(rawQuery(link))
	if err != nil || got != validClick {
		t.Fatalf("Verify = %+v, %v; want %+v", got, err, validClick)
	}
}

func TestTamperedLinksFail(t *testing.T) {
	s := newSigner(t)
	other, err := NewSigner([]byte("another secret, also 32 bytes long!"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := url.ParseQuery(rawQuery(s.Link(validClick)))
	if err != nil {
		t.Fatal(err)
	}
	with := func(k, v string) string {
		q := url.Values{}
		for kk, vv := range good {
			q[kk] = append([]string(nil), vv...)
		}
		q.Set(k, v)
		return q.Encode()
	}
	for _, c := range []struct {
		name string
		raw  string
		want error
	}{
		{"a changed target", with("u", "https://evil.test/"), ErrBadSignature},
		{"a changed query", with("q", "go bleve"), ErrBadSignature},
		{"a changed rank", with("n", "1"), ErrBadSignature},
		{"a changed user", with("id", "ZYXWVUTSRQPONMLKJIHGFEDCBA"), ErrBadSignature},
		{"a changed signature", with("s", "AAAA"), ErrBadSignature},
		{"a link signed with another secret", rawQuery(other.Link(validClick)), ErrBadSignature},
		{"a foreign parameter", good.Encode() + "&next=https://evil.test/", ErrBadLink},
		{"a repeated parameter", good.Encode() + "&u=https://evil.test/", ErrBadLink},
		{"a missing signature", func() string { q := with("s", ""); v, _ := url.ParseQuery(q); v.Del("s"); return v.Encode() }(), ErrBadLink},
		{"a non-numeric rank", with("n", "x"), ErrBadLink},
		{"a javascript target", with("u", "javascript:alert(1)"), ErrBadLink},
		{"a relative target", with("u", "//evil.test/"), ErrBadLink},
		{"a malformed query string", "u=%zz", ErrBadLink},
	} {
		t.Run(c.name+" is rejected", func(t *testing.T) {
			if _, err := s.Verify(c.raw); !errors.Is(err, c.want) {
				t.Fatalf("Verify = %v, want %v", err, c.want)
			}
		})
	}
}

func FuzzVerify(f *testing.F) {
	s, err := NewSigner(testSecret)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(rawQuery(s.Link(validClick)))
	f.Add("u=https://a.test/&q=x&n=1&id=u&s=")
	f.Add("%")
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := s.Verify(raw)
		if err != nil {
			return
		}
		// Whatever verifies must be exactly what the signer would produce.
		if again, err := s.Verify(rawQuery(s.Link(c))); err != nil || again != c {
			t.Fatalf("verified %+v does not round-trip: %v", c, err)
		}
	})
}

// TestLinkIsValuesEncoding checks the link against the form url.Values
// gives it and the signature against HMAC-SHA256 computed from scratch.
func TestLinkIsValuesEncoding(t *testing.T) {
	s := newSigner(t)
	for _, c := range []Click{
		validClick,
		{Target: "http://b.test/a b?c=d&e=f#g", Query: `"plain language" -draft site:b.test é+%`, Rank: 200, User: "anonymous"},
		{Target: "https://c.test/", Query: "q", Rank: 1, User: "u=1&v"},
	} {
		rank := strconv.Itoa(c.Rank)
		var msg []byte
		for _, f := range []string{"click", c.Target, c.Query, rank, c.User} {
			msg = binary.AppendUvarint(msg, uint64(len(f)))
			msg = append(msg, f...)
		}
		m := hmac.New(sha256.New, testSecret)
		m.Write(msg)
		want := RedirectPath + "?" + url.Values{
			"u": {c.Target}, "q": {c.Query}, "n": {rank}, "id": {c.User},
			"s": {base64.RawURLEncoding.EncodeToString(m.Sum(nil))},
		}.Encode()
		if got := s.Link(c); got != want {
			t.Errorf("Link(%+v)\n got %s\nwant %s", c, got, want)
		}
	}
}

// TestAppendQueryEscapeIsQueryEscape checks the click links' escaping
// against url.QueryEscape on every byte, and on text mixing reserved
// characters, spaces, non-ASCII and invalid UTF-8.
func TestAppendQueryEscapeIsQueryEscape(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for _, s := range []string{
		"", string(all), "plain", "a b+c&d=e?f#g/h:i;j@k$l,m", "~-_.*'()!", "100% é ü 日本 \u2028",
		"\xff\xfe bad utf-8 \xc3", "\x00\x1f\x7f", "http://b.test/a b?c=d&e=f#g",
	} {
		got := string(appendQueryEscape([]byte("prefix"), s))
		if want := "prefix" + url.QueryEscape(s); got != want {
			t.Errorf("appendQueryEscape(%q)\n got %q\nwant %q", s, got, want)
		}
	}
}

// TestVerifyBoundsTheQueryAndWhatItEchoes: a query string longer than any
// link Link writes is refused by its length alone, naming the limit, and
// no refusal repeats more than an excerpt of a parameter's name or value,
// however long the one given.
func TestVerifyBoundsTheQueryAndWhatItEchoes(t *testing.T) {
	s := newSigner(t)
	t.Run("the longest link Link writes verifies", func(t *testing.T) {
		if n := len(strconv.Itoa(MaxCandidates)); n != maxRankDigits {
			t.Fatalf("MaxCandidates has %d digits, maxRankDigits says %d", n, maxRankDigits)
		}
		c := Click{
			Target: "https://a.test/" + strings.Repeat("/", MaxURLLen-len("https://a.test/")),
			Query:  strings.Repeat("é", MaxQueryLen/2),
			Rank:   MaxCandidates,
			User:   strings.Repeat("/", MaxUserIDLen),
		}
		raw := rawQuery(s.Link(c))
		if len(raw) > MaxLinkQueryLen {
			t.Fatalf("a link of %d bytes, over MaxLinkQueryLen = %d", len(raw), MaxLinkQueryLen)
		}
		if got, err := s.Verify(raw); err != nil || got != c {
			t.Fatalf("Verify = %v, want the click back", err)
		}
	})
	limit := fmt.Sprintf("at most %d bytes", MaxLinkQueryLen)
	long := strings.Repeat("a", 20000)
	good := rawQuery(s.Link(validClick))
	for _, tc := range []struct {
		name, raw           string
		field, value, limit string
	}{
		{"a query of 60,000 bytes", strings.Repeat("a", 60000), "query", "(60000 bytes)", limit},
		{"a query one byte over the limit", good + "&x=" + strings.Repeat("a", MaxLinkQueryLen-len(good)-2), "query", fmt.Sprintf("(%d bytes)", MaxLinkQueryLen+1), limit},
		{"a parameter name of 20,000 bytes", long, strings.Repeat("a", maxExcerpt) + "…", "", "not a parameter of a click link (u, q, n, id, s)"},
		{"a repeated parameter of 20,000 bytes", good + "&n=" + long, "n", "3, " + strings.Repeat("a", maxExcerpt-3) + "…", "given 2 times: once"},
		{"a rank of 20,000 digits", strings.Replace(good, "n=3", "n="+strings.Repeat("9", 20000), 1), "n", strings.Repeat("9", maxExcerpt) + "…", fmt.Sprintf("an integer in [1, %d]", MaxCandidates)},
		{"a target of 4,000 bytes that is not http", strings.Replace(good, "u=https", "u=ftp"+strings.Repeat("x", 4000), 1), "u", "ftp" + strings.Repeat("x", maxExcerpt-3) + "…", "an absolute http(s) URL"},
	} {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			_, err := s.Verify(tc.raw)
			var bad *BadLinkError
			if !errors.As(err, &bad) || bad.Field != tc.field || bad.Value != tc.value || bad.Limit != tc.limit {
				t.Fatalf("Verify = %.300v, want %s = %s: %s", err, tc.field, tc.value, tc.limit)
			}
			if n := len(err.Error()); n > 400 {
				t.Fatalf("the error has %d bytes, want a short excerpt of what was given", n)
			}
		})
	}
}
