package crawler

import (
	"strings"
	"testing"
)

func TestSniffXML(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want bool
	}{
		{"declaration", `<?xml version="1.0"?><rss/>`, true},
		{"white space and BOM", "\xef\xbb\xbf \r\n\t<rss version=\"2.0\"></rss>", true},
		{"UTF-16 LE", "\xff\xfe<\x00?\x00x\x00m\x00l\x00", true},
		{"UTF-16 BE", "\xfe\xff\x00<\x00f\x00e\x00e\x00d", true},
		{"comment first", `<!-- generated --><feed xmlns="http://www.w3.org/2005/Atom"/>`, true},
		{"element", `<feed xmlns="http://www.w3.org/2005/Atom"/>`, true},
		{"HTML doctype", `<!DOCTYPE html><html></html>`, false},
		{"HTML element", `<HTML><body></body></HTML>`, false},
		{"JSON", `{"items": []}`, false},
		{"text", `hello <rss>`, false},
		{"empty", ``, false},
		{"a lone <", `<`, false},
		{"not a name", `< rss>`, false},
	} {
		if got := sniffXML([]byte(tc.body)); got != tc.want {
			t.Errorf("%s: sniffXML(%q) = %v, want %v", tc.name, tc.body, got, tc.want)
		}
	}
}

func TestRefusedTypeIsBounded(t *testing.T) {
	if got := refusedType(" text/plain; charset=utf-8 "); got != "text/plain; charset=utf-8" {
		t.Errorf("refusedType = %q", got)
	}
	long := "text/plain; x=" + strings.Repeat("é", 200)
	got := refusedType(long)
	if len(got) > maxRefusedType+len("…") || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "text/plain; x=é") {
		t.Errorf("refusedType of %d bytes = %q (%d bytes), want at most %d bytes and a mark", len(long), got, len(got), maxRefusedType)
	}
	if got := refusedType("a\xffb"); got != "a\uFFFDb" {
		t.Errorf("refusedType of invalid UTF-8 = %q", got)
	}
}
